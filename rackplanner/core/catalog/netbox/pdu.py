"""A PDU's electrics from its NetBox file: input plug, voltage, phases, wiring, current and outlet groups.

The plug says most of it (``vocabulary.PLUGS``); what it does not say is asked for, one figure
per file (an IEC 60309 plug's current, an L6 plug's voltage). Where the file contradicts its own
plug (a clock position that means 208 V on a PDU its comments call 400 V, as on APC AP8886), the
importer does not pick one: it asks for the voltage. Outlets are grouped by feed leg: on a
three-phase PDU a leg is a phase (line to neutral, or line to line for IEC outlets on a 120/208 V
wye), on a single-phase PDU a branch with its own breaker.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

from rackplanner.core.catalog.netbox.reading import DeviceFile, NetboxError
from rackplanner.core.catalog.netbox.vocabulary import PLUGS, USABLE_OUTLETS, Plug, line_to_line

_PHASE = {"A": "L1", "B": "L2", "C": "L3"}
_PAIR = {"A": "L1-L2", "B": "L2-L3", "C": "L3-L1"}
_VOLTS = re.compile(r"(?<![\d.])(\d{3})\s*V(?:AC)?\b", re.IGNORECASE)
_RANGE = re.compile(r"\d{3}\s*(?:V\s*)?[-–/]\s*\d{3}\s*V", re.IGNORECASE)
# A plug's voltage class and the nominal a site runs it at: 200 V (Japan) or 220 V on a 208 V class plug;
# 230 V is not a 208 V plug's figure, it is the line-to-neutral voltage of a 400 V wye.
_NOMINAL_SPREAD = 0.06
_AMPS = re.compile(r"(?<![\d.])(\d{2,3})\s*A(?:mp)?\b")


def pdu_fields(
    device: DeviceFile,
    *,
    voltage_v: float | None,
    current_a: float | None,
    wiring: str | None,
    notes: list[str],
) -> dict[str, Any]:
    """The Pdu entry's electrical fields; ``NetboxError`` names the one figure to give when the file lacks it."""
    where = device.where
    if not device.power_ports:
        raise NetboxError(f"{where}: power-ports: a PDU needs its input plug (a power port); none given")
    inlet = device.power_ports[0].type
    if len(device.power_ports) > 1:
        notes.append(f"It has {len(device.power_ports)} inputs; the first ({inlet}) is used.")
    plug = PLUGS.get(inlet) or _plug_from_options(inlet, voltage_v, wiring, where)
    volts = voltage_v or plug.voltage_v
    # A range ("120-240V") is an input the PDU accepts, not the one it is on: it says no voltage.
    stated = sorted({float(v) for v in _VOLTS.findall(_RANGE.sub("", device.comments))})
    if (
        voltage_v is None
        and volts is not None
        and len(stated) == 1
        and abs(stated[0] - volts) <= _NOMINAL_SPREAD * volts
    ):
        volts = stated[0]  # the plug gives a class (200-250 V); the comments the nominal (200 V in Japan)
    if voltage_v is None and volts is not None and stated and not any(_close(volts, v, plug) for v in stated):
        raise NetboxError(
            f"{where}: power-ports[0].type: {inlet} means {volts:g} V, but its comments say "
            f"{', '.join(f'{v:g} V' for v in stated)}; give --voltage"
        )
    if volts is None and len(stated) == 1:
        volts = stated[0]
        notes.append(f"Input voltage {volts:g} V is from the file's comments ({inlet} is used at several voltages).")
    if volts is None:
        raise NetboxError(f"{where}: power-ports[0].type: {inlet} is used at several voltages; give --voltage")
    amps = current_a or plug.current_a or _current_in_comments(device.comments)
    if amps is None and inlet.startswith("iec-60309"):
        amps = _current_from_rating(device.comments, plug, volts, notes)
    if amps is None:
        raise NetboxError(f"{where}: power-ports[0].type: {inlet} does not carry its current rating; give --current")
    if current_a is None and plug.current_a is None:
        notes.append(f"Input current {amps:g} A is from the file's comments ({inlet} does not carry it).")
    wiring = wiring or plug.wiring
    if (plug.phases == 1) != (wiring == "single"):
        raise NetboxError(f"{where}: --wiring {wiring} does not fit the {plug.phases}-phase inlet {inlet}")
    plug = Plug(plug.phases, wiring, volts, amps)
    _check_stated_rating(device.comments, plug, notes)
    return {
        "phases": plug.phases,
        "wiring": wiring,
        "voltage_v": volts,
        "input_current_a": amps,
        "inlet": inlet,
        "metering": "basic",
        "outlet_groups": outlet_groups(device, plug, volts, notes),
    }


