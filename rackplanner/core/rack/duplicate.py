"""Duplicate a machine: the same configuration under a new id, mounted in the first free space of its rack."""

from __future__ import annotations

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.ids import slug_id
from rackplanner.core.plan.edits.base import _MACHINE_PARTS, EditRefused, EditResult
from rackplanner.core.plan.edits.racks import mount_device
from rackplanner.core.plan.model import Plan
from rackplanner.core.rack.mounting import rack_layout


def copy_name(name: str, taken: set[str]) -> str:
    """'GPU 1' -> 'GPU 1 (copy)', then '(copy 2)', ... so the copy's name is the plan's only one."""
    candidate, number = f"{name} (copy)", 2
    while candidate in taken:
        candidate, number = f"{name} (copy {number})", number + 1
    return candidate


def free_u(plan: Plan, rack_id: str, catalog: Catalog, height_u: int, full_depth: bool, face: str) -> int | None:
    """The lowest U where a device this tall fits on ``face`` (both faces when full depth); None when full."""
    layout = rack_layout(plan, rack_id, catalog)
    faces = ("front", "rear") if full_depth else (face,)
    for bottom in range(1, layout.height_u - height_u + 2):
        span = layout.positions[bottom - 1 : bottom - 1 + height_u]
        if all(getattr(position, side) is None for position in span for side in faces):
            return bottom
    return None


def duplicate_machine(plan: Plan, *, machine: str, catalog: Catalog) -> EditResult:
    """Copy a machine (cards, CPUs, memory, drives, settings); a racked one is mounted in its rack's first free U."""
    original = plan.machine(machine)
    if original is None:
        raise EditRefused(f"machine {machine!r} is not in the plan")
    name = copy_name(original.name, {m.name for m in plan.machines})
    new_id = slug_id(name, {m.id for m in plan.machines})
    copy = original.model_copy(update={"id": new_id, "name": name}, deep=True)
    result = EditResult(
        plan.model_copy(update={"machines": [*plan.machines, copy]}),
        _MACHINE_PARTS,
        f"Duplicate {original.name}",
        frozenset({new_id}),
    )
    rack = next((r for r in plan.racks if any(d.machine == machine for d in r.devices)), None)
    if rack is None:
        return result
    device = next(d for d in rack.devices if d.machine == machine)
    shape = next(s for s in rack_layout(plan, rack.id, catalog).devices if s.device == device.id)
    bottom = free_u(result.plan, rack.id, catalog, max(1, shape.height_u), shape.is_full_depth, device.face)
    if bottom is None:
        raise EditRefused(f"{rack.name} has no free {shape.height_u} U for a copy of {original.name}")
    mounted = mount_device(
        result.plan, rack=rack.id, name=name, catalog=catalog, machine=new_id, position_u=bottom, face=device.face
    )
    return EditResult(
        mounted.plan,
        mounted.changes | _MACHINE_PARTS,
        f"Duplicate {original.name} into {rack.name} at U{bottom}",
        frozenset({new_id}),
        frozenset({rack.id}),
    )
