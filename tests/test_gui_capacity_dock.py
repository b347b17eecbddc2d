"""The capacity dock: the capacity command's fits, decode against batch and training limits from the core."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from rackplanner.core.capacity import constants as k
from rackplanner.core.capacity.curves import decode_curve, knee_batch, rack_capacity_table, speed_inputs
from rackplanner.core.capacity.estimate import capacity_table
from rackplanner.core.capacity.failures import format_checkpointing
from rackplanner.core.capacity.fitted import current
from rackplanner.core.capacity.formats import get_format
from rackplanner.core.capacity.hardware import from_machine
from rackplanner.core.capacity.memory import memory_fit
from rackplanner.core.capacity.runtime import get_runtime
from rackplanner.core.capacity.speed import SpeedInputs, decode_step_s, decode_tokens_per_s
from rackplanner.core.capacity.training import interruptions_per_day, time_to_train_s
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import LlmModel
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.model import Plan
from rackplanner.gui.docks.capacity import KEY_ROLE, CapacityDock
from rackplanner.gui.document import PlanDocument
from tests.conftest import EXAMPLES
from tests.guihelpers import screenshot_dir, shown_dock

DECODE_COLUMN, BEST_COLUMN, PREFILL_COLUMN, GB_COLUMN, MACHINES_COLUMN = 2, 3, 4, 5, 8


def make_dock(qtbot: QtBot, document: PlanDocument) -> CapacityDock:
    dock = shown_dock(qtbot, CapacityDock(document), (520, 900))
    return dock


def shoot(dock: CapacityDock, tmp_path: Path, name: str) -> None:
    for _ in range(3):  # nested layouts settle over a few passes of the event loop
        QApplication.processEvents()
    path = screenshot_dir(tmp_path) / name
    assert dock.grab().save(str(path))
    print(f"screenshot: {path}")


@pytest.fixture
def colo(qtbot: QtBot, catalog: Catalog) -> tuple[PlanDocument, CapacityDock]:
    document = PlanDocument(load_plan(EXAMPLES / "colo-rack.json", catalog), catalog)
    assert document.current_machine == "gpu-1"
    return document, make_dock(qtbot, document)


def shown_rows(dock: CapacityDock) -> dict[tuple[str, str], list[str]]:
    model = dock.model
    rows = {}
    for r in range(model.rowCount()):
        key = tuple(model.index(r, 0).data(KEY_ROLE))
        rows[(str(key[0]), str(key[1]))] = [str(model.index(r, c).data()) for c in range(model.columnCount())]
    assert len(rows) == model.rowCount()
    return rows


def assert_rows_match(dock: CapacityDock, catalog: Catalog, machine_id: str, document: PlanDocument) -> None:
    machine = document.plan.machine(machine_id)
    assert machine is not None
    # What `rackplanner capacity PLAN --machine NAME` prints: capacity_table at context 4,096, llama.cpp.
    expected = capacity_table(catalog, from_machine(machine, catalog), runtime="llama.cpp", context=4096)
    assert expected
    shown = shown_rows(dock)
    assert set(shown) == {(r.model, r.format) for r in expected}
    for row in expected:
        cells = shown[(row.model, row.format)]
        # Speeds no measured run covered carry the core's mark (measured_range.row_mark).
        mark = " †" if row.unmeasured else ""
        assert cells[DECODE_COLUMN] == f"{row.decode_tokens_per_s:,.1f}{mark}"
        assert cells[BEST_COLUMN] == f"{row.best_batch_tokens_per_s:,.1f}"
        assert cells[PREFILL_COLUMN] == f"{row.prefill_tokens_per_s:,.0f}{mark}"
        assert cells[GB_COLUMN] == f"{row.total_gb:,.1f}"


def test_rows_are_the_capacity_commands_fits(colo: tuple[PlanDocument, CapacityDock], catalog: Catalog) -> None:
    document, dock = colo
    assert_rows_match(dock, catalog, "gpu-1", document)
    # Four A100 80GB PCIe per server (colo-rack.json; 80 GB each, catalog/gpu.yaml).
    assert dock.title.text() == "GPU 1: 4 x NVIDIA A100 80GB PCIe"
    assert dock.table.isColumnHidden(MACHINES_COLUMN)


def test_plot_is_the_cores_decode_against_batch(
    colo: tuple[PlanDocument, CapacityDock], catalog: Catalog, tmp_path: Path
) -> None:
    document, dock = colo
    assert dock.select("llama-3.1-70b", "fp16")
    assert dock.selected_key() == ("llama-3.1-70b", "fp16")
    machine = document.plan.machine("gpu-1")
    assert machine is not None
    hw = from_machine(machine, catalog)
    model = catalog.get_as("llama-3.1-70b", LlmModel)
    assert model is not None
    # The step-time formula of core/capacity/speed.py, as capacity_table sets it up.
    rt = get_runtime("llama.cpp")
    fit = memory_fit(model, get_format("fp16"), hw, rt, context=4096)
    s = SpeedInputs.build(model, get_format("fp16"), hw, rt, offload_fraction=fit.offload_fraction)
    xs, ys = dock.curve_item.xData, dock.curve_item.yData
    assert list(xs) == list(range(1, 257))
    assert list(ys) == pytest.approx([decode_tokens_per_s(s, b, 4096) for b in range(1, 257)])
    # Batch 1 on the plot is the table's decode column.
    table = {(r.model, r.format): r for r in capacity_table(catalog, hw, context=4096)}
    assert ys[0] == pytest.approx(table[("llama-3.1-70b", "fp16")].decode_tokens_per_s)
    # The knee sits where a step's compute time reaches its memory time; on the A100 (312 dense
    # TFLOP/s, 1,935 GB/s, catalog/gpu.yaml) the device's ridge point is 312e12 / 1935e9 = 161 FLOP/byte.
    assert dock.curve is not None
    assert dock.curve.device_flop_per_byte == pytest.approx(312e12 / 1935e9)
    knee = dock.curve.knee_batch
    # Where compute time meets memory time: (weights / bandwidth) / (compute per sequence −
    # KV read per sequence / bandwidth), with the fitted shares in s (fitted_constants.json).
    per_seq_compute = (2 * s.active_params + s.attention_flops(4096)) / s.flops_per_s
    per_seq_memory = s.kv_read_bytes(4096) / s.mem_bytes_per_s
    if per_seq_compute <= per_seq_memory:
        # Each added sequence costs more memory time than compute time: no knee at any batch.
        assert knee is None
        assert "Bandwidth-bound at every batch" in dock.curve_plot.plot_note.text()
        assert not dock.knee_line.isVisible()
        shoot(dock, tmp_path, "capacity-dock-colo-gpu-1.png")
        return
    expected = (s.weights_read(1) / s.mem_bytes_per_s) / (per_seq_compute - per_seq_memory)
    assert knee == pytest.approx(expected, rel=1e-3)
    if knee <= 256:
        assert dock.knee_line.isVisible()
        assert f"knee ≈ batch {knee:,.0f}" in dock.knee_line.label.format
    else:
        # Past the plot: the line is hidden and the note under the plot says where it is.
        assert not dock.knee_line.isVisible()
        assert f"Bandwidth-bound up to batch {knee:,.0f}, beyond the plot." in dock.curve_plot.plot_note.text()
    # Below the knee adding sequences still buys rate (the KV read per sequence tempers it).
    low = max(int(min(knee, 256) // 4), 1)
    assert ys[low * 2 - 1] / ys[low - 1] > 1.2
    shoot(dock, tmp_path, "capacity-dock-colo-gpu-1.png")
    # Another row: the plot follows the selection.
    dock.table.selectRow(0)
    assert dock.curve is not None and dock.selected_key() != ("llama-3.1-70b", "fp16")
    key = dock.selected_key()
    assert key is not None and dock.curve.model == key[0]


def test_knee_is_where_compute_meets_memory(catalog: Catalog) -> None:
    plan = load_plan(EXAMPLES / "colo-rack.json", catalog)
    hw = from_machine(plan.machines[0], catalog)
    model = catalog.get_as("llama-3.1-8b", LlmModel)
    assert model is not None
    found = speed_inputs(model, "q4_k_m", hw)
    assert found is not None
    s, _ctx, _ = found
    # At a short context, so that the KV read per sequence stays below its compute time.
    ctx = 512
    knee = knee_batch(s, ctx)
    assert knee is not None
    # Compute time (2 FLOP per active parameter per sequence plus attention) equals the memory time.
    below, above = int(knee) - 1, int(knee) + 2
    step_below = decode_step_s(s, below, ctx) - s.fixed_step_s
    compute_below = below * (2 * s.active_params + s.attention_flops(ctx)) / s.flops_per_s
    assert compute_below < step_below
    step_above = decode_step_s(s, above, ctx) - s.fixed_step_s
    compute_above = above * (2 * s.active_params + s.attention_flops(ctx)) / s.flops_per_s
    assert compute_above == pytest.approx(step_above)


def test_selecting_another_machine_updates_the_dock(
    colo: tuple[PlanDocument, CapacityDock], catalog: Catalog, tmp_path: Path
) -> None:
    document, dock = colo
    # Take two of GPU 3's four A100s out: it holds fewer models than GPU 1.
    for slot in ("gpu3", "gpu4"):
        document.apply(edits.remove_card, machine="gpu-3", slot=slot)
    gpu1_rows = set(shown_rows(dock))
    document.set_current_machine("gpu-3")
    assert dock.title.text() == "GPU 3: 2 x NVIDIA A100 80GB PCIe"
    assert_rows_match(dock, catalog, "gpu-3", document)
    assert set(shown_rows(dock)) < gpu1_rows
    # An edit of the current machine refreshes it, undo restores the four GPUs.
    document.undo_stack.undo()
    document.undo_stack.undo()
    assert dock.title.text() == "GPU 3: 4 x NVIDIA A100 80GB PCIe"
    assert set(shown_rows(dock)) == gpu1_rows


def test_whole_rack_sums_machines_as_independent_servers(
    colo: tuple[PlanDocument, CapacityDock], catalog: Catalog, tmp_path: Path, qtbot: QtBot
) -> None:
    document, dock = colo
    qtbot.mouseClick(dock.rack_button, Qt.MouseButton.LeftButton)
    assert dock.whole_rack
    # Four identical servers: every row fits all four, batch-1 decode is one server's and the
    # best-batch throughput four servers'.
    hw = from_machine(document.plan.machines[0], catalog)
    single = {(r.model, r.format): r for r in capacity_table(catalog, hw, context=4096)}
    rack_rows = rack_capacity_table(catalog, [hw] * 4, context=4096)
    assert {(r.model, r.format) for r in rack_rows} == set(single)
    shown = shown_rows(dock)
    assert set(shown) == set(single)
    for key, row in single.items():
        mark = " †" if row.unmeasured else ""
        assert shown[key][DECODE_COLUMN] == f"{row.decode_tokens_per_s:,.1f}{mark}"
        assert shown[key][BEST_COLUMN] == f"{4 * (row.best_batch_tokens_per_s or 0):,.1f}"
        assert shown[key][MACHINES_COLUMN] == "4 of 4"
    assert not dock.table.isColumnHidden(MACHINES_COLUMN)
    assert dock.title.text() == "Rack 1: 4 machine(s), 16 GPUs"
    assert "independent servers" in dock.scope_note.text()
    # Training spans the rack's 16 GPUs: Llama 3 rates, 419 interruptions in 54 days on 16,384
    # GPUs (003_fdb6d644ec457317.txt) scale to 16 x 419 / (16,384 x 54) per day.
    assert dock.select("llama-3.1-8b", "fp16")
    training = dock.training
    assert training is not None and training.gpus == 16
    per_day, _ = interruptions_per_day(16)
    assert per_day == pytest.approx(16 * 419 / (16384 * 54))
    assert f"{per_day:.4f} per day" in dock.interruptions.text()
    # Beside it the failure budget of the four hosts: Young/Daly's checkpoint interval and goodput.
    assert training.failures is not None and training.failures.hosts == 4
    assert format_checkpointing(training.failures) in dock.interruptions.text()
    model = catalog.get_as("llama-3.1-8b", LlmModel)
    assert model is not None
    # 16 A100s at 312 dense TFLOP/s (catalog/gpu.yaml), 40% MFU, 10 B tokens.
    days = time_to_train_s(model, 10e9, 16 * 312, k.DEFAULT_MFU) / 86400
    assert training.days == pytest.approx(days)
    assert f"{days:,.1f} days" in dock.train_time.text()
    # Unmounting a server from the rack takes it out of the sums.
    document.apply(edits.unmount_device, rack="rack-1", device="gpu-4")
    assert dock.title.text() == "Rack 1: 3 machine(s), 12 GPUs"
    assert shown_rows(dock)[("llama-3.1-8b", "fp16")][MACHINES_COLUMN] == "3 of 3"
    document.undo_stack.undo()
    assert dock.title.text() == "Rack 1: 4 machine(s), 16 GPUs"
    shoot(dock, tmp_path, "capacity-dock-colo-rack.png")
    tab_bar = dock.tabs.tabBar()
    training = dock.tabs.indexOf(dock.training_page)
    qtbot.mouseClick(tab_bar, Qt.MouseButton.LeftButton, pos=tab_bar.tabRect(training).center())
    assert dock.tabs.currentIndex() == training and dock.training_box.isVisible()
    shoot(dock, tmp_path, "capacity-dock-colo-rack-training.png")


def test_training_limits_and_tokens(colo: tuple[PlanDocument, CapacityDock], catalog: Catalog) -> None:
    document, dock = colo
    assert dock.select("llama-3.1-70b", "fp16")
    training = dock.training
    assert training is not None and training.gpus == 4
    limits = {m.method: m for m in training.limits.methods}
    usable = from_machine(document.plan.machines[0], catalog).mem_gb_per_device - k.GPU_RUNTIME_OVERHEAD_GB
    # Replicated full AdamW: 18 bytes per parameter on each GPU (000_2736fecfd42346e5.txt).
    assert limits["ddp"].largest_params_b == pytest.approx(usable * 1e9 / 18 / 1e9)
    texts = [dock.methods.item(r, 3).text() for r in range(dock.methods.rowCount())]  # type: ignore[union-attr]
    assert f"{limits['ddp'].largest_params_b:,.1f} B" in texts
    assert f"{limits['qlora'].largest_params_b:,.1f} B" in texts
    before = training.days
    assert before is not None
    dock.tokens.setValue(20.0)
    assert dock.training is not None and dock.training.days == pytest.approx(2 * before)


def test_empty_plans_and_the_home_rig(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    dock = make_dock(qtbot, PlanDocument(Plan(name="Empty"), catalog))
    assert dock.title.text() == "No machine"
    assert dock.model.rowCount() == 0 and dock.curve is None
    dock.set_whole_rack(True)
    assert dock.title.text() == "No rack"
    home = PlanDocument(load_plan(EXAMPLES / "home-rig-2x3090.json", catalog), catalog)
    dock2 = make_dock(qtbot, home)
    assert "2 x NVIDIA GeForce RTX 3090" in dock2.title.text()
    assert dock2.model.rowCount() > 0 and dock2.curve is not None
    # Llama 3.1 70B at Q4_K_M: about 40 GB of weights on two 24 GB RTX 3090s (catalog/gpu.yaml).
    assert dock2.select("llama-3.1-70b", "q4_k_m")
    assert dock2.curve is not None and dock2.curve.model == "llama-3.1-70b"
    assert dock2.training is not None and dock2.training.gpus == 2
    # RTX 3090: llama.cpp's GEMMs on NVIDIA run at the FP16-accumulate tensor rate, half the INT8
    # figure: 284 / 2 = 142 dense TFLOP/s (GA102 whitepaper: 142 FP16-accumulate, 284 INT8), over
    # 936 GB/s (catalog/gpu.yaml), the spec ridge point. At the achieved shares the step turns
    # compute-bound near batch 64; at the spec peaks it never does before the KV cache traffic
    # grows as fast, so only the achieved knee is drawn.
    curve = dock2.curve
    assert curve.device_flop_per_byte == pytest.approx(142e12 / 936e9, rel=0.01)
    assert curve.knee_batch is not None and 16 < curve.knee_batch < 256
    assert curve.peak_knee_batch is None
    assert dock2.knee_line.isVisible() and not dock2.peak_line.isVisible()
    assert dock2.knee_line.value() == pytest.approx(math.log10(curve.knee_batch))
    # FP16 weights go through cuBLAS with FP16 accumulation (ggml-cuda), the same 142 TFLOP/s, not
    # the 71 TFLOP/s FP32-accumulate figure the GeForce sheet quotes as "FP16".
    assert dock2.select("llama-3.1-8b", "fp16")
    assert dock2.curve is not None
    assert dock2.curve.device_flop_per_byte == pytest.approx(142e12 / 936e9, rel=0.01)
    shoot(dock2, tmp_path, "capacity-dock-home-rig.png")


def test_curve_is_none_when_the_model_does_not_fit(catalog: Catalog) -> None:
    plan = load_plan(EXAMPLES / "home-rig-2x3090.json", catalog)
    hw = from_machine(plan.machines[0], catalog)
    model = catalog.get_as("llama-3.1-405b", LlmModel)
    assert model is not None
    # 405B parameters in FP16 are about 810 GB, far beyond two 24 GB cards and the rig's RAM.
    assert decode_curve(model, "fp16", hw) is None


def test_sorting_by_a_speed_column(colo: tuple[PlanDocument, CapacityDock], qtbot: QtBot) -> None:
    _document, dock = colo
    header = dock.table.horizontalHeader()
    # Two clicks on the decode header: ascending, then descending.
    for _ in range(2):
        point = header.rect().topLeft()
        point.setX(header.sectionViewportPosition(DECODE_COLUMN) + 5)
        point.setY(header.height() // 2)
        qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert header.sortIndicatorSection() == DECODE_COLUMN
    assert header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
    speeds = [r.decode_tokens_per_s or 0.0 for r in dock.model.rows]
    first = dock.model.index(0, DECODE_COLUMN).data().removesuffix(" †")
    assert first == f"{max(speeds):,.1f}"
    texts = [dock.model.index(r, DECODE_COLUMN).data().removesuffix(" †") for r in range(dock.model.rowCount())]
    shown = [float(text.replace(",", "")) for text in texts]
    assert shown == sorted(shown, reverse=True)


def test_rows_no_measured_run_covered_are_marked(qtbot: QtBot, catalog: Catalog) -> None:
    # The home rig's two RTX 3090s in llama.cpp: no published GPU run in the calibration data
    # had a model under 3.0B active parameters (Qwen3 30B-A3B), so TinyLlama 1.1B's speeds are
    # marked, with the reason in the tooltip and the mark explained under the table.
    home = PlanDocument(load_plan(EXAMPLES / "home-rig-2x3090.json", catalog), catalog)
    dock = make_dock(qtbot, home)
    qtbot.keyClicks(dock.filter, "TinyLlama")
    rows = shown_rows(dock)
    assert rows and {m for m, _ in rows} == {"tinyllama-1.1b"}
    for cells in rows.values():
        assert cells[DECODE_COLUMN].endswith(" †") and cells[PREFILL_COLUMN].endswith(" †")
        assert not cells[BEST_COLUMN].endswith(" †")
    tip = dock.model.index(0, DECODE_COLUMN).data(Qt.ItemDataRole.ToolTipRole)
    assert "a model this small (1.0B active parameters; the smallest measured had 3.0B)" in tip
    note = dock.table_note.text()
    assert "† no published run on this kind of hardware and runtime" in note
    assert "so no run measured the best-batch figures" in note
    # Cleared, a 70B row is inside the range and carries no mark.
    dock.filter.clear()
    assert not shown_rows(dock)[("llama-3.1-70b", "q4_k_m")][DECODE_COLUMN].endswith("†")


def test_filter_keeps_matching_rows(colo: tuple[PlanDocument, CapacityDock], qtbot: QtBot) -> None:
    _document, dock = colo
    qtbot.keyClicks(dock.filter, "Qwen3 8B")
    keys = set(shown_rows(dock))
    assert keys and {m for m, _ in keys} == {"qwen3-8b"}
    assert dock.selected_key() is not None and dock.selected_key()[0] == "qwen3-8b"  # type: ignore[index]
    assert dock.curve is not None and dock.curve.model == "qwen3-8b"


def test_recomputes_only_for_its_machine_and_only_when_visible(
    colo: tuple[PlanDocument, CapacityDock], monkeypatch: pytest.MonkeyPatch, qtbot: QtBot
) -> None:
    document, dock = colo
    import rackplanner.core.analysis as capacity_dock

    calls: list[str] = []
    real = capacity_dock.cached_capacity_table

    def counting(*args: object, **kwargs: object) -> object:
        calls.append("table")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(capacity_dock, "cached_capacity_table", counting)
    # An edit of another machine (GPU 3) leaves GPU 1's table alone.
    document.apply(edits.remove_card, machine="gpu-3", slot="gpu4")
    assert calls == []
    # Hidden, an edit of the current machine only marks the dock stale.
    dock.hide()
    document.apply(edits.remove_card, machine="gpu-1", slot="gpu4")
    assert calls == [] and dock.title.text() == "GPU 1: 4 x NVIDIA A100 80GB PCIe"
    dock.show()
    qtbot.waitUntil(lambda: dock.title.text() == "GPU 1: 3 x NVIDIA A100 80GB PCIe")
    assert calls == ["table"]


def test_rack_table_with_different_machines(catalog: Catalog) -> None:
    plan = load_plan(EXAMPLES / "colo-rack.json", catalog)
    four = from_machine(plan.machines[0], catalog)
    # GPU 1 with two of its four A100s: 2 x 80 GB instead of 4 x 80 GB (colo-rack.json).
    two = four.model_copy(update={"devices": 2, "label": "two A100s"})
    rows = {(r.model, r.format): r for r in rack_capacity_table(catalog, [four, two], context=4096)}
    big = {(r.model, r.format): r for r in capacity_table(catalog, four, context=4096)}
    small = {(r.model, r.format): r for r in capacity_table(catalog, two, context=4096)}
    assert set(rows) == set(big) | set(small)
    assert set(small) < set(big)
    for key, row in rows.items():
        assert row.machines == 2
        assert row.machines_fitting == (2 if key in small else 1)
        expected_best = (big[key].best_batch_tokens_per_s or 0) + (
            small[key].best_batch_tokens_per_s or 0 if key in small else 0
        )
        assert row.best_batch_tokens_per_s == pytest.approx(expected_best)
        decodes = [t[key].decode_tokens_per_s or 0 for t in (big, small) if key in t]
        assert row.decode_tokens_per_s == pytest.approx(max(decodes))


def test_cpu_only_machine(qtbot: QtBot, catalog: Catalog) -> None:
    document = PlanDocument(load_plan(EXAMPLES / "home-rig-2x3090.json", catalog), catalog)
    dock = make_dock(qtbot, document)
    for card in list(document.plan.machines[0].cards):
        document.apply(edits.remove_card, machine="home-rig", slot=card.slot)
    # Without its two RTX 3090s the rig estimates on its Ryzen 9 7950X and DDR5 (home-rig-2x3090.json).
    hw = from_machine(document.plan.machines[0], catalog)
    assert hw.kind == "cpu" and dock.title.text() == hw.label
    assert set(shown_rows(dock)) == {(r.model, r.format) for r in capacity_table(catalog, hw, context=4096)}
    assert dock.training is None and "need GPUs" in dock.training_summary.text()
    # vLLM runs on GPUs only: no rows, and the note says what to choose instead.
    dock.runtime.setCurrentIndex(dock.runtime.findData("vllm"))
    assert dock.model.rowCount() == 0 and dock.curve is None
    assert "choose llama.cpp" in dock.table_note.text()


def test_a_hovered_drop_has_its_table_worked_out_ahead(
    qtbot: QtBot, tmp_path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rackplanner.bench.events import drag_over, drop_at
    from rackplanner.core.capacity import curves
    from rackplanner.gui.canvases.machine import MachineCanvas
    from rackplanner.gui.mime import part_mime
    from tests.guihelpers import shown_window, slot_point

    monkeypatch.setenv("RACKPLANNER_RECOVERY_DIR", str(tmp_path / "recovery"))
    window = shown_window(qtbot, tmp_path, catalog, EXAMPLES / "sys-4028gr-trt2-8gpu.json")
    window.build_rack_docks()  # added just after the window shows
    dock = window.docks["CapacityDock"]
    assert isinstance(dock, CapacityDock)
    dock.show()
    dock.raise_()
    doc = window.document
    doc.apply(edits.remove_card, machine="trainer", slot="gpu8")
    qtbot.waitUntil(lambda: dock.model.rowCount() > 0 and dock.hardware[0].devices == 7)
    canvas = window.current_canvas()
    assert isinstance(canvas, MachineCanvas)
    tables: list[int] = []
    real_table = curves.capacity_table

    def counting_table(*args: object, **kwargs: object) -> object:
        tables.append(1)
        return real_table(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(curves, "capacity_table", counting_table)
    # An A100 80GB PCIe in slot 8: eight GPUs of a kind no earlier test put together with V100s.
    mime = part_mime("a100-80gb-pcie")
    assert drag_over(canvas, mime, slot_point(canvas, "gpu8"))
    assert tables == [1] and dock.hardware[0].devices == 7  # worked out, not shown yet
    assert drop_at(canvas, mime, slot_point(canvas, "gpu8"))
    qtbot.waitUntil(lambda: dock.hardware[0].devices == 8)
    # The drop computed no table: the hovered one is shown, and it is the core's for the new machine.
    assert tables == [1]
    machine = doc.plan.machine("trainer")
    assert machine is not None
    expected = real_table(
        catalog, from_machine(machine, catalog), runtime=dock.runtime.currentData(), context=dock.context
    )
    assert {(r.model, r.format) for r in dock.model.rows} == {(r.model, r.format) for r in expected}


def test_training_tab_is_filled_when_it_is_shown(colo: tuple[PlanDocument, CapacityDock], qtbot: QtBot) -> None:
    _document, dock = colo
    inference, training = dock.tabs.indexOf(dock.splitter), dock.tabs.indexOf(dock.training_page)
    assert dock.tabs.currentIndex() == inference  # Inference in front
    assert dock.select("llama-3.1-8b", "fp16")
    dock.tabs.setCurrentIndex(training)
    assert dock.training_box.title() == "Training Llama 3.1 8B"
    dock.tabs.setCurrentIndex(inference)
    assert dock.select("llama-3.1-70b", "fp16")
    # Behind the Inference tab the training figures wait; shown, they are the selected model's.
    assert dock.training_box.title() == "Training Llama 3.1 8B"
    bar = dock.tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(training).center())
    assert dock.training_box.title() == "Training Llama 3.1 70B"
    assert dock.training is not None


def test_table_note_says_how_far_the_speeds_are_off(colo: tuple[PlanDocument, CapacityDock]) -> None:
    _document, dock = colo
    # Four A100 80GB PCIe (HBM2e): the held-out error of the HBM GPU class, as fitted_constants.json
    # stores it from `rackplanner calibrate tests/data/measured.csv`. NVIDIA's HBM runs stray less
    # than the class's, so they take the class's band; AMD's stray further and have a wider one.
    bands = current().error_bands
    decode, prefill = bands["decode|gpu-hbm"], bands["prefill|gpu-hbm"]
    note = dock.table_note.text()
    assert f"decode typically ±{decode.median:.0%} (90% within ±{decode.p90:.0%})" in note
    assert f"prefill typically ±{prefill.median:.0%}" in note
    assert "Speeds on gpu-hbm hardware" in note
    assert "decode|gpu-hbm|nvidia" not in bands and decode.p90 < bands["decode|gpu-hbm|amd"].p90


def _home_rig_with(catalog: Catalog, gpu: str) -> Plan:
    """The home-rig example with its RTX 3090s swapped for ``gpu``."""
    plan = load_plan(EXAMPLES / "home-rig-2x3090.json", catalog)
    rig = plan.machines[0]
    cards = [c.model_copy(update={"part": gpu}) if c.part == "rtx-3090" else c for c in rig.cards]
    return plan.model_copy(update={"machines": [rig.model_copy(update={"cards": cards}), *plan.machines[1:]]})


def test_table_note_says_when_a_tensor_peak_is_derived(qtbot: QtBot, catalog: Catalog) -> None:
    # The home rig with its RTX 3090s swapped for RTX 4080 SUPERs, whose catalog entry gives only
    # FP32 (52.2 TFLOPS): the dock runs its prompts on the INT8 peak Ada's other GeForce cards
    # imply (8 x 52.2), and says so under the table, not only in the title's tooltip.
    dock = make_dock(qtbot, PlanDocument(_home_rig_with(catalog, "rtx-4080-super"), catalog))
    assert "2 x NVIDIA GeForce RTX 4080 SUPER" in dock.title.text()
    assert dock.hardware[0].int8_tops_per_device == pytest.approx(417.6, rel=0.01)
    assert "Its INT8, FP16 and FP8 tensor peaks are derived" in dock.table_note.text()
    assert "derived: INT8 tensor peak 418 TOPS" in dock.title.toolTip()


def test_table_note_says_what_few_runs_of_the_hardware_measured(qtbot: QtBot, catalog: Catalog) -> None:
    # The home rig with RX 9070 XTs: RDNA 4's two llama.cpp prompt runs (ROCm scoreboard) are too
    # few to fit it a class, and ran at about half the estimate (fitted_constants.json's thin
    # classes); the note under the table says so for llama.cpp, and not for vLLM, which has none.
    dock = make_dock(qtbot, PlanDocument(_home_rig_with(catalog, "rx-9070-xt"), catalog))
    assert "Few measurements: 2 published llama.cpp (layer split) prompt runs on RDNA 4" in dock.table_note.text()
    dock.runtime.setCurrentIndex(dock.runtime.findData("vllm"))
    qtbot.waitUntil(lambda: "vLLM" in dock.table_note.text() or "No catalog model" in dock.table_note.text())
    assert "Few measurements" not in dock.table_note.text()