_RATING = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*k(VA|W)\b", re.IGNORECASE)


def _check_stated_rating(comments: str, plug: Plug, notes: list[str]) -> None:
    """A capacity in the comments that fits neither the plug's rating nor its 80 % figure is said, not used."""
    assert plug.voltage_v is not None and plug.current_a is not None
    # P = sqrt(3) x V x I for three phases, V x I for one (rack.electrical.capacity_va; the catalog
    # sits below the rack package, so the figure is worked out here).
    capacity = (math.sqrt(3) if plug.phases == 3 else 1.0) * plug.voltage_v * plug.current_a
    for figure, unit in _RATING.findall(comments):
        stated = float(figure) * 1000
        if not any(abs(stated - c) <= 0.05 * c for c in (capacity, capacity * 0.8)):
            notes.append(
                f"Its comments say {figure} k{unit}, but a {plug.voltage_v:g} V {plug.current_a:g} A "
                f"{'three' if plug.phases == 3 else 'single'}-phase input carries {capacity / 1000:.1f} kVA "
                f"({capacity * 0.8 / 1000:.1f} kVA at 80 %); the plug's figures are used. Check the vendor's sheet."
            )
            return


def _current_in_comments(comments: str) -> float | None:
    """The input current the comments give: one figure, or a rating with its 80 % figure beside it (32 A, 24 A)."""
    found = sorted({int(a) for a in _AMPS.findall(comments)})
    if len(found) == 1:
        return float(found[0])
    if len(found) == 2 and 0.7 <= found[0] / found[1] <= 0.85:
        return float(found[1])  # the rating and its continuous figure: 30 A and 24 A, or APC's 32 A and 24 A
    return None


# IEC 60309 housings come in these currents (IEC 60309-2): a current worked out from a stated power
# is taken only when it lands on one of them.
_IEC_60309_AMPS = (16, 32, 63, 125)


def _current_from_rating(comments: str, plug: Plug, volts: float, notes: list[str]) -> float | None:
    """An IEC 60309 PDU's current from the one power its comments state (7.4 kW at 230 V is 32 A)."""
    ratings = {float(figure) * 1000 for figure, _unit in _RATING.findall(comments)}
    if len(ratings) != 1:
        return None
    power = ratings.pop()
    amps = power / ((math.sqrt(3) if plug.phases == 3 else 1.0) * volts)
    size = min(_IEC_60309_AMPS, key=lambda a: abs(a - amps))
    if abs(size - amps) > 0.05 * size:
        return None
    notes.append(
        f"Input current {size} A is worked out from the {power / 1000:g} kW its comments state at {volts:g} V "
        "(an IEC 60309 plug's type does not carry its current)."
    )
    return float(size)


def _plug_from_options(inlet: str, voltage_v: float | None, wiring: str | None, where: str) -> Plug:
    if wiring is None:
        raise NetboxError(
            f"{where}: power-ports[0].type: the inlet {inlet!r} does not say the PDU's phases and wiring; "
            "give --wiring (and --voltage, --current)"
        )
    return Plug(1 if wiring == "single" else 3, wiring, voltage_v, None)


def _close(volts: float, stated: float, plug: Plug) -> bool:
    """Whether a voltage in the comments agrees with the plug's (line to line, or line to neutral of a wye)."""
    candidates = [volts, volts / math.sqrt(3)] if plug.wiring == "wye" else [volts]
    return any(abs(stated - c) <= _NOMINAL_SPREAD * c for c in candidates)


