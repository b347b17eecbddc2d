"""A device's power from its NetBox file: its cords (power ports or PSU module bays) and its draw.

NetBox gives each power port a ``maximum_draw`` and an ``allocated_draw`` and adds them up per
feed. The library's files use them in ways that must not be added up:

- the same ``allocated_draw`` (to within a tenth) on every port of redundant PSUs is the whole
  device's draw, repeated so that each feed shows what it carries when the other fails (adding
  them doubles it);
- one port's ``maximum_draw`` far above its ``allocated_draw`` is a PoE budget or a PSU rating:
  the most it can draw, kept, where the allocation is only its idle or typical draw;
- the same round ``maximum_draw`` on every port is the PSUs' nameplate rating, not a draw at all;
- removable PSUs are module bays with no power port, and so no figure (the library's own rule).

The device's draw is taken as the file gives it where it can be trusted, and left unknown (0 W
with a warning in every rack it goes into) where it cannot, never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rackplanner.core.catalog.netbox.reading import DeviceFile, PowerPortFact
from rackplanner.core.catalog.netbox.vocabulary import CORD_OUTLETS

# Module bays for PSUs, as the library names them: "PSU 1", "PS1", "Power Supply 2", "PWR1".
PSU_BAY = re.compile(r"^(psu|ps\s*\d|power|pwr)", re.IGNORECASE)


@dataclass
class DevicePower:
    inlets: list[str]  # one per cord, as power port types
    draw_w: float | None  # the whole device's maximum draw at the wall
    psu_count: int
    inlet_assumed: bool = False
    untrusted: list[str] = field(default_factory=list)  # what the file says that was not used, and why
    basis: str = ""
    cordless: list[str] = field(default_factory=list)  # input types no PDU outlet takes (DC, hard-wired)


def cordless_note(types: list[str]) -> str:
    """What an entry that keeps its inputs as given says of those no PDU outlet takes."""
    return (
        f"Power port type {', '.join(types)} takes no cord from a C13/C19 PDU outlet; kept as given, so a rack "
        "does not count this input on a PDU."
    )


def device_power(device: DeviceFile) -> DevicePower:
    """Cords and draw of a rack device or switch, with what was not trusted and why."""
    ports = device.power_ports
    psu_bays = [b for b in device.module_bays if PSU_BAY.search(b)]
    if not ports and psu_bays:
        return DevicePower(
            inlets=["iec-60320-c14"] * len(psu_bays),
            draw_w=None,
            psu_count=len(psu_bays),
            inlet_assumed=True,
            untrusted=[
                f"Its {len(psu_bays)} PSUs are module bays ({', '.join(psu_bays)}) with no power port, so the file "
                "gives no draw and no inlet (the library models removable PSUs so); C14 inlets are assumed and "
                "the draw is unknown until you add it."
            ],
        )
    if not ports:
        return DevicePower(inlets=[], draw_w=None, psu_count=0, untrusted=["The file has no power ports."])
    # Kept as the file gives them: a DC terminal or a hard-wired input is not a cord into a PDU outlet,
    # and the rack says so rather than plugging an assumed C14 into a C13.
    inlets = [p.type for p in ports]
    cordless = sorted({p.type for p in ports if p.type not in CORD_OUTLETS and not p.type.startswith("nema-5-")})
    draw, basis, notes = draw_from_ports(ports)
    return DevicePower(inlets, draw, len(ports), untrusted=notes, basis=basis, cordless=cordless)


def draw_from_ports(ports: list[PowerPortFact]) -> tuple[float | None, str, list[str]]:
    """The whole device's draw from its ports' figures: (watts or None, where it came from, what was not used)."""
    notes: list[str] = []
    allocated = [p.allocated_draw_w for p in ports]
    maximum = [p.maximum_draw_w for p in ports]
    nameplate = _looks_like_nameplate(maximum, allocated)
    if _single_budget(maximum, allocated):
        # One port whose maximum is far above its allocation: a PoE switch's budget or a PSU's
        # rating. Either bounds what it draws; the allocation (its idle or typical draw) does not.
        assert maximum[0] is not None and allocated[0] is not None
        notes.append(
            f"maximum_draw {maximum[0]:g} W is far above allocated_draw {allocated[0]:g} W (a PoE budget or the "
            "PSU's rating): the maximum is used, the most it can draw; set power_max_w if you know less."
        )
        return maximum[0], f"maximum_draw {maximum[0]:g} W (above its allocated {allocated[0]:g} W)", notes
    if nameplate and maximum[0] is not None:
        notes.append(
            f"maximum_draw {maximum[0]:g} W on its power ports looks like the PSU nameplate rating (a known fault of "
            "the NetBox library), not a draw; not used."
        )
    if None not in allocated:
        if len(ports) >= 2 and _repeated(allocated):
            top = max(a or 0.0 for a in allocated)
            shown = "/".join(f"{a:g}" for a in allocated if a is not None)
            notes.append(
                f"allocated_draw {shown} W on the {len(ports)} power ports is one figure repeated: read as the "
                f"whole device's draw, {top:g} W, shared by redundant PSUs (adding them up would count it "
                f"{len(ports)} times)."
            )
            return top, f"allocated_draw {top:g} W (the device's, on each port)", notes
        total = sum(a or 0.0 for a in allocated)
        return total, f"allocated_draw summed over {len(ports)} ports", notes
    if not nameplate and None not in maximum:
        if len(set(maximum)) == 1:
            return maximum[0], f"maximum_draw {maximum[0]:g} W (the device's, on each port)", notes
        return sum(m or 0.0 for m in maximum), f"maximum_draw summed over {len(ports)} ports", notes
    notes.append("No power draw the file gives can be trusted; add the device's maximum draw (power_max_w).")
    return None, "", notes


def _repeated(values: list[float | None]) -> bool:
    """The same draw on every port, to within a tenth: redundant PSUs each carrying the whole
    device (HPE's Aruba 8320 gives 357 and 347 W on its two 400 W PSUs)."""
    present = [v for v in values if v is not None]
    return bool(present) and max(present) <= 1.1 * min(present)


def _single_budget(maximum: list[float | None], allocated: list[float | None]) -> bool:
    """One power port whose maximum is more than twice its allocation (Meraki MS120-48LP: 477 and 37 W)."""
    return (
        len(maximum) == 1 and maximum[0] is not None and allocated[0] is not None and maximum[0] > 2 * allocated[0] > 0
    )


def _looks_like_nameplate(maximum: list[float | None], allocated: list[float | None]) -> bool:
    """A PSU rating given as a draw: the same round figure on redundant ports, or far above the allocated draw."""
    if None in maximum:
        return False
    same_and_round = len(maximum) >= 2 and len(set(maximum)) == 1 and (maximum[0] or 0) % 50 == 0
    far_above = None not in allocated and any((m or 0) > 2 * (a or 0) for m, a in zip(maximum, allocated, strict=True))
    return same_and_round or far_above
