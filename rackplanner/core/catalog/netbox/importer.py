"""Import NetBox community device types as catalog entries: one file, or a batch that reports each file.

Each file is read (``reading``), its kind decided from what it says (``roles``), its power and
PDU electrics worked out (``power``, ``pdu``), and the entry validated as a catalog part. What the
file says that is not used is listed with the reason (a nameplate rating given as a draw, outlets on
one leg of a three-phase PDU, PSUs as module bays). Ids keep the manufacturer as a namespace, and
an id a catalog already has is refused unless replacing is asked for.
"""

from __future__ import annotations

import difflib
import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ValidationError

from rackplanner.core import files
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.netbox.pdu import pdu_fields
from rackplanner.core.catalog.netbox.power import cordless_note, device_power
from rackplanner.core.catalog.netbox.reading import DeviceFile, NetboxError, flag, read_device_file
from rackplanner.core.catalog.netbox.roles import decide_role, ups_evidence
from rackplanner.core.catalog.netbox.speeds import interface_speed
from rackplanner.core.catalog.netbox.vocabulary import schema
from rackplanner.core.catalog.parts import Airflow, NetworkSwitch, Part, Pdu, RackDevice
from rackplanner.core.catalog.user_entries import merge_entries
from rackplanner.core.errors import InputError, describe_validation_error
from rackplanner.core.ids import slug

KINDS = ("rack-device", "switch", "pdu")
_MODELS: dict[str, type[Part]] = {"rack-device": RackDevice, "switch": NetworkSwitch, "pdu": Pdu}
# NVIDIA (Mellanox) InfiniBand switch families by model name: SwitchX-2 SX6xxx (FDR), Switch-IB 2
# SB7xxx (EDR), Quantum QM87xx (HDR), Quantum-2 QM97xx (NDR) and the CS7500/CS8500 directors.
INFINIBAND_MODELS = re.compile(r"^(m?sx6|m?sb7|m?qm[89]|cs[78]5)", re.IGNORECASE)
Status = Literal["imported", "failed", "collision"]


class ImportResult(BaseModel):
    path: str
    status: Status = "imported"
    kind: str | None = None
    part: dict[str, Any] | None = None
    role_reasons: list[str] = []
    warnings: list[str] = []  # what the file says that was not used, and why
    error: str | None = None


def import_device_type(
    path: Path,
    *,
    as_kind: str | None = None,
    voltage_v: float | None = None,
    current_a: float | None = None,
    wiring: str | None = None,
) -> ImportResult:
    """Read one device-type file into a catalog entry (a dict ready for YAML); ``NetboxError`` if it cannot be."""
    device = read_device_file(path)
    where = device.where
    ups = ups_evidence(device)
    if ups and as_kind is None:
        raise NetboxError(
            f"{where}: a UPS or its battery pack ({ups}): it draws power and gives it from batteries, which is not "
            "modelled here, so it is not imported as a PDU; --as rack-device places it as a box"
        )
    role = decide_role(device)
    kind = as_kind or role.kind
    if kind not in KINDS:
        raise NetboxError(f"{where}: cannot import as {kind!r}; choose one of {', '.join(KINDS)}")
    reasons = [f"--as {kind}"] if as_kind else role.reasons
    notes: list[str] = _unknown_keys(device)
    entry: dict[str, Any] = {
        "id": part_id(device),
        "vendor": device.manufacturer,
        "model": device.model,
        "source": [
            f"NetBox device type {device.path.name}" + (f": {device.first_url()}" if device.first_url() else "")
        ],
    }
    height = _whole_units(device, kind, notes)
    if kind == "pdu":
        entry.update(pdu_fields(device, voltage_v=voltage_v, current_a=current_a, wiring=wiring, notes=notes))
        entry["height_u"] = height
    else:
        entry["height_u"] = height
        entry["is_full_depth"] = device.is_full_depth
        power = device_power(device)
        notes.extend(power.untrusted)
        groups, mgmt = port_groups(device, notes)
        if kind == "switch":
            # A switch entry has one IEC inlet kind: _switch_fields says what became of any other.
            entry.update(_switch_fields(device, groups, power.inlets, notes))
        else:
            if power.cordless:
                notes.append(cordless_note(power.cordless))
            entry["power_ports"] = [{"type": inlet} for inlet in power.inlets]
            entry["interfaces"] = groups
            entry["mgmt_ports"] = mgmt
        if power.draw_w is not None:
            entry["power_max_w"] = power.draw_w
    if device.weight_kg is not None:
        entry["weight_kg"] = round(device.weight_kg, 2)
    if kind != "pdu":
        _airflow(device, entry, notes)
    if notes:
        entry["notes"] = "Imported from NetBox. " + " ".join(notes)
    try:
        _MODELS[kind].model_validate(entry)
    except ValidationError as exc:
        raise NetboxError(f"{where}: {describe_validation_error(exc)}") from None
    return ImportResult(path=str(path), kind=kind, part=entry, role_reasons=reasons, warnings=notes)


