"""A machine's board drawn to scale with its sockets, DIMMs, slots, cards, bridges and the case's limit.

Scene units are millimetres. Slot positions follow the ATX pitch of 20.32 mm (0.8 in) and
connector lengths follow the PCIe CEM specification, so a three-slot card visibly covers
the two slot positions below it and a long card visibly runs past the case's limit. No widget
and no app state: the machine canvas adds dragging and selection, the report draws it as is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QStyleOptionGraphicsItem,
    QWidget,
)

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Board, Chassis, Cpu, Drive, Gpu, Nic, Slot
from rackplanner.core.machine.bridges import bridge_rejected
from rackplanner.core.machine.cpu_fit import dead_slots
from rackplanner.core.machine.placement import SlotVerdict
from rackplanner.core.plan.model import Machine
from rackplanner.core.plan.resolve import board_of, chassis_of
from rackplanner.draw.card_art import BRACKET_MM, NVLINK_AT_MM, CardLook, card_look, paint_card_details
from rackplanner.draw.static_text import StaticTextItem

SLOT_PITCH_MM = 20.32  # ATX expansion slot pitch, 0.8 in
# PCIe CEM connector lengths by physical width, mm.
CONNECTOR_MM = {1: 25.0, 2: 25.0, 4: 39.0, 8: 56.0, 16: 89.0, 32: 89.0}
SLOT_HEIGHT_MM = 7.0
BOARD_MARGIN_MM = 12.0
LABEL_WIDTH_MM = 78.0
# Boards that do not give slot positions (GPU servers with switch boards and risers) are
# drawn with one double-width bay per slot, so two-slot cards do not overlap.
BAY_SLOTS = 2
SXM_WIDTH_MM = 92.0
SXM_PITCH_MM = 102.0
SXM_ROW_MM = 124.0  # a module and its two-line bay label
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
class SlotGeometry:
    slot: Slot
    rect: QRectF


class SlotItem(QGraphicsRectItem):
    """A slot on the board; it lights up green or red while a card is dragged."""

    def __init__(self, slot: Slot, rect: QRectF, dead_socket: int | None = None) -> None:
        super().__init__(rect)
        self.slot = slot
        self.verdict: SlotVerdict | None = None
        # The empty CPU socket this slot's lanes come from, if any: the slot is switched off.
        self.dead_socket = dead_socket
        self.setPen(QPen(QColor("#555555"), 0.6))
        self.setZValue(1)
        self.show_verdict(None)

    def _resting(self) -> tuple[QBrush, str]:
        if self.dead_socket is None:
            return QBrush(SLOT_FILL), _slot_description(self.slot)
        off = f"Switched off: its lanes come from CPU{self.dead_socket}, whose socket is empty"
        return QBrush(QColor("#4a4a4a"), Qt.BrushStyle.Dense4Pattern), f"{_slot_description(self.slot)}\n{off}"

    def show_verdict(self, verdict: SlotVerdict | None) -> None:
        self.verdict = verdict
        if verdict is None:
            brush, tip = self._resting()
            self.setBrush(brush)
            self.setToolTip(tip)
            return
        self.setBrush(QBrush(OK_FILL if verdict.ok else BAD_FILL))
        reason = "Drop here" if verdict.ok else f"Cannot go here: {verdict.reason}"
        notes = "".join(f"\n{note}" for note in verdict.notes)
        self.setToolTip(f"{_slot_description(self.slot)}\n{reason}{notes}")


class CardShape(QGraphicsRectItem):
    """A card placed in a slot, drawn to its width in slots and its length."""

    def __init__(self, slot_id: str, part_id: str, rect: QRectF, kind: str, text: str) -> None:
        super().__init__(rect)
        self.slot_id = slot_id
        self.part_id = part_id
        self.setBrush(QBrush(CARD_COLOURS.get(kind, QColor(120, 120, 120, 215))))
        self.setPen(QPen(QColor("#10233f"), 0.8))
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        self.setZValue(3)
        label = StaticTextItem(text, self)
        label.setBrush(QBrush(QColor("white")))
        font = QFont()
        font.setPointSizeF(5.5)
        label.setFont(font)
        label.setPos(rect.left() + 4, rect.top() + 2)

    look = CardLook(bracket=False)

    def boundingRect(self) -> QRectF:
        # The bracket reaches past the card's footprint.
        return super().boundingRect().adjusted(-BRACKET_MM - 1, -2, 0, 2)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        pen = QPen(SELECT_EDGE, 2.2) if self.isSelected() else self.pen()
        painter.setPen(pen)
        painter.setBrush(self.brush())
        painter.drawRoundedRect(self.rect(), 2.5, 2.5)
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())
        paint_card_details(painter, self.rect(), self.look, lod)


# Makes the item for a card: the canvas makes one that can be dragged, the report a plain one.
CardFactory = Callable[[str, str, QRectF, str, str], CardShape]


class BoardDrawing:
    """Draws one machine's board and cards into ``scene``; redraws cards alone when only they change."""

    def __init__(self, scene: QGraphicsScene, catalog: Catalog, card_factory: CardFactory = CardShape) -> None:
        self.scene = scene
        self.catalog = catalog
        self.card_factory = card_factory
        self.slot_items: dict[str, SlotItem] = {}
        self.card_items: dict[str, CardShape] = {}
        self.bridge_items: list[QGraphicsLineItem] = []
        self.board_rect = QRectF()
        # Slots switched off because their CPU socket is empty: {slot: socket}.
        self.dead: dict[str, int] = {}

    def draw(self, machine: Machine | None) -> bool:
        """Clear the scene and draw the machine; False (and a hint) when it has no board yet."""
        scene = self.scene
        scene.clear()
        self.slot_items.clear()
        self.card_items.clear()
        self.bridge_items = []
        board = board_of(machine, self.catalog) if machine else None
        if machine is None or board is None:
            text = _add_text(scene, "No board yet: drag a board or server from the catalog here.")
            text.setBrush(QBrush(QColor("#444444")))
            self.board_rect = QRectF(-20, -20, 300, 60)
            scene.setSceneRect(self.board_rect)
            return False
        geometry = slot_layout(board, bay_slots=bay_slots(machine, self.catalog))
        self.board_rect = _board_rect(board, geometry)
        board_item = scene.addRect(self.board_rect, QPen(BOARD_EDGE, 1.2), QBrush(BOARD_FILL))
        board_item.setZValue(0)
        board_item.setToolTip(f"{board.vendor} {board.model} ({board.form_factor})")
        title = _add_text(scene, f"{board.vendor} {board.model}")
        title.setBrush(QBrush(QColor("white")))
        title.setPos(self.board_rect.left() + 4, self.board_rect.top() + 2)
        _small(title, 6.5)
        self.dead = dead_slots(machine, board)
        self._draw_sockets_and_dimms(board, machine, sum(m.count for m in machine.memory))
        for geo in geometry:
            item = SlotItem(geo.slot, geo.rect, self.dead.get(geo.slot.id))
            scene.addItem(item)
            self.slot_items[geo.slot.id] = item
            label = _add_text(scene, _slot_label(geo.slot, LABEL_WIDTH_MM - 4))
            label.setBrush(QBrush(SLOT_TEXT))
            _small(label, 5.0)
            if geo.slot.kind == "sxm":
                # Modules sit side by side on the baseboard: each one's name goes under it.
                label.setPos(geo.rect.left() + 2, geo.rect.bottom() + 1)
            else:
                label.setPos(geo.rect.left() - LABEL_WIDTH_MM + 2, geo.rect.top() - 1)
            label.setZValue(1)
        self._draw_case_limit(chassis_of(machine, self.catalog), geometry)
        _draw_baseboard(scene, [g for g in geometry if g.slot.kind == "sxm"])
        for card in machine.cards:
            self.draw_card(card.slot, card.part, card.power_limit_w)
        self.draw_bridges(machine)
        scene.setSceneRect(self.board_rect.adjusted(-20, -20, 220, 60))
        return True

    def remove_card(self, slot_id: str) -> None:
        item = self.card_items.pop(slot_id, None)
        if item is not None:
            self.scene.removeItem(item)

    def remove_bridges(self) -> None:
        for line in self.bridge_items:
            self.scene.removeItem(line)
        self.bridge_items = []

    def _draw_sockets_and_dimms(self, board: Board, machine: Machine, dimms: int) -> None:
        scene = self.scene
        cpu_count = machine.cpu_count
        cpu = self.catalog.get_as(machine.cpu, Cpu) if machine.cpu else None
        wrong = cpu is not None and cpu.socket != board.cpu_socket
        stranded = {socket for slot, socket in self.dead.items() if machine.card_in(slot) is not None}
        per_socket = (board.dimm_slots or 0) // board.sockets if board.dimm_slots else 0
        filled = dimms
        socket_span = _socket_span(per_socket)
        for socket in range(board.sockets):
            x = self.board_rect.left() + LABEL_WIDTH_MM + 20 + socket * socket_span
            y = self.board_rect.top() + 16
            rect = QRectF(x, y, SOCKET_MM, SOCKET_MM)
            occupied = cpu is not None and socket < cpu_count
            fill = QColor("#c9ccd1" if occupied else "#5b6b66")
            bad = (occupied and wrong) or socket in stranded
            edge = QPen(CASE_LIMIT, 1.6) if bad else QPen(QColor("#777777"), 0.8)
            item = scene.addRect(rect, edge, QBrush(fill))
            tip = f"Socket {socket} ({board.cpu_socket}): {cpu.model if occupied and cpu else 'empty'}"
            if occupied and wrong and cpu is not None:
                tip += f"\n{cpu.model} is a {cpu.socket} CPU: it does not fit this socket"
            if socket in stranded:
                tip += "\nCards hang off this empty socket's lanes: they are not seen"
            item.setToolTip(tip)
            name = cpu.model if occupied and cpu else board.cpu_socket
            if occupied and wrong and cpu is not None:
                name += f"\n{cpu.socket}≠{board.cpu_socket}"
            elif socket in stranded:
                name = "empty: slots off"
            text = _add_text(scene, f"CPU{socket}\n{name}")
            _small(text, 5.0)
            text.setPos(x + 3, y + 3)
            for n in range(per_socket):
                dimm = QRectF(x + SOCKET_MM + 6 + n * (DIMM_WIDTH_MM + 2), y - 6, DIMM_WIDTH_MM, SOCKET_MM + 12)
                used = filled > 0
                filled -= 1 if used else 0
                scene.addRect(dimm, QPen(QColor("#333333"), 0.4), QBrush(QColor("#3a7d44" if used else "#202020")))

    def _draw_case_limit(self, chassis: Chassis | None, geometry: list[SlotGeometry]) -> None:
        pcie = [g for g in geometry if g.slot.kind == "pcie"]
        if chassis is None or chassis.max_gpu_length_mm is None or not pcie:
            return
        x = min(g.rect.left() for g in pcie) + chassis.max_gpu_length_mm
        top = min(g.rect.top() for g in pcie) - 10
        bottom = max(g.rect.bottom() for g in pcie) + 3 * SLOT_PITCH_MM
        pen = QPen(CASE_LIMIT, 1.0, Qt.PenStyle.DashLine)
        self.scene.addLine(x, top, x, bottom, pen).setZValue(4)
        text = _add_text(self.scene, f"{chassis.model}: cards up to {chassis.max_gpu_length_mm:g} mm")
        text.setBrush(QBrush(CASE_LIMIT))
        _small(text, 5.0)
        text.setPos(x + 2, top - 2)
        text.setZValue(4)

    def draw_card(self, slot_id: str, part_id: str, power_limit_w: float | None) -> None:
        slot_item = self.slot_items.get(slot_id)
        part = self.catalog.get(part_id)
        if slot_item is None or part is None:
            return
        rect = slot_item.rect()
        if isinstance(part, Gpu):
            kind = "gpu"
            width = part.slot_width or 2
            length = part.length_mm or DEFAULT_CARD_LENGTH_MM
            watts = f"{power_limit_w:g} W (limit)" if power_limit_w else f"{part.tdp_w:g} W"
            # A module's size is its bay's; a card's is the slots it covers.
            size = "" if slot_item.slot.kind == "sxm" else f" · {width}-slot"
            text = f"{part.model}\n{part.vram_gb:g} GB · {watts}{size}"
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
        item = self.card_factory(slot_id, part_id, card_rect, kind, text)
        if slot_item.slot.kind == "sxm":
            item.look = CardLook(cooling="passive", bracket=False)  # a module under its heatsink
        elif slot_item.slot.kind != "m2":
            item.look = card_look(part)
        tip = text.replace("\n", " — ") + f"\nin {slot_item.slot.label}; drag to move, Delete to remove"
        if slot_id in self.dead:
            tip += f"\nNot seen: CPU{self.dead[slot_id]}'s socket is empty"
            _mark_unseen(item, card_rect, f"not seen: CPU{self.dead[slot_id]} empty")
        item.setToolTip(tip)
        self.scene.addItem(item)
        self.card_items[slot_id] = item

    def draw_bridges(self, machine: Machine) -> None:
        """NVLink bridges: green where they join their cards, dashed red (with the reason) where not."""
        board = board_of(machine, self.catalog)
        for bridge in machine.bridges:
            a, b = (self.card_items.get(s) for s in bridge.slots)
            if a is None or b is None or board is None:
                continue
            why = bridge_rejected(bridge, machine, board, self.catalog)
            pen = QPen(CASE_LIMIT, 3.0, Qt.PenStyle.DashLine) if why else QPen(QColor("#76b900"), 3.0)
            x = a.rect().left() + NVLINK_AT_MM
            line = self.scene.addLine(x, a.rect().center().y(), x, b.rect().center().y(), pen)
            line.setZValue(5)
            self.bridge_items.append(line)
            part = self.catalog.get(bridge.part)
            name = f"NVLink bridge {part.model if part else bridge.part}"
            line.setToolTip(f"{name}: not joined, {why}" if why else name)


