"""The centre of the window: a tab per machine not in a rack (and racked ones the user opened), one per row of racks."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QLabel, QTabBar, QTabWidget, QWidget

from rackplanner.core.catalog.parts import Board, Server
from rackplanner.core.plan import edits
from rackplanner.core.plan.model import Machine
from rackplanner.gui.canvases.machine import MachineCanvas
from rackplanner.gui.canvases.rack_row import RackRowCanvas, rows_of
from rackplanner.gui.document import PlanDocument
from rackplanner.gui.mime import part_from_mime


class CentreTabs(QTabWidget):
    """The canvases in tabs; unchanged tabs keep their canvas (and its zoom) through edits."""

    # A canvas's status-bar message.
    status_message = Signal(str)

    def __init__(self, document: PlanDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.setDocumentMode(True)
        self.setTabsClosable(True)
        self.tabCloseRequested.connect(self._close_tab)
        self._opened: set[str] = set()  # racked machines the user opened in a tab
        self.canvases: dict[str, MachineCanvas] = {}
        self.row_canvases: dict[str, RackRowCanvas] = {}

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
            self.rebuild()
        self.show_machine(machine_id)

    def _close_tab(self, index: int) -> None:
        widget = self.widget(index)
        if isinstance(widget, MachineCanvas) and widget.machine_id in self._opened:
            self._opened.discard(widget.machine_id)
            self.rebuild()

    def rebuild(self) -> None:
        """A tab per machine shown (see ``tab_machines``), then one per row of racks; unchanged tabs keep their view."""
        machines = self.tab_machines()
        rows = rows_of(self.document)
        wanted = [("machine", m.id) for m in machines] + [("row", row_id) for row_id, _ in rows]
        current = [("machine", k) for k in self.canvases] + [("row", k) for k in self.row_canvases]
        if current == wanted and self.count() == max(1, len(wanted)):
            texts = [m.name for m in machines] + [f"Racks: {name}" for _, name in rows]
            for index, text in enumerate(texts):
                # setTabText relayouts the tab bar even for the same text: only renames pay for it.
                if self.tabText(index) != text:
                    self.setTabText(index, text)
            return
        self.blockSignals(True)
        for index in range(self.count()):
            page = self.widget(index)
            if page is not None and not isinstance(page, (MachineCanvas, RackRowCanvas)):
                page.deleteLater()
        self.clear()
        old, old_rows = self.canvases, self.row_canvases
        self.canvases, self.row_canvases = {}, {}
        for machine in machines:
            canvas = old.pop(machine.id, None)
            if canvas is None:
                canvas = MachineCanvas(self.document, machine.id)
                canvas.status_message.connect(self.status_message)
            self.canvases[machine.id] = canvas
            index = self.addTab(canvas, machine.name)
            if machine.id in self._opened:
                self.setTabToolTip(index, f"{machine.name} is in a rack: closing its tab keeps it there")
        for row_id, name in rows:
            row_canvas = old_rows.pop(row_id, None)
            if row_canvas is None:
                row_canvas = RackRowCanvas(self.document, row_id)
                row_canvas.status_message.connect(self.status_message)
                row_canvas.open_machine.connect(self.open_machine_tab)
            self.row_canvases[row_id] = row_canvas
            self.addTab(row_canvas, f"Racks: {name}")
        for widget in [*old.values(), *old_rows.values()]:
            widget.deleteLater()
        if not wanted:
            self.addTab(EmptyPlanTarget(self.document), "No machines")
        bar = self.tabBar()
        for index in range(self.count()):
            page = self.widget(index)
            if not (isinstance(page, MachineCanvas) and page.machine_id in self._opened):
                # Only a racked server opened from its rack closes (it stays in the rack).
                for side in (QTabBar.ButtonPosition.LeftSide, QTabBar.ButtonPosition.RightSide):
                    bar.setTabButton(index, side, None)
        self.blockSignals(False)
        self.show_machine(self.document.current_machine)

    def forget_machines(self) -> None:
        """Another plan was opened: no machine canvas is kept."""
        for canvas in self.canvases.values():
            canvas.deleteLater()
        self.canvases = {}
        self.rebuild()

    def show_machine(self, machine_id: str) -> None:
        canvas = self.canvases.get(machine_id)
        if canvas is not None:
            self.setCurrentWidget(canvas)

    def current_canvas(self) -> MachineCanvas | None:
        widget = self.currentWidget()
        return widget if isinstance(widget, MachineCanvas) else None

    def current_row_canvas(self) -> RackRowCanvas | None:
        widget = self.currentWidget()
        return widget if isinstance(widget, RackRowCanvas) else None

    def show_row(self, row_id: str) -> None:
        canvas = self.row_canvases.get(row_id)
        if canvas is not None:
            self.setCurrentWidget(canvas)


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
