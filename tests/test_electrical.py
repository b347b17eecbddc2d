"""Feed and PDU arithmetic against worked examples."""

from __future__ import annotations

import math

import pytest

from rackplanner.core.rack import electrical


def test_ap8966_capacity_matches_the_seed() -> None:
    # 002_daeb2f0cc80a7fe9.txt: P = sqrt(3) x 208 x 60 x 0.8 = 17292.7953 VA, "17.3 kVA";
    # the derated current is 60 A x 0.8 = 48 A.
    assert electrical.usable_va(3, 208, 60, 0.8) == pytest.approx(17292.7953, abs=1e-3)
    assert electrical.capacity_va(3, 208, 48) == pytest.approx(17292.7953, abs=1e-3)


def test_single_phase_230v_32a() -> None:
    # P = V x I (002_daeb2f0cc80a7fe9.txt): 230 x 32 = 7360 VA; at 80%, 5888 VA.
    assert electrical.capacity_va(1, 230, 32) == pytest.approx(7360)
    assert electrical.usable_va(1, 230, 32) == pytest.approx(5888)


def test_400v_32a_wye() -> None:
    # sqrt(3) x 400 x 32 x 0.8 = 17736.2 VA; outlets see 400 / sqrt(3) = 230.9 V.
    assert electrical.usable_va(3, 400, 32, 0.8) == pytest.approx(math.sqrt(3) * 400 * 32 * 0.8)
    assert electrical.usable_va(3, 400, 32, 0.8) == pytest.approx(17736.2, abs=0.1)
    assert electrical.branch_voltage_v("wye", 400, "L1") == pytest.approx(230.94, abs=0.01)
    assert electrical.branch_voltage_v("delta", 208, "L1-L2") == 208
    # A 120/208 V wye PDU: 120 V line to neutral, 208 V line to line (NEMA L21-30P).
    assert electrical.branch_voltage_v("wye", 208, "L2") == pytest.approx(120.09, abs=0.01)
    assert electrical.branch_voltage_v("wye", 208, "L2-L3") == 208


def test_delta_line_currents_are_phasor_differences() -> None:
    # Hand-worked: branch currents 12 A (L1-L2), 8 A (L2-L3), 4 A (L3-L1), all at one power
    # factor, 120 degrees apart. |I_L1|^2 = 12^2 + 4^2 + 12*4 = 208 -> 14.422 A;
    # |I_L2|^2 = 8^2 + 12^2 + 8*12 = 304 -> 17.436 A; |I_L3|^2 = 4^2 + 8^2 + 4*8 = 112 -> 10.583 A.
    lines = electrical.line_currents_a("delta", {"L1-L2": 12, "L2-L3": 8, "L3-L1": 4})
    assert lines["L1"] == pytest.approx(math.sqrt(208))
    assert lines["L2"] == pytest.approx(math.sqrt(304))
    assert lines["L3"] == pytest.approx(math.sqrt(112))
    # Splitting the loads evenly would have said 12 A per line: the phasors matter.
    assert lines["L2"] > 12 * 1.4


def test_delta_balanced_and_single_branch() -> None:
    # Balanced delta: line current = sqrt(3) x branch current.
    balanced = electrical.line_currents_a("delta", {"L1-L2": 10, "L2-L3": 10, "L3-L1": 10})
    assert all(v == pytest.approx(10 * math.sqrt(3)) for v in balanced.values())
    # One branch only: it draws its current from its two lines, none from the third.
    single = electrical.line_currents_a("delta", {"L1-L2": 10})
    assert single == pytest.approx({"L1": 10, "L2": 10, "L3": 0})


def test_wye_lines_neutral_and_imbalance() -> None:
    lines = electrical.line_currents_a("wye", {"L1": 10, "L2": 10, "L3": 0})
    assert lines == pytest.approx({"L1": 10, "L2": 10, "L3": 0})
    # Two equal currents 120 degrees apart sum to one of the same size in the neutral.
    assert electrical.neutral_current_a(lines) == pytest.approx(10)
    assert electrical.neutral_current_a({"L1": 7, "L2": 7, "L3": 7}) == pytest.approx(0, abs=1e-9)
    # Imbalance: largest deviation from the mean over the mean: |0 - 6.67| / 6.67 = 100%;
    # for 7.08/7.08/4.72 A it is (6.29 - 4.72) / 6.29 = 25%.
    assert electrical.imbalance_percent(lines) == pytest.approx(100)
    assert electrical.imbalance_percent({"L1": 7.08, "L2": 7.08, "L3": 4.72}) == pytest.approx(25)
    assert electrical.line_currents_a("single", {"L1": 5}) == {"L1": 5}


def test_wye_with_line_to_line_and_line_to_neutral_branches() -> None:
    # An L21-30P PDU (120/208 V wye) with C13s wired L1-L2 at 208 V and a 5-20R on L3 at 120 V.
    # Hand-worked phasors (L1 at 0 deg, L2 at -120, L3 at +120; L1-L2 at +30):
    # I_L1 = 10 A at 30 deg -> 10 A; I_L2 = -10 A at 30 deg -> 10 A;
    # I_L3 = 5 A at 120 deg -> 5 A; the neutral carries only the 5 A line-to-neutral load.
    lines = electrical.line_currents_a("wye", {"L1-L2": 10, "L3": 5})
    assert lines == pytest.approx({"L1": 10, "L2": 10, "L3": 5})
    assert electrical.neutral_current_a({"L1-L2": 10, "L3": 5}) == pytest.approx(5)
    # Line to line on L1-L2 and line to neutral on L1, 10 A each: |10 at 0 + 10 at 30| = 19.32 A.
    both = electrical.line_currents_a("wye", {"L1": 10, "L1-L2": 10})
    assert both["L1"] == pytest.approx(abs(10 + 10 * complex(math.cos(math.pi / 6), math.sin(math.pi / 6))))
    assert both["L1"] == pytest.approx(19.319, abs=0.001)
