"""Feeds, which feed a device plugs into, and which outlet group each power cord uses."""

from __future__ import annotations

from typing import Literal

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import (
    Pdu,
)
from rackplanner.core.ids import slug_id
from rackplanner.core.plan.edits.base import (
    Change,
    EditRefused,
    EditResult,
    _build,
    _rack,
    _replace_rack,
)
from rackplanner.core.plan.model import (
    Feed,
    OutletAssignment,
    Plan,
)


def add_feed(
    plan: Plan,
    *,
    name: str,
    side: Literal["A", "B"],
    phases: Literal[1, 3],
    voltage_v: float,
    breaker_a: float,
    feed_id: str | None = None,
) -> EditResult:
    new_id = feed_id or slug_id(name, {f.id for f in plan.feeds})
    if any(f.id == new_id for f in plan.feeds):
        raise EditRefused(f"a feed with id {new_id!r} already exists")
    feed = _build(Feed, id=new_id, name=name, side=side, phases=phases, voltage_v=voltage_v, breaker_a=breaker_a)
    return EditResult(
        plan.model_copy(update={"feeds": [*plan.feeds, feed]}),
        frozenset({Change.POWER}),
        f"Add feed {name}",
    )


def set_device_feed(plan: Plan, *, rack: str, device: str, feed: str | None) -> EditResult:
    """Plug a mounted PDU into a feed (or unplug it with None)."""
    old_rack = _rack(plan, rack)
    old = old_rack.device(device)
    if old is None:
        raise EditRefused(f"rack {old_rack.name} has no device {device!r}")
    if feed is not None and not any(f.id == feed for f in plan.feeds):
        raise EditRefused(f"feed {feed!r} is not in the plan")
    if old.feed == feed:
        raise EditRefused(f"{old.name} is already on {feed or 'no feed'}")
    moved = old.model_copy(update={"feed": feed})
    new_rack = old_rack.model_copy(update={"devices": [moved if d.id == device else d for d in old_rack.devices]})
    label = f"Plug {old.name} into {feed}" if feed else f"Unplug {old.name}"
    changes = frozenset({Change.POWER, Change.OUTLETS})
    return EditResult(_replace_rack(plan, new_rack), changes, label, racks=frozenset({rack}))


def remove_feed(plan: Plan, *, feed: str) -> EditResult:
    """Remove a feed; PDUs plugged into it are left unplugged."""
    if not any(f.id == feed for f in plan.feeds):
        raise EditRefused(f"feed {feed!r} is not in the plan")
    racks = [
        r.model_copy(
            update={"devices": [d.model_copy(update={"feed": None}) if d.feed == feed else d for d in r.devices]}
        )
        for r in plan.racks
    ]
    touched = frozenset(r.id for r in plan.racks if any(d.feed == feed for d in r.devices))
    new_plan = plan.model_copy(update={"feeds": [f for f in plan.feeds if f.id != feed], "racks": racks})
    return EditResult(new_plan, frozenset({Change.POWER}), f"Remove feed {feed}", racks=touched)


def set_outlet_assignment(
    plan: Plan,
    *,
    rack: str,
    device: str,
    psu_index: int,
    pdu: str | None,
    outlet_group: str | None,
    catalog: Catalog,
) -> EditResult:
    """Plug PSU ``psu_index`` of a device into an outlet group of a PDU in the same rack.

    With ``pdu=None`` the override is removed and the automatic assignment applies again.
    """
    the_rack = _rack(plan, rack)
    if the_rack.device(device) is None:
        raise EditRefused(f"rack {the_rack.name} has no device {device!r}")
    kept = [
        a for a in plan.outlet_assignments if not (a.rack == rack and a.device == device and a.psu_index == psu_index)
    ]
    if pdu is None:
        if len(kept) == len(plan.outlet_assignments):
            raise EditRefused(f"PSU {psu_index + 1} of {device} has no manual outlet assignment")
        return EditResult(
            plan.model_copy(update={"outlet_assignments": kept}),
            frozenset({Change.OUTLETS, Change.POWER}),
            f"Auto-assign outlet for {device} PSU {psu_index + 1}",
            racks=frozenset({rack}),
        )
    pdu_device = the_rack.device(pdu)
    pdu_part = catalog.get_as(pdu_device.part, Pdu) if pdu_device and pdu_device.part else None
    if pdu_part is None:
        raise EditRefused(f"{pdu!r} is not a PDU in rack {the_rack.name}")
    if not any(g.id == outlet_group for g in pdu_part.outlet_groups):
        raise EditRefused(f"{pdu_part.model} has no outlet group {outlet_group!r}")
    assignment = _build(
        OutletAssignment, rack=rack, device=device, psu_index=psu_index, pdu=pdu, outlet_group=outlet_group
    )
    return EditResult(
        plan.model_copy(update={"outlet_assignments": [*kept, assignment]}),
        frozenset({Change.OUTLETS, Change.POWER}),
        f"Plug {device} PSU {psu_index + 1} into {pdu_device.name if pdu_device else pdu}",
        racks=frozenset({rack}),
    )
