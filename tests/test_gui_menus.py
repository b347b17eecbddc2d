"""Context menus on drawn parts (Duplicate, Remove, Show in catalog, Properties) and keyboard navigation."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QMenu
from pytestqt.qtbot import QtBot

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.machine.placement import slot_verdicts
from rackplanner.gui.canvases.rack_row import RackRowCanvas
from rackplanner.gui.dialogs.properties import PropertiesDialog
from rackplanner.gui.docks.palette import PART_ID_ROLE, PaletteDock
from tests.conftest import EXAMPLES
from tests.guihelpers import shown_window


@pytest.fixture(autouse=True)
def _recovery_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RACKPLANNER_RECOVERY_DIR", str(tmp_path / "recovery"))


def action(menu: QMenu, text: str) -> QAction:
    found = [a for a in menu.actions() if a.text() == text]
    assert found, f"{text!r} not in {[a.text() for a in menu.actions()]}"
    return found[0]


def test_card_menu_duplicates_shows_in_catalog_and_opens_properties(
    qtbot: QtBot, tmp_path: Path, catalog: Catalog
) -> None:
    window = shown_window(qtbot, tmp_path, catalog, EXAMPLES / "home-rig-2x3090.json")
    canvas = window.current_canvas()
    assert canvas is not None
    machine = window.document.plan.machines[0]
    menu = canvas.card_menu("pciex16-g5-1")
    assert [a.text() for a in menu.actions() if a.text()][-4:] == [
        "Duplicate",
        "Remove card",
        "Show in catalog",
        "Properties…",
    ]
    # Where a third RTX 3090 goes, by the placement rules (catalog/board.yaml, catalog/gpu.yaml).
    free = [s for s, v in slot_verdicts(window.document.plan, machine.id, "rtx-3090", catalog).items() if v.ok]
    action(menu, "Duplicate").trigger()
    cards = window.document.plan.machines[0].cards
    assert len(cards) == len(machine.cards) + (1 if free else 0)
    if free:
        assert cards[-1].part == "rtx-3090" and cards[-1].slot == free[0]
    window.document.undo_stack.undo()
    action(canvas.card_menu("pciex16-g5-1"), "Show in catalog").trigger()
    palette = window.docks["PaletteDock"]
    assert isinstance(palette, PaletteDock)
    assert palette.view.currentIndex().data(PART_ID_ROLE) == "rtx-3090"
    action(canvas.card_menu("pciex16-g5-1"), "Properties…").trigger()
    dialogs = [d for d in window.findChildren(PropertiesDialog) if d.isVisible()]
    assert dialogs
    text = dialogs[-1].browser.toPlainText()
    gpu = catalog.get("rtx-3090")
    assert gpu is not None
    assert "24 GB" in text and gpu.source[0][:40] in text  # catalog/gpu.yaml: 24 GB and its first source


def test_rack_menu_duplicates_a_server_into_the_first_free_units(
    qtbot: QtBot, tmp_path: Path, catalog: Catalog
) -> None:
    window = shown_window(qtbot, tmp_path, catalog, EXAMPLES / "colo-rack.json")
    canvas = window.tabs.currentWidget()
    assert isinstance(canvas, RackRowCanvas)
    item = canvas.items_by_device[("rack-1", "gpu-1")][0]
    menu = canvas.device_menu(item)
    assert {"Open GPU 1", "Duplicate", "Unmount", "Show in catalog", "Properties…"} <= {
        a.text() for a in menu.actions()
    }
    action(menu, "Duplicate").trigger()
    plan = window.document.plan
    copy = plan.rack("rack-1").device("gpu-1-copy")
    # colo-rack.json fills U1-U16 with four 4 U servers: the copy goes in at U17.
    assert copy is not None and copy.position_u == 17 and copy.machine == "gpu-1-copy"
    assert plan.machine("gpu-1-copy") is not None and plan.machine("gpu-1-copy").name == "GPU 1 (copy)"
    window.document.undo_stack.undo()
    assert window.document.plan.machine("gpu-1-copy") is None


def test_arrow_keys_walk_the_slots_and_the_rack_units(qtbot: QtBot, tmp_path: Path, catalog: Catalog) -> None:
    window = shown_window(qtbot, tmp_path, catalog, EXAMPLES / "home-rig-2x3090.json")
    canvas = window.current_canvas()
    assert canvas is not None
    slots = list(canvas.slot_items)
    canvas.setFocus()
    qtbot.keyClick(canvas, Qt.Key.Key_Down)
    assert window.document.selected_slots == [slots[0]]
    qtbot.keyClick(canvas, Qt.Key.Key_Down)
    assert window.document.selected_slots == [slots[1]]
    qtbot.keyClick(canvas, Qt.Key.Key_Up)
    assert window.document.selected_slots == [slots[0]]

    window = shown_window(qtbot, tmp_path, catalog, EXAMPLES / "colo-rack.json")
    rack = window.tabs.currentWidget()
    assert isinstance(rack, RackRowCanvas)
    rack.setFocus()
    qtbot.keyClick(rack, Qt.Key.Key_Up)
    assert rack.selected_devices() == [("rack-1", "gpu-1")]  # U1
    qtbot.keyClick(rack, Qt.Key.Key_Up)
    assert rack.selected_devices() == [("rack-1", "gpu-2")]  # U5


def test_block_diagram_device_menu(qtbot: QtBot, tmp_path: Path, catalog: Catalog) -> None:
    window = shown_window(qtbot, tmp_path, catalog, EXAMPLES / "home-rig-2x3090.json")
    dock = window.docks["BlockDiagramDock"]
    menu = dock.device_menu("pciex16-g5-2")  # type: ignore[attr-defined]
    assert [a.text() for a in menu.actions() if a.text()] == [
        "Colour paths from here",
        "Show in catalog",
        "Properties…",
    ]
    action(menu, "Colour paths from here").trigger()
    assert dock.selected_device() == "GPU1"  # type: ignore[attr-defined]
    action(dock.device_menu("pciex16-g5-2"), "Show in catalog").trigger()  # type: ignore[attr-defined]
    palette = window.docks["PaletteDock"]
    assert isinstance(palette, PaletteDock) and palette.selected_part_id() == "rtx-3090"


def test_show_in_catalog_clears_a_filter_that_hides_the_part(qtbot: QtBot, tmp_path: Path, catalog: Catalog) -> None:
    window = shown_window(qtbot, tmp_path, catalog, EXAMPLES / "home-rig-2x3090.json")
    palette = window.docks["PaletteDock"]
    assert isinstance(palette, PaletteDock)
    palette.filters.vendor.setCurrentIndex(palette.filters.vendor.findData("AMD"))
    assert "rtx-3090" not in palette.visible_part_ids()
    canvas = window.current_canvas()
    assert canvas is not None
    action(canvas.card_menu("pciex16-g5-1"), "Show in catalog").trigger()
    assert palette.selected_part_id() == "rtx-3090"


def test_the_menu_key_opens_the_menu_of_the_selected_device(qtbot: QtBot, tmp_path: Path, catalog: Catalog) -> None:
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QContextMenuEvent

    window = shown_window(qtbot, tmp_path, catalog, EXAMPLES / "colo-rack.json")
    rack = window.tabs.currentWidget()
    assert isinstance(rack, RackRowCanvas)
    shown: list[tuple[list[str], QPoint]] = []

    class Recording(QMenu):
        def exec(self, at: QPoint) -> None:  # type: ignore[override]
            shown.append(([a.text() for a in self.actions()], at))

    real_menu = rack.device_menu

    def recording_menu(item: object) -> QMenu:
        menu = Recording(rack)
        menu.addActions(real_menu(item).actions())  # type: ignore[arg-type]
        return menu

    rack.device_menu = recording_menu  # type: ignore[method-assign]
    rack.setFocus()
    qtbot.keyClick(rack, Qt.Key.Key_Up)
    qtbot.keyClick(rack, Qt.Key.Key_Up)
    assert rack.selected_devices() == [("rack-1", "gpu-2")]
    # The menu key sends a keyboard context-menu event at a point of Qt's choosing (here the corner):
    # the menu is the selected server's, shown over it.
    event = QContextMenuEvent(
        QContextMenuEvent.Reason.Keyboard, QPoint(0, 0), rack.viewport().mapToGlobal(QPoint(0, 0))
    )
    QApplication.sendEvent(rack.viewport(), event)
    assert len(shown) == 1 and "Open GPU 2" in shown[0][0]
    # A full-depth server has a block on each face; the menu stands over one of them.
    blocks = rack.items_by_device[("rack-1", "gpu-2")]
    centres = [rack.viewport().mapToGlobal(rack.mapFromScene(b.sceneBoundingRect().center())) for b in blocks]
    assert shown[0][1] in centres
