"""A small test catalog folder of rack devices with round figures, for hand-worked rack answers."""

from __future__ import annotations

from pathlib import Path

import yaml

from rackplanner.core.catalog.loading import Catalog, load_catalog
from rackplanner.core.plan import edits
from rackplanner.core.plan.model import Plan

# Each "load" device draws 950 W per cord over two C14 cords: 1900 W, 2000 VA at power factor 0.95.
TEST_DEVICES = [
    {
        "id": "test-load-2kva",
        "vendor": "Test",
        "model": "Load 2 kVA",
        "source": ["test fixture"],
        "height_u": 2,
        "is_full_depth": True,
        "depth_mm": 800,
        "weight_kg": 30,
        "power_ports": [
            {"type": "iec-60320-c14", "allocated_draw_w": 950},
            {"type": "iec-60320-c14", "allocated_draw_w": 950},
        ],
    },
    {
        "id": "test-half-depth",
        "vendor": "Test",
        "model": "Half-depth patch panel",
        "source": ["test fixture"],
        "height_u": 1,
        "is_full_depth": False,
        "weight_kg": 2,
    },
    {
        "id": "test-deep",
        "vendor": "Test",
        "model": "Deep chassis",
        "source": ["test fixture"],
        "height_u": 2,
        "depth_mm": 1300,
        "weight_kg": 40,
    },
    {
        "id": "test-single-cord",
        "vendor": "Test",
        "model": "Single-cord load",
        "source": ["test fixture"],
        "height_u": 1,
        "power_ports": [{"type": "iec-60320-c14", "allocated_draw_w": 1000}],
    },
]
TEST_RACKS = [
    {
        "id": "test-rack-light",
        "vendor": "Test",
        "model": "12U rack rated 50 kg",
        "source": ["test fixture"],
        "height_u": 12,
        "depth_mm": 1000,
        "max_load_kg": 50,
    }
]


def build_catalog(folder: Path) -> Catalog:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "rack-device.yaml").write_text(yaml.safe_dump(TEST_DEVICES), encoding="utf-8")
    (folder / "rack.yaml").write_text(yaml.safe_dump(TEST_RACKS), encoding="utf-8")
    return load_catalog([folder])


def rack_with_pdus(catalog: Catalog, pdu: str, *, voltage_v: float, phases: int, breaker_a: float) -> Plan:
    """One 42U rack with an A-feed and a B-feed PDU of the given model."""
    plan = Plan(name="Rack test")
    plan = edits.add_rack(plan, name="R1", part="apc-ar3300", catalog=catalog).plan
    for side in ("A", "B"):
        plan = edits.add_feed(
            plan,
            name=f"Feed {side}",
            side=side,
            phases=phases,
            voltage_v=voltage_v,
            breaker_a=breaker_a,  # type: ignore[arg-type]
        ).plan
        plan = edits.mount_device(
            plan,
            rack="r1",
            name=f"PDU {side}",
            part=pdu,
            side="left" if side == "A" else "right",
            face="rear",
            feed=f"feed-{side.lower()}",
            catalog=catalog,
        ).plan
    return plan


def mount_loads(plan: Plan, catalog: Catalog, count: int, part: str = "test-load-2kva", first_u: int = 1) -> Plan:
    for n in range(count):
        plan = edits.mount_device(
            plan, rack="r1", name=f"Load {n + 1}", part=part, position_u=first_u + 2 * n, catalog=catalog
        ).plan
    return plan
