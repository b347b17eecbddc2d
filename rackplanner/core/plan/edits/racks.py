"""Rows, racks and the devices mounted in them."""

from __future__ import annotations

from typing import Any, Literal

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import (
    MOUNTABLE_PARTS,
)
from rackplanner.core.catalog.parts import Rack as RackPart
from rackplanner.core.ids import free_id, slug_id
from rackplanner.core.plan.edits.base import (
    _RACK,
    Change,
    EditRefused,
    EditResult,
    _build,
    _machine,
    _need,
    _rack,
    _replace_rack,
)
from rackplanner.core.plan.model import (
    MountedDevice,
    Plan,
    Rack,
    Row,
)

# The row a rack goes to when the plan has none yet.
DEFAULT_ROW_ID = "row-1"
DEFAULT_ROW_NAME = "Row 1"


def add_rack(
    plan: Plan, *, name: str, part: str, catalog: Catalog, row: str | None = None, rack_id: str | None = None
) -> EditResult:
    """Add an empty rack to a row (by default the plan's first row, created as "Row 1" if there is none)."""
    _need(catalog, part, (RackPart,), "rack")
    new_id = rack_id or slug_id(name, {r.id for r in plan.racks})
    if plan.rack(new_id) is not None:
        raise EditRefused(f"a rack with id {new_id!r} already exists")
    rows = list(plan.rows)
    if row is None:
        if not rows:
            rows.append(Row(id=DEFAULT_ROW_ID, name=DEFAULT_ROW_NAME))
        row = rows[0].id
    elif plan.row(row) is None:
        raise EditRefused(f"no row {row!r} in the plan")
    rack = _build(Rack, id=new_id, name=name, part=part, row=row)
    return EditResult(
        plan.model_copy(update={"rows": rows, "racks": [*plan.racks, rack]}),
        _RACK | {Change.BOM},
        f"Add rack {name}",
        racks=frozenset({new_id}),
    )


def add_row(plan: Plan, *, name: str, row_id: str | None = None) -> EditResult:
    """Add an empty row of racks."""
    if not name.strip():
        raise EditRefused("a row name cannot be empty")
    new_id = row_id or slug_id(name, {r.id for r in plan.rows})
    if plan.row(new_id) is not None:
        raise EditRefused(f"a row with id {new_id!r} already exists")
    row = _build(Row, id=new_id, name=name)
    return EditResult(
        plan.model_copy(update={"rows": [*plan.rows, row]}),
        frozenset({Change.RACK_LAYOUT, Change.NETWORK}),
        f"Add row {name}",
    )


def rename_row(plan: Plan, *, row: str, name: str) -> EditResult:
    old = plan.row(row)
    if old is None:
        raise EditRefused(f"no row {row!r} in the plan")
    if not name.strip():
        raise EditRefused("a row name cannot be empty")
    rows = [old.model_copy(update={"name": name}) if r.id == row else r for r in plan.rows]
    return EditResult(
        plan.model_copy(update={"rows": rows}),
        frozenset({Change.RACK_LAYOUT, Change.NETWORK}),
        f"Rename {old.name} to {name}",
    )


def remove_row(plan: Plan, *, row: str) -> EditResult:
    """Remove an empty row; a row that still holds racks is refused (move or remove them first)."""
    old = plan.row(row)
    if old is None:
        raise EditRefused(f"no row {row!r} in the plan")
    held = [r.name for r in plan.racks if r.row == row]
    if held:
        raise EditRefused(f"{old.name} still holds {len(held)} rack(s): {', '.join(held)}")
    return EditResult(
        plan.model_copy(update={"rows": [r for r in plan.rows if r.id != row]}),
        frozenset({Change.RACK_LAYOUT, Change.NETWORK}),
        f"Remove row {old.name}",
    )


def move_rack_to_row(plan: Plan, *, rack: str, row: str) -> EditResult:
    """Put a rack in another row of the plan (its devices go with it)."""
    old = _rack(plan, rack)
    target = plan.row(row)
    if target is None:
        raise EditRefused(f"no row {row!r} in the plan")
    if old.row == row:
        raise EditRefused(f"{old.name} is already in {target.name}")
    return EditResult(
        _replace_rack(plan, old.model_copy(update={"row": row})),
        frozenset({Change.RACK_LAYOUT, Change.NETWORK}),
        f"Move {old.name} to {target.name}",
        racks=frozenset({rack}),
    )


def rename_rack(plan: Plan, *, rack: str, name: str) -> EditResult:
    old = _rack(plan, rack)
    if not name.strip():
        raise EditRefused("a rack name cannot be empty")
    return EditResult(
        _replace_rack(plan, old.model_copy(update={"name": name})),
        frozenset({Change.RACK_LAYOUT, Change.BOM}),
        f"Rename {old.name} to {name}",
        racks=frozenset({rack}),
    )


