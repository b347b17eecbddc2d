"""Rack power: cord assignment, per-line and per-breaker loads in normal and failover operation."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pytest
import yaml

from rackplanner.core.catalog.loading import Catalog, load_catalog
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan
from rackplanner.core.rack.power import rack_power
from tests.conftest import EXAMPLES
from tests.rackfixtures import build_catalog, mount_loads, rack_with_pdus

V_LN_400 = 400 / math.sqrt(3)  # 230.9 V line-to-neutral on a 400 V wye feed


@pytest.fixture
def cat(tmp_path: Path) -> Catalog:
    return build_catalog(tmp_path / "cat")


def test_cords_alternate_feeds_and_spread_over_lines(cat: Catalog) -> None:
    # AP8881: 400 V wye 16 A, 12 C13 + 2 C19 per line (catalog/pdu.yaml).
    plan = mount_loads(rack_with_pdus(cat, "apc-ap8881", voltage_v=400, phases=3, breaker_a=16), cat, 3)
    power = rack_power(plan, "r1", cat)
    for cord in power.cords:
        assert cord.pdu == ("pdu-a" if cord.psu_index == 0 else "pdu-b")
    # Three 2-cord loads: one cord of each on each line of each PDU.
    assert sorted(c.line for c in power.cords if c.pdu == "pdu-a") == ["L1", "L2", "L3"]
    normal = power.pdu_load("normal", "pdu-a")
    # Each cord carries half of 2000 VA: 1000 VA / 230.9 V = 4.33 A per line.
    assert [line.current_a for line in normal.lines] == pytest.approx([1000 / V_LN_400] * 3)
    assert normal.imbalance_percent == pytest.approx(0)
    assert normal.neutral_a == pytest.approx(0, abs=1e-9)
    failed = power.pdu_load("feed-a-failed", "pdu-b")
    assert [line.current_a for line in failed.lines] == pytest.approx([2000 / V_LN_400] * 3)
    assert not power.findings or all(f.severity != "error" for f in power.findings)
    assert power.load_w == pytest.approx(3 * 1900)
    assert power.heat_btu_hr == pytest.approx(3 * 1900 * 3.412)


def test_feed_a_failure_overloads_b(cat: Catalog) -> None:
    plan = mount_loads(rack_with_pdus(cat, "apc-ap8881", voltage_v=400, phases=3, breaker_a=16), cat, 5)
    power = rack_power(plan, "r1", cat)
    normal = power.pdu_load("normal", "pdu-b")
    # Five cords over three lines: 2, 2, 1 cords of 1000 VA -> 8.66, 8.66, 4.33 A, under
    # the 16 A x 0.8 = 12.8 A derated limit.
    assert sorted(line.current_a for line in normal.lines) == pytest.approx(
        sorted([2000 / V_LN_400, 2000 / V_LN_400, 1000 / V_LN_400])
    )
    assert all(line.limit_a == pytest.approx(12.8) for line in normal.lines)
    failed = power.pdu_load("feed-a-failed", "pdu-b")
    # With feed A down each surviving cord carries 2000 VA: two lines at 17.3 A > 12.8 A.
    assert sorted(line.current_a for line in failed.lines)[-1] == pytest.approx(4000 / V_LN_400)
    errors = [f for f in power.findings if f.code == "line-over-limit"]
    assert {f.scenario for f in errors} == {"feed-a-failed", "feed-b-failed"}
    assert len([f for f in errors if f.scenario == "feed-a-failed"]) == 2
    assert "17.3 A" in errors[0].message and "12.8 A" in errors[0].message
    assert not power.pdu_load("feed-a-failed", "pdu-a").alive


def test_delta_pdu_with_unequal_branches(cat: Catalog) -> None:
    # AP8965: 208 V delta, groups leg-a = L1-L2, leg-b = L2-L3, leg-c = L3-L1 (catalog/pdu.yaml).
    plan = rack_with_pdus(cat, "apc-ap8965", voltage_v=208, phases=3, breaker_a=30)
    plan = mount_loads(plan, cat, 6, part="test-single-cord")
    # Six single-cord loads of 1000 W (1052.6 VA, 5.06 A at 208 V): by hand, 3 on L1-L2,
    # 2 on L2-L3, 1 on L3-L1 of PDU A.
    groups = ["leg-a", "leg-a", "leg-a", "leg-b", "leg-b", "leg-c"]
    for n, group in enumerate(groups):
        plan = edits.set_outlet_assignment(
            plan, rack="r1", device=f"load-{n + 1}", psu_index=0, pdu="pdu-a", outlet_group=group, catalog=cat
        ).plan
    power = rack_power(plan, "r1", cat)
    assert all(c.manual and c.pdu == "pdu-a" for c in power.cords)
    amps = 1000 / 0.95 / 208
    ab, bc, ca = 3 * amps, 2 * amps, 1 * amps
    load = power.pdu_load("normal", "pdu-a")
    by_line = {line.line: line.current_a for line in load.lines}
    # Phasors 120 degrees apart: |I_L1|^2 = ab^2 + ca^2 + ab*ca, and so on round.
    assert by_line["L1"] == pytest.approx(math.sqrt(ab**2 + ca**2 + ab * ca))
    assert by_line["L2"] == pytest.approx(math.sqrt(bc**2 + ab**2 + bc * ab))
    assert by_line["L3"] == pytest.approx(math.sqrt(ca**2 + bc**2 + ca * bc))
    # Single-cord loads on one feed are not redundant.
    assert "not-redundant" not in {f.code for f in power.findings}
    assert load.limit_basis.endswith("24 A")  # 30 A x 0.8


def test_ap8966_usable_capacity(catalog: Catalog) -> None:
    plan = rack_with_pdus(catalog, "apc-ap8966", voltage_v=208, phases=3, breaker_a=60)
    load = rack_power(plan, "r1", catalog).pdu_load("normal", "pdu-a")
    # 002_daeb2f0cc80a7fe9.txt: 208 V 3-phase 60 A -> 48 A derated -> 17.3 kVA.
    assert load.usable_va == pytest.approx(17292.8, abs=0.1)
    assert all(line.limit_a == pytest.approx(48) for line in load.lines)
    # Its outlet layout is unknown, which is said rather than guessed.
    assert "pdu-outlets-unknown" in {f.code for f in rack_power(plan, "r1", catalog).findings}


def test_feed_breaker_smaller_than_pdu_limits_it(cat: Catalog) -> None:
    plan = mount_loads(rack_with_pdus(cat, "apc-ap8886", voltage_v=400, phases=3, breaker_a=16), cat, 1)
    load = rack_power(plan, "r1", cat).pdu_load("normal", "pdu-a")
    # AP8886 takes 32 A but the feed's breaker is 16 A: the line limit is 16 x 0.8 = 12.8 A.
    assert load.lines[0].limit_a == pytest.approx(12.8)
    assert "breaker" in load.limit_basis


def test_no_free_matching_outlet(cat: Catalog) -> None:
    # AP8965 has 21 C13 outlets (catalog/pdu.yaml). Single-cord loads go to the feed with
    # less load so far, so 21 of them split 11 / 10 and a two-cord load then adds one each.
    plan = rack_with_pdus(cat, "apc-ap8965", voltage_v=208, phases=3, breaker_a=30)
    plan = mount_loads(plan, cat, 21, part="test-single-cord")
    power = rack_power(plan, "r1", cat)
    assert len(power.cords) == 21
    plan = mount_loads(plan, cat, 1, part="test-load-2kva", first_u=43)  # out of the rack, but still a load
    assert "no-free-outlet" not in {f.code for f in rack_power(plan, "r1", cat).findings}
    used = {o.pdu: o.used for o in rack_power(plan, "r1", cat).outlets if o.outlet_type == "iec-60320-c13"}
    # Single-cord loads alternate between PDUs: 11 on A, 10 on B, then one cord each.
    assert used == {"pdu-a": 12, "pdu-b": 11}


def test_outlets_exhausted(cat: Catalog) -> None:
    plan = rack_with_pdus(cat, "apc-ap8965", voltage_v=208, phases=3, breaker_a=30)
    plan = mount_loads(plan, cat, 43, part="test-single-cord")
    # 2 x 21 = 42 C13 outlets for 43 cords: one finds no outlet.
    missing = [f for f in rack_power(plan, "r1", cat).findings if f.code == "no-free-outlet"]
    assert len(missing) == 1
    assert "C13" in missing[0].message


def test_colo_example_reports_every_scenario(catalog: Catalog) -> None:
    plan = load_plan(EXAMPLES / "colo-rack.json", catalog)
    power = rack_power(plan, "rack-1", catalog)
    assert [s.scenario for s in power.scenarios] == ["normal", "feed-a-failed", "feed-b-failed"]
    # Four servers with four PSUs each, two switches with two: 20 cords, half on each feed.
    assert len(power.cords) == 20
    assert sum(1 for c in power.cords if c.pdu == "pdu-a") == 10
    # AP8886: 10 C13 and 4 C19 per phase group (catalog/pdu.yaml); all 20 cords use C13s.
    c13 = [g for g in power.group_outlets if g.pdu == "pdu-a" and g.outlet_type == "iec-60320-c13"]
    assert [(g.outlet_group, g.total) for g in c13] == [("l1", 10), ("l2", 10), ("l3", 10)]
    assert sum(g.used for g in c13) == 10
    assert sum(g.free for g in c13) == 20


def test_only_the_touched_rack_recomputes(cat: Catalog) -> None:
    plan = mount_loads(rack_with_pdus(cat, "apc-ap8881", voltage_v=400, phases=3, breaker_a=16), cat, 2)
    plan = edits.add_rack(plan, name="R2", part="apc-ar3300", catalog=cat).plan
    first = rack_power(plan, "r1", cat)
    moved = edits.mount_device(plan, rack="r2", name="Other", part="test-load-2kva", position_u=1, catalog=cat).plan
    assert rack_power(moved, "r1", cat) is first


def test_plugging_a_pdu_into_the_other_feed(cat: Catalog) -> None:
    plan = mount_loads(rack_with_pdus(cat, "apc-ap8881", voltage_v=400, phases=3, breaker_a=16), cat, 2)
    # Both PDUs on feed A: every cord is on one feed, so losing it loses both loads.
    plan = edits.set_device_feed(plan, rack="r1", device="pdu-b", feed="feed-a").plan
    power = rack_power(plan, "r1", cat)
    assert {f.code for f in power.findings} >= {"single-feed"}
    assert set(power.scenario("feed-a-failed").unpowered) == {"load-1", "load-2"}
    with pytest.raises(edits.EditRefused):
        edits.set_device_feed(plan, rack="r1", device="pdu-b", feed="no-such-feed")


def test_cords_spread_over_breakers_on_one_line(tmp_path: Path) -> None:
    # A single-phase 230 V 32 A PDU with two 16 A breaker groups (a common layout); six 1 kW
    # single-cord loads, three per feed. Piled on one breaker they would draw
    # 3 x 1000 / 0.95 / 230 = 13.7 A, over 16 A x 0.8 = 12.8 A; spread 2 + 1 they stay under.
    folder = tmp_path / "cat"
    build_catalog(folder)
    pdu = {
        "id": "test-pdu-1ph-2-breakers",
        "vendor": "Test",
        "model": "1-phase PDU, two 16 A breakers",
        "source": ["test fixture"],
        "phases": 1,
        "wiring": "single",
        "voltage_v": 230,
        "input_current_a": 32,
        "inlet": "iec-60309-2p-e-6h",
        "metering": "metered",
        "outlet_groups": [
            {"id": "g1", "line": "L1", "breaker_a": 16, "outlets": {"iec-60320-c13": 12}},
            {"id": "g2", "line": "L1", "breaker_a": 16, "outlets": {"iec-60320-c13": 12}},
        ],
    }
    (folder / "pdu.yaml").write_text(yaml.safe_dump([pdu]), encoding="utf-8")
    cat = load_catalog([folder])
    plan = rack_with_pdus(cat, "test-pdu-1ph-2-breakers", voltage_v=230, phases=1, breaker_a=32)
    plan = mount_loads(plan, cat, 6, "test-single-cord")
    power = rack_power(plan, "r1", cat)
    per_group = Counter((c.pdu, c.outlet_group) for c in power.cords)
    assert sorted(per_group.values()) == [1, 1, 2, 2]
    assert "breaker-over-limit" not in {f.code for f in power.findings}
    worst = max(b.current_a for p in power.scenario("normal").pdus for b in p.breakers)
    assert worst == pytest.approx(2 * 1000 / 0.95 / 230)
