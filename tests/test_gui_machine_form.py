"""The machine form: each field edits the plan through one undoable edit, and follows undo."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog, QMessageBox
from pytestqt.qtbot import QtBot

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Cpu, Psu
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.model import PartCount, Plan
from rackplanner.gui.docks.machine_form import HOME_RIG_BUILD, MachineDock, current_part
from rackplanner.gui.document import PlanDocument
from tests.conftest import EXAMPLES
from tests.guihelpers import shown_dock


def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("RACKPLANNER_SHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def make(qtbot: QtBot, catalog: Catalog, example: str) -> tuple[PlanDocument, MachineDock]:
    document = PlanDocument(load_plan(EXAMPLES / example, catalog), catalog)
    dock = shown_dock(qtbot, MachineDock(document), (380, 560))
    return document, dock


def test_form_shows_the_home_rig(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    document, dock = make(qtbot, catalog, "home-rig-2x3090.json")
    # resources/examples/home-rig-2x3090.json: ProArt X670E, Define 7 XL, Ryzen 9 7950X,
    # 2 x 48 GB DDR5-5600, one Seasonic PRIME TX-1600.
    assert dock.name.text() == "Home rig"
    assert current_part(dock.server) is None
    assert current_part(dock.board) == "proart-x670e-creator"
    assert current_part(dock.chassis) == "fractal-define-7-xl"
    assert current_part(dock.cpu) == "ryzen-9-7950x"
    assert dock.cpu_count.value() == 1
    assert current_part(dock.memory) == "crucial-ddr5-5600-48gb-udimm"
    assert dock.memory_count.value() == 2
    assert current_part(dock.psu) == "seasonic-prime-tx-1600"
    assert dock.psu_count.value() == 1
    assert current_part(dock.drive) is None and not dock.drive_count.isEnabled()
    # AM5 CPUs are offered first for an AM5 board.
    assert isinstance(catalog.get(str(dock.cpu.itemData(1))), Cpu)
    am5 = catalog.get_as(str(dock.cpu.itemData(1)), Cpu)
    assert am5 is not None and am5.socket == "AM5"
    assert document.undo_stack.count() == 0, "filling the form must not edit the plan"
    path = shots(tmp_path) / "machine-form-home-rig.png"
    dock.grab().save(str(path))
    print(f"screenshot: {path}")


def test_cpu_count_spin_box_is_one_undoable_edit(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    document, dock = make(qtbot, catalog, "sys-4028gr-trt2-8gpu.json")
    # The SYS-4028GR-TRT2 example runs two Xeon E5-2680 v4 (resources/examples/sys-4028gr-trt2-8gpu.json).
    assert dock.cpu_count.value() == 2
    assert current_part(dock.server) == "sys-4028gr-trt2"
    assert not dock.board.isEnabled() and not dock.chassis.isEnabled()
    # The server's stock PSUs are shown, not chosen; picking a model keeps the server's count.
    assert current_part(dock.psu) is None and "Stock: 4 ×" in dock.psu.currentText()
    path = shots(tmp_path) / "machine-form-8gpu-server.png"
    dock.grab().save(str(path))
    print(f"screenshot: {path}")
    dock.cpu_count.setFocus()
    qtbot.keyClick(dock.cpu_count, Qt.Key.Key_Down)
    assert document.undo_stack.count() == 1
    machine = document.plan.machine("trainer")
    assert machine is not None and machine.cpu_count == 1
    assert dock.cpu_count.value() == 1
    document.undo_stack.undo()
    machine = document.plan.machine("trainer")
    assert machine is not None and machine.cpu_count == 2
    assert dock.cpu_count.value() == 2
    assert document.undo_stack.count() == 1, "refilling the form after undo pushed nothing"
    psu = next(p for p in catalog.of_kind(Psu) if p.form == "server")
    dock.psu.setCurrentIndex(dock.psu.findData(psu.id))
    machine = document.plan.machine("trainer")
    assert machine is not None and machine.psus == [PartCount(part=psu.id, count=4)]
    assert dock.psu_count.value() == 4 and dock.psu_count.isEnabled()


def test_psu_and_memory_fields(qtbot: QtBot, catalog: Catalog) -> None:
    document, dock = make(qtbot, catalog, "home-rig-2x3090.json")
    other = next(p for p in catalog.of_kind(Psu) if p.id != "seasonic-prime-tx-1600")
    dock.psu.setCurrentIndex(dock.psu.findData(other.id))
    machine = document.plan.machine("home-rig")
    assert machine is not None
    assert machine.psus == [PartCount(part=other.id, count=1)]
    dock.memory_count.setFocus()
    qtbot.keyClick(dock.memory_count, Qt.Key.Key_Up)
    machine = document.plan.machine("home-rig")
    assert machine is not None
    assert machine.memory == [PartCount(part="crucial-ddr5-5600-48gb-udimm", count=3)]
    assert document.undo_stack.count() == 2
    # Memory "None" takes the DIMMs out.
    dock.memory.setCurrentIndex(0)
    machine = document.plan.machine("home-rig")
    assert machine is not None and machine.memory == []
    assert not dock.memory_count.isEnabled()
    for _ in range(3):
        document.undo_stack.undo()
    machine = document.plan.machine("home-rig")
    assert machine is not None and machine.psus == [PartCount(part="seasonic-prime-tx-1600", count=1)]
    assert current_part(dock.psu) == "seasonic-prime-tx-1600"


def test_rename_on_editing_finished(qtbot: QtBot, catalog: Catalog) -> None:
    document, dock = make(qtbot, catalog, "home-rig-2x3090.json")
    dock.name.setFocus()
    dock.name.selectAll()
    qtbot.keyClicks(dock.name, "Garage rig")
    assert document.undo_stack.count() == 0, "no edit while typing"
    qtbot.keyClick(dock.name, Qt.Key.Key_Return)
    machine = document.plan.machine("home-rig")
    assert machine is not None and machine.name == "Garage rig"
    assert document.undo_stack.count() == 1
    assert dock.machine_choice.currentText() == "Garage rig"


def test_choosing_a_server_replaces_board_and_case(qtbot: QtBot, catalog: Catalog) -> None:
    document, dock = make(qtbot, catalog, "home-rig-2x3090.json")
    dock.server.setCurrentIndex(dock.server.findData("sys-4028gr-trt2"))
    machine = document.plan.machine("home-rig")
    assert machine is not None
    assert machine.server == "sys-4028gr-trt2" and machine.board is None and machine.chassis is None
    # The ProArt's slots are not on the server's board, so its cards were taken out.
    assert machine.cards == []
    assert not dock.board.isEnabled()
    document.undo_stack.undo()
    assert current_part(dock.board) == "proart-x670e-creator" and dock.board.isEnabled()


def test_add_machine_via_the_form(qtbot: QtBot, catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    document, dock = make(qtbot, catalog, "home-rig-2x3090.json")
    monkeypatch.setattr(QInputDialog, "getText", lambda *args, **kwargs: ("Second rig", True))
    qtbot.mouseClick(dock.add_button, Qt.MouseButton.LeftButton)
    assert len(document.plan.machines) == 2
    added = document.plan.machines[1]
    assert added.name == "Second rig"
    # Built on the home-rig board, case and CPU by default.
    assert (added.board, added.chassis, added.cpu) == (
        HOME_RIG_BUILD["board"],
        HOME_RIG_BUILD["chassis"],
        HOME_RIG_BUILD["cpu"],
    )
    assert document.current_machine == added.id
    assert dock.name.text() == "Second rig"
    assert dock.machine_choice.count() == 2
    document.undo_stack.undo()
    assert len(document.plan.machines) == 1
    assert document.current_machine == "home-rig"
    assert dock.name.text() == "Home rig"


def test_add_machine_on_a_server(qtbot: QtBot, catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    document, dock = make(qtbot, catalog, "home-rig-2x3090.json")
    dock.new_base.setCurrentIndex(dock.new_base.findData({"server": "sys-4028gr-trt2"}))
    monkeypatch.setattr(QInputDialog, "getText", lambda *args, **kwargs: ("GPU box", True))
    qtbot.mouseClick(dock.add_button, Qt.MouseButton.LeftButton)
    added = document.plan.machines[-1]
    assert added.server == "sys-4028gr-trt2"
    # A cancelled dialog adds nothing.
    monkeypatch.setattr(QInputDialog, "getText", lambda *args, **kwargs: ("", False))
    qtbot.mouseClick(dock.add_button, Qt.MouseButton.LeftButton)
    assert len(document.plan.machines) == 2


def test_remove_machine_asks_first(qtbot: QtBot, catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    document, dock = make(qtbot, catalog, "home-rig-2x3090.json")
    answers = [QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes]
    monkeypatch.setattr(QMessageBox, "question", lambda *args, **kwargs: answers.pop(0))
    qtbot.mouseClick(dock.remove_button, Qt.MouseButton.LeftButton)
    assert len(document.plan.machines) == 1
    qtbot.mouseClick(dock.remove_button, Qt.MouseButton.LeftButton)
    assert document.plan.machines == []
    assert document.current_machine == ""
    assert not dock.name.isEnabled() and not dock.remove_button.isEnabled()
    assert dock.add_button.isEnabled()


def test_empty_plan(qtbot: QtBot, catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    document = PlanDocument(Plan(name="Empty"), catalog)
    dock = MachineDock(document)
    qtbot.addWidget(dock)
    dock.show()  # a form the user clicks in is on screen (a hidden one fills itself when shown)
    qtbot.waitExposed(dock)
    assert not dock.cpu_count.isEnabled()
    assert "no machines" in dock.note.text() and not dock.note.isHidden()
    monkeypatch.setattr(QInputDialog, "getText", lambda *args, **kwargs: ("First", True))
    qtbot.mouseClick(dock.add_button, Qt.MouseButton.LeftButton)
    assert [m.name for m in document.plan.machines] == ["First"]
    assert dock.cpu_count.isEnabled() and dock.name.text() == "First"


def test_form_follows_other_views_and_keeps_a_blank_name_out(qtbot: QtBot, catalog: Catalog) -> None:
    document, dock = make(qtbot, catalog, "home-rig-2x3090.json")
    # Another view renames the machine; the form follows without an edit of its own.
    document.apply(edits.rename_machine, machine="home-rig", name="Den")
    assert dock.name.text() == "Den"
    dock.name.setText("   ")
    dock.name.editingFinished.emit()
    assert dock.name.text() == "Den" and document.undo_stack.count() == 1


def test_host_settings_are_undoable_and_reach_the_topology(qtbot: QtBot, catalog: Catalog) -> None:
    from rackplanner.core.machine.topology import derive_topology

    document, dock = make(qtbot, catalog, "sys-4028gr-trt2-8gpu.json")
    box = dock.host
    assert box.numa.currentData() == 1 and box.checks["smt"].isChecked()
    # SMT off: the Xeon E5-2680 v4's 14 cores without their siblings (28-41) in the affinity column.
    box.checks["smt"].click()
    machine = document.plan.machine("trainer")
    assert machine is not None and machine.host.smt is False and document.undo_stack.count() == 1
    assert derive_topology(machine, catalog).device("GPU0").cpu_affinity == "0-13"
    box.p2p_level.setCurrentIndex(box.p2p_level.findData("SYS"))
    machine = document.plan.machine("trainer")
    assert machine is not None and machine.host.nccl_p2p_level == "SYS"
    # NCCL_P2P_LEVEL=SYS: the PHB pairs across the two switch hives now use P2P.
    assert derive_topology(machine, catalog).pair("GPU0", "GPU4").p2p
    document.undo_stack.undo()
    document.undo_stack.undo()
    assert box.checks["smt"].isChecked() and box.p2p_level.currentData() is None
    assert document.plan.machine("trainer") == load_plan(EXAMPLES / "sys-4028gr-trt2-8gpu.json", catalog).machine(
        "trainer"
    )
