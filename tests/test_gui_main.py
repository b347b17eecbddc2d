"""The main window and machine canvas, driven through real events: drops, keys, menus, files."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QMessageBox, QToolBar, QToolTip
from pytestqt.qtbot import QtBot

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan, plan_to_json
from rackplanner.gui import recovery
from rackplanner.gui.app import offer_recovery
from rackplanner.gui.mime import card_mime, part_mime
from tests.conftest import EXAMPLES
from tests.guihelpers import drop, keep, make_window, screenshot_dir, shown_window, slot_point

SERVER = EXAMPLES / "sys-4028gr-trt2-8gpu.json"
RIG = EXAMPLES / "home-rig-2x3090.json"


@pytest.fixture(autouse=True)
def _recovery_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RACKPLANNER_RECOVERY_DIR", str(tmp_path / "recovery"))


def test_drop_a_gpu_from_the_palette_then_undo_and_redo(qtbot: QtBot, tmp_path: Path, catalog: Catalog) -> None:
    window = make_window(tmp_path, catalog, SERVER)
    keep(qtbot, window)
    window.show()
    doc = window.document
    canvas = window.current_canvas()
    assert canvas is not None
    doc.apply(edits.remove_card, machine="trainer", slot="gpu8")
    assert len(doc.plan.machines[0].cards) == 8  # seven V100s and the NIC
    moved, dropped = drop(canvas, part_mime("a100-80gb-pcie"), slot_point(canvas, "gpu8"))
    assert moved and dropped
    card = doc.plan.machines[0].card_in("gpu8")
    assert card is not None and card.part == "a100-80gb-pcie"
    assert "gpu8" in canvas.card_items
    doc.undo_stack.undo()
    assert doc.plan.machines[0].card_in("gpu8") is None
    assert "gpu8" not in canvas.card_items
    doc.undo_stack.redo()
    assert doc.plan.machines[0].card_in("gpu8") is not None
    assert window.isWindowModified()


def test_drop_on_an_occupied_slot_is_refused_with_the_reason(qtbot: QtBot, tmp_path: Path, catalog: Catalog) -> None:
    window = make_window(tmp_path, catalog, SERVER)
    keep(qtbot, window)
    canvas = window.current_canvas()
    assert canvas is not None
    before = plan_to_json(window.document.plan)
    moved, dropped = drop(canvas, part_mime("a100-80gb-pcie"), slot_point(canvas, "gpu1"))
    assert not moved and not dropped
    assert plan_to_json(window.document.plan) == before
    # The reason comes from the core edit: the slot holds a V100 already.
    assert "already holds v100-32gb-pcie" in window._status.text()


def test_drop_that_a_wide_card_covers_is_refused(qtbot: QtBot, tmp_path: Path, catalog: Catalog) -> None:
    window = make_window(tmp_path, catalog, None)
    keep(qtbot, window)
    doc = window.document
    # ProArt B550-CREATOR: PCIEX16_2 at slot position 4, PCIEX16_3 at position 6 (catalog/board.yaml).
    doc.apply(edits.add_machine, name="B550 rig", board="proart-b550-creator", catalog=catalog)
    doc.apply(edits.place_card, machine="b550-rig", slot="pciex16-2", part="rtx-3090", catalog=catalog)
    canvas = window.current_canvas()
    assert canvas is not None and canvas.machine_id == "b550-rig"
    # An RTX 3090 is three slots wide (catalog/gpu.yaml), so from position 4 it covers 5 and 6.
    moved, dropped = drop(canvas, part_mime("rtx-3060-12gb"), slot_point(canvas, "pciex16-3"))
    assert not moved and not dropped
    assert doc.plan.machines[0].card_in("pciex16-3") is None
    assert "covers" in window._status.text()
    moved, dropped = drop(canvas, part_mime("rtx-3060-12gb"), slot_point(canvas, "pciex16-1"))
    assert moved and dropped
    assert doc.plan.machines[0].card_in("pciex16-1") is not None


def test_move_delete_and_power_limit_are_undoable(
    qtbot: QtBot, tmp_path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = make_window(tmp_path, catalog, SERVER)
    keep(qtbot, window)
    doc = window.document
    canvas = window.current_canvas()
    assert canvas is not None
    doc.apply(edits.remove_card, machine="trainer", slot="gpu8")
    # Move the card in GPU slot 1 to the free GPU slot 8 by dragging it there.
    _, dropped = drop(canvas, card_mime("trainer", "gpu1", "v100-32gb-pcie"), slot_point(canvas, "gpu8"))
    assert dropped
    machine = doc.plan.machines[0]
    assert machine.card_in("gpu1") is None and machine.card_in("gpu8") is not None
    doc.undo_stack.undo()
    assert doc.plan.machines[0].card_in("gpu1") is not None
    # Delete with the key on a selected card.
    canvas.card_items["gpu2"].setSelected(True)
    assert doc.selected_slots == ["gpu2"]
    qtbot.keyClick(canvas, Qt.Key.Key_Delete)
    assert doc.plan.machines[0].card_in("gpu2") is None
    doc.undo_stack.undo()
    assert doc.plan.machines[0].card_in("gpu2") is not None
    # The context menu's power limit, with the dialog answered.
    monkeypatch.setattr("PySide6.QtWidgets.QInputDialog.getInt", lambda *a, **k: (200, True))
    menu = canvas.card_menu("gpu3")
    next(a for a in menu.actions() if a.text() == "Set power limit…").trigger()
    assert doc.plan.machines[0].card_in("gpu3").power_limit_w == 200  # type: ignore[union-attr]
    doc.undo_stack.undo()
    assert doc.plan.machines[0].card_in("gpu3").power_limit_w is None  # type: ignore[union-attr]
    # Dragging a card off the board removes it.
    far = canvas.mapFromScene(canvas.board_rect.bottomRight()) + QPoint(40, 40)
    drop(canvas, card_mime("trainer", "gpu4", "v100-32gb-pcie"), far)
    assert doc.plan.machines[0].card_in("gpu4") is None


def test_save_reopen_and_ask_before_closing(
    qtbot: QtBot, tmp_path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = make_window(tmp_path, catalog, SERVER)
    keep(qtbot, window)
    doc = window.document
    doc.apply(edits.set_power_limit, machine="trainer", slot="gpu1", watts=200.0, catalog=catalog)
    target = tmp_path / "saved.json"
    monkeypatch.setattr("PySide6.QtWidgets.QFileDialog.getSaveFileName", lambda *a, **k: (str(target), ""))
    assert window.save_as()
    assert not window.isWindowModified()
    assert load_plan(target, catalog) == doc.plan
    assert window.recent_files()[0] == str(target)
    # Edit again and close: the window asks, and Cancel keeps it open.
    doc.apply(edits.set_power_limit, machine="trainer", slot="gpu2", watts=200.0, catalog=catalog)
    asked: list[str] = []

    def answer(*args: object, **kwargs: object) -> QMessageBox.StandardButton:
        asked.append(str(args[2]))
        return QMessageBox.StandardButton.Cancel

    monkeypatch.setattr("PySide6.QtWidgets.QMessageBox.question", answer)
    window.show()
    assert not window.close()
    assert asked and "saved.json" in asked[0]
    monkeypatch.setattr("PySide6.QtWidgets.QMessageBox.question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    assert window.close()


def test_recovery_file_is_offered_on_the_next_start(
    qtbot: QtBot, tmp_path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = make_window(tmp_path, catalog, SERVER)
    keep(qtbot, window)
    window.document.apply(edits.rename_machine, machine="trainer", name="Crashed edit")
    window.write_recovery()
    assert (tmp_path / "recovery" / recovery.PLAN_NAME).exists()
    # A new window (the next start) finds it and, answered Yes, shows the recovered plan, unsaved.
    second = make_window(tmp_path / "next", catalog, RIG)
    keep(qtbot, second)
    monkeypatch.setattr("PySide6.QtWidgets.QMessageBox.question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    assert offer_recovery(second)
    assert second.document.plan.machines[0].name == "Crashed edit"
    assert second.document.path == SERVER
    assert second.isWindowModified()


def test_screenshot_of_the_main_window(qtbot: QtBot, tmp_path: Path, catalog: Catalog) -> None:
    window = make_window(tmp_path, catalog, SERVER)
    keep(qtbot, window)
    window.show()
    qtbot.waitExposed(window)
    folder = screenshot_dir(tmp_path)
    path = folder / "main-window-sys-4028gr-trt2.png"
    assert window.grab().save(str(path))
    print(f"screenshot: {path}")
    assert path.stat().st_size > 10_000
    assert window.windowTitle().startswith("sys-4028gr-trt2-8gpu.json")


def test_toolbar_undo_names_the_edit_and_follows_the_stack_without_changing_the_action(
    qtbot: QtBot, tmp_path: Path, catalog: Catalog
) -> None:
    window = shown_window(qtbot, tmp_path, catalog, SERVER)
    toolbar = window.findChild(QToolBar, "main-toolbar")
    assert toolbar is not None
    undo = next(a for a in toolbar.actions() if a.text() == "Undo")
    button = toolbar.widgetForAction(undo)
    assert button is not None
    assert not button.isEnabled()  # nothing to undo in a plan just opened
    changes: list[bool] = []
    undo.changed.connect(lambda: changes.append(True))
    window.document.apply(edits.set_power_limit, machine="trainer", slot="gpu1", watts=200.0, catalog=catalog)
    window.document.apply(edits.set_power_limit, machine="trainer", slot="gpu2", watts=200.0, catalog=catalog)
    # The button is enabled and the label stays "Undo"; the action itself never changed.
    assert button.isEnabled() and undo.text() == "Undo" and changes == []
    point = button.rect().center()
    QApplication.sendEvent(button, QHelpEvent(QEvent.Type.ToolTip, point, button.mapToGlobal(point)))
    assert QToolTip.isVisible()
    assert QToolTip.text() == f"Undo {window.document.undo_stack.undoText()}"
    assert window.document.undo_stack.undoText()  # the edit's own description, not an empty string
    QToolTip.hideText()
    # Clicking the button undoes the last edit; with nothing left to undo it is disabled again.
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert not window.document.undo_stack.canUndo() and not button.isEnabled()
    card = window.document.plan.machines[0].card_in("gpu1")
    assert card is not None and card.power_limit_w is None


def test_an_opened_plan_is_kept_out_of_later_full_collections(qtbot: QtBot, tmp_path: Path, catalog: Catalog) -> None:
    gc.unfreeze()
    window = make_window(tmp_path, catalog, SERVER)
    keep(qtbot, window)
    qtbot.waitUntil(lambda: gc.get_freeze_count() > 0)
    # The plan's objects are among those frozen: a full collection no longer walks them.
    frozen = gc.get_freeze_count()
    assert frozen > 10_000  # the catalog and plan models, the window's wrappers
    gc.collect()
    assert gc.get_freeze_count() == frozen
    gc.unfreeze()


def test_a_file_that_cannot_be_opened_or_saved_is_said_as_the_command_line_says_it(
    qtbot: QtBot, tmp_path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.hostile import run

    window = shown_window(qtbot, tmp_path, catalog, EXAMPLES / "home-rig-2x3090.json")
    shown: list[str] = []
    monkeypatch.setattr("PySide6.QtWidgets.QMessageBox.warning", lambda _w, _t, text: shown.append(text))
    monkeypatch.setattr("PySide6.QtWidgets.QMessageBox.critical", lambda _w, _t, text: shown.append(text))
    before = window.document.plan
    broken = tmp_path / "broken.json"
    broken.write_text('{"schema_version": 2, "name": "x", "feeds": [{"id": "f", "voltage_v": NaN}]}')
    for path in (Path("/dev/zero"), broken):
        assert not window.open_path(path)
        said = run(["check", str(path)]).stderr.strip().removeprefix("rackplanner: ")
        assert shown[-1] == said
        assert window.document.plan is before  # the open plan is untouched
    (tmp_path / "folder.json").mkdir()
    assert not window.files._save_to(tmp_path / "folder.json")
    assert shown[-1] == f"{tmp_path}/folder.json: cannot write: it is a folder; give a file name"
    assert window.document.plan is before and window.document.is_modified is False
