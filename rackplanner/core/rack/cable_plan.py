"""Where cables run in a hall: rack positions, tray routes and the cable type a length needs.

Racks stand side by side in their row, in the plan's order; rows stand one behind another, a
rack depth plus an aisle apart. A cable between racks rises from its port to a tray over the
racks, runs along the row and across rows at right angles, and drops to the other port; a
service loop is added at each end and the length is rounded up to a stock length. Within one
rack it runs up or down the rack's side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Rack as RackPart
from rackplanner.core.plan.model import Plan

RACK_UNIT_M = 0.04445  # EIA-310: one rack unit is 1.75 in
DEFAULT_RACK_WIDTH_M = 0.6
DEFAULT_RACK_DEPTH_M = 1.2
DEFAULT_RACK_HEIGHT_U = 42
# Layout assumptions, said in every schedule's notes (a plan carries no floor plan). Aisle: the
# usual 4 ft (1.2 m) cold aisle (server-racks.com, aisle pitch); the tray's height above the racks
# is an assumption (no source gives it), as is the half-metre service loop.
AISLE_M = 1.2
TRAY_ABOVE_RACK_M = 0.3
SERVICE_LOOP_M = 0.5  # at each end
LAYOUT_NOTE = (
    f"Cable lengths assume racks side by side in plan order along each row, rows a rack depth plus a {AISLE_M:g} m "
    "aisle apart, and cables in a tray over the racks with a service loop at each end, rounded up to stock lengths."
)

# Longest run of each cable kind at each speed (m), cheapest kind first. 400 Gb/s (NDR, 400GbE),
# NVIDIA LinkX product specifications on docs.nvidia.com: MCP4Y10-Nxxx passive DAC "0.5, 1, 1.5,
# and 2-meter lengths"; MMA4Z00-NS twin-port 2xSR4 multimode "50m" (OM4); MMS4X00-NS single-mode
# DR8 "100m" (the 500 m MMS4X00-NM reaches only 100 m to NIC-side optics, so 100 m is used);
# MMS4X50-NM 2xFR4 single-mode "2km". NVIDIA: AOCs are "not practical for NDR", so none is
# listed. Other speeds have no figures here yet, so their
# cable kind is not chosen (said in the schedule) rather than guessed.
REACH_M: dict[float, list[tuple[str, float]]] = {
    400.0: [
        ("DAC (passive copper)", 2.0),
        ("multimode transceivers + OM4 fibre (SR4)", 50.0),
        ("single-mode transceivers + fibre (DR, 100 m class)", 100.0),
        ("single-mode transceivers + fibre (FR4, 2 km class)", 2000.0),
    ],
    # 800 Gb/s switch to switch: the same twin-port OSFP parts carry 2 x 400G (MCP4Y10 DAC to 2 m,
    # MMA4Z00-NS 2xSR4 to 50 m); MMS4X00-NM 2xDR4 "reaches from 100 to 500 meters" between switches.
    800.0: [
        ("twin-port DAC (passive copper)", 2.0),
        ("twin-port multimode transceivers + OM4 fibre (2xSR4)", 50.0),
        ("twin-port single-mode transceivers + fibre (2xDR4)", 500.0),
        ("twin-port single-mode transceivers + fibre (2xFR4)", 2000.0),
    ],
}


@dataclass(frozen=True)
class Place:
    """A rack's spot on the floor: along its row (x), which row (y), and its height."""

    x_m: float
    y_m: float
    height_m: float


def rack_places(plan: Plan, catalog: Catalog) -> dict[str, Place]:
    """Each rack's position: side by side along its row in plan order, rows one behind another."""
    places: dict[str, Place] = {}
    y = 0.0
    for row in plan.rows:
        racks = [r for r in plan.racks if r.row == row.id]
        if not racks:
            continue
        x = 0.0
        deepest = 0.0
        for rack in racks:
            part = catalog.get_as(rack.part, RackPart)
            width = part.width_mm / 1000 if part and part.width_mm else DEFAULT_RACK_WIDTH_M
            depth = part.depth_mm / 1000 if part and part.depth_mm else DEFAULT_RACK_DEPTH_M
            height = (part.height_u if part else DEFAULT_RACK_HEIGHT_U) * RACK_UNIT_M
            places[rack.id] = Place(x + width / 2, y, height)
            x += width
            deepest = max(deepest, depth)
        y += deepest + AISLE_M
    return places


def route_m(a: Place, a_u: int | None, b: Place, b_u: int | None) -> float:
    """Cable length from a port at U ``a_u`` of one rack to U ``b_u`` of another (or the same)."""
    za = (a_u or 1) * RACK_UNIT_M
    zb = (b_u or 1) * RACK_UNIT_M
    if a == b:
        run = abs(za - zb)
    else:
        run = (a.height_m - za) + (b.height_m - zb) + 2 * TRAY_ABOVE_RACK_M + abs(a.x_m - b.x_m) + abs(a.y_m - b.y_m)
    return stock_length_m(run + 2 * SERVICE_LOOP_M)


def stock_length_m(length_m: float) -> float:
    """Rounded up to the lengths cables are sold in: half metres to 5 m, whole metres beyond."""
    if length_m <= 5:
        return math.ceil(length_m * 2 - 1e-9) / 2
    return float(math.ceil(length_m - 1e-9))


def cable_kind(length_m: float | None, speed_gbps: float) -> str:
    """The cheapest kind that reaches: copper, then active copper or optical cable, then optics."""
    if length_m is None:
        return "length unknown"
    if speed_gbps not in REACH_M:
        return f"kind not chosen (no reach figures for {speed_gbps:g} Gb/s)"
    for kind, reach in REACH_M[speed_gbps]:
        if length_m <= reach:
            return kind
    return "beyond the reach of the listed optics"
