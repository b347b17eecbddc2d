"""A NetBox device-type file read into the facts the importer decides from, each checked where it is read."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rackplanner.core import files
from rackplanner.core.errors import InputError, show_value

# A device type is a few kB; the largest in the community library is under 100 kB.
MAX_DEVICE_TYPE_BYTES = 4_000_000
MAX_DEVICE_TYPE_VALUES = 50_000
_WEIGHT_KG = {"kg": 1.0, "g": 0.001, "lb": 0.45359237, "oz": 0.028349523125}


class NetboxError(InputError):
    """A device-type file that cannot be imported, naming the file and the field."""


@dataclass
class PowerPortFact:
    name: str
    type: str
    maximum_draw_w: float | None = None
    allocated_draw_w: float | None = None


@dataclass
class DeviceFile:
    """What a device-type file says, read and checked, before any decision is made from it."""

    path: Path
    data: dict[str, Any]
    manufacturer: str
    model: str
    slug: str
    u_height: float
    is_full_depth: bool
    weight_kg: float | None
    power_ports: list[PowerPortFact]
    outlets: list[dict[str, Any]]
    interfaces: list[dict[str, Any]]
    module_bays: list[str]
    device_bays: list[str]
    console_ports: int
    subdevice_role: str | None
    comments: str
    notes: list[str] = field(default_factory=list)

    @property
    def where(self) -> str:
        return files.shown(self.path)

    def first_url(self) -> str | None:
        match = re.search(r"https?://[^\s)\]]+", self.comments)
        return match.group(0) if match else None


def read_device_file(path: Path) -> DeviceFile:
    """Read one device-type file; ``NetboxError`` names the file and the field that cannot be used."""
    try:
        data = files.read_yaml(
            path, what="NetBox device type", max_bytes=MAX_DEVICE_TYPE_BYTES, max_values=MAX_DEVICE_TYPE_VALUES
        )
    except InputError as exc:
        raise NetboxError(str(exc)) from None
    where = files.shown(path)
    if not isinstance(data, dict):
        raise NetboxError(f"{where}: expected a NetBox device type (a mapping), found {type(data).__name__}")
    if "u_height" not in data and "slug" not in data:
        # The library's module types (PSUs, line cards, fan trays) have neither; device types need both.
        raise NetboxError(
            f"{where}: a NetBox module type (no slug, no u_height): a part that goes into a device's module bay "
            "(a PSU, line card or fan tray), not a device for a rack; import the device type it fits"
        )
    manufacturer = _text(data, "manufacturer", where)
    model = _text(data, "model", where)
    slug = str(data.get("slug") or "")
    return DeviceFile(
        path=path,
        data=data,
        manufacturer=manufacturer,
        model=model,
        slug=slug,
        u_height=_height(data, where),
        is_full_depth=flag(data, "is_full_depth", where, default=True),
        weight_kg=_weight_kg(data, where),
        power_ports=_power_ports(data, where),
        outlets=_list_of_mappings(data, "power-outlets", where),
        interfaces=_list_of_mappings(data, "interfaces", where),
        module_bays=[str(b.get("name", "")) for b in _list_of_mappings(data, "module-bays", where)],
        device_bays=[str(b.get("name", "")) for b in _list_of_mappings(data, "device-bays", where)],
        console_ports=len(_list_of_mappings(data, "console-ports", where)),
        subdevice_role=str(data["subdevice_role"]) if data.get("subdevice_role") else None,
        comments=str(data.get("comments") or ""),
    )


def flag(data: dict[str, Any], key: str, where: str, *, default: bool) -> bool:
    """A yes/no field; "false" written as text is false (Python's bool() would read it as true)."""
    value = data.get(key, default)
    if isinstance(value, bool):
        return value
    words = {"true": True, "yes": True, "false": False, "no": False}
    if isinstance(value, str) and value.strip().lower() in words:
        return words[value.strip().lower()]
    raise NetboxError(f"{where}: {key}: expected true or false, found {show_value(value)}")


def _text(data: dict[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise NetboxError(f"{where}: {key}: required, found {show_value(value)}")
    return value.strip()


def _height(data: dict[str, Any], where: str) -> float:
    value = data.get("u_height", 1)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 100:
        raise NetboxError(f"{where}: u_height: expected a number of rack units, found {show_value(value)}")
    return float(value)


def _weight_kg(data: dict[str, Any], where: str) -> float | None:
    weight = data.get("weight")
    if weight is None:
        return None
    unit = str(data.get("weight_unit", "kg")).lower()
    valid = isinstance(weight, int | float) and not isinstance(weight, bool) and 0 < weight < math.inf
    if not valid or unit not in _WEIGHT_KG:
        raise NetboxError(
            f"{where}: weight: expected a positive number with weight_unit kg/g/lb/oz, "
            f"found {show_value(weight)} {show_value(unit)}"
        )
    return float(weight) * _WEIGHT_KG[unit]


def _list_of_mappings(data: dict[str, Any], key: str, where: str) -> list[dict[str, Any]]:
    raw = data.get(key) or []
    if not isinstance(raw, list):
        raise NetboxError(f"{where}: {key}: expected a list, found {type(raw).__name__}")
    for index, item in enumerate(raw):
        if not isinstance(item, dict):
            raise NetboxError(f"{where}: {key}[{index}]: expected a mapping, found {show_value(item)}")
    return raw


def _power_ports(data: dict[str, Any], where: str) -> list[PowerPortFact]:
    ports = []
    for index, item in enumerate(_list_of_mappings(data, "power-ports", where)):
        if not isinstance(item.get("type"), str):
            raise NetboxError(f"{where}: power-ports[{index}].type: required, found {show_value(item.get('type'))}")
        port = PowerPortFact(name=str(item.get("name") or f"PSU{index + 1}"), type=item["type"])
        for key in ("maximum_draw", "allocated_draw"):
            value = item.get(key)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1e6:
                raise NetboxError(
                    f"{where}: power-ports[{index}].{key}: expected watts up to 1,000,000, found {show_value(value)}"
                )
            setattr(port, f"{key}_w", float(value))
        ports.append(port)
    return ports
