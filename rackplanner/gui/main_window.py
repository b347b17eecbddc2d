"""The main window: machine tabs in the centre, the catalog on the left, live docks on the right."""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from pathlib import Path

from PySide6.QtCore import QByteArray, QEvent, QObject, QSettings, Qt, QTimer
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QHelpEvent,
    QIcon,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QStyle,
    QTabBar,
    QTabWidget,
    QToolBar,
    QToolTip,
    QUndoView,
    QWidget,
)

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Board, Drive, Gpu, Nic, Server
from rackplanner.core.catalog.parts import Rack as RackPart
from rackplanner.core.errors import InputError
from rackplanner.core.machine.placement import slot_verdicts
from rackplanner.core.plan import edits
from rackplanner.core.plan.edits import Change
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.model import Machine, Plan
from rackplanner.core.rack.report import rack_report
from rackplanner.gui import recovery
from rackplanner.gui.canvases.machine import MachineCanvas
from rackplanner.gui.canvases.rack_row import RackRowCanvas, rows_of
from rackplanner.gui.dialogs.feed import FeedDialog
from rackplanner.gui.docks.block_diagram import BlockDiagramDock
from rackplanner.gui.docks.findings import FindingsDock
from rackplanner.gui.docks.machine_form import MachineDock
from rackplanner.gui.docks.palette import PaletteDock
from rackplanner.gui.docks.summary import SummaryDock
from rackplanner.gui.document import ChangeSet, PlanDocument
from rackplanner.gui.heap import settle_heap
from rackplanner.gui.mime import part_from_mime

APP_NAME = "rackplanner"
PLAN_FILTER = "rackplanner plans (*.json);;All files (*)"
MAX_RECENT = 8
AUTOSAVE_INTERVAL_MS = 60_000
# After an edit, wait this long for the burst to end before writing the recovery file.
AUTOSAVE_AFTER_EDIT_MS = 5_000


def autosave_intervals() -> tuple[int, int]:
    """The timer and after-edit intervals in ms; ``RACKPLANNER_AUTOSAVE_MS=TIMER[,AFTER_EDIT]`` overrides them."""
    override = os.environ.get("RACKPLANNER_AUTOSAVE_MS", "")
    try:
        values = [max(1, int(v)) for v in override.split(",") if v.strip()]
    except ValueError:
        values = []
    if not values:
        return AUTOSAVE_INTERVAL_MS, AUTOSAVE_AFTER_EDIT_MS
    return values[0], values[1] if len(values) > 1 else values[0]


class _LabelledAction(QAction):
    """A toolbar action with a fixed label whose tooltip says what it would do.

    The tooltip is given when asked for, not set on the action: any change to an action, its
    tooltip included, lays out the toolbar and with it the whole window, on every edit.
    """

    def __init__(self, icon: QIcon, text: str, parent: QObject) -> None:
        super().__init__(icon, text, parent)
        self.description = text

    def describe(self, what: str) -> None:
        self.description = f"{self.text()} {what}".strip()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent) and isinstance(watched, QWidget):
            QToolTip.showText(event.globalPos(), self.description, watched)
            return True
        return False


