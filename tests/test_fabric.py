"""Network ports by network, switch port matching, and leaf/spine sizing."""

from __future__ import annotations

import pytest

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan
from rackplanner.core.rack.fabric import rack_network, row_fabric, size_leaf_spine
from tests.conftest import EXAMPLES


def test_leaf_spine_known_answer() -> None:
    # 002_daeb2f0cc80a7fe9.txt: 216 ports on 36-port spine switches need 216 / 36 = 6 spines.
    size = size_leaf_spine(216, 36)
    assert size.spines == 6
    # Non-blocking: each leaf uses half its ports down and half up, so 216 / 18 = 12 leaves.
    assert (size.leaves, size.downlinks_per_leaf, size.uplinks_per_leaf) == (12, 18, 18)
    assert size.leaf_spine_cables == 216


def test_one_switch_is_enough_for_a_small_fabric() -> None:
    # A 40-port HDR leaf (QM8700) takes 40 endpoints with no spine.
    size = size_leaf_spine(40, 40)
    assert (size.leaves, size.spines) == (1, 0)
    # 41 endpoints: 41 / 20 -> 3 leaves, 60 uplinks -> 2 spines of 40 ports.
    size = size_leaf_spine(41, 40)
    assert (size.leaves, size.spines) == (3, 2)
    with pytest.raises(ValueError):
        size_leaf_spine(10, 1)


def test_colo_example_ports_and_cables(catalog: Catalog) -> None:
    plan = load_plan(EXAMPLES / "colo-rack.json", catalog)
    network = rack_network(plan, "rack-1", catalog)
    # Each server: one ConnectX-6 HDR port (compute) and its BMC (out-of-band).
    assert network.ports_needed("compute") == 4
    assert network.ports_needed("oob") == 4
    hdr = next(p for p in network.switch_ports if p.part == "mellanox-qm8700")
    assert (hdr.used, hdr.free) == (4, 36)  # QM8700: 40 HDR ports (catalog/switch.yaml)
    rj45 = next(p for p in network.switch_ports if p.part == "nvidia-sn2201" and p.speed_gbps == 1)
    assert (rj45.used, rj45.free) == (4, 44)  # SN2201: 48 x 1GbE
    cables = {c.cable: 0 for c in network.cables}
    for cable in network.cables:
        cables[cable.cable] += cable.count
    assert cables == {"200G IB QSFP56 DAC": 4, "1GbE RJ45 Cat6": 4}
    assert not network.findings


def test_missing_switch_is_a_finding(catalog: Catalog) -> None:
    plan = load_plan(EXAMPLES / "colo-rack.json", catalog)
    plan = edits.unmount_device(plan, rack="rack-1", device="hdr-leaf").plan
    network = rack_network(plan, "rack-1", catalog)
    missing = [f for f in network.findings if f.code == "no-switch-port"]
    assert len(missing) == 4 and "200 Gb/s" in missing[0].message


def test_row_fabric_sizes_from_the_rows_switch(catalog: Catalog) -> None:
    plan = load_plan(EXAMPLES / "colo-rack.json", catalog)
    fabric = row_fabric(plan, "row-1", catalog)
    assert fabric.endpoints == 4
    assert fabric.size is not None and fabric.size.spines == 0
    assert fabric.cables == {"200G IB QSFP56 DAC (node to leaf)": 4}


def test_a_cage_port_never_lands_on_an_rj45_port(catalog: Catalog) -> None:
    plan = load_plan(EXAMPLES / "colo-rack.json", catalog)
    # A dual-port 100 GbE ConnectX-5 (QSFP28, catalog/nic.yaml) in each of the four servers: eight
    # in-band ports. The rack's SN2201 has 4 x 100 GbE QSFP28 and 48 x 1 GbE RJ45 (catalog/switch.yaml).
    for machine in plan.machines:
        plan = edits.place_card(
            plan, machine=machine.id, slot="gpu5", part="connectx-5-mcx516a-ccat", catalog=catalog
        ).plan
    network = rack_network(plan, "rack-1", catalog)
    in_band = [c for c in network.cables if c.network == "in-band"]
    assert sum(c.count for c in in_band) == 4 and all("QSFP28" in c.cable for c in in_band)
    missing = [f for f in network.findings if f.code == "no-switch-port"]
    # The other four have no QSFP port left; an RJ45 port is no answer (it used to take them at 1 Gb/s).
    assert sum(int(f.message.split(" needs ")[1].split()[0]) for f in missing) == 4


def test_a_row_too_big_for_two_tiers_gets_a_core_tier() -> None:
    # 1,000 ports on 40-port QM8700 (catalog/switch.yaml): two tiers hold 40 leaves x 20 down = 800, so a
    # spine cannot reach 50 leaves; pods of 20 leaves, 20 spines each, meet at 30 cores of 40 ports.
    size = size_leaf_spine(1000, 40)
    assert (size.leaves, size.spines, size.cores) == (50, 60, 30)
    assert size.leaf_spine_cables == 50 * 20 and size.spine_core_cables == 60 * 20
    with pytest.raises(ValueError, match="more than three tiers"):
        size_leaf_spine(10_000, 8)  # three tiers of 8-port switches hold 8 x 4 x 4 = 128
