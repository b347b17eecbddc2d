"""What a drop on a row of racks does: mount a new server, switch, PDU or rack device, or move mounted ones."""

from __future__ import annotations

from dataclasses import dataclass

from rackplanner.core.catalog.parts import Pdu, Server
from rackplanner.core.plan import edits
from rackplanner.gui.document import PlanDocument


@dataclass
class DragInfo:
    """What is being dragged: a catalog part (``part``) or a mounted device (``rack``, ``device``)."""

    part: str | None
    rack: str | None
    device: str | None
    height_u: int
    full_depth: bool
    depth_mm: float | None


def move_arguments(info: DragInfo, rack_id: str, face: str, u: int) -> dict[str, object]:
    """``edits.move_device`` arguments for a mounted device dropped on ``face`` at U ``u`` of ``rack_id``."""
    arguments: dict[str, object] = {"rack": info.rack, "device": info.device}
    if face in ("left", "right"):
        arguments["side"] = face  # a side channel: a 0U PDU
    else:
        arguments.update(position_u=u, face=face)
    if rack_id != info.rack:
        arguments["to_rack"] = rack_id
    return arguments


def apply_drop(
    doc: PlanDocument, info: DragInfo, rack_id: str, face: str, u: int, selected: list[tuple[str, str]]
) -> bool:
    """Mount what was dropped at ``face``/U ``u`` of ``rack_id``, or move the mounted device (or the selected group)."""
    catalog = doc.catalog
    side = face if face in ("left", "right") else None
    position = None if side else u
    mount_face = "rear" if side else face
    if info.device is not None and info.rack is not None:
        group = [d for r, d in selected if r == info.rack]
        if info.device in group and len(group) > 1 and not side and rack_id == info.rack:
            return move_group(doc, info.rack, info.device, group, u)
        return doc.apply(edits.move_device, **move_arguments(info, rack_id, face, u)) is not None
    part = catalog.get(info.part or "")
    if part is None:
        return False
    if isinstance(part, Server):
        stack = doc.undo_stack
        stack.beginMacro(f"Mount a new {part.model}")
        added = doc.apply(edits.add_machine, name=part.model, server=part.id, catalog=catalog)
        mounted = None
        if added is not None and added.machines:
            machine_id = next(iter(added.machines))
            name = doc.plan.machine(machine_id).name if doc.plan.machine(machine_id) else part.model  # type: ignore[union-attr]
            mounted = doc.apply(
                edits.mount_device,
                rack=rack_id,
                name=name,
                machine=machine_id,
                position_u=position,
                face=mount_face,
                catalog=catalog,
            )
        stack.endMacro()
        if mounted is None:
            stack.undo()
        return mounted is not None
    feed = None
    if isinstance(part, Pdu):
        wanted = "A" if side == "left" else "B"
        feed = next((f.id for f in doc.plan.feeds if f.side == wanted), None)
    result = doc.apply(
        edits.mount_device,
        rack=rack_id,
        name=part.model,
        part=part.id,
        position_u=position,
        face=mount_face,
        side=side,
        feed=feed,
        catalog=catalog,
    )
    return result is not None


def move_group(doc: PlanDocument, rack_id: str, dragged: str, group: list[str], u: int) -> bool:
    """Move selected devices together: each keeps its offset from the dragged one."""
    rack = doc.plan.rack(rack_id)
    anchor = rack.device(dragged) if rack else None
    if rack is None or anchor is None or anchor.position_u is None:
        return False
    delta = u - anchor.position_u
    devices = [d for d in (rack.device(i) for i in group) if d is not None and d.position_u is not None]
    # Move the ones furthest along the direction of travel first, so none lands on another.
    devices.sort(key=lambda d: d.position_u or 0, reverse=delta > 0)
    stack = doc.undo_stack
    stack.beginMacro(f"Move {len(devices)} devices by {delta:+d} U")
    done = all(
        doc.apply(edits.move_device, rack=rack_id, device=d.id, position_u=(d.position_u or 0) + delta) is not None
        for d in devices
    )
    stack.endMacro()
    if not done:
        stack.undo()
    return done