def outlet_groups(device: DeviceFile, plug: Plug, volts: float, notes: list[str]) -> list[dict[str, Any]]:
    """Outlets by feed leg, each group on its line; outlets no cord of ours fits are counted and left out."""
    where = device.where
    usable: list[tuple[str, str]] = []
    skipped: Counter[str] = Counter()
    for index, outlet in enumerate(device.outlets):
        kind = outlet.get("type")
        if not isinstance(kind, str):
            raise NetboxError(f"{where}: power-outlets[{index}].type: required")
        leg = str(outlet.get("feed_leg") or "").upper()
        if leg and leg not in _PHASE:
            raise NetboxError(f"{where}: power-outlets[{index}].feed_leg: {leg!r} is not A, B or C")
        if kind in USABLE_OUTLETS:
            usable.append((leg, kind))
        else:
            skipped[kind] += 1
    usable = _combination_outlets(device.comments, usable, notes)
    _check_stated_outlets(device.comments, usable, notes)
    if skipped:
        notes.append(f"Outlets no server or switch cord plugs into were left out: {dict(sorted(skipped.items()))}.")
    if not usable:
        raise NetboxError(
            f"{where}: power-outlets: none of its {len(device.outlets)} outlets takes a C13, C19 or combination "
            f"plug ({', '.join(sorted(skipped))}); rackplanner cannot plug anything into it"
        )
    legs = {leg for leg, _ in usable} - {""}
    if plug.phases == 3 and len(legs) <= 1 and len(usable) >= 3:
        notes.append(
            f"All {len(usable)} outlets are on one feed leg (or none), which the NetBox library often gets wrong "
            "for three-phase PDUs; they were spread over the three phases in outlet order. Check the vendor's sheet."
        )
        third = math.ceil(len(usable) / 3)
        usable = [("ABC"[i // third], kind) for i, (_, kind) in enumerate(usable)]
    groups: dict[tuple[str, str], Counter[str]] = {}
    for leg, kind in usable:
        line = _line(plug, volts, leg or "A", kind)
        group_id = f"leg-{(leg or 'a').lower()}" if plug.phases == 3 else f"bank-{(leg or 'a').lower()}"
        groups.setdefault((group_id, line), Counter())[kind] += 1
    if plug.phases == 1 and len(legs) > 1:
        notes.append(
            f"Its feed legs ({', '.join(sorted(legs))}) are read as branch circuits of a single-phase PDU, each "
            "with its own breaker (rating not in the file)."
        )
    result = []
    for (group_id, line), outlets in sorted(groups.items()):
        suffix = "" if sum(1 for g, _ in groups if g == group_id) == 1 else f"-{line.lower().replace('-', '')}"
        result.append({"id": group_id + suffix, "line": line, "outlets": dict(sorted(outlets.items()))})
    return result


_COMBO_IN_COMMENTS = re.compile(r"\((\d+)\)\s*(?:HDOT\s*)?Cx\b", re.IGNORECASE)


def _combination_outlets(comments: str, usable: list[tuple[str, str]], notes: list[str]) -> list[tuple[str, str]]:
    """Server Technology's "(6) Cx/C19/C13" in the comments, where the file types the Cx outlets as C19:
    that many C19 outlets are combination outlets (they take a C14 or a C20 plug)."""
    stated = sum(int(n) for n in _COMBO_IN_COMMENTS.findall(comments))
    typed = sum(1 for _, kind in usable if kind == "hdot-cx")
    c19 = [i for i, (_, kind) in enumerate(usable) if kind == "iec-60320-c19"]
    missing = stated - typed
    if missing <= 0 or missing > len(c19):
        return usable
    result = list(usable)
    for index in c19[:missing]:
        result[index] = (result[index][0], "hdot-cx")
    notes.append(
        f"Its comments say {stated} Cx combination outlets, but the file types {missing} of them as C19; "
        "they were imported as combination outlets (a C14 or a C20 plug fits)."
    )
    return result


_OUTLETS_IN_COMMENTS = re.compile(r"\((\d+)\)\s*(C13|C19)\b(?!\s*/)", re.IGNORECASE)


def _check_stated_outlets(comments: str, usable: list[tuple[str, str]], notes: list[str]) -> None:
    """ "(20) C13 & (4) C19" in the comments against the outlets the file lists: a mistyped outlet is said."""
    stated = {f"iec-60320-{kind.lower()}": int(n) for n, kind in _OUTLETS_IN_COMMENTS.findall(comments)}
    listed = Counter(kind for _, kind in usable)
    differ = {kind: n for kind, n in stated.items() if listed[kind] != n}
    if differ:
        said = " and ".join(f"{n} {kind.removeprefix('iec-60320-').upper()}" for kind, n in stated.items())
        has = " and ".join(f"{listed[kind]} {kind.removeprefix('iec-60320-').upper()}" for kind in stated)
        notes.append(f"Its comments say {said}; the file lists {has}. The file's outlets are used.")


def _line(plug: Plug, volts: float, leg: str, kind: str) -> str:
    if plug.phases == 1:
        return "L1"
    if plug.wiring == "delta" or line_to_line(plug, volts, kind):
        return _PAIR[leg]
    return _PHASE[leg]
