"""The issue's "done when": build the home rig and the 8-GPU server from an empty plan by dragging parts."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.machine.fit import check_machine
from rackplanner.core.machine.topology import derive_topology
from rackplanner.core.plan.files import load_plan, plan_to_json
from rackplanner.gui.canvases.machine import MachineCanvas
from rackplanner.gui.mime import part_mime
from tests.conftest import EXAMPLES
from tests.guihelpers import board_point, drop, keep, make_window, slot_point


@pytest.fixture(autouse=True)
def _recovery_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RACKPLANNER_RECOVERY_DIR", str(tmp_path / "recovery"))


def _canvas(window: object) -> MachineCanvas:
    canvas = window.current_canvas()  # type: ignore[attr-defined]
    assert isinstance(canvas, MachineCanvas)
    return canvas


def test_build_the_home_rig_by_dragging_then_undo_everything(qtbot: QtBot, tmp_path: Path, catalog: Catalog) -> None:
    window = make_window(tmp_path, catalog, None)
    keep(qtbot, window)
    window.show()
    doc = window.document
    empty = plan_to_json(doc.plan)
    start = window.tabs.currentWidget()
    assert start is not None
    # The board onto the empty plan starts a machine.
    assert drop(start, part_mime("proart-x670e-creator"), start.rect().center())[1]
    canvas = _canvas(window)
    for part in ("fractal-define-7-xl", "ryzen-9-7950x", "crucial-ddr5-5600-48gb-udimm", "seasonic-prime-tx-1600"):
        assert drop(canvas, part_mime(part), board_point(canvas))[1], part
    for slot, part in (("pciex16-g5-1", "rtx-3090"), ("pciex16-g5-2", "rtx-3090"), ("m2-1", "samsung-990-pro-2tb")):
        assert drop(canvas, part_mime(part), slot_point(canvas, slot))[1], (slot, part)
    bridge_menu = next(a.menu() for a in canvas.card_menu("pciex16-g5-1").actions() if a.menu() is not None)
    next(a for a in bridge_menu.actions() if "4-slot" in a.text() or "4 slot" in a.text().lower()).trigger()
    built = doc.plan.machines[0]
    example = load_plan(EXAMPLES / "home-rig-2x3090.json", catalog).machines[0]
    # The same parts as the shipped example, put together by hand.
    for field in ("board", "chassis", "cpu", "memory", "psus", "cards", "bridges"):
        assert getattr(built, field) == getattr(example, field), field
    errors = [f for f in check_machine(built, catalog, derive_topology(built, catalog)) if f.severity == "error"]
    assert errors == []
    steps = doc.undo_stack.count()
    assert steps == 9  # machine, case, CPU, DIMMs, PSU, two GPUs, SSD, bridge
    final = plan_to_json(doc.plan)
    while doc.undo_stack.canUndo():
        doc.undo_stack.undo()
    assert plan_to_json(doc.plan) == empty
    assert window.current_canvas() is None
    while doc.undo_stack.canRedo():
        doc.undo_stack.redo()
    assert plan_to_json(doc.plan) == final
    target = tmp_path / "rig.json"
    doc.save(target)
    assert plan_to_json(load_plan(target, catalog)) == final


def test_build_the_8_gpu_server_by_dragging(qtbot: QtBot, tmp_path: Path, catalog: Catalog) -> None:
    window = make_window(tmp_path, catalog, None)
    keep(qtbot, window)
    window.show()
    doc = window.document
    start = window.tabs.currentWidget()
    assert start is not None
    assert drop(start, part_mime("sys-4028gr-trt2"), start.rect().center())[1]
    canvas = _canvas(window)
    assert drop(canvas, part_mime("xeon-e5-2680-v4"), board_point(canvas))[1]
    for n in range(1, 9):
        assert drop(canvas, part_mime("v100-32gb-pcie"), slot_point(canvas, f"gpu{n}"))[1]
    assert drop(canvas, part_mime("connectx-3-mcx354a-fcbt"), slot_point(canvas, "cpu1-x8"))[1]
    machine = doc.plan.machines[0]
    example = load_plan(EXAMPLES / "sys-4028gr-trt2-8gpu.json", catalog).machines[0]
    assert machine.cpu == example.cpu and machine.cpu_count == 2
    assert sorted((c.slot, c.part) for c in machine.cards) == sorted((c.slot, c.part) for c in example.cards)
    topology = derive_topology(machine, catalog)
    # Single-root layout (000_2736fecfd42346e5.txt): no GPU pair crosses sockets.
    assert not [p for p in topology.pairs if p.code == "SYS"]
