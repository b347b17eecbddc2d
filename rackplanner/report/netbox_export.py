"""A plan exported to NetBox: device types for the community library's schema and a bulk-import CSV set.

The folder holds ``device-types/<Manufacturer>/<slug>.yaml`` for every catalog part the plan uses
(checked against the library's schema) and, for NetBox 4.x's bulk import, in this order:
``manufacturers.csv``, ``device-roles.csv``, ``sites.csv``, ``racks.csv``, ``power-panels.csv``,
``power-feeds.csv``, ``devices.csv``, ``power-ports.csv``, ``interfaces.csv``, ``cables.csv`` and
``power-feed-cables.csv`` (a cable that ends at a power feed imports from NetBox 4.5.8 on). What
NetBox has no field for (a machine's parts, a plan's ids and rows, a zero-U PDU's face) travels in
the comments as ``rackplanner:`` JSON, so ``rackplanner import-netbox-export`` gives the plan back.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from rackplanner.core.analysis import analyse
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.netbox.device_types import check_device_type, to_device_type
from rackplanner.core.catalog.parts import Chassis, Part, Psu
from rackplanner.core.files import ensure_folder, write_atomic
from rackplanner.core.ids import slug
from rackplanner.core.plan.model import Machine, MountedDevice, Plan
from rackplanner.core.plan.resolve import chassis_of, server_of
from rackplanner.report.netbox_cables import PANEL, Names, cable_rack

SITE = "rackplanner"
NAME_MAX = 64  # NetBox's longest device name
MARK = "rackplanner: "  # comments that carry what NetBox has no field for
ROLES = {"server": "Server", "workstation": "Server", "switch": "Switch", "pdu": "PDU", "rack-device": "Rack device"}
ROLE_COLOURS = {"Server": "2196f3", "Switch": "4caf50", "PDU": "ff9800", "Rack device": "9c27b0"}


@dataclass
class NetboxExport:
    folder: Path
    device_types: list[Path] = field(default_factory=list)
    tables: dict[str, int] = field(default_factory=dict)  # CSV file -> rows


@dataclass
class _DeviceType:
    manufacturer: str
    model: str
    data: dict[str, Any]


def export_netbox(plan: Plan, catalog: Catalog, folder: Path) -> NetboxExport:
    """Write the device types and the CSV set of ``plan`` into ``folder`` (created if missing)."""
    ensure_folder(folder, "the NetBox device types and CSV files")
    result = NetboxExport(folder)
    types: dict[str, _DeviceType] = {}
    names = _unique_names(plan)
    taken_names = set(names.by_device.values())
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    rows["sites.csv"].append(
        {
            "name": SITE,
            "slug": SITE,
            "status": "planned",
            "description": plan.name[:200],
            "comments": MARK + json.dumps({"plan": plan.name, "notes": plan.notes, "rows": _rows(plan)}),
        }
    )
    rows["power-panels.csv"].append({"site": SITE, "name": PANEL})
    for feed in plan.feeds:
        rack = next((r for r in plan.racks if any(d.feed == feed.id for d in r.devices)), None)
        rows["power-feeds.csv"].append(
            {
                "site": SITE,
                "power_panel": PANEL,
                "rack": rack.name if rack else "",
                "name": feed.name,
                "status": "planned",
                "type": "primary" if feed.side == "A" else "redundant",
                "mark_connected": "false",
                "supply": "ac",
                "phase": "three-phase" if feed.phases == 3 else "single-phase",
                "voltage": f"{feed.voltage_v:g}",
                "amperage": f"{feed.breaker_a:g}",
                "max_utilization": "80",
                "comments": MARK + json.dumps({"id": feed.id, "side": feed.side}),
            }
        )
    analysis = analyse(plan, catalog)
    for rack in plan.racks:
        layout = analysis.rack_layout(rack.id)
        rack_part = catalog.get(rack.part)
        rows["racks.csv"].append(
            {
                "site": SITE,
                "name": rack.name,
                "status": "planned",
                "width": "19",
                "u_height": str(layout.height_u),
                "comments": MARK + json.dumps({"id": rack.id, "part": rack.part, "row": rack.row}),
                "description": rack_part.label[:200] if rack_part else "",
            }
        )
        shapes = {s.device: s for s in layout.devices}
        for device in rack.devices:
            kind = shapes[device.id].kind if device.id in shapes else "rack-device"
            device_type = _device_type(plan, device, catalog, shapes[device.id].height_u if device.id in shapes else 1)
            types.setdefault(f"{device_type.manufacturer}/{device_type.model}", device_type)
            rows["devices.csv"].append(_device_row(plan, rack.name, device, kind, device_type, names))
        cable_rack(plan, rack, analysis, catalog, names, rows)
    mounted = {d.machine for r in plan.racks for d in r.devices}
    for machine in plan.machines:
        if machine.id not in mounted:
            # NetBox keeps a device that is in no rack at its site: a workstation under a desk.
            device_type = _machine_type(machine, catalog, None)
            types.setdefault(f"{device_type.manufacturer}/{device_type.model}", device_type)
            rows["devices.csv"].append(_unracked_row(machine, device_type, taken_names))
    for device_type in types.values():
        check_device_type(device_type.data, f"{device_type.manufacturer} {device_type.model}")
        path = folder / "device-types" / device_type.manufacturer / f"{device_type.data['slug']}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, yaml.safe_dump(device_type.data, sort_keys=False, allow_unicode=True).encode("utf-8"))
        result.device_types.append(path)
    makers = sorted({t.manufacturer for t in types.values()})
    rows["manufacturers.csv"] = [{"name": m, "slug": slug(m, "maker")} for m in makers]
    used_roles = sorted({r["role"] for r in rows["devices.csv"]})
    rows["device-roles.csv"] = [{"name": r, "slug": slug(r), "color": ROLE_COLOURS[r]} for r in used_roles]
    for name in CSV_ORDER:
        write_atomic(folder / name, _csv(rows.get(name, []), COLUMNS[name]).encode("utf-8"))
        result.tables[name] = len(rows.get(name, []))
    return result


CSV_ORDER = (
    "manufacturers.csv",
    "device-roles.csv",
    "sites.csv",
    "racks.csv",
    "power-panels.csv",
    "power-feeds.csv",
    "devices.csv",
    "power-ports.csv",
    "interfaces.csv",
    "cables.csv",
    "power-feed-cables.csv",
)
# The columns of each CSV, as NetBox 4.x's import forms name them.
COLUMNS = {
    "manufacturers.csv": ["name", "slug"],
    "device-roles.csv": ["name", "slug", "color"],
    "sites.csv": ["name", "slug", "status", "description", "comments"],
    "racks.csv": ["site", "name", "status", "width", "u_height", "description", "comments"],
    "power-panels.csv": ["site", "name"],
    "power-feeds.csv": [
        "site",
        "power_panel",
        "rack",
        "name",
        "status",
        "type",
        "mark_connected",
        "supply",
        "phase",
        "voltage",
        "amperage",
        "max_utilization",
        "comments",
    ],
    "devices.csv": [
        "name",
        "role",
        "manufacturer",
        "device_type",
        "status",
        "site",
        "rack",
        "position",
        "face",
        "comments",
    ],
    "power-ports.csv": ["device", "name", "type", "allocated_draw"],
    "interfaces.csv": ["device", "name", "type", "mgmt_only"],
    "power-feed-cables.csv": [
        "side_a_device",
        "side_a_type",
        "side_a_name",
        "side_b_power_panel",
        "side_b_type",
        "side_b_name",
        "type",
        "status",
    ],
    "cables.csv": [
        "side_a_device",
        "side_a_type",
        "side_a_name",
        "side_b_device",
        "side_b_type",
        "side_b_name",
        "type",
        "status",
        "label",
    ],
}


def _csv(rows: list[dict[str, Any]], columns: list[str]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({c: row.get(c, "") for c in columns})
    return out.getvalue()


def _rows(plan: Plan) -> list[dict[str, str]]:
    return [{"id": r.id, "name": r.name} for r in plan.rows]


def _unique_names(plan: Plan) -> Names:
    """NetBox device names are unique per site and at most 64 characters: a name used twice gets its rack's
    name added, a long one is cut, and a clash left after that is numbered."""
    counts = Counter(d.name for r in plan.racks for d in r.devices)
    taken: set[str] = set()
    by_device = {}
    for rack in plan.racks:
        for device in rack.devices:
            wanted = device.name if counts[device.name] == 1 else f"{device.name} ({rack.name})"
            by_device[(rack.id, device.id)] = _free_name(wanted, taken)
    return Names(by_device)


def _free_name(wanted: str, taken: set[str]) -> str:
    name = wanted[:NAME_MAX]
    number = 1
    while name in taken:
        number += 1
        suffix = f" #{number}"
        name = wanted[: NAME_MAX - len(suffix)] + suffix
    taken.add(name)
    return name


def _device_type(plan: Plan, device: MountedDevice, catalog: Catalog, height_u: int) -> _DeviceType:
    if device.machine is not None:
        machine = plan.machine(device.machine)
        if machine is None:
            raise ValueError(f"{device.id}: no machine {device.machine}")
        return _machine_type(machine, catalog, height_u)
    part: Part | None = catalog.get(device.part) if device.part else None
    if part is None:
        raise ValueError(f"{device.id}: no catalog part")
    return _DeviceType(part.vendor, part.model, to_device_type(part))


def _machine_type(machine: Machine, catalog: Catalog, height_u: int | None) -> _DeviceType:
    """A catalog server's own device type; a machine built from a board and a case has its case's."""
    server = server_of(machine, catalog)
    if server is not None:
        psu = catalog.get_as(server.psu, Psu)
        return _DeviceType(server.vendor, server.model, to_device_type(server, psu.inlet if psu else None))
    chassis: Chassis | None = chassis_of(machine, catalog)
    vendor = chassis.vendor if chassis else "Custom"
    model = chassis.model if chassis else "Custom build"
    data = {
        "manufacturer": vendor,
        "model": model,
        "slug": slug(f"{vendor}-{model}", "case"),
        "u_height": height_u if height_u is not None else (chassis.height_u if chassis else 0),
        "is_full_depth": True,
        "comments": "A case rackplanner mounts machines in.",
    }
    return _DeviceType(vendor, model, data)


def _device_row(
    plan: Plan,
    rack_name: str,
    device: MountedDevice,
    kind: str,
    device_type: _DeviceType,
    names: Names,
) -> dict[str, Any]:
    rack = next(r for r in plan.racks if r.device(device.id) is device)
    extra: dict[str, Any] = {"id": device.id, "name": device.name, "side": device.side, "feed": device.feed}
    if device.position_u is None:
        extra["face"] = device.face  # NetBox keeps a face only with a position; a zero-U PDU's is ours
    if device.machine is not None:
        machine = plan.machine(device.machine)
        extra["machine"] = machine.model_dump(mode="json") if machine else None
    else:
        extra["part"] = device.part
    return {
        "name": names.of(rack, device.id),
        "role": ROLES.get(kind, "Rack device"),
        "manufacturer": device_type.manufacturer,
        "device_type": device_type.model,
        "status": "planned",
        "site": SITE,
        "rack": rack_name,
        "position": str(device.position_u) if device.position_u is not None else "",
        "face": device.face if device.position_u is not None else "",
        "comments": MARK + json.dumps(extra),
    }


def _unracked_row(machine: Machine, device_type: _DeviceType, taken: set[str]) -> dict[str, Any]:
    return {
        "name": _free_name(machine.name, taken),
        "role": "Server",
        "manufacturer": device_type.manufacturer,
        "device_type": device_type.model,
        "status": "planned",
        "site": SITE,
        "comments": MARK + json.dumps({"machine": machine.model_dump(mode="json")}),
    }
