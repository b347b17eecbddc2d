"""Circuit arithmetic for feeds and PDUs: capacity, derating, and line currents by phasors.

Formulas from 002_daeb2f0cc80a7fe9.txt: single-phase P = V x I; three-phase
P = sqrt(3) x V(line-to-line) x I; usable = P x derating (0.8 is the North American
regulatory derating, so APC's AP8966 at 208 V 60 A gives 48 A and 17.3 kVA).
"""

from __future__ import annotations

import cmath
import math
from collections.abc import Mapping
from typing import Literal

Wiring = Literal["single", "wye", "delta"]
LINES = ("L1", "L2", "L3")
LINE_PAIRS = ("L1-L2", "L2-L3", "L3-L1")

# Phase angles of a positive-sequence system, line-to-neutral voltages as reference:
# V_L1 at 0 deg, V_L2 at -120 deg, V_L3 at +120 deg; line-to-line voltages lead by 30 deg.
_LINE_ANGLE_DEG = {"L1": 0.0, "L2": -120.0, "L3": 120.0}
_PAIR_ANGLE_DEG = {"L1-L2": 30.0, "L2-L3": -90.0, "L3-L1": 150.0}


def capacity_va(phases: int, voltage_v: float, current_a: float) -> float:
    """Apparent power a circuit carries at ``current_a`` per line (V is line-to-line for 3 phases)."""
    if phases == 3:
        return math.sqrt(3) * voltage_v * current_a
    return voltage_v * current_a


def usable_va(phases: int, voltage_v: float, current_a: float, derating: float = 0.8) -> float:
    """Capacity at the derated current, the figure a PDU or feed may carry continuously."""
    return capacity_va(phases, voltage_v, current_a) * derating


def outlet_voltage_v(wiring: Wiring, voltage_v: float) -> float:
    """Voltage at an outlet: line-to-neutral on a wye PDU, line-to-line on a delta PDU."""
    return voltage_v / math.sqrt(3) if wiring == "wye" else voltage_v


def line_currents_a(wiring: Wiring, branch_currents_a: Mapping[str, float]) -> dict[str, float]:
    """Current in each input line from the current drawn by each branch (outlet group line).

    Wye and single-phase branches sit on one line, so a line carries the sum of its
    branches. A delta branch L1-L2 draws from two lines; the line currents are phasor
    differences, e.g. I_L1 = I_L1-L2 - I_L3-L1. All loads are taken at the same power
    factor (active-PFC power supplies), so each branch current is in phase with its
    line-to-line voltage and the common power-factor angle does not change magnitudes.
    """
    if wiring == "delta":
        phasor = {
            pair: branch_currents_a.get(pair, 0.0) * cmath.exp(1j * math.radians(angle))
            for pair, angle in _PAIR_ANGLE_DEG.items()
        }
        return {
            "L1": abs(phasor["L1-L2"] - phasor["L3-L1"]),
            "L2": abs(phasor["L2-L3"] - phasor["L1-L2"]),
            "L3": abs(phasor["L3-L1"] - phasor["L2-L3"]),
        }
    lines = ("L1",) if wiring == "single" else LINES
    return {line: branch_currents_a.get(line, 0.0) for line in lines}


def neutral_current_a(line_currents: Mapping[str, float]) -> float:
    """Current in the neutral of a wye feed: the phasor sum of the line currents."""
    total = sum(
        (line_currents.get(line, 0.0) * cmath.exp(1j * math.radians(angle)) for line, angle in _LINE_ANGLE_DEG.items()),
        start=0j,
    )
    return abs(total)


def imbalance_percent(line_currents: Mapping[str, float]) -> float:
    """Largest deviation of a line from the average, as a percentage of the average (NEMA MG 1 style)."""
    values = list(line_currents.values())
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    if mean == 0:
        return 0.0
    return max(abs(v - mean) for v in values) / mean * 100