def _mark_unseen(card: QGraphicsRectItem, rect: QRectF, text: str) -> None:
    """Hatch a card the OS cannot see and say why, as children so they go with the card."""
    veil = QGraphicsRectItem(rect, card)
    veil.setBrush(QBrush(QColor(20, 20, 20, 170), Qt.BrushStyle.BDiagPattern))
    veil.setPen(QPen(CASE_LIMIT, 1.2, Qt.PenStyle.DashLine))
    label = StaticTextItem(text, card)
    label.setBrush(QBrush(QColor("#ffb4a8")))
    font = QFont()
    font.setPointSizeF(5.5)
    font.setBold(True)
    label.setFont(font)
    label.setPos(rect.left() + 4, rect.bottom() - 10)


def drawing_key(machine: Machine | None, catalog: Catalog) -> tuple[object, ...]:
    """What a board drawing depends on besides the cards: when equal, only cards need redrawing."""

    if machine is None:
        return (None, BAY_SLOTS)
    memory = tuple((m.part, m.count) for m in machine.memory)
    return (
        id(catalog),
        machine.server,
        machine.board,
        machine.chassis,
        machine.cpu,
        machine.cpu_count,
        memory,
        bay_slots(machine, catalog),
    )


def bay_slots(machine: Machine, catalog: Catalog) -> int:
    """Slot positions each bay takes on a board without positions: as many as the widest card placed."""
    widths = [g.slot_width or 2 for c in machine.cards if (g := catalog.get_as(c.part, Gpu)) is not None]
    return max([BAY_SLOTS, *widths])


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