def _airflow(device: DeviceFile, entry: dict[str, Any], notes: list[str]) -> None:
    """NetBox's ``airflow`` as the part's, when it is one of the library's words."""
    airflow = device.data.get("airflow")
    if airflow is None:
        return
    if airflow in get_args(Airflow):
        entry["airflow"] = airflow
    else:
        notes.append(f"airflow {str(airflow)[:40]!r} is not one of NetBox's airflow values; left unknown.")


def part_id(device: DeviceFile) -> str:
    """The catalog id: the file's slug (or model), prefixed with the manufacturer unless it already is."""
    maker = slug(device.manufacturer, "maker")
    base = slug(device.slug or device.model, "device", dots=True)
    # Library slugs start with the manufacturer ("apc-ap8868", "server-technology-..."), sometimes with its first word.
    prefixes = (maker + "-", maker.split("-")[0] + "-")
    return base if base.startswith(prefixes) else f"{maker}-{base}"


def _whole_units(device: DeviceFile, kind: str, notes: list[str]) -> int:
    height = device.u_height
    if height != int(height):
        # A 0.5 U or 1.2 U box still takes the next whole unit in a rack of whole units.
        whole = math.ceil(height)
        notes.append(f"u_height {height:g} U is not a whole number of rack units: it takes {whole} U here.")
        return whole
    if height == 0 and kind != "pdu":
        if device.subdevice_role == "child":
            raise NetboxError(
                f"{device.where}: u_height: 0 U, a child device that sits in a bay of its parent; import the parent"
            )
        raise NetboxError(f"{device.where}: u_height: a {kind} needs a height of at least 1 U (0 U given)")
    return int(height)


# Names vendors give a management port (Cumulus/Onyx eth0 beside swpN, Arista Management1, Juniper
# fxp0/em0, Cisco mgmt0, BMCs); a port so named but not flagged mgmt_only is a known library fault.
_MGMT_NAME = re.compile(r"^(mgmt|management|ma|fxp|em|me|bmc|ipmi|idrac|ilo|xcc|imm|irmc|oob)[\d/ -]*\d*$", re.I)


def port_groups(device: DeviceFile, notes: list[str] | None = None) -> tuple[list[dict[str, Any]], int]:
    """Data ports grouped by speed and connector, and the count of management ports.

    A copper gigabit port named as a management port (``Management1``, ``fxp0``; ``eth0`` where the
    data ports have other names) counts as one even when the file does not flag it ``mgmt_only``.
    """
    groups: Counter[tuple[float, str]] = Counter()
    mgmt = 0
    named = []
    eth_data = sum(1 for i in device.interfaces if str(i.get("name", "")).lower().startswith("eth"))
    for interface in device.interfaces:
        if flag(interface, "mgmt_only", files.shown(device.path), default=False):
            mgmt += 1
            continue
        if _named_management(interface, eth_data):
            mgmt += 1
            named.append(str(interface.get("name")))
            continue
        speed = interface_speed(interface)
        if speed is not None:
            groups[speed] += 1
    rows = [{"count": n, "speed_gbps": s, "connector": c} for (s, c), n in sorted(groups.items())]
    if named and notes is not None:
        notes.append(
            f"{', '.join(named)} {'is' if len(named) == 1 else 'are'} not flagged mgmt_only but named as "
            "management ports; counted as management, not data."
        )
    return rows, mgmt


def _named_management(interface: dict[str, Any], eth_ports: int) -> bool:
    name = str(interface.get("name", "")).strip()
    kind = str(interface.get("type", ""))
    if kind not in ("1000base-t", "100base-tx", "1000base-tx", "10gbase-t", "2.5gbase-t"):
        return False
    return bool(_MGMT_NAME.match(name)) or (name.lower() == "eth0" and eth_ports == 1)


def _unknown_keys(device: DeviceFile) -> list[str]:
    """What the file names that NetBox's device-type schema does not (a misspelt power_ports is
    otherwise a device with no power ports, said nowhere)."""
    known = set(schema("devicetype")["properties"])
    unknown = sorted(str(key) for key in device.data if str(key) not in known)
    if not unknown:
        return []
    shown = ", ".join(
        f"{key} (did you mean {close[0]}?)" if (close := difflib.get_close_matches(key, known, n=1)) else key
        for key in unknown[:6]
    )
    return [f"Keys not in NetBox's device-type schema, so not read: {shown}."]


