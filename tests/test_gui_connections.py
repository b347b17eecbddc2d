"""The power connections dock: every cord of the rack, pinned to an outlet group through its combo."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QStandardItemModel, QWheelEvent
from PySide6.QtWidgets import QApplication, QComboBox
from pytestqt.qtbot import QtBot

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.model import Plan
from rackplanner.core.rack.power import rack_power
from rackplanner.gui.docks.connections import DEVICE, HOW, LINE, PSU, ConnectionsDock
from rackplanner.gui.document import PlanDocument
from tests.conftest import EXAMPLES
from tests.guihelpers import screenshot_dir, shown_dock
from tests.rackfixtures import build_catalog, mount_loads, rack_with_pdus

LINES = ("L1", "L2", "L3")


def make_dock(qtbot: QtBot, document: PlanDocument) -> ConnectionsDock:
    dock = shown_dock(qtbot, ConnectionsDock(document), (560, 800))
    return dock


@pytest.fixture
def colo(qtbot: QtBot, catalog: Catalog) -> tuple[PlanDocument, ConnectionsDock]:
    document = PlanDocument(load_plan(EXAMPLES / "colo-rack.json", catalog), catalog)
    return document, make_dock(qtbot, document)


def row_of(dock: ConnectionsDock, device: str, psu_index: int) -> int:
    return next(r for r, c in enumerate(dock.cords) if c.device == device and c.psu_index == psu_index)


def choose(qtbot: QtBot, combo: QComboBox, text_start: str) -> None:
    """Open the combo's list and click the entry that starts with ``text_start``, as a mouse user does."""
    target = next(i for i in range(combo.count()) if combo.itemText(i).startswith(text_start))
    combo.showPopup()
    view = combo.view()
    qtbot.waitUntil(lambda: view.isVisible())
    rect = view.visualRect(view.model().index(target, 0))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: not view.isVisible())


def test_every_cord_is_listed_as_the_core_assigns_it(
    colo: tuple[PlanDocument, ConnectionsDock], tmp_path: Path
) -> None:
    document, dock = colo
    power = rack_power(document.plan, "rack-1", document.catalog)
    # Four servers with four PSUs each and two switches with two (resources/examples/colo-rack.json): 20 cords.
    assert len(power.cords) == 20
    assert dock.table.rowCount() == 20
    for cord in power.cords:
        row = row_of(dock, cord.device, cord.psu_index)
        assert dock.table.item(row, DEVICE).text() == cord.device_name
        assert dock.table.item(row, PSU).text() == str(cord.psu_index + 1)
        assert dock.table.item(row, LINE).text() == cord.line
        assert dock.table.item(row, HOW).text() == "auto"
        combo = dock.combos[row]
        assert combo.currentIndex() == 0
        name = "PDU A" if cord.pdu == "pdu-a" else "PDU B"
        assert combo.currentText() == f"Auto: {name} {cord.outlet_group} ({cord.line})"
    # Choices: Auto and the three groups of each PDU, with their free C13 outlets (10 per group on the
    # AP8886, catalog/pdu.yaml, less the cords the core put there).
    combo = dock.combos[row_of(dock, "gpu-1", 0)]
    assert combo.count() == 7
    used = sum(1 for c in power.cords if (c.pdu, c.outlet_group) == ("pdu-a", "l3"))
    assert combo.itemText(3) == f"PDU A l3 (L3): {10 - used} C13 free"
    # Both PDUs run 7.1, 7.1, 4.7 A in normal operation: 25% imbalance, over the 20% mark.
    normal = power.pdu_load("normal", "pdu-a")
    assert normal.imbalance_percent > 20
    assert f"imbalance {normal.imbalance_percent:.0f}%" in dock.balance.text()
    assert "unbalanced (over 20%)" in dock.balance.text()
    # The cords on the heaviest lines (L1 and L2 at 7.1 A) are marked: those are the ones to move.
    marked = [r for r in range(20) if dock.table.item(r, LINE).background().style() != Qt.BrushStyle.NoBrush]
    heavy = {dock.table.item(r, LINE).text() for r in marked}
    assert heavy == {"L1", "L2"}
    # The switches count as 0 W (no draw in the catalog), so moving their cords evens nothing: not marked.
    assert {dock.cords[r].device for r in marked} == {"gpu-1", "gpu-2", "gpu-3", "gpu-4"}
    path = screenshot_dir(tmp_path) / "connections-dock-colo.png"
    QApplication.processEvents()  # let the layout settle before the picture
    dock.grab().save(str(path))
    print(f"screenshot: {path}")


