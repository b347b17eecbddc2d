"""The machine power dock and the capacity dock's "Fits" tab: figures from the cores, live on edits."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from rackplanner.core.capacity.estimate import capacity_table
from rackplanner.core.capacity.hardware import from_machine
from rackplanner.core.capacity.picks import COMMON_FORMATS, top_models
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Gpu, LlmModel
from rackplanner.core.machine.power import machine_power
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.model import Plan
from rackplanner.gui.docks.capacity import CapacityDock
from rackplanner.gui.docks.summary import SummaryDock
from rackplanner.gui.document import PlanDocument
from tests.conftest import EXAMPLES
from tests.guihelpers import shown_dock


def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("RACKPLANNER_SHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def make_dock(qtbot: QtBot, document: PlanDocument) -> SummaryDock:
    dock = shown_dock(qtbot, SummaryDock(document), (420, 760))
    return dock


@pytest.fixture
def home(qtbot: QtBot, catalog: Catalog) -> tuple[PlanDocument, SummaryDock]:
    document = PlanDocument(load_plan(EXAMPLES / "home-rig-2x3090.json", catalog), catalog)
    return document, make_dock(qtbot, document)


def test_home_rig_power_matches_the_power_core(home: tuple[PlanDocument, SummaryDock], catalog: Catalog) -> None:
    document, dock = home
    machine = document.plan.machines[0]
    power = machine_power(machine, catalog)
    # Two RTX 3090 at 350 W board power, a 170 W Ryzen 9 7950X and the rest of the build
    # (catalog/gpu.yaml, catalog/cpu.yaml), on one 1,600 W Seasonic PRIME TX (catalog/psu.yaml).
    assert power.nameplate_w == 1600
    assert f"{power.dc_max_w:,.0f} W max" in dock.dc_load.text()
    assert f"{power.transient_peak_w:,.0f} W of 1,600 W" in dock.transient.text()
    assert f"{power.heat_max_btu_hr:,.0f} BTU/hr" in dock.wall.text()
    assert dock.transient_bar.share == pytest.approx(power.transient_peak_w / 1600)
    assert power.recommended_psu_w is not None
    assert f"{power.recommended_psu_w:,.0f} W or more" in dock.recommended.text()
    assert dock.title.text() == "Home rig"


def test_power_limit_and_undo_update_the_summary(
    home: tuple[PlanDocument, SummaryDock], catalog: Catalog, tmp_path: Path
) -> None:
    document, dock = home
    before = machine_power(document.plan.machines[0], catalog)
    old_text = dock.transient.text()
    gpu = catalog.get_as("rtx-3090", Gpu)
    assert gpu is not None
    # Power-limit one 3090 (350 W board power, catalog/gpu.yaml) to 250 W.
    document.apply(edits.set_power_limit, machine="home-rig", slot="pciex16-g5-1", watts=250.0, catalog=catalog)
    after = machine_power(document.plan.machines[0], catalog)
    assert after.dc_max_w == pytest.approx(before.dc_max_w - (gpu.tdp_w - 250))
    assert f"{after.dc_max_w:,.0f} W max" in dock.dc_load.text()
    assert f"{after.transient_peak_w:,.0f} W of 1,600 W" in dock.transient.text()
    assert dock.transient.text() != old_text
    path = shots(tmp_path) / "summary-home-rig-limited.png"
    dock.grab().save(str(path))
    print(f"screenshot: {path}")
    document.undo_stack.undo()
    assert f"{before.dc_max_w:,.0f} W max" in dock.dc_load.text()
    assert dock.transient.text() == old_text


def capacity_dock(qtbot: QtBot, document: PlanDocument) -> CapacityDock:
    dock = shown_dock(qtbot, CapacityDock(document), (420, 760))
    dock.tabs.setCurrentWidget(dock.top_models_page)
    return dock


def test_capacity_rows_come_from_the_capacity_core(
    home: tuple[PlanDocument, SummaryDock], catalog: Catalog, qtbot: QtBot
) -> None:
    document, _power = home
    dock = capacity_dock(qtbot, document).top_models
    picks = top_models(catalog, from_machine(document.plan.machines[0], catalog), context=4096, limit=8)
    assert picks
    assert dock.models.rowCount() == len(picks)
    for row, pick in enumerate(picks):
        name, decode = dock.models.item(row, 0), dock.models.item(row, 3)
        assert name is not None and decode is not None
        assert name.text() == pick.label
        assert decode.text() == f"{pick.decode_tokens_per_s:,.1f}"
    assert "2 x NVIDIA GeForce RTX 3090" in dock.hardware.text()


def test_top_models_picks_the_best_common_format_largest_first(catalog: Catalog) -> None:
    plan = load_plan(EXAMPLES / "sys-4028gr-trt2-8gpu.json", catalog)
    hw = from_machine(plan.machines[0], catalog)
    picks = top_models(catalog, hw, limit=100)
    rows = capacity_table(catalog, hw, formats=list(COMMON_FORMATS))
    fitting = {(r.model, r.format) for r in rows if r.fits and not r.offload_fraction}
    assert len({p.model for p in picks}) == len(picks)
    assert {p.model for p in picks} == {m for m, _ in fitting}
    for pick in picks:
        better = COMMON_FORMATS[: COMMON_FORMATS.index(pick.format)]
        assert all((pick.model, f) not in fitting for f in better), pick
        row = next(r for r in rows if (r.model, r.format) == (pick.model, pick.format))
        assert pick.decode_tokens_per_s == row.decode_tokens_per_s
    sizes = [p.params_b for p in picks]
    assert sizes == sorted(sizes, reverse=True)
    # Eight 32 GB V100s (catalog/gpu.yaml) hold a 405B model only at 4-bit: 405e9 x ~4.9 bits
    # is about 250 GB of 256 GB, so Llama 3.1 405B comes first, at Q4_K_M.
    largest = max(catalog.of_kind(LlmModel), key=lambda m: m.params_b if (m.id, "q4_k_m") in fitting else 0)
    assert picks[0].model == largest.id


def test_eight_gpu_server(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    document = PlanDocument(load_plan(EXAMPLES / "sys-4028gr-trt2-8gpu.json", catalog), catalog)
    dock = make_dock(qtbot, document)
    power = machine_power(document.plan.machines[0], catalog)
    assert power.psu is not None
    # The SYS-4028GR-TRT2 ships four 2,000 W PSUs in 2+2 (catalog/server.yaml): 8,000 W nameplate.
    assert power.nameplate_w == power.psu.count * power.psu.watts_each
    assert f"{power.transient_peak_w:,.0f} W of {power.nameplate_w:,.0f} W" in dock.transient.text()
    assert f"{power.psu.count} × {power.psu.model}" in dock.psu.text()
    assert power.psu.redundancy in dock.psu.text()
    # A server brings its PSUs: no workstation PSU recommendation.
    assert dock.recommended.isHidden()
    assert "8 x NVIDIA Tesla V100" in capacity_dock(qtbot, document).top_models.hardware.text()
    path = shots(tmp_path) / "summary-8gpu-server.png"
    dock.grab().save(str(path))
    print(f"screenshot: {path}")


def test_transient_above_the_psu_is_called_out(qtbot: QtBot, catalog: Catalog) -> None:
    document = PlanDocument(load_plan(EXAMPLES / "teaching-mistakes.json", catalog), catalog)
    dock = make_dock(qtbot, document)
    power = machine_power(document.plan.machines[0], catalog)
    # Three RTX 3090 (catalog/gpu.yaml transient peaks) on one 1,600 W PSU: the peak is above it.
    assert power.transient_peak_w > power.nameplate_w
    assert dock.transient.text().endswith("above the rating")
    share = dock.transient_bar.share
    assert share is not None and share > 1


def test_empty_plan_and_bare_machine(qtbot: QtBot, catalog: Catalog) -> None:
    document = PlanDocument(Plan(name="Empty"), catalog)
    dock = make_dock(qtbot, document)
    assert dock.title.text() == "No machine"
    fits = capacity_dock(qtbot, document).top_models
    assert fits.models.rowCount() == 0
    result = document.apply(edits.add_machine, name="Bare", catalog=catalog)
    assert result is not None
    document.set_current_machine("bare")
    assert dock.title.text() == "Bare"
    # No GPU and no CPU: the capacity core says why there is nothing to estimate.
    assert "neither GPUs nor a CPU" in fits.hardware.text()
    assert fits.models.isHidden()
    assert dock.power is not None and dock.power.psu is None
    assert "no PSU chosen" in dock.transient.text()


def test_hidden_dock_refreshes_when_shown(home: tuple[PlanDocument, SummaryDock], catalog: Catalog) -> None:
    document, dock = home
    dock.hide()
    document.apply(edits.set_power_limit, machine="home-rig", slot="pciex16-g5-2", watts=280.0, catalog=catalog)
    after = machine_power(document.plan.machines[0], catalog)
    assert f"{after.dc_max_w:,.0f} W max" not in dock.dc_load.text()
    dock.show()
    assert f"{after.dc_max_w:,.0f} W max" in dock.dc_load.text()
