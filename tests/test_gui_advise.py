"""Tools → Advise a Build…: the core's front in a plot and a table, Apply as one undoable edit."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from rackplanner.core.advise.search import advise
from rackplanner.core.analysis import analyse
from rackplanner.core.catalog.loading import Catalog
from rackplanner.gui.dialogs.advise import AdviseDialog
from tests.guihelpers import screenshot_dir, shown_window


def test_advise_search_choose_apply_and_undo(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    window = shown_window(qtbot, tmp_path, catalog, None)
    window.advise_action.trigger()
    dialog = next(w for w in QApplication.topLevelWidgets() if isinstance(w, AdviseDialog))
    qtbot.waitExposed(dialog)
    dialog.model.setCurrentIndex(dialog.model.findData("llama-3.1-8b"))
    dialog.format.setCurrentIndex(dialog.format.findData("q4_k_m"))
    dialog.tok_s.setValue(60)
    dialog.budget.setValue(4000)
    dialog.power.setCurrentIndex(1)  # 120 V / 15 A household circuit
    qtbot.mouseClick(dialog.search_button, Qt.MouseButton.LeftButton)
    assert dialog.advice is not None and dialog.goal is not None
    # The same front as the core's search for the same goal (what `rackplanner advise` prints).
    expected = advise(catalog, dialog.goal)
    assert [b.label for b in dialog.advice.builds] == [b.label for b in expected.builds]
    assert dialog.table.rowCount() == len(expected.builds) > 0
    assert dialog.goal.circuit_limit_w == 1440  # 120 V x 15 A x 80%

    # Click the last point of the plot: its build is chosen in the table.
    last = len(expected.builds) - 1
    spot = dialog.points.points()[last]
    view = dialog.plot.getViewBox()
    scene_pos = view.mapViewToScene(QPointF(spot.pos().x(), spot.pos().y()))
    widget_pos = dialog.plot.mapFromScene(scene_pos)
    qtbot.mouseClick(dialog.plot.viewport(), Qt.MouseButton.LeftButton, pos=widget_pos)
    assert dialog.selected_build() is dialog.advice.builds[last]

    chosen = next(i for i, b in enumerate(dialog.advice.builds) if b.machine is not None)
    dialog.table.selectRow(chosen)
    assert dialog.apply_button.isEnabled()
    before = len(window.document.plan.machines)
    qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    assert dialog.applied is not None
    plan = window.document.plan
    assert len(plan.machines) == before + 1 and window.document.current_machine == dialog.applied
    # What `rackplanner check` would say of the applied machine: no errors.
    added = plan.machine(dialog.applied)
    assert added is not None
    assert not [f for f in analyse(plan, catalog).machine_findings(added) if f.severity == "error"]
    assert dialog.grab().save(str(screenshot_dir(tmp_path) / "advise-dialog.png"))
    # One edit: one undo removes it.
    window.document.undo_stack.undo()
    assert len(window.document.plan.machines) == before
    dialog.close()


def test_a_model_config_is_advised_on(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    window = shown_window(qtbot, tmp_path, catalog, None)
    dialog = window.advise()
    qtbot.waitExposed(dialog)
    config = Path(__file__).parent / "data" / "hf" / "gpt-oss-20b" / "config.json"
    model = dialog.add_config(config)
    # gpt-oss-20b ships MXFP4 experts (its quantization_config): the format follows.
    assert model is not None and dialog.format.currentData() == "mxfp4-bf16"
    dialog.tok_s.setValue(30)
    qtbot.mouseClick(dialog.search_button, Qt.MouseButton.LeftButton)
    assert dialog.goal is not None and dialog.goal.model == model
    assert dialog.advice is not None and dialog.advice.builds
    bad = tmp_path / "config.json"
    bad.write_text("{", encoding="utf-8")
    assert dialog.add_config(bad) is None and str(bad) in dialog.status.text()
    dialog.close()