def test_pinning_through_the_combo_and_undo(
    qtbot: QtBot, colo: tuple[PlanDocument, ConnectionsDock], tmp_path: Path
) -> None:
    document, dock = colo
    catalog = document.catalog
    # GPU 1's PSU 1 goes to PDU A l1 automatically; pin it to PDU A l3, the light line.
    row = row_of(dock, "gpu-1", 0)
    assert dock.cords[row].assignment is not None and dock.cords[row].assignment.outlet_group == "l1"
    choose(qtbot, dock.combos[row], "PDU A l3")
    assert [(a.device, a.psu_index, a.pdu, a.outlet_group) for a in document.plan.outlet_assignments] == [
        ("gpu-1", 0, "pdu-a", "l3")
    ]
    power = rack_power(document.plan, "rack-1", catalog)
    cord = next(c for c in power.cords if c.device == "gpu-1" and c.psu_index == 0)
    assert (cord.pdu, cord.outlet_group, cord.line, cord.manual) == ("pdu-a", "l3", "L3", True)
    # The automatic cords are spread around the pin again: PDU A's lines still take 3, 3 and 2 loaded cords.
    loaded = {c.device for c in power.cords if c.device.startswith("gpu-")}
    per_line = [sum(1 for c in power.cords if c.pdu == "pdu-a" and c.line == n and c.device in loaded) for n in LINES]
    assert sorted(per_line) == [2, 3, 3]
    row = row_of(dock, "gpu-1", 0)
    assert dock.table.item(row, HOW).text() == "pinned"
    assert dock.table.item(row, LINE).text() == "L3"
    assert dock.combos[row].currentText().startswith("PDU A l3 (L3)")
    assert document.undo_stack.count() == 1
    path = screenshot_dir(tmp_path) / "connections-dock-colo-pinned.png"
    QApplication.processEvents()  # let the layout settle before the picture
    dock.grab().save(str(path))
    print(f"screenshot: {path}")

    document.undo_stack.undo()
    assert document.plan.outlet_assignments == []
    row = row_of(dock, "gpu-1", 0)
    assert dock.table.item(row, HOW).text() == "auto"
    assert dock.combos[row].currentIndex() == 0

    # Pin again, then choose "Auto" in the combo: the pin is removed by an undoable edit.
    document.undo_stack.redo()
    assert dock.table.item(row, HOW).text() == "pinned"
    choose(qtbot, dock.combos[row], "Auto")
    assert document.plan.outlet_assignments == []
    assert not next(c for c in rack_power(document.plan, "rack-1", catalog).cords if c.device == "gpu-1").manual
    assert dock.table.item(row, HOW).text() == "auto"
    document.undo_stack.undo()
    assert len(document.plan.outlet_assignments) == 1


def test_no_free_outlet_shows_in_the_table_and_findings(qtbot: QtBot, tmp_path: Path) -> None:
    cat = build_catalog(tmp_path / "cat")
    # AP8965: 21 C13 outlets per PDU (catalog/pdu.yaml); 43 single-cord loads leave one without.
    plan = rack_with_pdus(cat, "apc-ap8965", voltage_v=208, phases=3, breaker_a=30)
    plan = mount_loads(plan, cat, 43, part="test-single-cord")
    document = PlanDocument(plan, cat)
    dock = make_dock(qtbot, document)
    assert dock.table.rowCount() == 43
    missing = [r for r in range(43) if dock.table.item(r, HOW).text() == "no outlet"]
    assert len(missing) == 1
    assert dock.combos[missing[0]].currentText() == "Auto: no free outlet"
    # Every group is full: no group can be chosen.
    combo = dock.combos[missing[0]]
    model = combo.model()
    assert isinstance(model, QStandardItemModel)
    assert not any(model.item(i).isEnabled() for i in range(1, combo.count()))
    texts = [dock.findings.item(i).text() for i in range(dock.findings.count())]
    finding = next(f for f in rack_power(plan, "r1", cat).findings if f.code == "no-free-outlet")
    assert finding.message in texts
    path = screenshot_dir(tmp_path) / "connections-dock-no-free-outlet.png"
    QApplication.processEvents()  # let the layout settle before the picture
    dock.grab().save(str(path))
    print(f"screenshot: {path}")


def test_empty_plan(qtbot: QtBot, catalog: Catalog) -> None:
    document = PlanDocument(Plan(name="Empty"), catalog)
    dock = make_dock(qtbot, document)
    assert dock.table.rowCount() == 0
    assert dock.balance.text() == "No rack"
    document.replace(load_plan(EXAMPLES / "colo-rack.json", catalog), None)
    assert dock.table.rowCount() == 20


def test_the_mouse_wheel_does_not_replug_cords(colo: tuple[PlanDocument, ConnectionsDock]) -> None:
    document, dock = colo
    combo = dock.combos[0]
    centre = QPointF(combo.rect().center())
    wheel = QWheelEvent(
        centre,
        QPointF(combo.mapToGlobal(combo.rect().center())),
        QPoint(0, 0),
        QPoint(0, -120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(combo, wheel)
    assert combo.currentIndex() == 0
    assert document.plan.outlet_assignments == []
    assert document.undo_stack.count() == 0


def test_keyboard_opens_the_list_and_plugs_once(qtbot: QtBot, colo: tuple[PlanDocument, ConnectionsDock]) -> None:
    document, dock = colo
    row = row_of(dock, "gpu-2", 0)
    combo = dock.combos[row]
    combo.setFocus()
    # An arrow key on the closed combo opens its list instead of re-plugging the cord at each step.
    qtbot.keyClick(combo, Qt.Key.Key_Down)
    view = combo.view()
    qtbot.waitUntil(lambda: view.isVisible())
    assert document.undo_stack.count() == 0
    # Three entries down from "Auto": PDU A l3 (entries: Auto, PDU A l1, l2, l3, PDU B l1, l2, l3).
    for _ in range(3):
        qtbot.keyClick(view, Qt.Key.Key_Down)
    qtbot.keyClick(view, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not view.isVisible())
    assert document.undo_stack.count() == 1
    assert [(a.device, a.psu_index, a.pdu, a.outlet_group) for a in document.plan.outlet_assignments] == [
        ("gpu-2", 0, "pdu-a", "l3")
    ]
