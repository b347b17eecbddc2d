"""Catalog parts written back as NetBox device types, checked against the library's own schema.

Power figures follow the library's convention, which the importer reads back the same way: the
device's maximum draw is given as ``allocated_draw`` on each of its power ports (what each feed
carries when the other fails), never as a per-PSU nameplate ``maximum_draw``.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from rackplanner.core.catalog.netbox.reading import NetboxError
from rackplanner.core.catalog.netbox.speeds import interface_type
from rackplanner.core.catalog.netbox.vocabulary import INTERFACE_TYPES, POWER_PORT_TYPES, schema
from rackplanner.core.catalog.parts import NetworkSwitch, Part, Pdu, PortGroup, RackDevice, Server
from rackplanner.core.ids import slug

_LEGS = {"L1": "A", "L2": "B", "L3": "C", "L1-L2": "A", "L2-L3": "B", "L3-L1": "C"}


@cache
def validator() -> Draft202012Validator:
    """The device-type schema with the library's other schema files resolvable by their ``urn:`` ids."""
    registry: Registry = Registry()
    for name in ("components", "generated_schema", "reusable", "devicetype", "moduletype"):
        document = schema(name)
        registry = registry.with_resource(document["$id"], Resource.from_contents(document))
    return Draft202012Validator(schema("devicetype"), registry=registry)


def check_device_type(data: dict[str, Any], where: str) -> None:
    """``NetboxError`` naming the field when ``data`` is not a valid device type for the library's schema."""
    errors = sorted(validator().iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        field = ".".join(str(p) for p in first.absolute_path) or "(top level)"
        raise NetboxError(f"{where}: {field}: {first.message[:200]} (the NetBox device-type schema)")


def to_device_type(part: Part, server_inlet: str | None = None) -> dict[str, Any]:
    """A NetBox device-type mapping for a server, rack device, switch or PDU, valid for the library's schema.

    A server's power ports take ``server_inlet`` (its stock PSU's inlet, from the catalog), else "other".
    """
    data: dict[str, Any] = {
        "manufacturer": part.vendor,
        "model": part.model,
        "slug": slug(part.id, "device").replace(".", "-"),
        "comments": f"From rackplanner catalog entry {part.id}. Sources: " + "; ".join(part.source)[:1500],
    }
    if isinstance(part, Pdu):
        # The plug's type may not carry the voltage or current (IEC 60309, L6): the comments do, as the
        # library's PDU files give them ("32A, 400V") and the importer reads them.
        wiring = "single-phase" if part.phases == 1 else f"three-phase {part.wiring}"
        data["comments"] = f"Input {part.voltage_v:g}V, {part.input_current_a:g}A, {wiring}. " + data["comments"]
        data["u_height"] = part.height_u
        data["is_full_depth"] = False
        data["power-ports"] = [{"name": "Input", "type": _port_type(part.inlet)}]
        outlets = []
        for group in part.outlet_groups:
            for kind, count in group.outlets.items():
                outlets += [{"type": kind, "power_port": "Input", "feed_leg": _LEGS[group.line]}] * count
        data["power-outlets"] = [{"name": str(i + 1), **o} for i, o in enumerate(outlets)]
    elif isinstance(part, NetworkSwitch):
        data["u_height"] = part.height_u
        data["is_full_depth"] = part.is_full_depth
        data["power-ports"] = _power_ports([part.inlet] * part.psu_count, part.power_max_w)
        data["interfaces"] = _interfaces(part.ports, 0, part.fabric)
    elif isinstance(part, RackDevice):
        data["u_height"] = part.height_u
        data["is_full_depth"] = part.is_full_depth
        data["power-ports"] = _power_ports([p.type for p in part.power_ports], part.draw_w)
        data["interfaces"] = _interfaces(part.interfaces, part.mgmt_ports, "ethernet")
    elif isinstance(part, Server):
        data["u_height"] = part.height_u or 1
        data["is_full_depth"] = part.is_full_depth
        data["power-ports"] = _power_ports([server_inlet or "other"] * part.psu_count, None)
    else:
        raise NetboxError(f"{part.id}: a {part.kind} is not a NetBox device type")
    airflow = getattr(part, "airflow", None)
    if airflow is not None:
        data["airflow"] = airflow
    weight = getattr(part, "weight_kg", None)
    if weight is not None:
        data["weight"] = round(float(weight), 2)
        data["weight_unit"] = "kg"
    return {key: value for key, value in data.items() if value not in ([], None)}


def _port_type(kind: str) -> str:
    return kind if kind in POWER_PORT_TYPES else "other"


def _power_ports(inlets: list[str], draw_w: float | None) -> list[dict[str, Any]]:
    ports = []
    for index, inlet in enumerate(inlets):
        port: dict[str, Any] = {"name": f"PSU{index + 1}", "type": _port_type(inlet)}
        if draw_w is not None:
            port["allocated_draw"] = round(draw_w)
        ports.append(port)
    return ports


def _interfaces(groups: list[PortGroup], mgmt: int, fabric: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for group in groups:
        kind = interface_type(group.speed_gbps, group.connector, fabric)
        kind = kind if kind in INTERFACE_TYPES else "other"
        rows += [{"name": f"port{len(rows) + n + 1}", "type": kind} for n in range(group.count)]
    rows += [{"name": f"mgmt{n + 1}", "type": "1000base-t", "mgmt_only": True} for n in range(mgmt)]
    return rows
