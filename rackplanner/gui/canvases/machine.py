"""The machine canvas: the board as ``draw.board`` draws it, and what the user does to it.

Drag cards in from the catalog, around between slots and off the board; while a card is dragged
each slot shows whether it can go there and why not. Select, delete, right-click for the power
limit and NVLink bridges; drop a board, server, case, CPU, DIMMs or PSU to configure the machine.
"""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QDragEnterEvent,
    QDragLeaveEvent,
    QDragMoveEvent,
    QDropEvent,
    QKeyEvent,
    QMouseEvent,
    QPen,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QGraphicsSceneMouseEvent,
    QInputDialog,
    QMenu,
    QWidget,
)

from rackplanner.core.catalog.parts import Board, Chassis, Cpu, Drive, Gpu, Memory, Nic, NvlinkBridge, Psu, Server
from rackplanner.core.machine.placement import SlotVerdict, slot_verdicts
from rackplanner.core.plan import edits
from rackplanner.core.plan.edits import Change
from rackplanner.core.plan.model import PartCount
from rackplanner.core.plan.resolve import board_of
from rackplanner.draw.board import SELECT_EDGE, BoardDrawing, CardShape, SlotItem, drawing_key
from rackplanner.gui.canvases.part_menu import add_part_entries, menu_point
from rackplanner.gui.canvases.zoom_view import ZoomView
from rackplanner.gui.document import ChangeSet, PlanDocument
from rackplanner.gui.mime import card_from_mime, card_mime, part_from_mime


class CardItem(CardShape):
    """A card on the canvas: press and move it to drag it to another slot or off the board."""

    def __init__(self, canvas: MachineCanvas, slot_id: str, part_id: str, rect: QRectF, kind: str, text: str) -> None:
        super().__init__(slot_id, part_id, rect, kind, text)
        self.canvas = canvas
        self.setCursor(Qt.CursorShape.OpenHandCursor)
        self._press: QPointF | None = None

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
        self.drawing = BoardDrawing(self.scene(), document.catalog, partial(CardItem, self))
        self._verdicts: dict[str, SlotVerdict] = {}
        self._drag_part: str | None = None
        self._drag_from: str | None = None
        self._previewed_slot: str | None = None  # the slot whose drop result the views were last shown
        self._syncing = False
        self.scene().selectionChanged.connect(self._scene_selection_changed)
        document.changed.connect(self._document_changed)
        document.selection_changed.connect(self._select_slots)
        # Built when first shown: a plan of hundreds of servers must not draw every board at start.
        self._dirty = True
        self._drawn_key: tuple[object, ...] = ()
        self._drawn_cards: dict[str, tuple[str, float | None]] = {}

    @property
    def slot_items(self) -> dict[str, SlotItem]:
        return self.drawing.slot_items

    @property
    def card_items(self) -> dict[str, CardShape]:
        return self.drawing.card_items

    @property
    def board_rect(self) -> QRectF:
        return self.drawing.board_rect

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
        machine = self.document.plan.machine(self.machine_id)
        self._drawn_key = self._base_key()
        drawn = self.drawing.draw(machine)
        self._drawn_cards = {c.slot: (c.part, c.power_limit_w) for c in machine.cards} if machine and drawn else {}
        if drawn:
            self._select_slots(self.document.selected_slots)
        self._syncing = False
        if drawn and self.auto_fit:
            self.refit()

    def _base_key(self) -> tuple[object, ...]:
        return drawing_key(self.document.plan.machine(self.machine_id), self.document.catalog)

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
                self.drawing.remove_card(slot)
                del self._drawn_cards[slot]
        for slot, (part, limit) in wanted.items():
            if slot not in self._drawn_cards:
                self.drawing.draw_card(slot, part, limit)
                self._drawn_cards[slot] = (part, limit)
        self.drawing.remove_bridges()
        self.drawing.draw_bridges(machine)
        self._select_slots(self.document.selected_slots)
        self._syncing = False

    def fit_target(self) -> tuple[QRectF, float] | None:
        """The whole board, with the cards that reach past its edge."""
        if self.board_rect.isEmpty():
            return None
        return self.board_rect.united(self.scene().itemsBoundingRect()), 10

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
        step = {Qt.Key.Key_Down: 1, Qt.Key.Key_Right: 1, Qt.Key.Key_Up: -1, Qt.Key.Key_Left: -1}.get(
            Qt.Key(event.key())
        )
        if step is not None and self.step_slot(step):
            event.accept()
            return
        super().keyPressEvent(event)

    def step_slot(self, step: int) -> bool:
        """Select the next (or previous) slot in board order, with what is in it said in the status bar."""
        slots = list(self.slot_items)
        if not slots:
            return False
        chosen = self.document.selected_slots
        if chosen and chosen[0] in slots:
            index = max(0, min(len(slots) - 1, slots.index(chosen[0]) + step))
        else:
            index = 0 if step > 0 else len(slots) - 1
        slot_id = slots[index]
        self.document.set_current_machine(self.machine_id)
        self.document.select_slots([slot_id])
        self.ensureVisible(self.slot_items[slot_id], 10, 10)
        machine = self.document.plan.machine(self.machine_id)
        board = board_of(machine, self.document.catalog) if machine else None
        card = machine.card_in(slot_id) if machine else None
        part = self.document.catalog.get(card.part) if card else None
        label = board.slot_label(slot_id) if board else slot_id
        self.status_message.emit(f"{label}: {part.label if part else 'empty'}")
        return True

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        super().mouseDoubleClickEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        pos = menu_point(self, event, CardItem)
        item = self.itemAt(pos)
        while item is not None and not isinstance(item, CardItem):
            item = item.parentItem()
        menu = self.card_menu(item.slot_id) if isinstance(item, CardItem) else self.board_menu()
        if not menu.isEmpty():
            menu.exec(self.viewport().mapToGlobal(pos))

    def board_menu(self) -> QMenu:
        """The board's (or server's) context menu: Show in catalog, Properties."""
        menu = QMenu(self)
        machine = self.document.plan.machine(self.machine_id)
        if machine is not None:
            add_part_entries(menu, self, self.document.catalog, machine.server or machine.board)
        return menu

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
        duplicate = partial(self._duplicate_card, card.part) if card is not None else None
        remove = ("Remove card", lambda: self._apply_plain(edits.remove_card, slot=slot_id))
        add_part_entries(menu, self, catalog, card.part if card else None, duplicate=duplicate, remove=remove)
        return menu

    def _duplicate_card(self, part_id: str) -> None:
        """Another of the same card, in the first slot that takes it (as a double-click in the catalog)."""
        add = getattr(self.window(), "add_part", None)
        if callable(add):
            add(part_id)

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