class MainWindow(QMainWindow):
    def __init__(self, document: PlanDocument, settings: QSettings | None = None) -> None:
        super().__init__()
        self.document = document
        self.settings = settings or QSettings()
        self.setObjectName("main-window")
        self.resize(1360, 820)
        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        self.tabs.currentChanged.connect(self._tab_changed)
        self.tabs.setTabsClosable(True)
        self.tabs.tabCloseRequested.connect(self._close_tab)
        self._opened: set[str] = set()  # racked machines the user opened in a tab
        self.setCentralWidget(self.tabs)
        self.canvases: dict[str, MachineCanvas] = {}
        self.row_canvases: dict[str, RackRowCanvas] = {}
        self._status = QLabel()
        self.statusBar().addWidget(self._status, 1)
        self._build_actions()
        self._build_menus()
        self._build_docks()
        document.changed.connect(self._document_changed)
        document.reset.connect(self._document_reset)
        document.refused.connect(lambda reason: self.show_status(f"Not done: {reason}"))
        document.undo_stack.cleanChanged.connect(self._update_title)
        document.current_machine_changed.connect(self._show_machine)
        interval_ms, after_edit_ms = autosave_intervals()
        self._autosave_timer = QTimer(self)
        self._autosave_timer.setInterval(interval_ms)
        self._autosave_timer.timeout.connect(self.write_recovery)
        self._autosave_timer.start()
        self._burst_timer = QTimer(self)
        self._burst_timer.setSingleShot(True)
        self._burst_timer.setInterval(after_edit_ms)
        self._burst_timer.timeout.connect(self.write_recovery)
        self._rebuild_tabs()
        self._update_title()
        # The plan's objects out of later full collections, once the window is up.
        QTimer.singleShot(0, settle_heap)
        # The rack docks import pyqtgraph (about half a second): they are added just after the
        # window first paints, and the saved layout is restored once every dock exists.
        QTimer.singleShot(0, self.build_rack_docks)

    # --- actions and menus --------------------------------------------------------------

    def _action(
        self,
        text: str,
        slot: Callable[[], object],
        shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None,
        tip: str = "",
    ) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(slot)
        return action

    def _build_actions(self) -> None:
        stack = self.document.undo_stack
        self.new_action = self._action("&New", self.new_plan, QKeySequence.StandardKey.New, "Start an empty plan")
        self.open_action = self._action("&Open…", self.open_dialog, QKeySequence.StandardKey.Open)
        self.save_action = self._action("&Save", self.save, QKeySequence.StandardKey.Save)
        self.save_as_action = self._action("Save &As…", self.save_as, QKeySequence.StandardKey.SaveAs)
        self.quit_action = self._action("&Quit", self.close, QKeySequence.StandardKey.Quit)
        self.undo_action = stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcut(QKeySequence.StandardKey.Undo)
        self.redo_action = stack.createRedoAction(self, "&Redo")
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence(QKeySequence.StandardKey.Redo)])
        self.delete_action = self._action("&Delete", self._delete, QKeySequence.StandardKey.Delete)
        self.fit_action = self._action("&Fit to View", self._fit, "Ctrl+0")
        self.zoom_in_action = self._action("Zoom &In", lambda: self._zoom(1.25), QKeySequence.StandardKey.ZoomIn)
        self.zoom_out_action = self._action("Zoom &Out", lambda: self._zoom(0.8), QKeySequence.StandardKey.ZoomOut)

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        for action in (self.new_action, self.open_action):
            file_menu.addAction(action)
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        file_menu.addSeparator()
        file_menu.addAction(self.save_action)
        file_menu.addAction(self.save_as_action)
        self.export_bom_action = self._action(
            "&Export BOM…", self._export_bom, tip="Bill of materials as a PDF report and a CSV"
        )
        file_menu.addAction(self.export_bom_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        edit_menu = self.menuBar().addMenu("&Edit")
        edit_menu.addAction(self.undo_action)
        edit_menu.addAction(self.redo_action)
        edit_menu.addSeparator()
        edit_menu.addAction(self.delete_action)
        rack_menu = self.menuBar().addMenu("&Rack")
        rack_menu.addAction(self._action("&Add Rack…", self.add_rack, "Ctrl+Shift+R", "Add a rack to the row"))
        rack_menu.addAction(self._action("Add &Feed…", self.add_feed, tip="Add a facility circuit for PDUs"))
        self.view_menu = self.menuBar().addMenu("&View")
        for action in (self.fit_action, self.zoom_in_action, self.zoom_out_action):
            self.view_menu.addAction(action)
        self.view_menu.addSeparator()
        style = self.style()
        for action, icon in (
            (self.new_action, QStyle.StandardPixmap.SP_FileIcon),
            (self.open_action, QStyle.StandardPixmap.SP_DialogOpenButton),
            (self.save_action, QStyle.StandardPixmap.SP_DialogSaveButton),
            (self.undo_action, QStyle.StandardPixmap.SP_ArrowBack),
            (self.redo_action, QStyle.StandardPixmap.SP_ArrowForward),
            (self.fit_action, QStyle.StandardPixmap.SP_TitleBarMaxButton),
        ):
            action.setIcon(style.standardIcon(icon))
        toolbar = self.addToolBar("Main")
        toolbar.setObjectName("main-toolbar")
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for action in (self.new_action, self.open_action, self.save_action):
            toolbar.addAction(action)
        toolbar.addSeparator()
        self._add_undo_buttons(toolbar)
        toolbar.addSeparator()
        toolbar.addAction(self.fit_action)

    def _export_bom(self) -> None:
        # The report code loads when first used, not with the window.
        from rackplanner.gui.dialogs.export_bom import export_bom

        export_bom(self)

    def _add_undo_buttons(self, toolbar: QToolBar) -> None:
        """Undo and Redo for the toolbar: a fixed label (what they undo is in the tooltip and the Edit menu).

        The stack's own actions rename themselves after every edit ("Undo Place …"), which would
        resize the toolbar and relayout the whole window on every drop.
        """
        stack = self.document.undo_stack
        for label, full, trigger, can_changed, text_changed, can in (
            ("Undo", self.undo_action, stack.undo, stack.canUndoChanged, stack.undoTextChanged, stack.canUndo),
            ("Redo", self.redo_action, stack.redo, stack.canRedoChanged, stack.redoTextChanged, stack.canRedo),
        ):
            action = _LabelledAction(full.icon(), label, self)
            action.triggered.connect(trigger)
            # Bound to the action's own slot, so the connection ends when the window (and action) goes.
            text_changed.connect(action.describe)
            toolbar.addAction(action)
            button = toolbar.widgetForAction(action)
            assert button is not None
            button.installEventFilter(action)
            # The button, not the action, is enabled and disabled: any change to an action lays out
            # the toolbar and the whole window again.
            button.setEnabled(can())
            can_changed.connect(button.setEnabled)

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
                dock = cls(self.document, self)
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
        # A first layout for 1366x768 and up: the diagram gets the height, lists the rest.
        diagram, findings, palette = (self.docks[n] for n in ("BlockDiagramDock", "FindingsDock", "PaletteDock"))
        self.resizeDocks([diagram, findings], [470, 250], Qt.Orientation.Vertical)
        self.resizeDocks([palette, diagram], [300, 430], Qt.Orientation.Horizontal)
        self.document.current_rack_changed.connect(lambda _rack: self._show_rack_findings())
        self._show_rack_findings()
        palette = self.docks["PaletteDock"]
        assert isinstance(palette, PaletteDock)
        palette.part_activated.connect(self.add_part)

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
        state = self.settings.value("window/state")
        if isinstance(state, QByteArray):
            self.restoreState(state)
        # The dock that goes with the centre tab (a rack's power, or the machine's diagram), once
        # the new docks have joined the tab group on the next pass of the event loop.
        QTimer.singleShot(0, lambda: self._tab_changed(self.tabs.currentIndex()))

    # --- machines in tabs ---------------------------------------------------------------

    def tab_machines(self) -> list[Machine]:
        """Machines with a tab: every one not in a rack, and the racked ones the user opened."""
        plan = self.document.plan
        mounted = {d.machine for r in plan.racks for d in r.devices if d.machine}
        self._opened &= {m.id for m in plan.machines}
        return [m for m in plan.machines if m.id not in mounted or m.id in self._opened]

    def open_machine_tab(self, machine_id: str) -> None:
        """Show a machine in its own tab (a racked server's tab is opened on demand and closable)."""
        if self.document.plan.machine(machine_id) is None:
            return
        if machine_id not in self.canvases:
            self._opened.add(machine_id)
            self._rebuild_tabs()
        self._show_machine(machine_id)

    def _close_tab(self, index: int) -> None:
        widget = self.tabs.widget(index)
        if isinstance(widget, MachineCanvas) and widget.machine_id in self._opened:
            self._opened.discard(widget.machine_id)
            self._rebuild_tabs()

    def _rebuild_tabs(self) -> None:
        """A tab per machine shown (see ``tab_machines``), then one per row of racks; unchanged tabs keep their view."""
        machines = self.tab_machines()
        rows = rows_of(self.document)
        wanted = [("machine", m.id) for m in machines] + [("row", row_id) for row_id, _ in rows]
        current = [("machine", k) for k in self.canvases] + [("row", k) for k in self.row_canvases]
        if current == wanted and self.tabs.count() == max(1, len(wanted)):
            texts = [m.name for m in machines] + [f"Racks: {name}" for _, name in rows]
            for index, text in enumerate(texts):
                # setTabText relayouts the tab bar even for the same text: only renames pay for it.
                if self.tabs.tabText(index) != text:
                    self.tabs.setTabText(index, text)
            return
        self.tabs.blockSignals(True)
        for index in range(self.tabs.count()):
            page = self.tabs.widget(index)
            if page is not None and not isinstance(page, (MachineCanvas, RackRowCanvas)):
                page.deleteLater()
        self.tabs.clear()
        old, old_rows = self.canvases, self.row_canvases
        self.canvases, self.row_canvases = {}, {}
        for machine in machines:
            canvas = old.pop(machine.id, None)
            if canvas is None:
                canvas = MachineCanvas(self.document, machine.id)
                canvas.status_message.connect(self.show_status)
            self.canvases[machine.id] = canvas
            index = self.tabs.addTab(canvas, machine.name)
            if machine.id in self._opened:
                self.tabs.setTabToolTip(index, f"{machine.name} is in a rack: closing its tab keeps it there")
        for row_id, name in rows:
            row_canvas = old_rows.pop(row_id, None)
            if row_canvas is None:
                row_canvas = RackRowCanvas(self.document, row_id)
                row_canvas.status_message.connect(self.show_status)
                row_canvas.open_machine.connect(self.open_machine_tab)
            self.row_canvases[row_id] = row_canvas
            self.tabs.addTab(row_canvas, f"Racks: {name}")
        for widget in [*old.values(), *old_rows.values()]:
            widget.deleteLater()
        if not wanted:
            self.tabs.addTab(EmptyPlanTarget(self.document), "No machines")
        bar = self.tabs.tabBar()
        for index in range(self.tabs.count()):
            page = self.tabs.widget(index)
            if not (isinstance(page, MachineCanvas) and page.machine_id in self._opened):
                # Only a racked server opened from its rack closes (it stays in the rack).
                for side in (QTabBar.ButtonPosition.LeftSide, QTabBar.ButtonPosition.RightSide):
                    bar.setTabButton(index, side, None)
        self.tabs.blockSignals(False)
        self._show_machine(self.document.current_machine)

    def _show_machine(self, machine_id: str) -> None:
        canvas = self.canvases.get(machine_id)
        if canvas is not None:
            self.tabs.setCurrentWidget(canvas)

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

    def current_canvas(self) -> MachineCanvas | None:
        widget = self.tabs.currentWidget()
        return widget if isinstance(widget, MachineCanvas) else None

    def current_row_canvas(self) -> RackRowCanvas | None:
        widget = self.tabs.currentWidget()
        return widget if isinstance(widget, RackRowCanvas) else None

    def show_row(self, row_id: str) -> None:
        canvas = self.row_canvases.get(row_id)
        if canvas is not None:
            self.tabs.setCurrentWidget(canvas)

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
                self.show_row(rack.row)

    def _show_rack_findings(self) -> None:
        """The current rack's placement, power and network findings, in the findings dock."""
        findings = self.docks["FindingsDock"]
        assert isinstance(findings, FindingsDock)
        rack_id = self.document.current_rack
        if not rack_id or self.document.plan.rack(rack_id) is None:
            findings.set_rack_findings([])
            return
        findings.set_rack_findings(rack_report(self.document.plan, rack_id, self.document.catalog).findings)

    def _document_changed(self, change: ChangeSet) -> None:
        if change.touches(Change.RACK_LAYOUT, Change.POWER, Change.NETWORK, Change.OUTLETS, Change.MACHINES):
            self._show_rack_findings()
        if change.touches(Change.MACHINES, Change.DOCUMENT, Change.RACK_LAYOUT):
            self._rebuild_tabs()
        self._update_title()
        self._burst_timer.start()

    def _document_reset(self) -> None:
        for canvas in self.canvases.values():
            canvas.deleteLater()
        self.canvases = {}
        self._rebuild_tabs()
        self._update_title()
        QTimer.singleShot(0, settle_heap)

    def _update_title(self) -> None:
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

    def _delete(self) -> None:
        widget = self.tabs.currentWidget()
        if isinstance(widget, (MachineCanvas, RackRowCanvas)):
            widget.delete_selected()

    def _fit(self) -> None:
        widget = self.tabs.currentWidget()
        if isinstance(widget, (MachineCanvas, RackRowCanvas)):
            widget.fit()

    def _zoom(self, factor: float) -> None:
        widget = self.tabs.currentWidget()
        if isinstance(widget, (MachineCanvas, RackRowCanvas)):
            widget.zoom(factor)

    # --- files --------------------------------------------------------------------------

    def new_plan(self) -> None:
        if not self.maybe_save():
            return
        self.document.replace(Plan(name="New plan"), None)

    def open_dialog(self) -> None:
        if not self.maybe_save():
            return
        start = str(self.document.path.parent) if self.document.path else ""
        name, _ = QFileDialog.getOpenFileName(self, "Open plan", start, PLAN_FILTER)
        if name:
            self.open_path(Path(name))

    def open_path(self, path: Path) -> bool:
        try:
            plan = load_plan(path, self.document.catalog)
        except InputError as exc:
            QMessageBox.warning(self, "Cannot open plan", str(exc))
            return False
        self.document.replace(plan, path)
        self._remember(path)
        return True

    def save(self) -> bool:
        if self.document.path is None:
            return self.save_as()
        return self._save_to(self.document.path)

    def save_as(self) -> bool:
        start = str(self.document.path) if self.document.path else f"{self.document.plan.name}.json"
        name, _ = QFileDialog.getSaveFileName(self, "Save plan as", start, PLAN_FILTER)
        if not name:
            return False
        path = Path(name)
        if path.suffix == "":
            path = path.with_suffix(".json")
        return self._save_to(path)

    def _save_to(self, path: Path) -> bool:
        try:
            self.document.save(path)
        except (InputError, OSError) as exc:
            QMessageBox.critical(self, "Cannot save plan", f"{path}: {exc}")
            return False
        self._remember(path)
        recovery.clear()
        self.show_status(f"Saved {path}")
        self._update_title()
        return True

    def maybe_save(self) -> bool:
        """Ask to save unsaved changes; False when the user cancels."""
        if not self.document.is_modified:
            return True
        answer = QMessageBox.question(
            self,
            APP_NAME,
            f"Save the changes to {self.document.path.name if self.document.path else 'this plan'}?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def _remember(self, path: Path) -> None:
        recent = [p for p in self.recent_files() if p != str(path)]
        self.settings.setValue("files/recent", [str(path), *recent][:MAX_RECENT])
        self.settings.setValue("files/last", str(path))

    def recent_files(self) -> list[str]:
        value = self.settings.value("files/recent", [])
        if isinstance(value, str):
            return [value]
        if isinstance(value, list):
            return [str(v) for v in value]
        return []

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for entry in self.recent_files():
            action = self.recent_menu.addAction(entry)
            action.triggered.connect(partial(self._open_recent, entry))
        self.recent_menu.setEnabled(bool(self.recent_files()))

    def _open_recent(self, entry: str) -> None:
        if self.maybe_save():
            self.open_path(Path(entry))

    def write_recovery(self) -> None:
        if self.document.is_modified:
            recovery.write(self.document.plan, self.document.path)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.maybe_save():
            event.ignore()
            return
        self.settings.setValue("window/state", self.saveState())
        recovery.clear()
        event.accept()


class EmptyPlanTarget(QLabel):
    """Shown when the plan has no machines: a board or server dropped here starts one."""

    def __init__(self, document: PlanDocument) -> None:
        super().__init__("This plan has no machines yet.\nDrag a board or a server from the catalog here to start one.")
        self.document = document
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setAcceptDrops(True)
        self.setStyleSheet("QLabel { color: #555; font-size: 14px; }")

    def _part(self, event: QDropEvent | QDragEnterEvent) -> Board | Server | None:
        part_id = part_from_mime(event.mimeData())
        part = self.document.catalog.get(part_id) if part_id else None
        return part if isinstance(part, (Board, Server)) else None

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        event.setAccepted(self._part(event) is not None)

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        event.setAccepted(self._part(event) is not None)

    def dropEvent(self, event: QDropEvent) -> None:
        part = self._part(event)
        if part is None:
            event.ignore()
            return
        kind = "server" if isinstance(part, Server) else "board"
        result = self.document.apply(
            edits.add_machine, name=part.model, catalog=self.document.catalog, **{kind: part.id}
        )
        if result is not None and result.machines:
            self.document.set_current_machine(next(iter(result.machines)))
        event.setAccepted(result is not None)


def open_window(catalog: Catalog, plan: Plan, path: Path | None, settings: QSettings | None = None) -> MainWindow:
    document = PlanDocument(plan, catalog, path)
    return MainWindow(document, settings)
