"""The block diagram dock: the current machine's PCIe/NVLink tree, the path legend and the notes.

Clicking a GPU selects its slot; the selected GPU colours every other device by its path
class to it. A diagram for a drop being hovered is drawn ahead, so the drop only shows it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QPoint, QRectF, QSize, QSizeF, Qt, QTimer
from PySide6.QtGui import (
    QAction,
    QColor,
    QPainter,
    QPaintEvent,
    QPen,
    QTransform,
)
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMenu,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QTextBrowser,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from rackplanner.core.errors import InputError
from rackplanner.core.files import read_text
from rackplanner.core.machine.topology import LEGEND, Topology, format_topo_matrix
from rackplanner.core.machine.topology.compare import (
    MAX_MATRIX_BYTES,
    compare_topology,
    format_comparison,
    read_real_machine,
)
from rackplanner.core.plan.edits import Change
from rackplanner.core.plan.model import Machine
from rackplanner.core.plan.resolve import board_of
from rackplanner.draw import colors
from rackplanner.draw.block_diagram.items import DiagramBox
from rackplanner.draw.block_diagram.scene import DiagramScene
from rackplanner.draw.block_diagram.tree import DEVICE_KINDS
from rackplanner.gui.canvases.block_diagram import DiagramView
from rackplanner.gui.canvases.part_menu import add_part_entries
from rackplanner.gui.dialogs.topology_matrix import TopologyMatrixDialog
from rackplanner.gui.docks.live import LiveDock
from rackplanner.gui.document import ChangeSet, PlanDocument


class _Swatch(QWidget):
    """A legend entry: the colour of a path class and its code."""

    def __init__(self, code: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.code = code
        self.color = colors.path_color(code) if code != "NV#" else colors.path_color("NV1")
        self.setToolTip(f"{code}: {colors.PATH_MEANING[code]}")
        fm = self.fontMetrics()
        self.setFixedSize(fm.horizontalAdvance(code) + fm.height() + 14, fm.height() + 6)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        h = self.height() - 6
        painter.setBrush(self.color)
        painter.setPen(QPen(colors.BOX_BORDER, 1))
        painter.drawRoundedRect(QRectF(1.5, 3.5, h, h), 3, 3)
        painter.setPen(self.palette().windowText().color())
        text_rect = QRectF(h + 6, 0, self.width() - h - 6, self.height())
        painter.drawText(text_rect, Qt.AlignmentFlag.AlignVCenter, self.code)


class _ElidedLabel(QWidget):
    """One line of text, cut with an ellipsis when the dock is narrow (the tooltip has it all)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._text = ""
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(40)

    def text(self) -> str:
        return self._text

    def setText(self, text: str) -> None:
        self._text = text
        self.update()

    def sizeHint(self) -> QSize:
        # Never ask for the whole text: a long board name must not widen the dock.
        return QSize(120, self.fontMetrics().height() + 4)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().windowText().color())
        shown = self.fontMetrics().elidedText(self._text, Qt.TextElideMode.ElideRight, self.width() - 12)
        painter.drawText(self.rect().adjusted(8, 0, -4, 0), Qt.AlignmentFlag.AlignVCenter, shown)


@dataclass
class _Prepared:
    """A diagram drawn ahead for a drop being hovered: its topology (by identity) and the room it was laid out for."""

    topology: Topology
    room: QSizeF | None
    scene: DiagramScene

    def matches(self, topology: Topology, room: QSizeF | None) -> bool:
        return topology is self.topology and room == self.room