def _switch_fields(
    device: DeviceFile, groups: list[dict[str, Any]], inlets: list[str], notes: list[str]
) -> dict[str, Any]:
    if not groups:
        raise NetboxError(f"{device.where}: interfaces: a switch needs at least one data port")
    typed_ib = any(str(i.get("type", "")).startswith("infiniband") for i in device.interfaces)
    named_ib = bool(INFINIBAND_MODELS.match(device.model)) and device.manufacturer.lower() in ("mellanox", "nvidia")
    if named_ib and not typed_ib:
        notes.append(
            f"{device.model} is an InfiniBand switch family, but the file types its ports as Ethernet; "
            "imported as InfiniBand."
        )
    fields: dict[str, Any] = {
        "fabric": "infiniband" if typed_ib or named_ib else "ethernet",
        "ports": groups,
        "psu_count": max(1, len(inlets)),
    }
    if inlets and inlets[0] in SWITCH_INLETS:
        fields["inlet"] = inlets[0]
    odd = sorted({inlet for inlet in inlets if inlet not in SWITCH_INLETS})
    if odd:
        # A switch entry has one IEC inlet kind (rack.py); a rack device keeps each port's type.
        notes.append(
            f"A switch entry takes a C14, C16 or C20 inlet only, so its {', '.join(odd)} input is recorded as "
            f"{fields.get('inlet', 'iec-60320-c14')} and a rack would plug it into a PDU outlet; import it with "
            "--as rack-device to keep the input as given."
        )
    return fields


SWITCH_INLETS = ("iec-60320-c14", "iec-60320-c20", "iec-60320-c16")


# --- a batch, and the catalog folder it goes into -----------------------------------------------


@dataclass(frozen=True)
class PerFile:
    """A figure given for every file (``32``) or for one (``AP8881.yaml=32``), as the options are written."""

    default: float | str | None = None
    by_file: tuple[tuple[str, float | str], ...] = ()

    def for_path(self, path: Path) -> float | str | None:
        for name, value in self.by_file:
            if name in (str(path), path.name, path.stem):
                return value
        return self.default


def import_batch(
    paths: list[Path],
    *,
    catalog: Catalog | None = None,
    replace: bool = False,
    as_kind: PerFile = PerFile(),
    voltage_v: PerFile = PerFile(),
    current_a: PerFile = PerFile(),
    wiring: PerFile = PerFile(),
) -> list[ImportResult]:
    """Every file on its own: one that cannot be imported says why (and which figure to give), the others go on."""
    results = []
    seen: dict[str, str] = {}
    for path in paths:
        try:
            result = import_device_type(
                path,
                as_kind=_text(as_kind.for_path(path)),
                voltage_v=_number(voltage_v.for_path(path)),
                current_a=_number(current_a.for_path(path)),
                wiring=_text(wiring.for_path(path)),
            )
        except InputError as exc:
            results.append(ImportResult(path=str(path), status="failed", error=str(exc)))
            continue
        assert result.part is not None
        new_id = result.part["id"]
        existing = catalog.get(new_id) if catalog is not None else None
        if new_id in seen:
            result.status, result.error = "collision", f"{files.shown(path)}: id {new_id} is also {seen[new_id]}'s"
        elif existing is not None and not replace:
            result.status = "collision"
            result.error = (
                f"{files.shown(path)}: id {new_id} is already {existing.label} ({existing.kind}) in the catalog; "
                "not imported (give --replace to replace it)"
            )
        elif existing is not None:
            result.warnings.append(f"Replaces the catalog's {existing.label} ({existing.kind}).")
        seen.setdefault(new_id, files.shown(path))
        results.append(result)
    return results


def _number(value: float | str | None) -> float | None:
    return float(value) if value is not None else None


def _text(value: float | str | None) -> str | None:
    return str(value) if value is not None else None


def add_to_catalog(results: list[ImportResult], folder: Path) -> list[Path]:
    """Merge imported entries into ``folder/<kind>.yaml`` (same id replaced), each file written atomically."""
    imported = [r for r in results if r.status == "imported" and r.part is not None and r.kind]
    written = []
    for kind in sorted({r.kind for r in imported if r.kind}):
        entries = [r.part for r in imported if r.kind == kind and r.part]
        try:
            written.append(merge_entries(folder, kind, entries))
        except InputError as exc:
            message = str(exc)
            raise NetboxError(message if message.endswith("not changed") else f"{message}; not changed") from None
    return written
