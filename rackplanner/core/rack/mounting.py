"""Where devices sit in a rack: U occupancy front and rear, side channels, depth and weight.

A full-depth device blocks its U positions front and rear; a half-depth device takes only
the face it is mounted on, so two can share a U back to back. 0U PDUs sit in the side
channels. Problems are findings with the numbers, never refusals: the plan keeps what the
user did and says what is wrong with it.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Literal

from pydantic import BaseModel

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Chassis, NetworkSwitch, Pdu, RackDevice, Server
from rackplanner.core.catalog.parts import Rack as RackPart
from rackplanner.core.findings import RackFinding, RackFindings
from rackplanner.core.machine.power import machine_power
from rackplanner.core.plan.cache import ContentCache, identity_key
from rackplanner.core.plan.model import MountedDevice, Plan, Rack, rack_machines
from rackplanner.core.plan.resolve import chassis_of, gpu_count, server_of
from rackplanner.core.rack.airflow import check_airflow, device_airflow

U_MM = 44.45  # one rack unit (EIA-310)

DeviceKind = Literal["server", "workstation", "switch", "pdu", "rack-device", "unknown"]


class DeviceShape(BaseModel):
    """What the rack needs to know about a mounted device."""

    device: str
    name: str
    kind: DeviceKind
    part: str | None
    height_u: int
    is_full_depth: bool
    depth_mm: float | None
    weight_kg: float | None
    position_u: int | None
    face: Literal["front", "rear"]
    side: Literal["left", "right"] | None
    airflow: str | None = None  # relative to the device's own front; None when unknown


class UPosition(BaseModel):
    u: int
    front: str | None = None
    rear: str | None = None


class RackLayout(BaseModel):
    rack: str
    name: str
    part: str
    height_u: int
    devices: list[DeviceShape]
    positions: list[UPosition]  # index 0 is U1
    used_u: int
    free_u: int
    utilisation_percent: float
    equipment_weight_kg: float
    weight_unknown: list[str]
    max_load_kg: float | None
    findings: list[RackFinding]


def device_shape(device: MountedDevice, plan: Plan, catalog: Catalog) -> DeviceShape:
    """Height, depth and weight of a mounted device, from its server, case or catalog part."""
    values: dict[str, object] = {"kind": "unknown", "height_u": 1, "is_full_depth": True}
    if device.machine is not None:
        machine = plan.machine(device.machine)
        server = server_of(machine, catalog) if machine else None
        chassis = chassis_of(machine, catalog) if machine else None
        if isinstance(server, Server):
            values = {
                "kind": "server",
                "height_u": server.height_u,
                "is_full_depth": server.is_full_depth,
                "depth_mm": server.depth_mm or (chassis.depth_mm if chassis else None),
                "weight_kg": server.weight_kg or (chassis.weight_kg if chassis else None),
            }
        elif isinstance(chassis, Chassis):
            values = {
                "kind": "workstation",
                "height_u": chassis.height_u or _tower_u(chassis),
                "is_full_depth": True,
                "depth_mm": chassis.depth_mm,
                "weight_kg": chassis.weight_kg,
            }
    else:
        part = catalog.get(device.part or "")
        if isinstance(part, Pdu):
            values = {
                "kind": "pdu",
                "height_u": part.height_u,
                "is_full_depth": False,
                "depth_mm": None,
                "weight_kg": part.weight_kg,
            }
        elif isinstance(part, (NetworkSwitch, RackDevice)):
            values = {
                "kind": "switch" if isinstance(part, NetworkSwitch) else "rack-device",
                "height_u": part.height_u,
                "is_full_depth": part.is_full_depth,
                "depth_mm": part.depth_mm,
                "weight_kg": part.weight_kg,
            }
    return DeviceShape(
        device=device.id,
        name=device.name,
        part=device.part or device.machine,
        position_u=device.position_u,
        face=device.face,
        side=device.side,
        airflow=device_airflow(device, plan, catalog),
        **values,
    )


def _tower_u(chassis: Chassis) -> int:
    """A tower case on a shelf: its height in U, rounded up (1 U when the height is unknown)."""
    return max(1, math.ceil(chassis.height_mm / U_MM)) if chassis.height_mm else 1


_CACHE: ContentCache[RackLayout] = ContentCache()


def rack_layout(plan: Plan, rack_id: str, catalog: Catalog) -> RackLayout:
    """Occupancy, weight and placement findings of one rack (cached by the rack's content)."""
    rack = plan.rack(rack_id)
    if rack is None:
        raise KeyError(rack_id)
    machines = rack_machines(plan, rack)
    key = identity_key(rack, *machines)
    return _CACHE.get(catalog, key, lambda: _layout(plan, rack, catalog))


def _layout(plan: Plan, rack: Rack, catalog: Catalog) -> RackLayout:
    part = catalog.get_as(rack.part, RackPart)
    height_u = part.height_u if part else 42
    found = RackFindings(rack.id)

    shapes = [device_shape(d, plan, catalog) for d in rack.devices]
    positions = [UPosition(u=u) for u in range(1, height_u + 1)]
    side_counts: Counter[str] = Counter()
    for shape in shapes:
        _check_kind(shape, found)
        if shape.position_u is None:
            if shape.kind == "pdu" and shape.height_u == 0:
                side_counts[shape.side or "left"] += 1
            else:
                message = f"{shape.name} needs a U position ({shape.height_u}U tall)."
                found.add("error", "no-position", message, [shape.device])
            continue
        if shape.height_u == 0:
            message = f"{shape.name} is a 0U device; mount it in a side channel."
            found.add("error", "zero-u-in-u", message, [shape.device])
            continue
        top = shape.position_u + shape.height_u - 1
        if top > height_u:
            found.add(
                "error",
                "over-height",
                f"{shape.name} ({shape.height_u}U at U{shape.position_u}) reaches U{top}, "
                f"above the top of the {height_u}U rack.",
                [shape.device],
            )
        faces = ("front", "rear") if shape.is_full_depth else (shape.face,)
        for u in range(shape.position_u, min(top, height_u) + 1):
            slot = positions[u - 1]
            for face in faces:
                other = getattr(slot, face)
                if other is not None and other != shape.device:
                    found.add(
                        "error",
                        "collision",
                        f"{shape.name} and {_name(shapes, other)} both occupy U{u} ({face}).",
                        [other, shape.device],
                    )
                else:
                    setattr(slot, face, shape.device)
        if part is not None and shape.depth_mm is not None:
            limit = part.max_mounting_depth_mm or part.depth_mm
            if shape.depth_mm > limit:
                found.add(
                    "error",
                    "too-deep",
                    f"{shape.name} is {shape.depth_mm:g} mm deep; {part.model} takes devices up to {limit:g} mm.",
                    [shape.device],
                )
    _side_channels(part, side_counts, found)
    movers = [s for s in shapes if s.kind not in ("pdu", "unknown") and s.position_u is not None]
    check_airflow([(s.device, s.name, s.airflow, s.face, s.kind == "switch") for s in movers], found)
    found.items = _dedupe(found.items)
    used = sum(1 for p in positions if p.front or p.rear)
    known = [s.weight_kg for s in shapes if s.weight_kg is not None]
    weight = sum(known)
    unknown = [s.name for s in shapes if s.weight_kg is None]
    max_load = part.max_load_kg if part else None
    if max_load is not None and weight > max_load:
        found.add(
            "error",
            "overweight",
            f"The equipment weighs {weight:,.0f} kg, more than the {max_load:,.0f} kg {part.model if part else ''} "
            "is rated to carry" + (f" (and the weight of {len(unknown)} device(s) is unknown)." if unknown else "."),
            [s.device for s in shapes],
        )
    return RackLayout(
        rack=rack.id,
        name=rack.name,
        part=rack.part,
        height_u=height_u,
        devices=shapes,
        positions=positions,
        used_u=used,
        free_u=height_u - used,
        utilisation_percent=used / height_u * 100,
        equipment_weight_kg=weight,
        weight_unknown=unknown,
        max_load_kg=max_load,
        findings=found.sorted(),
    )


def _check_kind(shape: DeviceShape, found: RackFindings) -> None:
    if shape.kind == "unknown":
        found.add("error", "not-rack-device", f"{shape.name} is not something that mounts in a rack.", [shape.device])
    elif shape.kind == "workstation":
        found.add(
            "warning",
            "tower-on-shelf",
            f"{shape.name} is a tower case; it needs a shelf and takes about {shape.height_u}U.",
            [shape.device],
        )


def _side_channels(part: RackPart | None, side_counts: Counter[str], found: RackFindings) -> None:
    channels = part.zero_u_channels if part else 2
    per_side = max(1, channels // 2) if channels else 0
    for side, count in sorted(side_counts.items()):
        if count > per_side:
            found.add(
                "error",
                "side-channel-full",
                f"{count} 0U devices on the {side} side; "
                f"{part.model if part else 'the rack'} has room for {per_side} there.",
                [],
            )


def _name(shapes: list[DeviceShape], device_id: str) -> str:
    return next((s.name for s in shapes if s.device == device_id), device_id)


def _dedupe(findings: list[RackFinding]) -> list[RackFinding]:
    """One collision finding per pair of devices and face, however many U they overlap."""
    seen: set[tuple[str, tuple[str, ...]]] = set()
    kept = []
    for finding in findings:
        key = (finding.code, tuple(sorted(finding.devices)))
        if finding.code == "collision" and key in seen:
            continue
        seen.add(key)
        kept.append(finding)
    return kept


def placement_problem(
    layout: RackLayout,
    *,
    height_u: int,
    is_full_depth: bool,
    position_u: int,
    face: Literal["front", "rear"] = "front",
    depth_mm: float | None = None,
    rack_depth_mm: float | None = None,
    ignore_device: str | None = None,
) -> str | None:
    """Why a device of this size cannot go at ``position_u`` (None when it can); for drop targets."""
    top = position_u + height_u - 1
    if position_u < 1 or top > layout.height_u:
        return f"a {height_u}U device at U{position_u} would reach U{top}; the rack has {layout.height_u}U"
    if depth_mm is not None and rack_depth_mm is not None and depth_mm > rack_depth_mm:
        return f"{depth_mm:g} mm deep; the rack takes {rack_depth_mm:g} mm"
    faces = ("front", "rear") if is_full_depth else (face,)
    for u in range(position_u, top + 1):
        slot = layout.positions[u - 1]
        for f in faces:
            other = getattr(slot, f)
            if other is not None and other != ignore_device:
                return f"U{u} ({f}) is taken by {_name(layout.devices, other)}"
    return None


def device_figure(plan: Plan, device: MountedDevice, catalog: Catalog, height_u: int) -> str:
    """A mounted device's label figure: GPUs and wall kW for a server, plug for a PDU, ports for a switch."""
    if device.machine is not None:
        machine = plan.machine(device.machine)
        if machine is not None:
            wall_kw = machine_power(machine, catalog).wall_max_w / 1000
            return f"{gpu_count(machine, catalog)} GPUs · {wall_kw:.2f} kW"
    part = catalog.get(device.part or "")
    if isinstance(part, Pdu):
        return f"{part.voltage_v:g} V {part.input_current_a:g} A" + (f" · {device.feed}" if device.feed else "")
    if isinstance(part, NetworkSwitch):
        return ", ".join(f"{g.count}x{g.speed_gbps:g}G" for g in part.ports)
    return f"{height_u}U" if height_u else "0U"
