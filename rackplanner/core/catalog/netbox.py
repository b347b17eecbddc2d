"""Import NetBox community device types (YAML) as rack devices, switches or PDUs, and export them back.

The library (github.com/netbox-community/devicetype-library) has known faults, which the
importer checks for and reports instead of trusting: PSU nameplate ratings given as
``maximum_draw``, every outlet of a 3-phase PDU on one feed leg, and PSUs modelled as
module bays with no draw at all. Unknown fields are ignored.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from rackplanner.core import files
from rackplanner.core.catalog.loading import MAX_CATALOG_FILE_BYTES
from rackplanner.core.catalog.parts import (
    NetworkSwitch,
    Part,
    Pdu,
    PortGroup,
    PowerPort,
    RackDevice,
)
from rackplanner.core.errors import InputError, describe_validation_error, show_value
from rackplanner.core.files import write_atomic
from rackplanner.core.ids import slug

KINDS = ("rack-device", "switch", "pdu")

_WEIGHT_KG = {"kg": 1.0, "g": 0.001, "lb": 0.45359237, "oz": 0.028349523125}
_IB_SPEED_GBPS = {
    "sdr": 10,
    "ddr": 20,
    "qdr": 40,
    "fdr10": 40,
    "fdr": 56,
    "edr": 100,
    "hdr": 200,
    "ndr": 400,
    "xdr": 800,
}
_IB_CONNECTOR = {"fdr": "qsfp+", "edr": "qsfp28", "hdr": "qsfp56", "ndr": "osfp", "xdr": "osfp"}
_ETHERNET = re.compile(r"^(\d+(?:\.\d+)?)(g|m)?base-")
_CONNECTORS = ("qsfpdd", "osfp", "qsfp112", "qsfp56", "qsfp28", "qsfpp", "sfp56", "sfp28", "sfpp", "sfp", "cx4")
_OUTLET_TYPES = ("iec-60320-c13", "iec-60320-c19", "nema-5-15r", "nema-5-20r")
_SWITCH_MIN_PORTS = 8

# PDU inlets: (phases, wiring, volts line-to-line or None when the plug allows several, amps).
# NEMA locking plugs carry their rating in the name (NEMA WD 6); IEC 60309 plugs give the
# voltage band by colour and clock position but not the current, which must then be given.
PDU_INLETS: dict[str, tuple[int, str, float | None, float | None]] = {
    "nema-l5-20p": (1, "single", 120, 20),
    "nema-l5-30p": (1, "single", 120, 30),
    "nema-l6-20p": (1, "single", None, 20),
    "nema-l6-30p": (1, "single", None, 30),
    "nema-l14-30p": (1, "single", 240, 30),
    "nema-l15-20p": (3, "delta", 208, 20),
    "nema-l15-30p": (3, "delta", 208, 30),
    "nema-l21-20p": (3, "wye", 208, 20),
    "nema-l21-30p": (3, "wye", 208, 30),
    "cs8365c": (3, "delta", 208, 50),
    "iec-60309-2p-e-6h": (1, "single", 230, None),
    "iec-60309-3p-e-9h": (3, "delta", 208, None),
    "iec-60309-3p-n-e-9h": (3, "wye", 208, None),
    "iec-60309-3p-n-e-6h": (3, "wye", 400, None),
}
_MODELS: dict[str, type[Part]] = {"rack-device": RackDevice, "switch": NetworkSwitch, "pdu": Pdu}
_LEG_LINES = {
    "single": {"A": "L1", "B": "L1", "C": "L1"},
    "wye": {"A": "L1", "B": "L2", "C": "L3"},
    "delta": {"A": "L1-L2", "B": "L2-L3", "C": "L3-L1"},
}


class ImportResult(BaseModel):
    path: str
    kind: str
    part: dict[str, Any]
    warnings: list[str]


class NetboxError(InputError):
    """A device-type file that cannot be imported, naming the file and the field."""


def import_device_type(
    path: Path,
    *,
    as_kind: str | None = None,
    voltage_v: float | None = None,
    current_a: float | None = None,
    wiring: str | None = None,
) -> ImportResult:
    """Read one NetBox device-type file into a catalog entry (as a dict ready for YAML)."""
    data = _read(path)
    warnings: list[str] = []
    manufacturer = _required_text(data, "manufacturer", path)
    model = _required_text(data, "model", path)
    height = _height(data, path)
    interfaces = data.get("interfaces") or []
    outlets = data.get("power-outlets") or []
    guessed = "pdu" if outlets else "switch" if _data_ports(interfaces) >= _SWITCH_MIN_PORTS else "rack-device"
    kind = as_kind or guessed
    if kind not in KINDS:
        raise NetboxError(f"{path}: cannot import as {kind!r} (choose one of {', '.join(KINDS)})")
    entry: dict[str, Any] = {
        "id": slug(str(data.get("slug") or f"{manufacturer}-{model}"), "device", dots=True),
        "vendor": manufacturer,
        "model": model,
        "source": [f"NetBox device type {path.name}" + (f": {_first_url(data)}" if _first_url(data) else "")],
    }
    weight = _weight_kg(data, path)
    ports = _power_ports(data, path, warnings)
    if kind == "pdu":
        entry.update(_pdu_fields(data, path, ports, outlets, voltage_v, current_a, wiring, warnings))
        entry["height_u"] = height
    else:
        if height == 0:
            raise NetboxError(f"{path}: u_height: a {kind} needs a height of at least 1 U (found 0)")
        entry["height_u"] = height
        entry["is_full_depth"] = bool(data.get("is_full_depth", True))
        if kind == "switch":
            entry.update(_switch_fields(interfaces, ports, path, warnings))
        else:
            entry["power_ports"] = ports
            groups, mgmt = _port_groups(interfaces, path)
            entry["interfaces"] = groups
            entry["mgmt_ports"] = mgmt
            _module_bay_psus(data, ports, warnings)
    if weight is not None:
        entry["weight_kg"] = round(weight, 2)
    if warnings:
        entry["notes"] = "Imported from NetBox. " + " ".join(warnings)
    model_cls = _MODELS[kind]
    try:
        model_cls.model_validate(entry)
    except ValidationError as exc:
        raise NetboxError(f"{path}: {describe_validation_error(exc)}") from None
    return ImportResult(path=str(path), kind=kind, part=entry, warnings=warnings)


# A device type is a few kB; the largest in the community library is under 100 kB.
MAX_DEVICE_TYPE_BYTES = 4_000_000
MAX_DEVICE_TYPE_VALUES = 50_000


def _read(path: Path) -> dict[str, Any]:
    try:
        data = files.read_yaml(
            path, what="NetBox device type", max_bytes=MAX_DEVICE_TYPE_BYTES, max_values=MAX_DEVICE_TYPE_VALUES
        )
    except InputError as exc:
        raise NetboxError(str(exc)) from None
    if not isinstance(data, dict):
        raise NetboxError(f"{path}: expected a NetBox device type (a mapping), found {type(data).__name__}")
    return data


def _required_text(data: dict[str, Any], key: str, path: Path) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise NetboxError(f"{path}: {key}: required, found {show_value(value)}")
    return value.strip()


def _height(data: dict[str, Any], path: Path) -> int:
    value = data.get("u_height", 1)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 100:
        raise NetboxError(f"{path}: u_height: expected a number of rack units, found {show_value(value)}")
    if value != int(value):
        raise NetboxError(f"{path}: u_height: {value} U is not a whole number of rack units")
    return int(value)


def _weight_kg(data: dict[str, Any], path: Path) -> float | None:
    weight = data.get("weight")
    if weight is None:
        return None
    unit = str(data.get("weight_unit", "kg")).lower()
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight <= 0 or unit not in _WEIGHT_KG:
        raise NetboxError(
            f"{path}: weight: expected a positive number with weight_unit kg/g/lb/oz, found {weight!r} {unit}"
        )
    return float(weight) * _WEIGHT_KG[unit]


def _power_ports(data: dict[str, Any], path: Path, warnings: list[str]) -> list[dict[str, Any]]:
    raw = data.get("power-ports") or []
    if not isinstance(raw, list):
        raise NetboxError(f"{path}: power-ports: expected a list, found {type(raw).__name__}")
    ports = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            raise NetboxError(f"{path}: power-ports[{index}].type: required, found {show_value(item)}")
        port: dict[str, Any] = {"type": item["type"]}
        for key, field in (("maximum_draw", "maximum_draw_w"), ("allocated_draw", "allocated_draw_w")):
            value = item.get(key)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise NetboxError(f"{path}: power-ports[{index}].{key}: expected watts > 0, found {show_value(value)}")
            port[field] = float(value)
        ports.append(port)
    draws = [p.get("maximum_draw_w") for p in ports]
    if len(ports) >= 2 and draws[0] is not None and len(set(draws)) == 1 and draws[0] % 50 == 0:
        allocated = all("allocated_draw_w" in p for p in ports)
        warnings.append(
            f"Each of its {len(ports)} power ports gives maximum_draw {draws[0]:g} W, which looks like the PSU "
            "nameplate rating (a known fault of the NetBox library), not the draw; "
            + ("allocated_draw is used instead." if allocated else "left out, so add the real maximum draw.")
        )
        for port in ports:
            port.pop("maximum_draw_w", None)
    return ports


def _module_bay_psus(data: dict[str, Any], ports: list[dict[str, Any]], warnings: list[str]) -> None:
    bays = [b.get("name", "") for b in data.get("module-bays") or [] if isinstance(b, dict)]
    psu_bays = [str(b) for b in bays if "psu" in str(b).lower() or "power" in str(b).lower()]
    if psu_bays and not ports:
        warnings.append(
            f"Its PSUs are module bays ({', '.join(psu_bays)}) with no power ports or draw (a known fault of "
            "the NetBox library); its power is unknown until you add power_ports."
        )


def _data_ports(interfaces: list[Any]) -> int:
    return sum(1 for i in interfaces if isinstance(i, dict) and not i.get("mgmt_only") and _speed(i) is not None)


def _speed(interface: dict[str, Any]) -> tuple[float, str] | None:
    """(Gb/s, connector) of a NetBox interface type; None for virtual, LAG or unknown types."""
    kind = str(interface.get("type", "")).lower()
    if kind.startswith("infiniband-"):
        generation = kind.removeprefix("infiniband-")
        if generation in _IB_SPEED_GBPS:
            return float(_IB_SPEED_GBPS[generation]), _IB_CONNECTOR.get(generation, "qsfp")
        return None
    match = _ETHERNET.match(kind)
    if not match:
        return None
    speed = float(match.group(1)) / (1 if match.group(2) == "g" else 1000)
    connector = next((c for c in _CONNECTORS if kind.endswith(c)), "rj45" if kind.endswith("-t") else "other")
    return speed, connector


def _port_groups(interfaces: list[Any], path: Path) -> tuple[list[dict[str, Any]], int]:
    if not isinstance(interfaces, list):
        raise NetboxError(f"{path}: interfaces: expected a list, found {type(interfaces).__name__}")
    groups: Counter[tuple[float, str]] = Counter()
    mgmt = 0
    for interface in interfaces:
        if not isinstance(interface, dict):
            continue
        if interface.get("mgmt_only"):
            mgmt += 1
            continue
        speed = _speed(interface)
        if speed is not None:
            groups[speed] += 1
    rows = [
        {"count": n, "speed_gbps": speed, "connector": connector}
        for (speed, connector), n in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1]))
    ]
    return rows, mgmt


def _switch_fields(
    interfaces: list[Any], ports: list[dict[str, Any]], path: Path, warnings: list[str]
) -> dict[str, Any]:
    groups, _ = _port_groups(interfaces, path)
    if not groups:
        raise NetboxError(f"{path}: interfaces: a switch needs at least one data port")
    fabric = "infiniband" if any(str(i.get("type", "")).startswith("infiniband") for i in interfaces) else "ethernet"
    fields: dict[str, Any] = {"fabric": fabric, "ports": groups, "psu_count": max(1, len(ports))}
    inlet = ports[0]["type"] if ports else None
    if inlet in ("iec-60320-c14", "iec-60320-c20", "iec-60320-c16"):
        fields["inlet"] = inlet
    draws = [p.get("allocated_draw_w") or p.get("maximum_draw_w") for p in ports]
    if ports and all(d is not None for d in draws):
        # As NetBox's own power utilisation does, the device draws the sum over its ports.
        fields["power_max_w"] = sum(d for d in draws if d is not None)
    elif ports:
        warnings.append("No trustworthy power draw in the file; add power_max_w.")
    return fields


def _pdu_fields(
    data: dict[str, Any],
    path: Path,
    ports: list[dict[str, Any]],
    outlets: list[Any],
    voltage_v: float | None,
    current_a: float | None,
    wiring: str | None,
    warnings: list[str],
) -> dict[str, Any]:
    if not ports:
        raise NetboxError(f"{path}: power-ports: a PDU needs its input plug (one power port)")
    inlet = ports[0]["type"]
    known = PDU_INLETS.get(inlet)
    if known is None and (voltage_v is None or current_a is None or wiring is None):
        raise NetboxError(
            f"{path}: power-ports[0].type: the inlet {inlet!r} does not say the PDU's voltage, phases and "
            "current; give --voltage, --current and --wiring"
        )
    phases, plug_wiring, plug_v, plug_a = known if known else (3 if wiring != "single" else 1, wiring, None, None)
    wiring = wiring or plug_wiring
    volts = voltage_v or plug_v
    amps = current_a or plug_a
    if volts is None:
        raise NetboxError(f"{path}: power-ports[0].type: {inlet} is used at several voltages; give --voltage")
    if amps is None:
        raise NetboxError(f"{path}: power-ports[0].type: {inlet} does not carry its current rating; give --current")
    if (phases == 1) != (wiring == "single"):
        raise NetboxError(f"{path}: --wiring {wiring} does not fit the {phases}-phase inlet {inlet}")
    assert wiring is not None
    groups = _outlet_groups(outlets, wiring, path, warnings)
    return {
        "phases": phases,
        "wiring": wiring,
        "voltage_v": volts,
        "input_current_a": amps,
        "inlet": inlet,
        "metering": "basic",
        "outlet_groups": groups,
    }


def _outlet_groups(outlets: list[Any], wiring: str, path: Path, warnings: list[str]) -> list[dict[str, Any]]:
    usable = []
    skipped: Counter[str] = Counter()
    for index, outlet in enumerate(outlets):
        if not isinstance(outlet, dict) or not isinstance(outlet.get("type"), str):
            raise NetboxError(f"{path}: power-outlets[{index}].type: required, found {show_value(outlet)}")
        if outlet["type"] not in _OUTLET_TYPES:
            skipped[outlet["type"]] += 1
            continue
        usable.append((str(outlet.get("feed_leg") or "").upper(), outlet["type"]))
    if skipped:
        warnings.append(f"Outlets of types rackplanner does not plug into were left out: {dict(skipped)}.")
    legs = {leg for leg, _ in usable}
    if wiring != "single" and len(legs - {""}) <= 1 and len(usable) >= 3:
        warnings.append(
            f"All {len(usable)} outlets are on one feed leg (or none), which the NetBox library often gets wrong "
            "for 3-phase PDUs; they were spread over the three lines in outlet order. Check the vendor's sheet."
        )
        third = math.ceil(len(usable) / 3)
        usable = [("ABC"[i // third], kind) for i, (_, kind) in enumerate(usable)]
    by_leg: dict[str, Counter[str]] = {}
    for leg, kind in usable:
        by_leg.setdefault(leg or "A", Counter())[kind] += 1
    lines = _LEG_LINES[wiring]
    groups = []
    for leg in sorted(by_leg):
        if leg not in lines:
            raise NetboxError(f"{path}: power-outlets: feed_leg {leg!r} is not A, B or C")
        groups.append({"id": f"leg-{leg.lower()}", "line": lines[leg], "outlets": dict(sorted(by_leg[leg].items()))})
    if wiring == "single" and len(groups) > 1:
        merged: Counter[str] = Counter()
        for group in groups:
            merged.update(group["outlets"])
        groups = [{"id": "outlets", "line": "L1", "outlets": dict(sorted(merged.items()))}]
    return groups


def _first_url(data: dict[str, Any]) -> str | None:
    match = re.search(r"https?://[^\s)\]]+", str(data.get("comments") or ""))
    return match.group(0) if match else None


# --- writing to a catalog folder, and back to NetBox ----------------------------------------


def add_to_catalog(results: list[ImportResult], folder: Path) -> list[Path]:
    """Merge imported entries into ``folder/<kind>.yaml`` (same id replaced), each file written atomically."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for kind in sorted({r.kind for r in results}):
        path = folder / f"{kind}.yaml"
        existing: list[Any] = []
        if path.exists():
            try:
                loaded = files.read_yaml(path, what="catalog", max_bytes=MAX_CATALOG_FILE_BYTES)
            except InputError as exc:
                raise NetboxError(f"{exc}; not changed") from None
            if loaded is not None and not isinstance(loaded, list):
                raise NetboxError(f"{path}: expected a list of {kind} entries; not changed")
            existing = loaded or []
        new = {r.part["id"]: r.part for r in results if r.kind == kind}
        merged = [e for e in existing if not (isinstance(e, dict) and e.get("id") in new)] + list(new.values())
        write_atomic(path, yaml.safe_dump(merged, sort_keys=False, allow_unicode=True).encode("utf-8"))
        written.append(path)
    return written


