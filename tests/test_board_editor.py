"""Boards the catalog lacks: written to the user's catalog, checked as built-in parts are, usable at once."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from PySide6.QtWidgets import QDialogButtonBox, QTableWidgetItem
from pytestqt.qtbot import QtBot

from rackplanner.core.catalog.loading import Catalog, load_catalog
from rackplanner.core.catalog.parts import Board
from rackplanner.core.catalog.user_entries import save_part
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan, save_plan
from rackplanner.gui.canvases.machine import MachineCanvas
from rackplanner.gui.mime import part_mime
from tests.conftest import EXAMPLES
from tests.guihelpers import board_point, drop, shown_window, slot_point


def test_a_saved_board_loads_back_and_replaces_its_own_id(catalog: Catalog, tmp_path: Path) -> None:
    proart = catalog.get_as("proart-x670e-creator", Board)
    assert proart is not None
    mine = proart.model_copy(update={"id": "my-proart", "model": "ProArt (mine)"})
    path = save_part(mine, tmp_path)
    assert path == tmp_path / "board.yaml"
    first = yaml.safe_load(path.read_text(encoding="utf-8"))[0]
    assert list(first)[:3] == ["id", "vendor", "model"] and "kind" not in first["slots"][0]  # defaults left out
    loaded = load_catalog([tmp_path], include_user=False).get_as("my-proart", Board)
    assert loaded == mine
    save_part(mine.model_copy(update={"model": "ProArt (mine, v2)"}), tmp_path)
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert [e["model"] for e in entries] == ["ProArt (mine, v2)"]


def _set(table: object, row: int, values: list[str]) -> None:
    for column, value in enumerate(values):
        table.setItem(row, column, QTableWidgetItem(value))  # type: ignore[attr-defined]


def test_a_board_made_in_the_editor_is_used_in_a_plan_that_reopens(
    qtbot: QtBot, catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = tmp_path / "user-catalog"
    monkeypatch.setenv("RACKPLANNER_USER_CATALOG", str(user))
    window = shown_window(qtbot, tmp_path, catalog, EXAMPLES / "home-rig-2x3090.json")
    assert [a.text() for a in window.menuBar().actions()].count("&Catalog") == 1
    editor = window.edit_board("current")
    qtbot.addWidget(editor)
    save = editor.buttons.button(QDialogButtonBox.StandardButton.Save)
    # The home rig's ProArt X670E, copied under a new id, with a fifth slot added by hand.
    assert editor.fields["id"].text() == "proart-x670e-creator-mine" and save.isEnabled()  # type: ignore[union-attr]
    editor.fields["id"].setText("my-proart-riser")  # type: ignore[union-attr]
    editor.slots.insertRow(editor.slots.rowCount())
    row = editor.slots.rowCount() - 1
    _set(editor.slots, row, ["riser", "Riser x16", "pcie", "", "", "16", "16", "4", "no-such-root"])
    # Validated as the catalog is: the unknown parent is named, and Save waits.
    assert "no-such-root" in editor.problem.text() and not save.isEnabled()
    _set(editor.slots, row, ["riser", "Riser x16", "pcie", "", "", "16", "16", "4", "cpu"])
    assert save.isEnabled()
    # Memory and power inputs are part of the entry; 0 in an optional figure means unknown.
    editor.fields["memory_channels_per_socket"].setValue(2)  # type: ignore[union-attr]
    editor.fields["max_memory_speed_mts"].setValue(5200)  # type: ignore[union-attr]
    editor.fields["power_connectors"].setText("atx-24pin, eps-8pin,eps-8pin")  # type: ignore[union-attr]
    assert editor.draft is not None and editor.draft.power_connectors == ["atx-24pin", "eps-8pin", "eps-8pin"]
    assert (editor.draft.memory_channels_per_socket, editor.draft.max_memory_speed_mts) == (2, 5200)
    # The drawing follows the draft: the new slot's label is on the board.
    labels = [item.text() for item in editor.scene.items() if callable(getattr(item, "text", None))]
    assert "Riser x16\nx16 Gen4" in labels
    save.click()  # type: ignore[union-attr]
    assert editor.saved_path == user / "board.yaml"
    board = window.document.catalog.get_as("my-proart-riser", Board)
    assert board is not None and [s.id for s in board.slots][-1] == "riser"
    # Usable on the canvas at once: dropped on the machine it replaces the board (one undoable edit),
    # and a card dropped on its new slot lands there.
    canvas = window.current_canvas()
    assert isinstance(canvas, MachineCanvas)
    steps = window.document.undo_stack.count()
    assert drop(canvas, part_mime("my-proart-riser"), board_point(canvas))[1]
    assert window.document.plan.machines[0].board == "my-proart-riser"
    assert drop(canvas, part_mime("rtx-a4000"), slot_point(canvas, "riser"))[1]
    assert window.document.plan.machines[0].card_in("riser") is not None
    assert window.document.undo_stack.count() == steps + 2

    plan = edits.add_machine(
        window.document.plan, name="Riser rig", catalog=window.document.catalog, board="my-proart-riser"
    ).plan
    machine = plan.machines[-1].id
    plan = edits.place_card(plan, machine=machine, slot="riser", part="rtx-3090", catalog=window.document.catalog).plan
    saved = tmp_path / "riser.json"
    save_plan(plan, saved)
    again = load_plan(saved, load_catalog())
    assert again.machine(machine).board == "my-proart-riser"  # type: ignore[union-attr]
    assert [c.slot for c in again.machine(machine).cards] == ["riser"]  # type: ignore[union-attr]


def test_a_new_board_starts_valid(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    window = shown_window(qtbot, tmp_path, catalog, EXAMPLES / "home-rig-2x3090.json")
    editor = window.edit_board(None)
    qtbot.addWidget(editor)
    assert editor.draft is not None and editor.draft.id == "my-board" and len(editor.draft.slots) == 1
    editor.fields["sockets"].setValue(2)  # type: ignore[union-attr]
    # One root complex on socket 0 still validates; a slot on a socket the board lacks would not.
    assert editor.draft is not None
    editor.roots.setItem(0, 1, QTableWidgetItem("5"))
    assert editor.draft is None and "socket" in editor.problem.text()
