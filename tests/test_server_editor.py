"""Servers the catalog lacks: picked from a board, chassis and PSUs, saved to the user's catalog, used at once."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QDialogButtonBox
from pytestqt.qtbot import QtBot

from rackplanner.core.catalog.loading import Catalog, load_catalog
from rackplanner.core.catalog.parts import Server
from rackplanner.core.machine.power import machine_power, stock_supply_summary
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan, save_plan
from tests.conftest import EXAMPLES
from tests.guihelpers import shown_window


def test_a_server_made_in_the_editor_is_used_in_a_plan_that_reopens(
    qtbot: QtBot, catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = tmp_path / "user-catalog"
    monkeypatch.setenv("RACKPLANNER_USER_CATALOG", str(user))
    window = shown_window(qtbot, tmp_path, catalog, EXAMPLES / "sys-4028gr-trt2-8gpu.json")
    editor = window.edit_server("current")
    qtbot.addWidget(editor)
    save = editor.buttons.button(QDialogButtonBox.StandardButton.Save)
    assert editor.fields["id"].text() == "sys-4028gr-trt2-mine" and save.isEnabled()  # type: ignore[union-attr]
    # The SYS-4028GR-TRT2's four 2,000 W PWS-2K04A-1R supplies, 2+2 (catalog server entry).
    assert "4 x 2,000 W supplies: 4,000 W usable with 2 spare" in editor.summary.text()
    editor.fields["id"].setText("my-4028")  # type: ignore[union-attr]
    # Three supplies cannot be 2+2: said under the form, the entry still valid (power then counts all).
    editor.fields["psu_count"].setValue(3)  # type: ignore[union-attr]
    assert "does not add up to 3 supplies" in editor.summary.text()
    editor.fields["psu_count"].setValue(4)  # type: ignore[union-attr]
    editor.fields["psu_redundancy"].setText("3+1")  # type: ignore[union-attr]
    assert "6,000 W usable with 1 spare" in editor.summary.text()
    editor.fields["height_u"].setValue(0)  # type: ignore[union-attr]  # the spin box stops at 1U
    assert editor.draft is not None and editor.draft.height_u == 1
    editor.fields["height_u"].setValue(4)  # type: ignore[union-attr]
    editor.fields["id"].setText("Bad Id")  # type: ignore[union-attr]
    assert "kebab-case" in editor.problem.text() and not save.isEnabled()
    editor.fields["id"].setText("my-4028")  # type: ignore[union-attr]
    # The drawing is the server's board: its eight GPU slots are labelled on it.
    labels = [item.text() for item in editor.scene.items() if callable(getattr(item, "text", None))]
    assert sum("GPU slot" in text for text in labels) == 8
    save.click()  # type: ignore[union-attr]
    assert editor.saved_path == user / "server.yaml"
    server = window.document.catalog.get_as("my-4028", Server)
    assert server is not None and server.psu_redundancy == "3+1" and server.board == "x10drg-o-plus-cpu"

    plan = edits.add_machine(window.document.plan, name="Mine", catalog=window.document.catalog, server="my-4028").plan
    saved = tmp_path / "mine.json"
    save_plan(plan, saved)
    reopened = load_catalog()
    again = load_plan(saved, reopened)
    mine = again.machines[-1]
    assert mine.server == "my-4028"
    # Its power follows the new redundancy: three of four 2,000 W supplies carry the load.
    load = machine_power(mine, reopened).psu
    assert load is not None and (load.active, load.spare, load.watts_each) == (3, 1, 2000)


def test_the_summary_names_the_supplies_and_bays(catalog: Catalog) -> None:
    server = catalog.get_as("sys-521ge-tnrt", Server)
    assert server is not None
    text = "\n".join(stock_supply_summary(server, catalog))
    # SYS-521GE-TNRT: four 2,700 W Titanium supplies (catalog entry), no redundancy stated.
    assert "4 x 2,700 W supplies: 10,800 W usable (no spare)" in text
    assert "2 x LGA4677" in text


def test_a_stated_no_spare_redundancy_is_not_flagged(catalog: Catalog) -> None:
    # Gigabyte G292-Z20: two 2,200 W supplies that must both be live, "2+0" (catalog server entry).
    server = catalog.get_as("gigabyte-g292-z20", Server)
    assert server is not None
    lines = stock_supply_summary(server, catalog)
    assert lines[0] == "2 x 2,200 W supplies: 4,400 W usable (no spare)"
    assert not any("does not add up" in line for line in lines)
    odd = server.model_copy(update={"psu_redundancy": "3+3"})
    assert "Redundancy '3+3' does not add up to 2 supplies." in stock_supply_summary(odd, catalog)