def to_device_type(part: Part) -> dict[str, Any]:
    """A NetBox device-type mapping for a rack device, switch or PDU (the inverse of the import)."""
    data: dict[str, Any] = {"manufacturer": part.vendor, "model": part.model, "slug": part.id}
    if isinstance(part, Pdu):
        data["u_height"] = part.height_u
        data["is_full_depth"] = False
        data["power-ports"] = [{"name": "Input", "type": part.inlet}]
        legs = {line: leg for leg, line in _LEG_LINES[part.wiring].items()}
        outlets = []
        for group in part.outlet_groups:
            for kind, count in group.outlets.items():
                for _ in range(count):
                    outlets.append({"type": kind, "feed_leg": legs.get(group.line, "A")})
        data["power-outlets"] = [{"name": str(i + 1), **o} for i, o in enumerate(outlets)]
    elif isinstance(part, (RackDevice, NetworkSwitch)):
        data["u_height"] = part.height_u
        data["is_full_depth"] = part.is_full_depth
        if isinstance(part, RackDevice):
            data["power-ports"] = [_power_port_out(i, p) for i, p in enumerate(part.power_ports)]
            groups, mgmt = part.interfaces, part.mgmt_ports
            fabric = "ethernet"
        else:
            # NetBox sums allocated draw over a device's ports, so the total is shared out.
            draw = {"allocated_draw": part.power_max_w / part.psu_count} if part.power_max_w else {}
            data["power-ports"] = [{"name": f"PSU{i + 1}", "type": part.inlet, **draw} for i in range(part.psu_count)]
            groups, mgmt = part.ports, 0
            fabric = part.fabric
        data["interfaces"] = [
            {"name": f"port{n + 1}", "type": _interface_type(g, fabric)} for g in groups for n in range(g.count)
        ] + [{"name": f"mgmt{n + 1}", "type": "1000base-t", "mgmt_only": True} for n in range(mgmt)]
    else:
        raise NetboxError(f"{part.id}: a {part.kind} has no NetBox device-type form")
    weight = getattr(part, "weight_kg", None)
    if weight is not None:
        data["weight"] = weight
        data["weight_unit"] = "kg"
    return data


def _power_port_out(index: int, port: PowerPort) -> dict[str, Any]:
    out: dict[str, Any] = {"name": f"PSU{index + 1}", "type": port.type}
    if port.maximum_draw_w is not None:
        out["maximum_draw"] = port.maximum_draw_w
    if port.allocated_draw_w is not None:
        out["allocated_draw"] = port.allocated_draw_w
    return out


def _interface_type(group: PortGroup, fabric: str) -> str:
    if fabric == "infiniband":
        generation = next((g for g, s in _IB_SPEED_GBPS.items() if s == group.speed_gbps), "hdr")
        return f"infiniband-{generation}"
    speed = f"{group.speed_gbps:g}g" if group.speed_gbps > 1 else f"{group.speed_gbps * 1000:g}"
    return f"{speed}base-t" if group.connector == "rj45" else f"{speed}base-x-{group.connector}"
