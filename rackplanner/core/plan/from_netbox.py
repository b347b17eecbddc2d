"""A plan read back from a NetBox export folder (``rackplanner export PLAN --netbox DIR``).

Racks, feeds, devices and their positions come from the CSV files NetBox imports, so a rack
moved or a feed's breaker changed in those files is read as changed; what NetBox has no field
for (a machine's parts, the plan's ids, rows and notes, which cords were pinned to an outlet
group) from the ``rackplanner:`` JSON in the comments. Outlet numbers are turned back into outlet
groups by the PDU's catalog part, numbered as the exported device type numbers its outlets.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Pdu
from rackplanner.core.errors import InputError
from rackplanner.core.files import read_text, shown
from rackplanner.core.plan.files import check_references, plan_from_data
from rackplanner.core.plan.model import SCHEMA_VERSION, Plan

MARK = "rackplanner: "
MAX_CSV_BYTES = 32_000_000


class _Row:
    """One CSV row; a missing or unreadable field is an ``InputError`` naming the file, row and column."""

    def __init__(self, path: Path, index: int, values: dict[str, str | None]) -> None:
        self.path, self.number, self.values = path, index + 2, values  # row 1 is the header

    def where(self, column: str) -> str:
        return f"{shown(self.path)}: row {self.number}: {column}"

    def text(self, column: str, *, required: bool = True) -> str:
        value = (self.values.get(column) or "").strip()
        if required and not value:
            raise InputError(f"{self.where(column)}: missing")
        return value

    def number_of(self, column: str) -> float:
        text = self.text(column)
        try:
            return float(text)
        except ValueError:
            raise InputError(f"{self.where(column)}: {text[:40]!r} is not a number") from None

    def ours(self) -> dict[str, Any]:
        """The ``rackplanner:`` JSON the export put in the comments."""
        comments = self.text("comments", required=False)
        if not comments.startswith(MARK):
            raise InputError(f"{self.where('comments')}: not a rackplanner export (no '{MARK.strip()}')")
        try:
            data = json.loads(comments.removeprefix(MARK))
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise InputError(f"{self.where('comments')}: the rackplanner data is damaged")
        return data

    def key(self, data: dict[str, Any], key: str) -> Any:
        if key not in data:
            raise InputError(f"{self.where('comments')}: the rackplanner data has no {key!r}")
        return data[key]


def plan_from_netbox_export(folder: Path, catalog: Catalog) -> Plan:
    """The plan an export folder holds; ``InputError`` naming the file, row and field that cannot be read."""
    if not folder.is_dir():
        raise InputError(f"{shown(folder)}: not a folder (give the folder 'export --netbox' wrote)")
    sites = _rows(folder, "sites.csv", required=True)
    meta = sites[0].ours() if sites else {}
    racks: dict[str, dict[str, Any]] = {}
    for row in _rows(folder, "racks.csv"):
        extra = row.ours()
        racks[row.text("name")] = {
            "id": row.key(extra, "id"),
            "name": row.text("name"),
            "part": row.key(extra, "part"),
            "row": extra.get("row"),
            "devices": [],
        }
    feeds = [_feed(row) for row in _rows(folder, "power-feeds.csv")]
    machines: list[Any] = []
    device_ids: dict[str, tuple[str, str, str | None]] = {}  # NetBox name -> rack id, device id, part
    for row in _rows(folder, "devices.csv"):
        extra = row.ours()
        if not row.text("rack", required=False):
            machines.append(row.key(extra, "machine"))  # a machine in no rack
            continue
        rack = racks.get(row.text("rack"))
        if rack is None:
            raise InputError(f"{row.where('rack')}: {row.text('rack')[:60]!r} is not in racks.csv")
        device = _device(row, extra)
        if isinstance(extra.get("machine"), dict):
            machines.append(extra["machine"])
            device["machine"] = extra["machine"].get("id")
        rack["devices"].append(device)
        device_ids[row.text("name")] = (rack["id"], device["id"], device.get("part"))
    data = {
        "schema_version": SCHEMA_VERSION,
        "name": meta.get("plan", "Imported from NetBox"),
        "notes": meta.get("notes", ""),
        "machines": machines,
        "rows": meta.get("rows", []),
        "racks": list(racks.values()),
        "feeds": feeds,
        "outlet_assignments": _pinned_cords(folder, device_ids, catalog),
    }
    plan = plan_from_data(data, origin=shown(folder))
    problems = check_references(plan, catalog)
    if problems:
        raise InputError(f"{shown(folder)}: {'; '.join(problems[:3])}")
    return plan


def _feed(row: _Row) -> dict[str, Any]:
    extra = row.ours()
    phase = row.text("phase")
    if phase not in ("single-phase", "three-phase"):
        raise InputError(f"{row.where('phase')}: {phase[:40]!r} is neither single-phase nor three-phase")
    return {
        "id": row.key(extra, "id"),
        "name": row.text("name"),
        "side": row.key(extra, "side"),
        "phases": 3 if phase == "three-phase" else 1,
        "voltage_v": row.number_of("voltage"),
        "breaker_a": row.number_of("amperage"),
    }


def _device(row: _Row, extra: dict[str, Any]) -> dict[str, Any]:
    device: dict[str, Any] = {
        "id": row.key(extra, "id"),
        "name": row.key(extra, "name"),
        # NetBox keeps a face only with a position; a zero-U device's is in our data.
        "face": row.text("face", required=False) or extra.get("face", "front"),
    }
    if row.text("position", required=False):
        position = row.number_of("position")
        if position != int(position):
            raise InputError(f"{row.where('position')}: half units are not planned ({position:g})")
        device["position_u"] = int(position)
    for key in ("side", "feed", "part"):
        if extra.get(key) is not None:
            device[key] = extra[key]
    return device


def _pinned_cords(
    folder: Path, device_ids: dict[str, tuple[str, str, str | None]], catalog: Catalog
) -> list[dict[str, Any]]:
    pinned = []
    for row in _rows(folder, "cables.csv"):
        if row.text("label", required=False) != "pinned" or row.text("side_b_type") != "dcim.poweroutlet":
            continue
        device, pdu_end = device_ids.get(row.text("side_a_device")), device_ids.get(row.text("side_b_device"))
        if device is None or pdu_end is None:
            raise InputError(f"{row.where('side_a_device')}: a pinned cord between devices not in devices.csv")
        pdu = catalog.get_as(pdu_end[2] or "", Pdu)
        outlet = row.text("side_b_name")
        group = _group_of_outlet(pdu, int(outlet)) if pdu is not None and outlet.isdigit() else None
        psu = row.text("side_a_name").removeprefix("PSU")
        if group is None or not psu.isdigit():
            raise InputError(f"{row.where('side_b_name')}: no outlet {outlet[:20]!r} or power port to pin")
        pinned.append(
            {
                "rack": device[0],
                "device": device[1],
                "psu_index": int(psu) - 1,
                "pdu": pdu_end[1],
                "outlet_group": group,
            }
        )
    return pinned


def _group_of_outlet(pdu: Pdu, number: int) -> str | None:
    count = 0
    for group in pdu.outlet_groups:
        count += sum(group.outlets.values())
        if number <= count:
            return group.id
    return None


def _rows(folder: Path, name: str, *, required: bool = False) -> list[_Row]:
    path = folder / name
    if not path.exists():
        if required:
            raise InputError(f"{shown(path)}: missing; is {shown(folder)} a folder 'export --netbox' wrote?")
        return []
    text = read_text(path, what="NetBox CSV", max_bytes=MAX_CSV_BYTES)
    try:
        return [_Row(path, i, values) for i, values in enumerate(csv.DictReader(io.StringIO(text)))]
    except csv.Error as exc:
        raise InputError(f"{shown(path)}: not a CSV file ({exc})") from None
