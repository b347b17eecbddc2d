"""Plan files of every schema version in tests/data/plans load into today's plan.

``v1-*.json`` are the example plans as version 1 saved them (rows as free text) and a small
plan with named rows; ``v2-*.json`` are the same plans in version 2 (rows as entries of
``rows``, racks naming them by id); ``v3-*.json`` in version 3 (machines with ``host`` settings);
``v4-*.json`` in version 4 (``user_prices`` with date and note instead of ``price_overrides_usd``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan.files import PlanFileError, load_plan, plan_from_data, plan_to_json, save_plan
from rackplanner.core.plan.model import SCHEMA_VERSION, HostSettings
from rackplanner.core.plan.summary import summarize
from rackplanner.core.rack.fabric import device_demands, row_fabric

PLANS = Path(__file__).parent / "data" / "plans"


def fixtures(version: int) -> list[Path]:
    return sorted(PLANS.glob(f"v{version}-*.json"))


def raw(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_every_schema_version_has_fixtures() -> None:
    found = {int(m.group(1)) for p in PLANS.glob("v*.json") if (m := re.match(r"v(\d+)-", p.name))}
    assert found == set(range(1, SCHEMA_VERSION + 1))
    for version in found:
        for path in fixtures(version):
            assert raw(path)["schema_version"] == version, path.name


def test_v1_two_rows_become_row_entries(catalog: Catalog) -> None:
    plan = load_plan(PLANS / "v1-two-rows.json", catalog)
    assert plan.schema_version == SCHEMA_VERSION
    # Distinct row texts in order of first use; "Row 8" and "row 8" slug alike and get -2;
    # rack r5 had no row, which version 1 read as "row-1".
    assert [(r.id, r.name) for r in plan.rows] == [
        ("hall-b-row-7", "Hall B / Row 7"),
        ("row-8", "Row 8"),
        ("row-8-2", "row 8"),
        ("row-1", "row-1"),
    ]
    assert [(r.id, r.row) for r in plan.racks] == [
        ("r1", "hall-b-row-7"),
        ("r2", "row-8"),
        ("r3", "hall-b-row-7"),
        ("r4", "row-8-2"),
        ("r5", "row-1"),
    ]
    assert [(r.name, r.part) for r in plan.racks] == [(f"Rack {n}", "apc-ar3300") for n in range(1, 6)]
    assert plan.name == "Two rows, v1"


def _without_v2_fields(data: Any) -> Any:
    """A plan document with what version 2 added taken out, and each rack's row as a row name."""
    if not isinstance(data, dict):
        return data
    rows = {r["id"]: r["name"] for r in data.get("rows", [])}
    out = {k: v for k, v in data.items() if k not in ("rows", "schema_version")}
    # Version 4: a bare price per part became a user price.
    prices = out.pop("user_prices", None)
    if prices is not None:
        out["price_overrides_usd"] = {part: price["price_usd"] for part, price in prices.items()}
    for machine in out.get("machines", []):
        machine.pop("host", None)  # version 3
        for card in machine.get("cards", []):
            card.pop("network", None)
    for rack in out.get("racks", []):
        rack["row"] = rows.get(rack["row"], rack["row"])
    return out


@pytest.mark.parametrize("v1", fixtures(1), ids=lambda p: p.name)
def test_v1_files_keep_everything_else(v1: Path, catalog: Catalog) -> None:
    plan = load_plan(v1, catalog)
    before = raw(v1)
    for rack in before.get("racks", []):
        rack.setdefault("row", "row-1")
    after = json.loads(plan_to_json(plan))
    assert after["schema_version"] == SCHEMA_VERSION
    assert all(c["network"] is None for m in after["machines"] for c in m["cards"])
    # Every rack's row names a row whose name is the version 1 text; nothing else moved.
    assert _without_v2_fields(after) == _without_v2_fields(before)


@pytest.mark.parametrize("v1", fixtures(1), ids=lambda p: p.name)
def test_v1_migrates_to_the_stored_v2_file(v1: Path, catalog: Catalog) -> None:
    v2 = PLANS / v1.name.replace("v1-", "v2-", 1)
    migrated = load_plan(v1, catalog)
    stored = load_plan(v2, catalog)
    assert plan_to_json(migrated.model_copy(update={"name": stored.name})) == plan_to_json(stored)


@pytest.mark.parametrize("v2", fixtures(2), ids=lambda p: p.name)
def test_v2_migrates_to_the_stored_v3_file(v2: Path, catalog: Catalog) -> None:
    migrated = load_plan(v2, catalog)
    stored = load_plan(PLANS / v2.name.replace("v2-", "v3-", 1), catalog)
    assert plan_to_json(migrated) == plan_to_json(stored)
    # Version 2 said nothing of BIOS settings: every machine gets the defaults (NPS1, SMT on, ACS off).
    before = raw(v2)
    after = json.loads(plan_to_json(migrated))
    assert [m["host"] for m in after["machines"]] == [HostSettings().model_dump()] * len(before["machines"])
    for machine in after["machines"]:
        machine.pop("host")
    assert {k: v for k, v in after.items() if k not in ("schema_version", "user_prices")} == {
        k: v for k, v in before.items() if k not in ("schema_version", "price_overrides_usd")
    }


