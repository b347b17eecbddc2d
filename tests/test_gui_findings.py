"""Findings dock: the fit rules' findings for the current machine, rack findings, and selection.

Expected rows come from ``check_machine`` on the same example plan; the mistakes named in
the comments are the ones teaching-mistakes.json was written to show.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTreeWidgetItem
from pytestqt.qtbot import QtBot

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.findings import SEVERITY_ORDER
from rackplanner.core.machine.fit import check_machine
from rackplanner.core.machine.topology import derive_topology
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.generate import generate_row
from rackplanner.core.plan.model import Plan
from rackplanner.core.rack.mounting import rack_layout
from rackplanner.core.rack.power import rack_power
from rackplanner.core.rack.report import rack_report
from rackplanner.gui.docks.findings import FINDING_ROLE, PLACE_ROLE, SEVERITY_ROLE, FindingsDock, count_text
from rackplanner.gui.document import PlanDocument
from tests.conftest import EXAMPLES
from tests.guihelpers import shown_dock


def open_dock(qtbot: QtBot, document: PlanDocument) -> FindingsDock:
    dock = shown_dock(qtbot, FindingsDock(document), (420, 560))
    return dock


def example(name: str, catalog: Catalog) -> PlanDocument:
    path = EXAMPLES / name
    return PlanDocument(load_plan(path, catalog), catalog, path)


def click(qtbot: QtBot, dock: FindingsDock, item: QTreeWidgetItem) -> None:
    dock.tree.scrollToItem(item)
    rect = dock.tree.visualItemRect(item)
    qtbot.mouseClick(dock.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_teaching_mistakes_lists_every_finding_most_severe_first(
    qtbot: QtBot, catalog: Catalog, tmp_path: Path
) -> None:
    doc = example("teaching-mistakes.json", catalog)
    dock = open_dock(qtbot, doc)
    machine = doc.plan.machines[0]
    expected = check_machine(machine, catalog, derive_topology(machine, catalog))
    rows = dock.items()
    assert [r.text(0) for r in rows] == [f.message for f in sorted(expected, key=lambda f: SEVERITY_ORDER[f.severity])]
    severities = [r.data(0, FINDING_ROLE).severity for r in rows]
    assert severities == sorted(severities, key=SEVERITY_ORDER.__getitem__)
    # The example's mistakes: an NVLink bridge across a 3090 and a 4090, and a PSU too small.
    codes = {f.code for f in expected if f.severity == "error"}
    assert {"bridge-mismatch", "psu-too-small"} <= codes
    # Each row carries its severity's standard icon.
    for row in rows:
        icon = dock.icons[row.data(0, FINDING_ROLE).severity]
        assert row.icon(0).pixmap(16, 16).toImage() == icon.pixmap(16, 16).toImage()
    assert dock.icons["error"].pixmap(16, 16).toImage() != dock.icons["warning"].pixmap(16, 16).toImage()
    # Counts per severity in the header and the title.
    for severity in ("error", "warning", "info"):
        count = sum(f.severity == severity for f in expected)
        assert dock.count_labels[severity].text() == count_text(severity, count)
    errors = sum(f.severity == "error" for f in expected)
    assert dock.windowTitle().startswith(f"Findings ({errors} errors, ")
    assert rows[0].toolTip(0).startswith("Error (")
    folder = Path(os.environ.get("RACKPLANNER_SHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    shot = folder / "findings-teaching-mistakes.png"
    assert dock.grab().save(str(shot))
    print(f"screenshot: {shot}")


def test_selecting_a_finding_selects_its_slots(qtbot: QtBot, catalog: Catalog) -> None:
    doc = example("teaching-mistakes.json", catalog)
    dock = open_dock(qtbot, doc)
    row = next(r for r in dock.items() if r.data(0, FINDING_ROLE).code == "bridge-mismatch")
    with qtbot.waitSignal(doc.selection_changed):
        click(qtbot, dock, row)
    # The bridge joins the cards in PCIEX16(G5)_1 and _2.
    assert doc.selected_slots == ["pciex16-g5-1", "pciex16-g5-2"]
    chipset_gpu = next(r for r in dock.items() if r.data(0, FINDING_ROLE).slots == ["pciex16-chipset"])
    click(qtbot, dock, chipset_gpu)
    assert doc.selected_slots == ["pciex16-chipset"]


def test_findings_about_the_selected_card_are_bold(qtbot: QtBot, catalog: Catalog) -> None:
    doc = example("teaching-mistakes.json", catalog)
    dock = open_dock(qtbot, doc)
    doc.select_slots(["pciex16-chipset"])  # the third card, on the chipset's x2 link
    findings = [(r, r.data(0, FINDING_ROLE)) for r in dock.items()]
    bold = {f.code for r, f in findings if r.font(0).bold()}
    expected = {f.code for _, f in findings if "pciex16-chipset" in f.slots}
    assert bold == expected and "link-width" in bold
    doc.select_slots([])
    assert not any(r.font(0).bold() for r in dock.items())


def test_findings_follow_edits_and_undo(qtbot: QtBot, catalog: Catalog) -> None:
    doc = example("teaching-mistakes.json", catalog)
    dock = open_dock(qtbot, doc)
    codes = {r.data(0, FINDING_ROLE).code for r in dock.items()}
    assert "bridge-mismatch" in codes
    # Taking out the 4090 also takes out the bridge it was on: no mismatch any more.
    doc.apply(edits.remove_card, machine="overloaded-rig", slot="pciex16-g5-2")
    machine = doc.plan.machines[0]
    after = check_machine(machine, catalog, derive_topology(machine, catalog))
    assert [r.text(0) for r in dock.items()] == [f.message for f in after]
    assert "bridge-mismatch" not in {f.code for f in after}
    doc.undo_stack.undo()
    assert {r.data(0, FINDING_ROLE).code for r in dock.items()} == codes


def test_rack_findings_appear_in_their_own_group(qtbot: QtBot, catalog: Catalog) -> None:
    doc = example("colo-rack.json", catalog)
    dock = open_dock(qtbot, doc)
    assert dock.rack_group.isHidden()
    machine_counts = dict(dock.counts)
    rack = doc.plan.racks[0].id
    found = rack_layout(doc.plan, rack, catalog).findings + rack_power(doc.plan, rack, catalog).findings
    assert found, "colo-rack.json has switches without a catalogued power draw"
    dock.set_rack_findings(found)
    assert not dock.rack_group.isHidden()
    rows = dock.items(dock.rack_group)
    assert [r.text(0) for r in rows] == [f.message for f in sorted(found, key=lambda f: SEVERITY_ORDER[f.severity])]
    warnings = machine_counts.get("warning", 0) + sum(f.severity == "warning" for f in found)
    assert dock.count_labels["warning"].text() == count_text("warning", warnings)
    with qtbot.waitSignal(dock.rack_finding_selected) as signal:
        click(qtbot, dock, rows[0])
    assert signal.args == [rows[0].data(0, FINDING_ROLE)]
    dock.set_rack_findings([])
    assert dock.rack_group.isHidden() and dict(dock.counts) == {k: v for k, v in machine_counts.items() if v}


def test_empty_plan_and_machine_without_board(qtbot: QtBot, catalog: Catalog) -> None:
    doc = PlanDocument(Plan(name="empty"), catalog)
    dock = open_dock(qtbot, doc)
    assert dock.items() == [] and dock.machine_group.text(0) == "No machine"
    assert dock.windowTitle() == "Findings"
    result = doc.apply(edits.add_machine, name="Bare", catalog=catalog)
    assert result is not None
    doc.set_current_machine("bare")
    assert [r.data(0, FINDING_ROLE).code for r in dock.items()] == ["no-board"]
    assert dock.count_labels["error"].text() == "1 error"


def test_rack_findings_whose_figures_change_keep_their_rows(qtbot: QtBot, catalog: Catalog) -> None:
    # A generated row's rack is overloaded with a feed failed: its line-over-limit errors quote amps,
    # so a GPU power limit changes their text but not the list's shape.
    plan = generate_row(1, seed=1)
    doc = PlanDocument(plan, catalog)
    dock = open_dock(qtbot, doc)
    rack = plan.racks[0]
    before = rack_report(plan, rack.id, catalog).findings
    dock.set_rack_findings(before)
    rows = dock.items(dock.rack_group)
    machine = next(d.machine for d in rack.devices if d.machine)
    edited = edits.set_power_limit(plan, machine=machine, slot="gpu2", watts=200.0, catalog=catalog).plan
    after = rack_report(edited, rack.id, catalog).findings
    changed = [a.message for a, b in zip(before, after, strict=True) if a != b]
    assert changed, "lowering one GPU's limit changes the failover currents the errors quote"
    dock.set_rack_findings(after)
    # The same row objects, now showing the new messages, in severity order.
    assert dock.items(dock.rack_group) == rows
    ordered = sorted(after, key=lambda f: SEVERITY_ORDER[f.severity])
    assert [r.text(0) for r in rows] == [f.message for f in ordered]
    assert [r.data(0, FINDING_ROLE) for r in rows] == ordered
    assert not dock.rack_group.isHidden()


def test_whole_plan_says_each_finding_once_with_its_places_and_a_click_shows_one(
    qtbot: QtBot, tmp_path: Path, catalog: Catalog
) -> None:
    from tests.guihelpers import shown_window

    window = shown_window(qtbot, tmp_path, catalog, EXAMPLES / "colo-rack.json")
    dock = window.docks["FindingsDock"]
    assert isinstance(dock, FindingsDock)
    assert dock.plan_group.childCount() == 0  # worked out only when opened
    dock.plan_group.setExpanded(True)
    plan = window.document.plan
    # Worked out again here from the fit rules and the rack report, without the dock's code.
    places: dict[tuple[str, str], set[str]] = {}
    for machine in plan.machines:
        for f in check_machine(machine, catalog, derive_topology(machine, catalog)):
            places.setdefault((f.severity, f.message), set()).add(f"machine:{machine.id}")
    for rack in plan.racks:
        for f in rack_report(plan, rack.id, catalog).findings:
            places.setdefault((f.severity, f.message), set()).add(f"rack:{rack.id}")
    rows = [r for i in range(dock.plan_group.childCount()) if (r := dock.plan_group.child(i)) is not None]
    assert len(rows) == len(places)
    severities = [SEVERITY_ORDER[r.data(0, SEVERITY_ROLE)] for r in rows]
    assert severities == sorted(severities)
    # The four identical GPU servers (colo-rack.json) each run their A100s at PCIe 3.0: one row, four places.
    pcie3 = next(r for r in rows if "run at PCIe 3.0 x16" in r.text(0) and "A100" in r.text(0))
    assert pcie3.text(0).endswith("(4 places)") and pcie3.childCount() == 4
    place = pcie3.child(2)
    assert place is not None
    kind, machine_id = place.data(0, PLACE_ROLE)
    assert kind == "machine" and machine_id not in window.canvases
    click(qtbot, dock, place)
    assert window.document.current_machine == machine_id
    assert window.tabs.currentWidget() is window.canvases[machine_id]
