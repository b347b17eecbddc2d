"""The centre of the window: a tab per machine not in a rack (and racked ones the user opened), one per row of racks."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QTabBar, QTabWidget, QWidget

from rackplanner.core.plan.index import plan_index
from rackplanner.core.plan.model import Machine
from rackplanner.gui.canvases.machine import MachineCanvas
from rackplanner.gui.canvases.rack_row import RackRowCanvas, rows_of
from rackplanner.gui.document import PlanDocument
from rackplanner.gui.welcome import WelcomeView


class CentreTabs(QTabWidget):
    """The canvases in tabs; unchanged tabs keep their canvas (and its zoom) through edits."""

    # A canvas's status-bar message.
    status_message = Signal(str)
    # The welcome view's buttons: open this plan, or ask which.
    open_requested = Signal(Path)
    open_dialog_requested = Signal()

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
        mounted = plan_index(plan).rack_of_machine
        if self._opened:
            self._opened &= {m.id for m in plan.machines}
        if len(mounted) == len(plan.machines) and not self._opened:
            return []  # every machine racked, none opened: nothing to list (a cluster, at every edit)
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
            welcome = WelcomeView(self.document)
            welcome.open_requested.connect(self.open_requested)
            welcome.open_dialog_requested.connect(self.open_dialog_requested)
            self.addTab(welcome, "Welcome")
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