@pytest.mark.parametrize("v3", fixtures(3), ids=lambda p: p.name)
def test_v3_migrates_to_the_stored_v4_file(v3: Path, catalog: Catalog) -> None:
    migrated = load_plan(v3, catalog)
    stored = load_plan(PLANS / v3.name.replace("v3-", "v4-", 1), catalog)
    assert plan_to_json(migrated) == plan_to_json(stored)


def test_v3_prices_become_user_prices(catalog: Catalog) -> None:
    data = raw(PLANS / "v3-home-rig-2x3090.json")
    data["price_overrides_usd"] = {"rtx-3090": 750.0}
    plan = plan_from_data(data, origin="v3-home-rig-2x3090.json")
    # Version 3 kept a bare number per part: version 4 keeps it with no date or note.
    assert {k: (v.price_usd, v.price_date, v.note) for k, v in plan.user_prices.items()} == {
        "rtx-3090": (750.0, None, "")
    }


@pytest.mark.parametrize("v4", fixtures(4), ids=lambda p: p.name)
def test_v4_files_load_and_round_trip(v4: Path, catalog: Catalog, tmp_path: Path) -> None:
    plan = load_plan(v4, catalog)
    copy = tmp_path / v4.name
    save_plan(plan, copy)
    assert copy.read_bytes() == v4.read_bytes()
    row_ids = {r.id for r in plan.rows}
    assert all(rack.row in row_ids for rack in plan.racks)


def test_colo_example_row(catalog: Catalog) -> None:
    plan = load_plan(PLANS / "v4-colo-rack.json", catalog)
    assert [(r.id, r.name) for r in plan.rows] == [("row-1", "row-1")]
    assert [r.row for r in plan.racks] == ["row-1"]


def test_newer_version_is_refused(tmp_path: Path) -> None:
    data = raw(PLANS / f"v{SCHEMA_VERSION}-colo-rack.json")
    data["schema_version"] = SCHEMA_VERSION + 1
    path = tmp_path / "future.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    newer = SCHEMA_VERSION + 1
    with pytest.raises(PlanFileError, match=rf"^{re.escape(str(path))}: schema_version: the file is version {newer}, "):
        load_plan(path)


def test_v1_row_that_is_not_text_is_named(tmp_path: Path) -> None:
    data = raw(PLANS / "v1-two-rows.json")
    data["racks"][1]["row"] = 8
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(PlanFileError) as err:
        load_plan(path)
    assert str(err.value).startswith(f"{path}: racks[1].row: Input should be a valid string")


def test_v2_rack_in_a_missing_row_is_refused(tmp_path: Path) -> None:
    data = raw(PLANS / "v2-two-rows.json")
    data["racks"][0]["row"] = "row-99"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(PlanFileError, match=r"rack r1: row 'row-99' is not in the plan's rows"):
        load_plan(path)


def test_v2_duplicate_row_ids_are_refused(tmp_path: Path) -> None:
    data = raw(PLANS / "v2-two-rows.json")
    data["rows"].append(dict(data["rows"][0]))
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(PlanFileError, match=r"row id 'hall-b-row-7' is used twice"):
        load_plan(path)


def test_network_role_of_a_card_overrides_the_inference(catalog: Catalog) -> None:
    """Version 2 lets a NIC say which network it serves; the fabric counts it there."""
    plan = load_plan(PLANS / "v3-colo-rack.json", catalog)
    # Each of the four servers has one ConnectX-6 HDR port (catalog/nic.yaml), inferred as compute.
    assert row_fabric(plan, "row-1", catalog).endpoints == 4
    machine = plan.machines[0]
    cards = [c.model_copy(update={"network": "storage"}) if c.slot == "cpu1-x8" else c for c in machine.cards]
    storage = plan.model_copy(update={"machines": [machine.model_copy(update={"cards": cards}), *plan.machines[1:]]})
    device = storage.racks[0].devices[0]
    assert device.machine == machine.id
    demands = {(d.network, d.count, d.speed_gbps) for d in device_demands(device, storage, catalog)}
    assert demands == {("storage", 1, 200.0), ("oob", 1, 1.0)}
    assert row_fabric(storage, "row-1", catalog).endpoints == 3
    # The role survives a save and load.
    assert plan_from_data(json.loads(plan_to_json(storage))).machines[0].cards[-1].network == "storage"


def test_summary_names_each_racks_row(catalog: Catalog) -> None:
    summary = summarize(load_plan(PLANS / "v1-two-rows.json", catalog), catalog)
    assert [(r.id, r.row, r.row_name) for r in summary.racks] == [
        ("r1", "hall-b-row-7", "Hall B / Row 7"),
        ("r2", "row-8", "Row 8"),
        ("r3", "hall-b-row-7", "Hall B / Row 7"),
        ("r4", "row-8-2", "row 8"),
        ("r5", "row-1", "row-1"),
    ]