class BlockDiagramDock(LiveDock):
    """Right dock: the current machine's PCIe/NVLink tree, the path legend and the notes.

    Tabbed away (behind a rack's power, say), it only notes that it is stale and redraws when shown.
    """

    def __init__(self, document: PlanDocument, parent: QWidget | None = None) -> None:
        super().__init__("Diagram", parent)
        self.setObjectName("blockDiagramDock")
        self.document = document
        self.topology: Topology | None = None
        self.matrix_dialog: TopologyMatrixDialog | None = None
        self.compare_dialog: TopologyMatrixDialog | None = None

        body = QWidget(self)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 2, 4, 4)
        layout.setSpacing(4)

        toolbar = QToolBar(body)
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.matrix_action = QAction("Topology matrix…", self)
        self.matrix_action.setIconText("Topology matrix…")  # keep the ellipsis on the tool button
        self.matrix_action.setToolTip("Path class between every pair of GPUs and NICs, as nvidia-smi topo -m prints it")
        self.matrix_action.triggered.connect(self.show_matrix)
        self.fit_action = QAction("Fit", self)
        self.fit_action.setToolTip("Fit the diagram to the dock (the mouse wheel zooms)")
        self.fit_action.triggered.connect(self._fit)
        self.compare_action = QAction("Compare…", self)
        self.compare_action.setIconText("Compare…")
        self.compare_action.setToolTip(
            "Compare the plan with a real machine: open a saved `nvidia-smi topo -m` printout and see the cells "
            "that differ, with their likely cause"
        )
        self.compare_action.triggered.connect(self._ask_compare)
        toolbar.addAction(self.matrix_action)
        toolbar.addAction(self.compare_action)
        toolbar.addAction(self.fit_action)
        self.header = _ElidedLabel(toolbar)
        toolbar.addWidget(self.header)
        layout.addWidget(toolbar)

        legend = QWidget(body)
        column = QVBoxLayout(legend)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        self.legend_title = QLabel(legend)
        self.legend_title.setWordWrap(True)
        column.addWidget(self.legend_title)
        row = QHBoxLayout()
        row.setSpacing(2)
        column.addLayout(row)
        self.swatches: dict[str, _Swatch] = {}
        for code in colors.PATH_CLASSES:
            swatch = _Swatch(code, legend)
            self.swatches[code] = swatch
            row.addWidget(swatch)
        row.addStretch(1)
        legend.setToolTip(LEGEND)
        self.legend = legend
        layout.addWidget(legend)

        self.scene = DiagramScene(self)
        self.view = DiagramView(self.scene, body)
        self.view.device_clicked.connect(self._device_clicked)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._show_context_menu)
        self.view.resized.connect(self._view_resized)
        self.view.setMinimumHeight(160)
        self.message = QLabel(body)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.message.setMargin(16)
        self.stack = QStackedWidget(body)
        self.stack.addWidget(self.message)
        self.stack.addWidget(self.view)

        self.notes = QTextBrowser(body)
        # A scroll bar that came and went with the notes' length would reflow the text on every edit.
        self.notes.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self._notes_html = ""
        self.notes.setOpenLinks(False)
        splitter = QSplitter(Qt.Orientation.Vertical, body)
        splitter.addWidget(self.stack)
        splitter.addWidget(self.notes)
        splitter.setStretchFactor(0, 4)
        splitter.setStretchFactor(1, 1)
        splitter.setChildrenCollapsible(False)
        splitter.setSizes([3000, 800])
        layout.addWidget(splitter, 1)
        self.setWidget(body)

        document.changed.connect(self._on_changed)
        document.current_machine_changed.connect(lambda _machine: self.refresh_when_visible())
        document.reset.connect(self.refresh_when_visible)
        document.selection_changed.connect(lambda _slots: self._apply_selection())
        document.previewed.connect(self._prepare)
        self._prepared: _Prepared | None = None
        self.refresh()

    def sizeHint(self) -> QSize:
        # Ask for room: an 8-GPU tree is unreadable squeezed under other docks.
        return QSize(460, 620)

    # --- what tests and the main window read ------------------------------------------

    def legend_colors(self) -> dict[str, QColor]:
        return {code: swatch.color for code, swatch in self.swatches.items()}

    def device_boxes(self, kind: str | None = None) -> list[DiagramBox]:
        return [b for b in self.scene.boxes.values() if b.kind in DEVICE_KINDS and (kind is None or b.kind == kind)]

    def node_boxes(self, kind: str) -> list[DiagramBox]:
        return [b for b in self.scene.boxes.values() if b.kind == kind]

    def notes_text(self) -> str:
        return self.notes.toPlainText()

    # --- refreshing --------------------------------------------------------------------

    def _on_changed(self, change: ChangeSet) -> None:
        current = self.document.current_machine
        if not change.touches(Change.TOPOLOGY, Change.MACHINES):
            return
        if not current or not change.machines or current in change.machines:
            self.refresh_when_visible()

    def refresh(self) -> None:
        """Rebuild the diagram of the current machine."""
        self._dirty = False
        doc = self.document
        machine = doc.plan.machine(doc.current_machine) if doc.current_machine else None
        board = board_of(machine, doc.catalog) if machine is not None else None
        if machine is None or board is None:
            self.topology = None
            self.scene.reset()
            if machine is None:
                text = "No machine to show. Add a machine to see its PCIe and NVLink topology."
            else:
                text = f"{machine.name} has no board yet. Choose a board or server to see its PCIe topology."
            self.message.setText(text)
            self.header.setText(machine.name if machine is not None else "")
            self.header.setToolTip("")
            self.stack.setCurrentWidget(self.message)
            self.notes.clear()
            self._notes_html = ""
            self.legend.setVisible(False)
            self.matrix_action.setEnabled(False)
            self.fit_action.setEnabled(False)
            if self.matrix_dialog is not None:
                self.matrix_dialog.close()
            return
        topo = doc.analysis.topology(machine)
        self.topology = topo
        room = self._room()
        prepared = self._prepared
        self._prepared = None
        if prepared is not None and prepared.matches(topo, room):
            # Drawn while the card was hovering over this slot: shown now at no cost.
            old, self.scene = self.scene, prepared.scene
            self.view.setScene(self.scene)
            # Taking a scene apart costs as much as painting one: done once the drop is on screen.
            QTimer.singleShot(500, old, old.deleteLater)
        else:
            if prepared is not None:
                prepared.scene.deleteLater()
            self.scene.build(machine, board, topo, doc.catalog, self.font(), room)
        self.header.setText(f"{machine.name} · {board.model}")
        self.header.setToolTip(f"{machine.name} on {board.model}")
        self.stack.setCurrentWidget(self.view)
        self.legend.setVisible(True)
        self.fit_action.setEnabled(True)
        self.matrix_action.setEnabled(bool(topo.gpus or topo.nics))
        self.compare_action.setEnabled(bool(topo.gpus or topo.nics))
        self._show_notes(topo)
        if self.view.auto_fit:
            self.view.fit()
        self._apply_selection()
        if self.matrix_dialog is not None and self.matrix_dialog.isVisible():
            self.matrix_dialog.setWindowTitle(f"Topology matrix · {machine.name}")
            self.matrix_dialog.set_text(format_topo_matrix(topo))

    def _prepare(self, machine: Machine) -> None:
        """Draw the diagram a hovered drop would give, so the drop itself only has to show it."""
        if not self.is_showing() or machine.id != self.document.current_machine:
            return
        catalog = self.document.catalog
        board = board_of(machine, catalog)
        if board is None:
            return
        topo = self.document.analysis.topology(machine)
        room = self._room()
        if self._prepared is not None:
            if self._prepared.matches(topo, room):
                return
            self._prepared.scene.deleteLater()
        scene = DiagramScene(self)
        scene.build(machine, board, topo, catalog, self.font(), room)
        if not scene.sceneRect().isEmpty():
            scale = self.view.scale_for(scene.sceneRect())
            scene.prepare_texts(QTransform.fromScale(scale, scale))
        self._prepared = _Prepared(topo, room, scene)

    def _show_notes(self, topo: Topology) -> None:
        items = [f'<li style="color:{colors.SEVERITY_COLORS["error"].name()}">{_escape(p)}</li>' for p in topo.problems]
        items += [f"<li>{_escape(n)}</li>" for n in topo.notes]
        if not items:
            items = ["<li>No PCIe or NVLink devices in this machine yet.</li>"]
        html = f'<ul style="margin-left:-24px">{"".join(items)}</ul>'
        if html != self._notes_html:  # laying out rich text is slow; most edits keep the notes
            self._notes_html = html
            self.notes.setHtml(html)

    def _fit(self) -> None:
        self.view.fit()
        self._view_resized()

    def _room(self) -> QSizeF | None:
        size = self.view.viewport().size()
        return QSizeF(size) if self.view.isVisible() and not size.isEmpty() else None

    def _view_resized(self) -> None:
        """Rearrange when the dock's shape makes the other arrangement clearly larger."""
        room = self._room()
        if self.topology is not None and room is not None and self.scene.prefers_stacking(room) != self.scene.stacked:
            self.refresh()

    # --- selection ---------------------------------------------------------------------

    def selected_device(self) -> str | None:
        """The GPU (or NIC) whose paths colour the diagram: the first selected slot in the matrix."""
        topo = self.topology
        if topo is None:
            return None
        for slot in self.document.selected_slots:
            for dev in topo.devices:
                if dev.slot == slot and dev.name in topo.matrix:
                    return dev.name
        return None

    def _apply_selection(self) -> None:
        source = self.selected_device()
        self.scene.colour_by_path(source, self.document.selected_slots)
        if source is None:
            self.legend_title.setText("Click a GPU to colour the others by path class")
        else:
            self.legend_title.setText(f"Path class to <b>{source}</b>:")

    def _device_clicked(self, slot: str) -> None:
        self.document.select_slots([slot])

    # --- matrix ------------------------------------------------------------------------

    def device_menu(self, slot: str) -> QMenu:
        """A device box's menu: colour the others by path class to it, Show in catalog, Properties."""
        menu = QMenu(self)
        menu.addAction("Colour paths from here", lambda: self._device_clicked(slot))
        machine = self.document.plan.machine(self.document.current_machine)
        card = machine.card_in(slot) if machine else None
        add_part_entries(menu, self, self.document.catalog, card.part if card else None)
        return menu

    def _show_context_menu(self, pos: QPoint) -> None:
        item = self.view.itemAt(pos)
        while item is not None and not isinstance(item, DiagramBox):
            item = item.parentItem()
        if isinstance(item, DiagramBox) and item.node.slot:
            self.device_menu(item.node.slot).exec(self.view.viewport().mapToGlobal(pos))

    def show_matrix(self) -> TopologyMatrixDialog | None:
        """Open (or raise) the topology matrix dialog for the current machine."""
        if self.topology is None:
            return None
        if self.matrix_dialog is None:
            self.matrix_dialog = TopologyMatrixDialog(self)
        machine = self.document.plan.machine(self.topology.machine)
        name = machine.name if machine is not None else self.topology.machine
        self.matrix_dialog.setWindowTitle(f"Topology matrix · {name}")
        self.matrix_dialog.set_text(format_topo_matrix(self.topology))
        if not self.matrix_dialog.isVisible():
            self.matrix_dialog.fit_width()
        self.matrix_dialog.show()
        self.matrix_dialog.raise_()
        return self.matrix_dialog

    def _ask_compare(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Compare with nvidia-smi topo -m", "", "Text files (*.txt *.log);;All files (*)"
        )
        if path:
            self.compare_with(Path(path))

    def compare_with(self, path: Path) -> TopologyMatrixDialog | None:
        """Show the cells where the plan differs from the real matrix in ``path`` (or why it cannot be read)."""
        machine = self.document.plan.machine(self.topology.machine) if self.topology is not None else None
        if self.topology is None or machine is None:
            return None
        try:
            text = read_text(path, what="topology matrix", max_bytes=MAX_MATRIX_BYTES)
            # A file holding both nvidia-smi topo -m and lspci -tv is read for both.
            real, tree = read_real_machine(text, path.name)
            result = format_comparison(
                compare_topology(self.topology, real, machine.host.numa_per_socket, tree), path.name
            )
        except InputError as exc:
            result = f"{exc}\n"
        dialog = TopologyMatrixDialog(self)
        dialog.setWindowTitle(f"Plan vs {path.name} · {machine.name}")
        dialog.set_text(result)
        dialog.fit_width()
        dialog.show()
        self.compare_dialog = dialog
        return dialog


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
