"""The machine canvas: a board drawn to scale with its slots and cards; drag cards in, around and off.

Scene units are millimetres. Slot positions follow the ATX pitch of 20.32 mm (0.8 in) and
connector lengths follow the PCIe CEM specification, so a three-slot card visibly covers
the two slot positions below it and a long card visibly runs past the case's limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QContextMenuEvent,
    QDragEnterEvent,
    QDragLeaveEvent,
    QDragMoveEvent,
    QDropEvent,
    QFont,
    QFontMetricsF,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPen,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSceneMouseEvent,
    QInputDialog,
    QMenu,
    QStyleOptionGraphicsItem,
    QWidget,
)

from rackplanner.core.catalog.parts import Board, Chassis, Cpu, Drive, Gpu, Memory, Nic, NvlinkBridge, Psu, Server, Slot
from rackplanner.core.machine.placement import SlotVerdict, slot_verdicts
from rackplanner.core.plan import edits
from rackplanner.core.plan.edits import Change
from rackplanner.core.plan.model import PartCount
from rackplanner.core.plan.resolve import board_of, chassis_of
from rackplanner.draw.static_text import StaticTextItem
from rackplanner.gui.canvases.zoom_view import ZoomView
from rackplanner.gui.document import ChangeSet, PlanDocument
from rackplanner.gui.mime import card_from_mime, card_mime, part_from_mime

SLOT_PITCH_MM = 20.32  # ATX expansion slot pitch, 0.8 in
# PCIe CEM connector lengths by physical width, mm.
CONNECTOR_MM = {1: 25.0, 2: 25.0, 4: 39.0, 8: 56.0, 16: 89.0, 32: 89.0}
SLOT_HEIGHT_MM = 7.0
BOARD_MARGIN_MM = 12.0
LABEL_WIDTH_MM = 78.0
# Boards that do not give slot positions (GPU servers with switch boards and risers) are
# drawn with one double-width bay per slot, so two-slot cards do not overlap.
BAY_SLOTS = 2
SOCKET_MM = 58.0
DIMM_LENGTH_MM = 133.0
DIMM_WIDTH_MM = 6.0
M2_SIZE_MM = (80.0, 22.0)
DEFAULT_CARD_LENGTH_MM = 267.0  # a full-length PCIe card (CEM): drawn when the catalog has no length

BOARD_FILL = QColor("#2f5d50")
BOARD_EDGE = QColor("#1f3f36")
SLOT_FILL = QColor("#1b1b1b")
SLOT_TEXT = QColor("#f2f2f2")
OK_FILL = QColor(46, 160, 67, 150)
BAD_FILL = QColor(207, 34, 46, 140)
SELECT_EDGE = QColor("#f0b400")
CARD_COLOURS = {"gpu": QColor(64, 120, 200, 215), "nic": QColor(150, 110, 200, 215), "drive": QColor(200, 140, 60, 215)}
CASE_LIMIT = QColor("#c0392b")


@dataclass
class _SlotGeometry:
    slot: Slot
    rect: QRectF


class SlotItem(QGraphicsRectItem):
    """A slot on the board; it lights up green or red while a card is dragged."""

    def __init__(self, slot: Slot, rect: QRectF) -> None:
        super().__init__(rect)
        self.slot = slot
        self.verdict: SlotVerdict | None = None
        self.setBrush(QBrush(SLOT_FILL))
        self.setPen(QPen(QColor("#555555"), 0.6))
        self.setToolTip(_slot_description(slot))
        self.setZValue(1)

    def show_verdict(self, verdict: SlotVerdict | None) -> None:
        self.verdict = verdict
        if verdict is None:
            self.setBrush(QBrush(SLOT_FILL))
            self.setToolTip(_slot_description(self.slot))
            return
        self.setBrush(QBrush(OK_FILL if verdict.ok else BAD_FILL))
        reason = "Drop here" if verdict.ok else f"Cannot go here: {verdict.reason}"
        notes = "".join(f"\n{note}" for note in verdict.notes)
        self.setToolTip(f"{_slot_description(self.slot)}\n{reason}{notes}")


class CardItem(QGraphicsRectItem):
    """A card placed in a slot, drawn to its width in slots and its length."""

    def __init__(self, canvas: MachineCanvas, slot_id: str, part_id: str, rect: QRectF, kind: str, text: str) -> None:
        super().__init__(rect)
        self.canvas = canvas
        self.slot_id = slot_id
        self.part_id = part_id
        self.setBrush(QBrush(CARD_COLOURS.get(kind, QColor(120, 120, 120, 215))))
        self.setPen(QPen(QColor("#10233f"), 0.8))
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        self.setCursor(Qt.CursorShape.OpenHandCursor)
        self.setZValue(3)
        label = StaticTextItem(text, self)
        label.setBrush(QBrush(QColor("white")))
        font = QFont()
        font.setPointSizeF(5.5)
        label.setFont(font)
        label.setPos(rect.left() + 4, rect.top() + 2)
        self._press: QPointF | None = None

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        pen = QPen(SELECT_EDGE, 2.2) if self.isSelected() else self.pen()
        painter.setPen(pen)
        painter.setBrush(self.brush())
        painter.drawRoundedRect(self.rect(), 2.5, 2.5)

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        super().mousePressEvent(event)
        self._press = QPointF(event.screenPos())

    def mouseMoveEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if self._press is None:
            return
        distance = (QPointF(event.screenPos()) - self._press).manhattanLength()
        if distance >= QApplication.startDragDistance():
            self._press = None
            self.canvas.start_card_drag(self)

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        self._press = None
        super().mouseReleaseEvent(event)


class MachineCanvas(ZoomView):
    """One machine's board with its cards; edits go through the document."""

    status_message = Signal(str)

    def __init__(self, document: PlanDocument, machine_id: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.machine_id = machine_id
        self.setup_canvas("#eef1f4")
        self.slot_items: dict[str, SlotItem] = {}
        self.card_items: dict[str, CardItem] = {}
        self.board_rect = QRectF()
        self._verdicts: dict[str, SlotVerdict] = {}
        self._drag_part: str | None = None
        self._drag_from: str | None = None
        self._previewed_slot: str | None = None  # the slot whose drop result the views were last shown
        self._syncing = False
        self._fitted = False
        self.scene().selectionChanged.connect(self._scene_selection_changed)
        document.changed.connect(self._document_changed)
        document.selection_changed.connect(self._select_slots)
        # Built when first shown: a plan of hundreds of servers must not draw every board at start.
        self._dirty = True
        self._drawn_key: tuple[object, ...] = ()
        self._drawn_cards: dict[str, tuple[str, float | None]] = {}
        self._bridge_items: list[QGraphicsLineItem] = []

    def ensure_built(self) -> None:
        """Draw the board now if it has not been drawn since the last change."""
        if self._dirty:
            self.rebuild()

    def showEvent(self, event: QShowEvent) -> None:
        self.ensure_built()
        super().showEvent(event)

    # --- drawing -----------------------------------------------------------------------

    def rebuild(self) -> None:
        """Redraw the board and cards from the plan."""
        self._dirty = False
        self._syncing = True
        scene = self.scene()
        scene.clear()
        self.slot_items.clear()
        self.card_items.clear()
        machine = self.document.plan.machine(self.machine_id)
        catalog = self.document.catalog
        board = board_of(machine, catalog) if machine else None
        if machine is None or board is None:
            text = _add_text(scene, "No board yet: drag a board or server from the catalog here.")
            text.setBrush(QBrush(QColor("#444444")))
            self.board_rect = QRectF(-20, -20, 300, 60)
            scene.setSceneRect(self.board_rect)
            self._syncing = False
            return
        self._drawn_key = self._base_key()
        self._drawn_cards = {}
        self._bridge_items = []
        bay = self._drawn_key[-1]
        geometry = _layout(board, bay_slots=bay if isinstance(bay, int) else BAY_SLOTS)
        self.board_rect = _board_rect(board, geometry)
        board_item = scene.addRect(self.board_rect, QPen(BOARD_EDGE, 1.2), QBrush(BOARD_FILL))
        board_item.setZValue(0)
        board_item.setToolTip(f"{board.vendor} {board.model} ({board.form_factor})")
        title = _add_text(scene, f"{board.vendor} {board.model}")
        title.setBrush(QBrush(QColor("white")))
        title.setPos(self.board_rect.left() + 4, self.board_rect.top() + 2)
        _small(title, 6.5)
        self._draw_sockets_and_dimms(board, machine.cpu, machine.cpu_count, sum(m.count for m in machine.memory))
        for geo in geometry:
            item = SlotItem(geo.slot, geo.rect)
            scene.addItem(item)
            self.slot_items[geo.slot.id] = item
            label = _add_text(scene, _slot_label(geo.slot, LABEL_WIDTH_MM - 4))
            label.setBrush(QBrush(SLOT_TEXT))
            _small(label, 5.0)
            label.setPos(geo.rect.left() - LABEL_WIDTH_MM + 2, geo.rect.top() - 1)
            label.setZValue(1)
        chassis = chassis_of(machine, catalog)
        self._draw_case_limit(chassis, geometry)
        for card in machine.cards:
            self._draw_card(card.slot, card.part, card.power_limit_w)
            self._drawn_cards[card.slot] = (card.part, card.power_limit_w)
        self._draw_bridges()
        scene.setSceneRect(self.board_rect.adjusted(-20, -20, 220, 60))
        self._select_slots(self.document.selected_slots)
        self._syncing = False
        if not self._fitted:
            self.fit()

    def _draw_sockets_and_dimms(self, board: Board, cpu_id: str | None, cpu_count: int, dimms: int) -> None:
        scene = self.scene()
        cpu = self.document.catalog.get_as(cpu_id, Cpu) if cpu_id else None
        per_socket = (board.dimm_slots or 0) // board.sockets if board.dimm_slots else 0
        filled = dimms
        socket_span = _socket_span(per_socket)
        for socket in range(board.sockets):
            x = self.board_rect.left() + LABEL_WIDTH_MM + 20 + socket * socket_span
            y = self.board_rect.top() + 16
            rect = QRectF(x, y, SOCKET_MM, SOCKET_MM)
            occupied = cpu is not None and socket < cpu_count
            fill = QColor("#c9ccd1" if occupied else "#5b6b66")
            item = scene.addRect(rect, QPen(QColor("#777777"), 0.8), QBrush(fill))
            item.setToolTip(f"Socket {socket} ({board.cpu_socket}): {cpu.model if occupied and cpu else 'empty'}")
            text = _add_text(scene, f"CPU{socket}\n{cpu.model if occupied and cpu else board.cpu_socket}")
            _small(text, 5.0)
            text.setPos(x + 3, y + 3)
            for n in range(per_socket):
                dimm = QRectF(x + SOCKET_MM + 6 + n * (DIMM_WIDTH_MM + 2), y - 6, DIMM_WIDTH_MM, SOCKET_MM + 12)
                used = filled > 0
                filled -= 1 if used else 0
                scene.addRect(dimm, QPen(QColor("#333333"), 0.4), QBrush(QColor("#3a7d44" if used else "#202020")))

    def _draw_case_limit(self, chassis: Chassis | None, geometry: list[_SlotGeometry]) -> None:
        pcie = [g for g in geometry if g.slot.kind == "pcie"]
        if chassis is None or chassis.max_gpu_length_mm is None or not pcie:
            return
        x = min(g.rect.left() for g in pcie) + chassis.max_gpu_length_mm
        top = min(g.rect.top() for g in pcie) - 10
        bottom = max(g.rect.bottom() for g in pcie) + 3 * SLOT_PITCH_MM
        pen = QPen(CASE_LIMIT, 1.0, Qt.PenStyle.DashLine)
        self.scene().addLine(x, top, x, bottom, pen).setZValue(4)
        text = _add_text(self.scene(), f"{chassis.model}: cards up to {chassis.max_gpu_length_mm:g} mm")
        text.setBrush(QBrush(CASE_LIMIT))
        _small(text, 5.0)
        text.setPos(x + 2, top - 2)
        text.setZValue(4)

    def _draw_card(self, slot_id: str, part_id: str, power_limit_w: float | None) -> None:
        slot_item = self.slot_items.get(slot_id)
        part = self.document.catalog.get(part_id)
        if slot_item is None or part is None:
            return
        rect = slot_item.rect()
        if isinstance(part, Gpu):
            kind = "gpu"
            width = part.slot_width or 2
            length = part.length_mm or DEFAULT_CARD_LENGTH_MM
            watts = f"{power_limit_w:g} W (limit)" if power_limit_w else f"{part.tdp_w:g} W"
            text = f"{part.model}\n{part.vram_gb:g} GB · {watts} · {width}-slot"
        elif isinstance(part, Nic):
            kind, width, length = "nic", part.slot_width, part.length_mm or 168.0
            text = f"{part.model}\n{part.ports} x {part.port_speed_gbps:g} Gb/s"
        elif isinstance(part, Drive):
            kind, width, length = "drive", 1, rect.width()
            text = f"{part.model}\n{part.capacity_gb:g} GB"
        else:
            return
        if slot_item.slot.kind == "m2":
            card_rect = QRectF(rect)
        elif slot_item.slot.kind == "sxm":
            card_rect = rect.adjusted(2, 2, -2, -2)
        else:
            card_rect = QRectF(rect.left(), rect.top() - 2, length, width * SLOT_PITCH_MM - 4)
        item = CardItem(self, slot_id, part_id, card_rect, kind, text)
        item.setToolTip(text.replace("\n", " — ") + f"\nin {slot_item.slot.label}; drag to move, Delete to remove")
        self.scene().addItem(item)
        self.card_items[slot_id] = item

    def _draw_bridges(self) -> None:
        machine = self.document.plan.machine(self.machine_id)
        if machine is None:
            return
        pen = QPen(QColor("#76b900"), 3.0)
        for bridge in machine.bridges:
            a, b = (self.card_items.get(s) for s in bridge.slots)
            if a is None or b is None:
                continue
            x = a.rect().left() + 120
            line = self.scene().addLine(x, a.rect().center().y(), x, b.rect().center().y(), pen)
            line.setZValue(5)
            self._bridge_items.append(line)
            part = self.document.catalog.get(bridge.part)
            line.setToolTip(f"NVLink bridge {part.model if part else bridge.part}")

    def _base_key(self) -> tuple[object, ...]:
        """What the board drawing depends on besides the cards: when equal, only cards are redrawn."""
        machine = self.document.plan.machine(self.machine_id)
        if machine is None:
            return (None, BAY_SLOTS)
        catalog = self.document.catalog
        widths = [g.slot_width or 2 for c in machine.cards if (g := catalog.get_as(c.part, Gpu)) is not None]
        memory = tuple((m.part, m.count) for m in machine.memory)
        return (
            id(catalog),
            machine.server,
            machine.board,
            machine.chassis,
            machine.cpu,
            machine.cpu_count,
            memory,
            max([BAY_SLOTS, *widths]),
        )

    def update_cards(self) -> None:
        """Redraw only the cards and bridges that changed; the whole board when anything else did."""
        machine = self.document.plan.machine(self.machine_id)
        if machine is None or self._dirty or self._base_key() != self._drawn_key:
            self.rebuild()
            return
        self._syncing = True
        wanted = {c.slot: (c.part, c.power_limit_w) for c in machine.cards}
        for slot, drawn in list(self._drawn_cards.items()):
            if wanted.get(slot) != drawn:
                item = self.card_items.pop(slot, None)
                if item is not None:
                    self.scene().removeItem(item)
                del self._drawn_cards[slot]
        for slot, (part, limit) in wanted.items():
            if slot not in self._drawn_cards:
                self._draw_card(slot, part, limit)
                self._drawn_cards[slot] = (part, limit)
        for line in self._bridge_items:
            self.scene().removeItem(line)
        self._bridge_items = []
        self._draw_bridges()
        self._select_slots(self.document.selected_slots)
        self._syncing = False

    def fit(self) -> None:
        """Show the whole board."""
        if self.fit_rect(self.board_rect, 10):
            self._fitted = True

    # --- document -----------------------------------------------------------------------

    def _document_changed(self, change: ChangeSet) -> None:
        if change.touches(Change.MACHINES, Change.TOPOLOGY) and (
            not change.machines or self.machine_id in change.machines
        ):
            if self.isVisible():
                self.update_cards()
            else:
                self._dirty = True

    def _scene_selection_changed(self) -> None:
        if self._syncing:
            return
        slots = [item.slot_id for item in self.scene().selectedItems() if isinstance(item, CardItem)]
        self.document.select_slots(slots)

    def _select_slots(self, slots: list[str]) -> None:
        if self.document.current_machine != self.machine_id:
            return
        self._syncing = True
        for slot_id, item in self.card_items.items():
            item.setSelected(slot_id in slots)
        for slot_id, slot_item in self.slot_items.items():
            highlight = slot_id in slots and slot_id not in self.card_items
            slot_item.setPen(QPen(SELECT_EDGE if highlight else QColor("#555555"), 1.6 if highlight else 0.6))
        self._syncing = False

    # --- dragging in, around and off ----------------------------------------------------

    def start_card_drag(self, item: CardItem) -> None:
        from PySide6.QtGui import QDrag

        drag = QDrag(self)
        drag.setMimeData(card_mime(self.machine_id, item.slot_id, item.part_id))
        drag.exec(Qt.DropAction.MoveAction)

    def _begin_drag(self, part_id: str | None, from_slot: str | None) -> bool:
        catalog = self.document.catalog
        part = catalog.get(part_id) if part_id else None
        self._drag_part, self._drag_from = part_id, from_slot
        if part is None:
            return False
        if not isinstance(part, (Gpu, Nic, Drive)):
            return isinstance(part, (Board, Server, Chassis, Cpu, Memory, Psu))
        self._verdicts = slot_verdicts(self.document.plan, self.machine_id, part.id, catalog, from_slot=from_slot)
        for slot_id, item in self.slot_items.items():
            item.show_verdict(self._verdicts.get(slot_id))
        return True

    def _end_drag(self) -> None:
        self._verdicts = {}
        self._drag_part = self._drag_from = None
        self._previewed_slot = None
        for item in self.slot_items.values():
            item.show_verdict(None)

    def _slot_at(self, pos: QPointF) -> SlotItem | None:
        scene_pos = self.mapToScene(pos.toPoint())
        for item in self.scene().items(scene_pos):
            if isinstance(item, SlotItem):
                return item
        return None

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        self.ensure_built()
        data = event.mimeData()
        card = card_from_mime(data)
        if card is not None and card["machine"] == self.machine_id:
            accepted = self._begin_drag(card["part"], card["slot"])
        else:
            accepted = self._begin_drag(part_from_mime(data), None)
        if accepted:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if self._drag_part is None:
            event.ignore()
            return
        slot = self._slot_at(event.position())
        if slot is not None and slot.verdict is not None:
            if slot.verdict.ok:
                self.status_message.emit(f"Drop to place in {slot.slot.label}")
                self._preview(slot.slot.id)
                event.acceptProposedAction()
            else:
                self.status_message.emit(f"{slot.slot.label}: {slot.verdict.reason}")
                event.ignore()
            return
        # Off the slots: a moved card dropped off the board is removed; other parts configure the machine.
        if self._drag_from is not None:
            on_board = self.board_rect.contains(self.mapToScene(event.position().toPoint()))
            self.status_message.emit("Drop off the board to remove the card" if not on_board else "")
            event.setAccepted(not on_board)
            return
        event.setAccepted(not self._verdicts)

    def _preview(self, slot_id: str) -> None:
        """Tell the views how the machine would look if the card were dropped here (once per slot hovered)."""
        if slot_id == self._previewed_slot or self._drag_part is None:
            return
        self._previewed_slot = slot_id
        plan, catalog = self.document.plan, self.document.catalog
        try:
            if self._drag_from is not None:
                result = edits.move_card(
                    plan, machine=self.machine_id, from_slot=self._drag_from, to_slot=slot_id, catalog=catalog
                )
            else:
                result = edits.place_card(
                    plan, machine=self.machine_id, slot=slot_id, part=self._drag_part, catalog=catalog
                )
        except edits.EditRefused:
            return
        machine = result.plan.machine(self.machine_id)
        if machine is not None:
            self.document.preview(machine)

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self._end_drag()
        self.status_message.emit("")
        event.accept()

    def dropEvent(self, event: QDropEvent) -> None:
        part_id, from_slot = self._drag_part, self._drag_from
        slot = self._slot_at(event.position())
        verdict = slot.verdict if slot is not None else None
        on_board = self.board_rect.contains(self.mapToScene(event.position().toPoint()))
        self._end_drag()
        if part_id is None:
            event.ignore()
            return
        done = False
        if slot is not None and verdict is not None:
            if not verdict.ok:
                self.status_message.emit(f"Not placed: {slot.slot.label}: {verdict.reason}")
                event.ignore()
                return
            if from_slot is not None:
                done = self._apply(edits.move_card, from_slot=from_slot, to_slot=slot.slot.id)
            else:
                done = self._apply(edits.place_card, slot=slot.slot.id, part=part_id)
        elif from_slot is not None and not on_board:
            done = self._apply_plain(edits.remove_card, slot=from_slot)
        elif from_slot is None:
            done = self.configure_with(part_id)
        if done:
            event.acceptProposedAction()
        else:
            event.ignore()

    def configure_with(self, part_id: str) -> bool:
        """Put a board, server, case, CPU, DIMMs or PSU into this machine (a drop or a double-click)."""
        part = self.document.catalog.get(part_id)
        machine = self.document.plan.machine(self.machine_id)
        if part is None or machine is None:
            return False
        changes: dict[str, object] = {}
        if isinstance(part, Server):
            changes["server"] = part.id
        elif isinstance(part, Board):
            changes["board"] = part.id
        elif isinstance(part, Chassis):
            changes["chassis"] = part.id
        elif isinstance(part, Cpu):
            board = board_of(machine, self.document.catalog)
            changes.update(cpu=part.id, cpu_count=board.sockets if board else 1)
        elif isinstance(part, Memory):
            board = board_of(machine, self.document.catalog)
            count = (board.best_dimm_counts[0] if board and board.best_dimm_counts else None) or 2
            changes["memory"] = [PartCount(part=part.id, count=count)]
        elif isinstance(part, Psu):
            changes["psus"] = [PartCount(part=part.id, count=1)]
        else:
            self.status_message.emit(f"{part.model} does not go into a machine")
            return False
        return self._apply(edits.configure_machine, **changes)

    def _apply(self, edit: object, **kwargs: object) -> bool:
        result = self.document.apply(edit, machine=self.machine_id, catalog=self.document.catalog, **kwargs)  # type: ignore[arg-type]
        return result is not None

    def _apply_plain(self, edit: object, **kwargs: object) -> bool:
        return self.document.apply(edit, machine=self.machine_id, **kwargs) is not None  # type: ignore[arg-type]

    # --- keyboard and context menu ----------------------------------------------------

    def delete_selected(self) -> None:
        slots = [item.slot_id for item in self.scene().selectedItems() if isinstance(item, CardItem)]
        if not slots:
            return
        stack = self.document.undo_stack
        if len(slots) > 1:
            stack.beginMacro(f"Remove {len(slots)} cards")
        for slot in slots:
            self._apply_plain(edits.remove_card, slot=slot)
        if len(slots) > 1:
            stack.endMacro()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            self.delete_selected()
            event.accept()
            return
        super().keyPressEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        super().mouseDoubleClickEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        item = self.itemAt(event.pos())
        while item is not None and not isinstance(item, CardItem):
            item = item.parentItem()
        if not isinstance(item, CardItem):
            return
        menu = self.card_menu(item.slot_id)
        menu.exec(event.globalPos())

    def card_menu(self, slot_id: str) -> QMenu:
        """The context menu of the card in ``slot_id``: power limit, NVLink bridges, remove."""
        menu = QMenu(self)
        machine = self.document.plan.machine(self.machine_id)
        card = machine.card_in(slot_id) if machine else None
        catalog = self.document.catalog
        gpu = catalog.get_as(card.part, Gpu) if card else None
        if gpu is not None:
            menu.addAction("Set power limit…", lambda: self.ask_power_limit(slot_id))
            if card is not None and card.power_limit_w is not None:
                menu.addAction(
                    "Clear power limit",
                    lambda: self._apply(edits.set_power_limit, slot=slot_id, watts=None),
                )
            bridged = machine is not None and any(slot_id in b.slots for b in machine.bridges)
            if bridged:
                menu.addAction("Remove NVLink bridge", lambda: self._apply_plain(edits.remove_bridge, slot=slot_id))
            elif machine is not None:
                bridge_menu = menu.addMenu("Add NVLink bridge to")
                board = board_of(machine, catalog)
                for other in machine.cards:
                    other_gpu = catalog.get_as(other.part, Gpu)
                    if other.slot == slot_id or other_gpu is None:
                        continue
                    for bridge in catalog.of_kind(NvlinkBridge):
                        if gpu.id in bridge.fits_gpus and other_gpu.id in bridge.fits_gpus:
                            label = board.slot_label(other.slot) if board else other.slot
                            action = bridge_menu.addAction(f"{label} with {bridge.model}")
                            action.triggered.connect(partial(self._add_bridge, slot_id, other.slot, bridge.id))
                bridge_menu.setEnabled(not bridge_menu.isEmpty())
            menu.addSeparator()
        menu.addAction("Remove card", lambda: self._apply_plain(edits.remove_card, slot=slot_id))
        return menu

    def _add_bridge(self, slot_a: str, slot_b: str, bridge_id: str) -> None:
        self._apply(edits.add_bridge, slots=(slot_a, slot_b), part=bridge_id)

    def ask_power_limit(self, slot_id: str) -> None:
        machine = self.document.plan.machine(self.machine_id)
        card = machine.card_in(slot_id) if machine else None
        gpu = self.document.catalog.get_as(card.part, Gpu) if card else None
        if gpu is None or card is None:
            return
        low = int(gpu.min_power_limit_w or 100)
        current = int(card.power_limit_w or gpu.tdp_w)
        watts, ok = QInputDialog.getInt(
            self, "Power limit", f"{gpu.model} power limit (W), as nvidia-smi -pl:", current, low, int(gpu.tdp_w), 5
        )
        if ok:
            self._apply(edits.set_power_limit, slot=slot_id, watts=float(watts))


def _add_text(scene: QGraphicsScene, text: str) -> StaticTextItem:
    item = StaticTextItem(text)
    scene.addItem(item)
    return item


def _small(item: StaticTextItem, points: float) -> None:
    font = QFont()
    font.setPointSizeF(points)
    item.setFont(font)


def _slot_label(slot: Slot, width_mm: float) -> str:
    """Two lines: the board's label (elided to fit) and the physical (electrical) width and generation."""
    lanes = (
        f"x{slot.physical_lanes}"
        if slot.physical_lanes == slot.electrical_lanes
        else (f"x{slot.physical_lanes} (x{slot.electrical_lanes})")
    )
    font = QFont()
    font.setPointSizeF(5.0)
    name = QFontMetricsF(font).elidedText(slot.label, Qt.TextElideMode.ElideRight, width_mm)
    return f"{name}\n{lanes} Gen{slot.gen}"


def _slot_description(slot: Slot) -> str:
    kind = {"pcie": "PCIe slot", "m2": "M.2 socket", "sxm": "SXM bay"}[slot.kind]
    return (
        f"{slot.label}: {kind}, physically x{slot.physical_lanes}, wired x{slot.electrical_lanes}, "
        f"PCIe {slot.gen}.0, on {slot.parent}"
    )


def _layout(board: Board, bay_slots: int = BAY_SLOTS) -> list[_SlotGeometry]:
    """Rectangles for every slot: PCIe slots down the board at their positions, M.2 and SXM beside.

    Without catalog positions each slot gets a bay as wide as the widest card placed, so the
    drawing never suggests an overlap the catalog cannot confirm.
    """
    left = LABEL_WIDTH_MM + BOARD_MARGIN_MM
    top = SOCKET_MM + 40
    geometry: list[_SlotGeometry] = []
    pcie = [s for s in board.slots if s.kind == "pcie"]
    positions = [s.position for s in pcie]
    use_positions = all(p is not None for p in positions)
    base = min((p for p in positions if p is not None), default=0)
    for index, slot in enumerate(pcie):
        row = (slot.position - base) if use_positions and slot.position is not None else index * bay_slots
        length = CONNECTOR_MM.get(slot.physical_lanes, 89.0)
        geometry.append(_SlotGeometry(slot, QRectF(left, top + row * SLOT_PITCH_MM, length, SLOT_HEIGHT_MM)))
    rows = max((int((g.rect.top() - top) / SLOT_PITCH_MM) for g in geometry), default=-1) + 1
    m2 = [s for s in board.slots if s.kind == "m2"]
    for index, slot in enumerate(m2):
        x = left + 110
        y = top + (rows + 2 + index * 1.5) * SLOT_PITCH_MM
        geometry.append(_SlotGeometry(slot, QRectF(x, y, *M2_SIZE_MM)))
    sxm = [s for s in board.slots if s.kind == "sxm"]
    for index, slot in enumerate(sxm):
        col, row = index % 4, index // 4
        geometry.append(_SlotGeometry(slot, QRectF(left + col * 90, top + row * 110, 80, 100)))
    return geometry


def _socket_span(dimms_per_socket: int) -> float:
    """Width one socket and its DIMM slots take, with a gap after them."""
    return SOCKET_MM + 6 + dimms_per_socket * (DIMM_WIDTH_MM + 2) + 24


def _board_rect(board: Board, geometry: list[_SlotGeometry]) -> QRectF:
    content = QRectF(0, 0, 0, 0)
    for geo in geometry:
        content = content.united(geo.rect)
    per_socket = (board.dimm_slots or 0) // board.sockets if board.dimm_slots else 0
    sockets_width = LABEL_WIDTH_MM + 20 + board.sockets * _socket_span(per_socket)
    title_width = len(f"{board.vendor} {board.model}") * 2.6 + 10
    width = max(board.width_mm or 0.0, content.right() + 40, sockets_width, title_width)
    height = max(board.depth_mm or 0.0, content.bottom() + 3 * SLOT_PITCH_MM)
    return QRectF(0, 0, width, height)