def slot_layout(board: Board, bay_slots: int = BAY_SLOTS) -> list[SlotGeometry]:
    """Rectangles for every slot: PCIe slots down the board at their positions, M.2 and SXM beside.

    Without catalog positions each slot gets a bay as wide as the widest card placed, so the
    drawing never suggests an overlap the catalog cannot confirm.
    """
    left = LABEL_WIDTH_MM + BOARD_MARGIN_MM
    top = SOCKET_MM + 40
    geometry: list[SlotGeometry] = []
    sxm = [s for s in board.slots if s.kind == "sxm"]
    for index, slot in enumerate(sxm):
        col, row = index % 4, index // 4
        geometry.append(
            SlotGeometry(slot, QRectF(left + col * SXM_PITCH_MM, top + row * SXM_ROW_MM, SXM_WIDTH_MM, 100))
        )
    if sxm:
        # The GPU baseboard comes first; the host's PCIe slots (NICs, storage) go below it.
        top += ((len(sxm) + 3) // 4) * SXM_ROW_MM + SLOT_PITCH_MM
    pcie = [s for s in board.slots if s.kind == "pcie"]
    positions = [s.position for s in pcie]
    use_positions = all(p is not None for p in positions)
    base = min((p for p in positions if p is not None), default=0)
    for index, slot in enumerate(pcie):
        row = (slot.position - base) if use_positions and slot.position is not None else index * bay_slots
        length = CONNECTOR_MM.get(slot.physical_lanes, 89.0)
        geometry.append(SlotGeometry(slot, QRectF(left, top + row * SLOT_PITCH_MM, length, SLOT_HEIGHT_MM)))
    rows = max((int((g.rect.top() - top) / SLOT_PITCH_MM) for g in geometry if g.slot.kind == "pcie"), default=-1) + 1
    m2 = [s for s in board.slots if s.kind == "m2"]
    for index, slot in enumerate(m2):
        x = left + 110
        y = top + (rows + 2 + index * 1.5) * SLOT_PITCH_MM
        geometry.append(SlotGeometry(slot, QRectF(x, y, *M2_SIZE_MM)))
    return geometry


def _socket_span(dimms_per_socket: int) -> float:
    """Width one socket and its DIMM slots take, with a gap after them."""
    return SOCKET_MM + 6 + dimms_per_socket * (DIMM_WIDTH_MM + 2) + 24


def _board_rect(board: Board, geometry: list[SlotGeometry]) -> QRectF:
    content = QRectF(0, 0, 0, 0)
    for geo in geometry:
        content = content.united(geo.rect)
    per_socket = (board.dimm_slots or 0) // board.sockets if board.dimm_slots else 0
    sockets_width = LABEL_WIDTH_MM + 20 + board.sockets * _socket_span(per_socket)
    title_width = len(f"{board.vendor} {board.model}") * 2.6 + 10
    width = max(board.width_mm or 0.0, content.right() + 40, sockets_width, title_width)
    height = max(board.depth_mm or 0.0, content.bottom() + 3 * SLOT_PITCH_MM)
    return QRectF(0, 0, width, height)


BASEBOARD_FILL = QColor("#1f3b33")


def _draw_baseboard(scene: QGraphicsScene, sxm: list[SlotGeometry]) -> None:
    """SXM/OAM sockets sit on one GPU baseboard: drawn as a board of its own under the modules."""
    if not sxm:
        return
    area = sxm[0].rect
    for geo in sxm[1:]:
        area = area.united(geo.rect)
    area = area.adjusted(-6, -10, 6, 16)
    item = scene.addRect(area, QPen(QColor("#0f1f1a"), 1.0), QBrush(BASEBOARD_FILL))
    item.setZValue(0.5)
    item.setToolTip(f"GPU baseboard with {len(sxm)} SXM/OAM module sockets")
    label = _add_text(scene, f"GPU baseboard · {len(sxm)} × SXM")
    label.setBrush(QBrush(QColor("#cfe3dc")))
    _small(label, 5.0)
    label.setPos(area.left() + 3, area.top() + 1)
    label.setZValue(0.6)
