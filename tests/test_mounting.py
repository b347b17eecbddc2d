"""Rack mounting: U occupancy front and rear, side channels, depth and weight findings."""

from __future__ import annotations

from pathlib import Path

import pytest

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.model import Plan
from rackplanner.core.rack.mounting import placement_problem, rack_layout
from tests.conftest import EXAMPLES
from tests.rackfixtures import build_catalog


@pytest.fixture
def cat(tmp_path: Path) -> Catalog:
    return build_catalog(tmp_path / "cat")


def _rack(cat: Catalog, part: str = "test-rack-light") -> Plan:
    return edits.add_rack(Plan(name="p"), name="R1", part=part, catalog=cat).plan


def _mount(plan: Plan, cat: Catalog, name: str, part: str, u: int, face: str = "front") -> Plan:
    return edits.mount_device(plan, rack="r1", name=name, part=part, position_u=u, face=face, catalog=cat).plan  # type: ignore[arg-type]


def codes(plan: Plan, cat: Catalog) -> list[str]:
    return [f.code for f in rack_layout(plan, "r1", cat).findings]


def test_colo_example_occupancy(catalog: Catalog) -> None:
    plan = load_plan(EXAMPLES / "colo-rack.json", catalog)
    layout = rack_layout(plan, "rack-1", catalog)
    # Four 4U servers at U1, U5, U9, U13 and two 1U switches at U41-42: 18 U of 42.
    assert layout.used_u == 18
    assert layout.free_u == 24
    assert layout.utilisation_percent == pytest.approx(18 / 42 * 100)
    assert layout.positions[0].front == "gpu-1" and layout.positions[0].rear == "gpu-1"
    assert layout.positions[16].front is None
    assert not [f for f in layout.findings if f.severity == "error"]


def test_full_depth_devices_collide(cat: Catalog) -> None:
    plan = _mount(_rack(cat), cat, "A", "test-load-2kva", 1)  # U1-U2, full depth
    plan = _mount(plan, cat, "B", "test-load-2kva", 2)  # U2-U3
    layout = rack_layout(plan, "r1", cat)
    collisions = [f for f in layout.findings if f.code == "collision"]
    assert len(collisions) == 1
    assert "U2" in collisions[0].message


def test_half_depth_devices_share_a_u_back_to_back(cat: Catalog) -> None:
    plan = _mount(_rack(cat), cat, "Front panel", "test-half-depth", 5, "front")
    plan = _mount(plan, cat, "Rear panel", "test-half-depth", 5, "rear")
    assert "collision" not in codes(plan, cat)
    # A full-depth device on that U collides with both.
    plan = _mount(plan, cat, "Server", "test-load-2kva", 4)
    assert codes(plan, cat).count("collision") == 2


def test_over_height_too_deep_and_overweight(cat: Catalog) -> None:
    plan = _mount(_rack(cat), cat, "Top", "test-load-2kva", 12)  # U12-U13 in a 12U rack
    assert "over-height" in codes(plan, cat)
    plan = _mount(_rack(cat), cat, "Deep", "test-deep", 1)  # 1300 mm in a 1000 mm rack
    deep = [f for f in rack_layout(plan, "r1", cat).findings if f.code == "too-deep"]
    assert deep and "1300 mm" in deep[0].message and "1000 mm" in deep[0].message
    plan = _mount(plan, cat, "Load", "test-load-2kva", 4)
    # 40 kg + 30 kg = 70 kg on a rack rated 50 kg (tests/rackfixtures.py).
    layout = rack_layout(plan, "r1", cat)
    assert layout.equipment_weight_kg == pytest.approx(70)
    over = [f for f in layout.findings if f.code == "overweight"]
    assert over and "70 kg" in over[0].message and "50 kg" in over[0].message


def test_side_channels(catalog: Catalog) -> None:
    plan = edits.add_rack(Plan(name="p"), name="R1", part="apc-ar3300", catalog=catalog).plan
    for n in range(2):
        plan = edits.mount_device(
            plan, rack="r1", name=f"PDU {n}", part="apc-ap8881", side="left", catalog=catalog
        ).plan
    # The AR3300 has two 0U channels, one per side: two PDUs on the left do not fit.
    assert "side-channel-full" in codes(plan, catalog)


def test_placement_problem_for_drop_targets(cat: Catalog) -> None:
    plan = _mount(_rack(cat), cat, "A", "test-load-2kva", 3)
    layout = rack_layout(plan, "r1", cat)
    assert placement_problem(layout, height_u=2, is_full_depth=True, position_u=1) is None
    assert "U3" in (placement_problem(layout, height_u=2, is_full_depth=True, position_u=2) or "")
    assert "12U" in (placement_problem(layout, height_u=2, is_full_depth=True, position_u=12) or "")
    # Moving A itself onto its own U is fine.
    assert placement_problem(layout, height_u=2, is_full_depth=True, position_u=4, ignore_device="a") is None


def test_device_figures_on_the_colo_rack_labels(catalog: Catalog) -> None:
    from rackplanner.core.machine.power import machine_power
    from rackplanner.core.rack.mounting import device_figure

    plan = load_plan(EXAMPLES / "colo-rack.json", catalog)
    rack = plan.racks[0]
    figure = {d.id: device_figure(plan, d, catalog, 1) for d in rack.devices}
    # resources/examples/colo-rack.json: each server holds four A100 80GB PCIe; its kW is the
    # power core's wall figure, so the label and the power dock agree.
    server = plan.machine("gpu-1")
    assert server is not None
    assert figure["gpu-1"] == f"4 GPUs · {machine_power(server, catalog).wall_max_w / 1000:.2f} kW"
    # APC AP8886: 400 V 32 A input (catalog/pdu.yaml, APC spec sheet), on the plan's feed A.
    assert figure["pdu-a"] == "400 V 32 A · feed-a"
    # Mellanox QM8700: 40 HDR ports of 200 Gb/s (catalog/switch.yaml, NVIDIA datasheet).
    assert figure["hdr-leaf"] == "40x200G"
