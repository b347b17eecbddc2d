"""Machine power: DC load from parts, transient budget, PSU sharing and efficiency, heat."""

from __future__ import annotations

import pytest

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Psu
from rackplanner.core.machine.power import (
    BTU_PER_HR_PER_W,
    DESKTOP_OVERHEAD_W,
    DIMM_ALLOWANCE_W,
    efficiency_at,
    machine_power,
    parse_redundancy,
)
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan
from tests.conftest import EXAMPLES


def test_home_rig_load_transient_and_recommendation(catalog: Catalog) -> None:
    plan = load_plan(EXAMPLES / "home-rig-2x3090.json", catalog)
    power = machine_power(plan.machines[0], catalog)
    # Two RTX 3090 at 350 W board power, Ryzen 9 7950X at 170 W TDP (catalog), two DIMMs and
    # an M.2 SSD at their allowances, the desktop board/fan allowance.
    expected_dc = 2 * 350 + 170 + 2 * DIMM_ALLOWANCE_W + 8.6 + DESKTOP_OVERHEAD_W
    assert power.dc_max_w == pytest.approx(expected_dc)
    # PSU sizing budgets each RTX 3090 at its 600 W transient peak (DESIGN.md, Power).
    assert power.transient_peak_w == pytest.approx(expected_dc + 2 * (600 - 350))
    assert power.recommended_psu_w == 1500  # 1461.6 W rounded up to 50 W
    assert "seasonic-prime-tx-1600" in power.recommended_psus
    # Titanium, 115 V: 94% at 50% and 90% at 100% load; 961.6 W on 1600 W is 60.1% load.
    fraction = expected_dc / 1600
    assert power.efficiency == pytest.approx(0.94 - 0.04 * (fraction - 0.5) / 0.5)
    assert power.wall_max_w == pytest.approx(expected_dc / power.efficiency)
    assert power.heat_max_btu_hr == pytest.approx(power.wall_max_w * 3.412)
    assert any("4 W each assumed" in a for a in power.assumptions)


def test_power_limit_lowers_load_and_transient(catalog: Catalog) -> None:
    plan = load_plan(EXAMPLES / "home-rig-2x3090.json", catalog)
    machine = plan.machines[0]
    before = machine_power(machine, catalog)
    slot = machine.cards[0].slot
    limited = edits.set_power_limit(plan, machine=machine.id, slot=slot, watts=250, catalog=catalog).plan
    after = machine_power(limited.machines[0], catalog)
    # nvidia-smi -pl 250 on one card: 100 W less sustained; its 600 W transient scales by 250/350.
    assert before.dc_max_w - after.dc_max_w == pytest.approx(100)
    assert before.transient_peak_w - after.transient_peak_w == pytest.approx(600 - 600 * 250 / 350)


def test_server_psus_share_and_one_lost(catalog: Catalog) -> None:
    plan = load_plan(EXAMPLES / "sys-4028gr-trt2-8gpu.json", catalog)
    power = machine_power(plan.machines[0], catalog)
    psu = power.psu
    assert psu is not None
    # SYS-4028GR-TRT2: four 2000 W PSUs run 2+2 (catalog/server.yaml).
    assert (psu.count, psu.active, psu.spare, psu.watts_each) == (4, 2, 2, 2000)
    assert psu.per_psu_normal_w == pytest.approx(power.dc_max_w / 4)
    assert psu.per_psu_one_lost_w == pytest.approx(power.dc_max_w / 3)
    assert psu.redundancy_holds == (power.dc_max_w <= 2 * 2000)
    # Eight V100 PCIe at 250 W each are in the load (catalog gpu.yaml).
    gpu_line = next(line for line in power.lines if line.part == "v100-32gb-pcie")
    assert (gpu_line.count, gpu_line.total_w) == (8, 2000)


def test_redundancy_text() -> None:
    assert parse_redundancy("2+2", 4) == (2, 2)
    assert parse_redundancy("1+1", 2) == (1, 1)
    assert parse_redundancy("N+1", 3) == (2, 1)
    assert parse_redundancy(None, 2) == (2, 0)
    # A label that does not add up to the count is not trusted.
    assert parse_redundancy("2+2", 3) == (3, 0)


def test_80_plus_curves() -> None:
    # https://en.wikipedia.org/wiki/80_Plus: Titanium 94% at 50% (115 V internal), 96% at 50%
    # (230 V internal redundant); Gold 87/90/87 at 20/50/100% (115 V).
    desktop = Psu(id="t", vendor="v", model="m", source=["s"], form="atx", watts=1000, efficiency="80plus-titanium")
    server = desktop.model_copy(update={"form": "server"})
    gold = desktop.model_copy(update={"efficiency": "80plus-gold"})
    assert efficiency_at(desktop, 0.5)[0] == pytest.approx(0.94)
    assert efficiency_at(server, 0.5)[0] == pytest.approx(0.96)
    assert efficiency_at(gold, 0.2)[0] == pytest.approx(0.87)
    assert efficiency_at(gold, 0.35)[0] == pytest.approx(0.885)
    assert efficiency_at(gold, 0.05)[0] == pytest.approx(0.87)  # below 20%: the 20% figure
    assert efficiency_at(None, 0.5)[0] == pytest.approx(0.80)


def test_heat_conversion() -> None:
    # 1 W = 3.412 BTU/hr (DESIGN.md, Power).
    assert BTU_PER_HR_PER_W == 3.412


def test_results_are_cached_by_content(catalog: Catalog) -> None:
    plan = load_plan(EXAMPLES / "home-rig-2x3090.json", catalog)
    machine = plan.machines[0]
    first = machine_power(machine, catalog)
    assert machine_power(machine.model_copy(), catalog) is first
    renamed = machine.model_copy(update={"name": "Other"})
    assert machine_power(renamed, catalog) is not first
