"""The main window: canvases in tabs in the centre, the catalog on the left, live docks on the right.

The window lays out and wires: its menus and toolbar come from ``actions``, the tabs from
``centre_tabs``, opening and saving from ``plan_files``; every edit goes through the document.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

from PySide6.QtCore import QByteArray, QSettings, Qt, QTimer
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QDialog, QDockWidget, QInputDialog, QLabel, QMainWindow, QUndoView, QWidget

from rackplanner.core.analysis import analyse
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Drive, Gpu, Nic
from rackplanner.core.catalog.parts import Rack as RackPart
from rackplanner.core.machine.placement import slot_verdicts
from rackplanner.core.plan import edits
from rackplanner.core.plan.edits import Change
from rackplanner.core.plan.model import Machine, Plan
from rackplanner.gui import recovery
from rackplanner.gui.actions import build_actions, build_menus, build_toolbar
from rackplanner.gui.canvases.machine import MachineCanvas
from rackplanner.gui.canvases.rack_row import RackRowCanvas
from rackplanner.gui.centre_tabs import CentreTabs
from rackplanner.gui.dialogs.feed import FeedDialog
from rackplanner.gui.docks.block_diagram import BlockDiagramDock
from rackplanner.gui.docks.findings import FindingsDock
from rackplanner.gui.docks.machine_form import MachineDock
from rackplanner.gui.docks.palette import PaletteDock
from rackplanner.gui.docks.summary import SummaryDock
from rackplanner.gui.document import ChangeSet, PlanDocument
from rackplanner.gui.heap import settle_heap
from rackplanner.gui.plan_files import APP_NAME, PlanFiles

# The saved dock layout's version: a layout saved with other docks is not restored.
LAYOUT_VERSION = 2


class MainWindow(QMainWindow):
    def __init__(self, document: PlanDocument, settings: QSettings | None = None) -> None:
        super().__init__()
        self.document = document
        self.settings = settings or QSettings()
        self.setObjectName("main-window")
        self.resize(1360, 820)
        self._default_state: QByteArray | None = None
        self.tabs = CentreTabs(document, self)
        self.tabs.currentChanged.connect(self._tab_changed)
        self.tabs.status_message.connect(self.show_status)
        self.tabs.open_requested.connect(self._open_example)
        self.tabs.open_dialog_requested.connect(self.open_dialog)
        self.setCentralWidget(self.tabs)
        self._status = QLabel()
        self.statusBar().addWidget(self._status, 1)
        self.files = PlanFiles(self, document, self.settings)
        actions = build_actions(self, document.undo_stack)
        self.actions_by_name = actions
        menus = build_menus(self, actions)
        self.view_menu = menus["View"]
        self.recent_menu = menus["Open Recent"]
        self.recent_menu.aboutToShow.connect(self.files.fill_recent)
        build_toolbar(self, actions, document.undo_stack)
        self._build_docks()
        document.changed.connect(self._document_changed)
        document.reset.connect(self._document_reset)
        document.refused.connect(lambda reason: self.show_status(f"Not done: {reason}"))
        document.undo_stack.cleanChanged.connect(self.update_title)
        document.current_machine_changed.connect(self.tabs.show_machine)
        self.tabs.rebuild()
        self.update_title()
        # The plan's objects out of later full collections, once the window is up.
        QTimer.singleShot(0, settle_heap)
        # The rack docks import pyqtgraph (about half a second): they are added just after the
        # window first paints, and the saved layout is restored once every dock exists.
        QTimer.singleShot(0, self.build_rack_docks)

    # --- the centre ------------------------------------------------------------------------

    @property
    def canvases(self) -> dict[str, MachineCanvas]:
        return self.tabs.canvases

    @property
    def row_canvases(self) -> dict[str, RackRowCanvas]:
        return self.tabs.row_canvases

    def current_canvas(self) -> MachineCanvas | None:
        return self.tabs.current_canvas()

    def current_row_canvas(self) -> RackRowCanvas | None:
        return self.tabs.current_row_canvas()

    def tab_machines(self) -> list[Machine]:
        return self.tabs.tab_machines()

    def open_machine_tab(self, machine_id: str) -> None:
        self.tabs.open_machine_tab(machine_id)

    # --- docks -----------------------------------------------------------------------------

    def _build_docks(self) -> None:
        """The docks, in tabbed groups: catalog and machine on the left, the diagram and the lists on the right."""
        self.docks: dict[str, QDockWidget] = {}
        left = Qt.DockWidgetArea.LeftDockWidgetArea
        right = Qt.DockWidgetArea.RightDockWidgetArea
        groups: tuple[tuple[Qt.DockWidgetArea, tuple[Callable[[PlanDocument, QWidget], QDockWidget], ...]], ...] = (
            (left, (PaletteDock, MachineDock)),
            (right, (BlockDiagramDock,)),
            (right, (FindingsDock, SummaryDock)),
        )
        for area, classes in groups:
            first: QDockWidget | None = None
            for cls in classes:
                # The palette keeps the user's favourite and recent parts in the window's settings.
                dock = (
                    PaletteDock(self.document, self, settings=self.settings)
                    if cls is PaletteDock
                    else cls(self.document, self)
                )
                self.addDockWidget(area, dock)
                # Tabify at once: stacked even for a moment, the docks' minimum heights would grow the window.
                if first is None:
                    first = dock
                else:
                    self.tabifyDockWidget(first, dock)
                self.docks[type(dock).__name__] = dock
                self.view_menu.addAction(dock.toggleViewAction())
            if first is not None:
                first.raise_()
        history = QDockWidget("Undo history", self)
        history.setObjectName("undo-history")
        history.setWidget(QUndoView(self.document.undo_stack))
        self.addDockWidget(right, history)
        self.tabifyDockWidget(self.docks["FindingsDock"], history)
        history.hide()
        self.docks["undo-history"] = history
        self.view_menu.addAction(history.toggleViewAction())
        self.docks["FindingsDock"].raise_()
        self.first_layout()
        self.document.current_rack_changed.connect(lambda _rack: self._show_rack_findings())
        self._show_rack_findings()
        findings_dock = self.docks["FindingsDock"]
        assert isinstance(findings_dock, FindingsDock)
        findings_dock.place_selected.connect(self.show_place)
        findings_dock.rack_finding_selected.connect(lambda finding: self.show_place("rack", finding.rack))
        palette = self.docks["PaletteDock"]
        assert isinstance(palette, PaletteDock)
        palette.part_activated.connect(self.add_part)

    def first_layout(self) -> None:
        """Dock sizes for 1366x768 and up: the diagram gets the height, the lists the rest."""
        diagram, findings, palette = (self.docks[n] for n in ("BlockDiagramDock", "FindingsDock", "PaletteDock"))
        height = max(600, self.height() - 120)
        self.resizeDocks([diagram, findings], [int(height * 0.62), int(height * 0.38)], Qt.Orientation.Vertical)
        side = max(280, min(420, self.width() // 4))
        self.resizeDocks([palette, diagram], [side - 20, max(440, self.width() // 4 + 40)], Qt.Orientation.Horizontal)

    def reset_layout(self) -> None:
        """View → Reset layout: every dock back where it opens on a first start."""
        if self._default_state is not None:
            self.restoreState(self._default_state, LAYOUT_VERSION)
        for dock in self.docks.values():
            dock.setFloating(False)
        self.docks["undo-history"].hide()
        self.first_layout()
        self.docks["FindingsDock"].raise_()
        self._tab_changed(self.tabs.currentIndex())

    def build_rack_docks(self) -> None:
        """Add the power, connections, network and capacity docks (once), then restore the saved layout."""
        if "PowerDock" in self.docks:
            return
        from rackplanner.gui.docks.capacity import CapacityDock
        from rackplanner.gui.docks.connections import ConnectionsDock
        from rackplanner.gui.docks.network import NetworkDock
        from rackplanner.gui.docks.power import PowerDock

        # Tabbed with the block diagram: the lists below (findings, summary) stay in view.
        diagram = self.docks["BlockDiagramDock"]
        for cls in (PowerDock, ConnectionsDock, NetworkDock, CapacityDock):
            dock = cls(self.document, self)
            self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
            self.tabifyDockWidget(diagram, dock)
            self.docks[cls.__name__] = dock
            self.view_menu.addAction(dock.toggleViewAction())
        self._default_state = self.saveState(LAYOUT_VERSION)
        self.view_menu.addSeparator()
        self.view_menu.addAction(self.actions_by_name["reset_layout"])
        state = self.settings.value("window/state")
        if isinstance(state, QByteArray):
            self.restoreState(state, LAYOUT_VERSION)
        # The dock that goes with the centre tab (a rack's power, or the machine's diagram), once
        # the new docks have joined the tab group on the next pass of the event loop.
        QTimer.singleShot(0, lambda: self._tab_changed(self.tabs.currentIndex()))

    def _tab_changed(self, index: int) -> None:
        """Follow the centre: a machine tab shows its block diagram, a rack tab the rack's power."""
        widget = self.tabs.widget(index)
        if isinstance(widget, MachineCanvas):
            self.document.set_current_machine(widget.machine_id)
            self.docks["BlockDiagramDock"].raise_()
        elif isinstance(widget, RackRowCanvas):
            rack_ids = widget.rack_ids()
            if rack_ids and self.document.current_rack not in rack_ids:
                self.document.set_current_rack(rack_ids[0])
            power = self.docks.get("PowerDock")
            if power is not None:
                power.raise_()

    def show_in_catalog(self, part_id: str) -> bool:
        """Raise the catalog and select the part there (clearing a search or filter that hides it)."""
        palette = self.docks["PaletteDock"]
        assert isinstance(palette, PaletteDock)
        palette.show()
        palette.raise_()
        if not palette.reveal_part(part_id):
            self.show_status(f"{part_id} is not in the catalog")
            return False
        return True

    def show_place(self, kind: str, place_id: str) -> None:
        """Bring a machine (its tab) or a rack (its row) into view: where a finding holds."""
        if kind == "machine" and self.document.plan.machine(place_id) is not None:
            self.tabs.open_machine_tab(place_id)
            self.document.set_current_machine(place_id)
        elif kind == "rack":
            rack = self.document.plan.rack(place_id)
            if rack is not None:
                self.document.set_current_rack(rack.id)
                self.tabs.show_row(rack.row)

    def add_rack(self) -> None:
        """Add a rack of a catalog model the user picks, to the row on screen (or the first row)."""
        racks = sorted(self.document.catalog.of_kind(RackPart), key=lambda p: p.label.lower())
        if not racks:
            self.show_status("The catalog has no racks")
            return
        labels = [r.label for r in racks]
        choice, ok = QInputDialog.getItem(self, "Add rack", "Rack model:", labels, 0, False)
        if not ok:
            return
        part = racks[labels.index(choice)]
        row_canvas = self.current_row_canvas()
        kwargs: dict[str, object] = {"name": f"Rack {len(self.document.plan.racks) + 1}", "part": part.id}
        if row_canvas is not None:
            kwargs["row"] = row_canvas.row
        result = self.document.apply(edits.add_rack, catalog=self.document.catalog, **kwargs)
        if result is not None and result.racks:
            rack_id = next(iter(result.racks))
            self.document.set_current_rack(rack_id)
            rack = self.document.plan.rack(rack_id)
            if rack is not None:
                self.tabs.show_row(rack.row)

    def _show_rack_findings(self) -> None:
        """The current rack's placement, power and network findings, in the findings dock."""
        findings = self.docks["FindingsDock"]
        assert isinstance(findings, FindingsDock)
        rack_id = self.document.current_rack
        if not rack_id or self.document.plan.rack(rack_id) is None:
            findings.set_rack_findings([])
            return
        findings.set_rack_findings(analyse(self.document.plan, self.document.catalog).rack(rack_id).findings)

    def _document_changed(self, change: ChangeSet) -> None:
        if change.touches(Change.RACK_LAYOUT, Change.POWER, Change.NETWORK, Change.OUTLETS, Change.MACHINES):
            self._show_rack_findings()
        if change.touches(Change.MACHINES, Change.DOCUMENT, Change.RACK_LAYOUT):
            self.tabs.rebuild()
        self.update_title()
        self.files.edited()

    def _document_reset(self) -> None:
        self.tabs.forget_machines()
        self.update_title()
        QTimer.singleShot(0, settle_heap)

    def update_title(self) -> None:
        name = self.document.path.name if self.document.path else "Untitled"
        self.setWindowTitle(f"{name}[*] — {APP_NAME}")
        self.setWindowModified(self.document.is_modified)

    def show_status(self, text: str) -> None:
        self._status.setText(text)

    # --- adding parts by double-click ---------------------------------------------------

    def add_part(self, part_id: str) -> None:
        """Put a part where it first fits on the current machine (the palette's double-click or Enter)."""
        canvas = self.current_canvas()
        if canvas is None:
            self.show_status("Add a machine first")
            return
        part = self.document.catalog.get(part_id)
        if isinstance(part, (Gpu, Nic, Drive)):
            verdicts = slot_verdicts(self.document.plan, canvas.machine_id, part_id, self.document.catalog)
            slot = next((v.slot for v in verdicts.values() if v.ok), None)
            if slot is None:
                reasons = {v.reason for v in verdicts.values() if v.reason}
                self.show_status(f"No slot takes {part.model}" + (f": {sorted(reasons)[0]}" if reasons else ""))
                return
            self.document.apply(
                edits.place_card, machine=canvas.machine_id, slot=slot, part=part_id, catalog=self.document.catalog
            )
        else:
            canvas.configure_with(part_id)

    def add_feed(self) -> None:
        dialog = FeedDialog({f.side for f in self.document.plan.feeds}, self)
        if dialog.exec() == FeedDialog.DialogCode.Accepted:
            self.document.apply(edits.add_feed, **dialog.values())

    def delete_selected(self) -> None:
        widget = self.tabs.currentWidget()
        if isinstance(widget, (MachineCanvas, RackRowCanvas)):
            widget.delete_selected()

    def fit_view(self) -> None:
        widget = self.tabs.currentWidget()
        if isinstance(widget, (MachineCanvas, RackRowCanvas)):
            widget.fit()

    def zoom_view(self, factor: float) -> None:
        widget = self.tabs.currentWidget()
        if isinstance(widget, (MachineCanvas, RackRowCanvas)):
            widget.zoom(factor)

    def export_bom(self) -> None:
        # The report code loads when first used, not with the window.
        from rackplanner.gui.dialogs.export_bom import export_bom

        export_bom(self)

    def advise(self) -> QDialog:
        """Tools → Advise a Build…: the advisor's dialog (its Apply adds a machine to this plan)."""
        from rackplanner.gui.dialogs.advise import AdviseDialog

        dialog = AdviseDialog(self.document, self)
        dialog.show()
        return dialog

    def edit_board(self, based_on: str | None) -> QDialog:
        """Catalog → New Board… (``None``) or Edit Board as New… (``"current"``: the current machine's board)."""
        from rackplanner.core.plan.resolve import board_of
        from rackplanner.gui.dialogs.board_editor import board_editor

        machine = self.document.plan.machine(self.document.current_machine)
        board = board_of(machine, self.document.catalog) if machine is not None and based_on else None
        editor = board_editor(self.document, self, board)
        editor.show()
        return editor

    def edit_server(self, based_on: str | None) -> QDialog:
        """Catalog → New Server… (``None``) or Edit Server as New… (``"current"``: the current machine's server)."""
        from rackplanner.core.plan.resolve import server_of
        from rackplanner.gui.dialogs.server_editor import server_editor

        machine = self.document.plan.machine(self.document.current_machine)
        server = server_of(machine, self.document.catalog) if machine is not None and based_on else None
        editor = server_editor(self.document, self, server)
        editor.show()
        return editor

    def import_prices(self) -> int:
        from rackplanner.gui.dialogs.import_prices import import_prices

        return import_prices(self)

    def export_elevation(self) -> None:
        from rackplanner.gui.dialogs.export_elevation import export_elevation

        export_elevation(self)

    def export_image(self, which: Literal["centre", "diagram"]) -> None:
        from rackplanner.gui.image_export import export_image

        export_image(self, which)

    def copy_image(self, which: Literal["centre", "diagram"]) -> None:
        from rackplanner.gui.image_export import copy_image

        copy_image(self, which)

    def show_help(self, which: str) -> QDialog:
        """Help → Guide, Keyboard Shortcuts or About, as a window of its own (kept until closed)."""
        from rackplanner.gui import help as help_windows

        show = {"guide": help_windows.show_guide, "shortcuts": help_windows.show_shortcuts}
        dialog = show.get(which, help_windows.show_about)(self)
        self.help_window = dialog
        return dialog

    # --- files -----------------------------------------------------------------------------

    def new_plan(self) -> None:
        self.files.new_plan()

    def open_dialog(self) -> None:
        self.files.open_dialog()

    def _open_example(self, path: Path) -> None:
        # An example opens as a new, untitled plan: saving it does not overwrite the example.
        if self.files.maybe_save():
            self.files.open_example(path)

    def open_path(self, path: Path) -> bool:
        return self.files.open_path(path)

    def save(self) -> bool:
        return self.files.save()

    def save_as(self) -> bool:
        return self.files.save_as()

    def maybe_save(self) -> bool:
        return self.files.maybe_save()

    def recent_files(self) -> list[str]:
        return self.files.recent_files()

    def write_recovery(self) -> None:
        self.files.write_recovery()

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.maybe_save():
            event.ignore()
            return
        self.settings.setValue("window/state", self.saveState(LAYOUT_VERSION))
        self.settings.setValue("window/geometry", self.saveGeometry())
        recovery.clear()
        event.accept()


def open_window(catalog: Catalog, plan: Plan, path: Path | None, settings: QSettings | None = None) -> MainWindow:
    document = PlanDocument(plan, catalog, path)
    return MainWindow(document, settings)
