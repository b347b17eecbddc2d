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
# Unit phasors of each line and each line pair (worked out once: the balancer asks thousands of times).
_LINE_UNIT = {line: cmath.exp(1j * math.radians(angle)) for line, angle in _LINE_ANGLE_DEG.items()}
_PAIR_UNIT: dict[str, tuple[complex, str, str]] = {
    pair: (cmath.exp(1j * math.radians(angle)), pair[:2], pair[3:]) for pair, angle in _PAIR_ANGLE_DEG.items()
}


def capacity_va(phases: int, voltage_v: float, current_a: float) -> float:
    """Apparent power a circuit carries at ``current_a`` per line (V is line-to-line for 3 phases)."""
    if phases == 3:
        return math.sqrt(3) * voltage_v * current_a
    return voltage_v * current_a


def usable_va(phases: int, voltage_v: float, current_a: float, derating: float = 0.8) -> float:
    """Capacity at the derated current, the figure a PDU or feed may carry continuously."""
    return capacity_va(phases, voltage_v, current_a) * derating


def branch_voltage_v(wiring: Wiring, voltage_v: float, line: str) -> float:
    """Voltage across an outlet group: line to line ("L1-L2") the PDU's rated voltage, line to neutral
    ("L1") that divided by sqrt(3) on a three-phase PDU (230 V of a 400 V wye, 120 V of a 208 V wye).

    A wye PDU can feed both: a 120/208 V L21-30P PDU with C13/C19 outlets wires them line to line
    at 208 V, its NEMA 5-20R outlets line to neutral at 120 V.
    """
    if "-" in line or wiring == "single":
        return voltage_v
    return voltage_v / math.sqrt(3)


def line_currents_a(wiring: Wiring, branch_currents_a: Mapping[str, float]) -> dict[str, float]:
    """Current in each input line from the current drawn by each branch (outlet group line).

    A line-to-neutral branch ("L1") sits on one line. A line-to-line branch ("L1-L2") draws from
    two lines, so line currents are phasor sums, e.g. I_L1 = I_L1N + I_L1-L2 - I_L3-L1. All loads
    are taken at the same power factor (active-PFC power supplies), so each branch current is in
    phase with its own voltage and the common power-factor angle does not change magnitudes.
    """
    if wiring == "single":
        return {"L1": sum(branch_currents_a.values())}
    phasor = {line: branch_currents_a.get(line, 0.0) * unit for line, unit in _LINE_UNIT.items()}
    for pair, (unit, first, second) in _PAIR_UNIT.items():
        current = branch_currents_a.get(pair, 0.0)
        if current:
            phasor[first] += current * unit
            phasor[second] -= current * unit
    return {line: abs(value) for line, value in phasor.items()}


def neutral_current_a(branch_currents_a: Mapping[str, float]) -> float:
    """Current in the neutral of a wye feed: the phasor sum of its line-to-neutral branches
    (line-to-line loads do not use the neutral)."""
    total = sum(
        (
            branch_currents_a.get(line, 0.0) * cmath.exp(1j * math.radians(angle))
            for line, angle in _LINE_ANGLE_DEG.items()
        ),
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