def remove_rack(plan: Plan, *, rack: str) -> EditResult:
    """Remove a rack; its machines stay in the plan, unmounted."""
    old = _rack(plan, rack)
    new_plan = plan.model_copy(
        update={
            "racks": [r for r in plan.racks if r.id != rack],
            "outlet_assignments": [a for a in plan.outlet_assignments if a.rack != rack],
        }
    )
    return EditResult(new_plan, _RACK | {Change.BOM}, f"Remove rack {old.name}", racks=frozenset({rack}))


def mount_device(
    plan: Plan,
    *,
    rack: str,
    name: str,
    catalog: Catalog,
    machine: str | None = None,
    part: str | None = None,
    position_u: int | None = None,
    face: Literal["front", "rear"] = "front",
    side: Literal["left", "right"] | None = None,
    feed: str | None = None,
    device_id: str | None = None,
) -> EditResult:
    """Mount a machine of the plan, or a switch or PDU from the catalog, in a rack."""
    old = _rack(plan, rack)
    if machine is not None:
        _machine(plan, machine)
        for other in plan.racks:
            if any(d.machine == machine for d in other.devices):
                raise EditRefused(f"machine {machine!r} is already mounted in {other.name}")
    if part is not None:
        _need(catalog, part, MOUNTABLE_PARTS, "rack device")
    if feed is not None and not any(f.id == feed for f in plan.feeds):
        raise EditRefused(f"feed {feed!r} is not in the plan")
    new_id = device_id or slug_id(name, {d.id for d in old.devices})
    if old.device(new_id) is not None:
        raise EditRefused(f"rack {old.name} already has a device {new_id!r}")
    device = _build(
        MountedDevice,
        id=new_id,
        name=name,
        machine=machine,
        part=part,
        position_u=position_u,
        face=face,
        side=side,
        feed=feed,
    )
    where = f"U{position_u}" if position_u is not None else f"{side} side"
    return EditResult(
        _replace_rack(plan, old.model_copy(update={"devices": [*old.devices, device]})),
        _RACK | {Change.BOM},
        f"Mount {name} in {old.name} at {where}",
        frozenset({machine}) if machine else frozenset(),
        frozenset({rack}),
    )


def move_device(
    plan: Plan,
    *,
    rack: str,
    device: str,
    position_u: int | None = None,
    face: Literal["front", "rear"] | None = None,
    side: Literal["left", "right"] | None = None,
    to_rack: str | None = None,
) -> EditResult:
    """Move a mounted device to another U position, face or side channel, or another rack."""
    source = _rack(plan, rack)
    old = source.device(device)
    if old is None:
        raise EditRefused(f"rack {source.name} has no device {device!r}")
    update: dict[str, Any] = {}
    if position_u is not None:
        update.update(position_u=position_u, side=None)
    elif side is not None:
        update.update(side=side, position_u=None)
    if face is not None:
        update["face"] = face
    moved = _build(MountedDevice, **{**old.model_dump(), **update})
    destination_id = to_rack or rack
    new_plan = _replace_rack(plan, source.model_copy(update={"devices": [d for d in source.devices if d.id != device]}))
    destination = _rack(new_plan, destination_id)
    if destination.device(moved.id) is not None:
        moved = moved.model_copy(update={"id": free_id(moved.id, {d.id for d in destination.devices})})
    if destination_id == rack:
        devices = [moved if d.id == device else d for d in source.devices]
    else:
        devices = [*destination.devices, moved]
    new_plan = _replace_rack(new_plan, destination.model_copy(update={"devices": devices}))
    assignments = plan.outlet_assignments
    if destination_id != rack:
        # Outlets of the old rack's PDUs are out of reach from the new rack.
        assignments = [a for a in assignments if not (a.rack == rack and a.device == device)]
        new_plan = new_plan.model_copy(update={"outlet_assignments": assignments})
    machines = frozenset({old.machine}) if old.machine else frozenset()
    return EditResult(
        new_plan,
        _RACK,
        f"Move {old.name}",
        machines,
        frozenset({rack, destination_id}),
    )


def unmount_device(plan: Plan, *, rack: str, device: str) -> EditResult:
    old_rack = _rack(plan, rack)
    old = old_rack.device(device)
    if old is None:
        raise EditRefused(f"rack {old_rack.name} has no device {device!r}")
    new_plan = _replace_rack(
        plan, old_rack.model_copy(update={"devices": [d for d in old_rack.devices if d.id != device]})
    )
    new_plan = new_plan.model_copy(
        update={
            "outlet_assignments": [
                a for a in plan.outlet_assignments if not (a.rack == rack and (a.device == device or a.pdu == device))
            ]
        }
    )
    return EditResult(
        new_plan,
        _RACK | {Change.BOM},
        f"Unmount {old.name}",
        frozenset({old.machine}) if old.machine else frozenset(),
        frozenset({rack}),
    )
