"""What a rack device looks like from its catalog figures: drive bays at a server's front and PSUs
at its rear, a switch's ports, a PDU's outlet groups, and which way air goes through it.

Only what the catalog gives is drawn (bays of unknown size are dashed; unknown airflow is not
marked); details are left out when they would be a few pixels across.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import BAY_FACE_MM, DriveBays, NetworkSwitch, Pdu, RackDevice, Server, rack_airflow
from rackplanner.core.plan.model import Plan
from rackplanner.core.plan.resolve import chassis_of, server_of
from rackplanner.core.rack.mounting import DeviceShape

# Below this many pixels per millimetre a port or an outlet is a dot of noise: not drawn.
DETAIL_PX_PER_MM = 0.25
# Details smaller than this on screen (a supply's width, the gap between vent slots) are left out.
MIN_FEATURE_PX = 6.0
PORT = QColor(20, 24, 30, 200)
PSU = QColor(30, 34, 40, 170)
VENT = QColor(255, 255, 255, 60)
OUTLET = QColor(20, 24, 30, 190)
BAY = QColor(20, 24, 30, 150)
AIR_IN = QColor("#8fe3ff")
AIR_OUT = QColor("#ff7a45")
AIR_SIDE = QColor("#c9d1dc")
MAX_PORTS_DRAWN = 64
MAX_BAYS_DRAWN = 96
AIR_STRIP_MM = 9.0
AIR_BADGE_MM = 58.0
AIR_FONT_MM = 13

Bays = tuple[tuple[int, str | None], ...]  # (count, size) per group on one side of the device


@dataclass(frozen=True)
class DeviceLook:
    """The catalog figures a device's drawing needs."""

    psus: int = 0
    ports: int = 0
    outlet_groups: tuple[int, ...] = ()  # outlets per group, in the PDU's order
    front_bays: Bays = ()
    rear_bays: Bays = ()
    airflow: str | None = None  # relative to the device's own front, NetBox's words
    ports_at_front: bool = False  # a switch: ports at the front, PSUs at the rear


def device_look(shape: DeviceShape, plan: Plan, catalog: Catalog, machine_id: str | None) -> DeviceLook:
    """The figures to draw; the airflow is the one the rack's check uses (``DeviceShape.airflow``)."""
    part = catalog.get(shape.part) if shape.part else None
    if isinstance(part, NetworkSwitch):
        ports = sum(g.count for g in part.ports)
        return DeviceLook(psus=part.psu_count, ports=ports, airflow=shape.airflow, ports_at_front=True)
    if isinstance(part, Pdu):
        return DeviceLook(outlet_groups=tuple(sum(g.outlets.values()) for g in part.outlet_groups))
    if isinstance(part, RackDevice):
        return _with_bays(DeviceLook(psus=len(part.power_ports), airflow=shape.airflow), part.drive_bays)
    machine = plan.machine(machine_id) if machine_id else None
    if machine is None:
        return DeviceLook()
    server = server_of(machine, catalog)
    chassis = chassis_of(machine, catalog)
    look = DeviceLook(psus=server.psu_count if isinstance(server, Server) else 0, airflow=shape.airflow)
    return _with_bays(look, chassis.drive_bays if chassis else None)


def _with_bays(look: DeviceLook, bays: list[DriveBays] | None) -> DeviceLook:
    front = tuple((b.count, b.size) for b in bays or () if b.face == "front")
    rear = tuple((b.count, b.size) for b in bays or () if b.face == "rear")
    return replace(look, front_bays=front, rear_bays=rear)


def airflow_text(look: DeviceLook, face: str) -> str:
    """The tooltip line: the device's airflow and where it takes air in, as mounted on ``face``."""
    if look.outlet_groups:
        return ""
    if look.airflow is None:
        return "Airflow: not in the catalog (not checked)"
    in_rack = rack_airflow(look.airflow, face)
    turned = f", {in_rack} in the rack (mounted facing the rear)" if in_rack != look.airflow else ""
    return f"Airflow: {look.airflow}{turned}"


def detail_room(rect: QRectF, look: DeviceLook, vertical: bool, side: str = "front") -> float:
    """How much of the block's width the details on the device's ``side`` take (the label keeps the rest)."""
    if vertical:
        return 0.0
    bays = look.front_bays if side == "front" else look.rear_bays
    if bays:
        return rect.width() * 0.6
    if look.ports and (side == "front" or not look.ports_at_front):
        return rect.width() * 0.45
    return rect.width() * 0.3 if look.psus else 0.0


def air_room(look: DeviceLook, side: str, lod: float) -> float:
    """How much of a horizontal block's left the airflow mark takes (none where no mark is drawn)."""
    if look.airflow is None or air_word(look.airflow, side)[1] is None:
        return 0.0
    return AIR_BADGE_MM + 6 if AIR_FONT_MM * lod >= 7 else AIR_STRIP_MM


def paint_device_details(
    painter: QPainter, rect: QRectF, look: DeviceLook, side: str, vertical: bool, lod: float
) -> None:
    """The device's ``side`` (its own front or rear, whichever rack face it shows on)."""
    painter.save()
    _airflow(painter, rect, look, side, vertical, lod)
    if lod >= DETAIL_PX_PER_MM:
        painter.setPen(QPen(QColor(255, 255, 255, 90), 0.8))
        if vertical and look.outlet_groups:
            _outlets(painter, rect.adjusted(4, 30, -4, -30), look.outlet_groups)
        elif not vertical:
            width = detail_room(rect, look, vertical, side)
            room = QRectF(rect.right() - width, rect.top(), width, rect.height()).adjusted(4, 6, -6, -6)
            bays = look.front_bays if side == "front" else look.rear_bays
            if bays:
                _bays(painter, room, bays)
            elif look.ports and side == "front":
                _ports(painter, room, min(look.ports, MAX_PORTS_DRAWN))
            elif look.psus and side == "rear":
                _psus(painter, room, look.psus, lod)
            elif look.psus or look.ports:
                _vents(painter, room, lod)
    painter.restore()


def _airflow(painter: QPainter, rect: QRectF, look: DeviceLook, side: str, vertical: bool, lod: float) -> None:
    """A coloured mark at the block's left: blue where air goes in on this side, orange where it comes out."""
    if vertical or look.airflow is None:
        return
    word, colour = air_word(look.airflow, side)
    if colour is None:
        return
    painter.setPen(QPen(QColor("#10151c"), 0.8))
    painter.setBrush(QBrush(colour))
    if AIR_FONT_MM * lod < 7:
        painter.drawRect(QRectF(rect.left() + 2, rect.top() + 3, AIR_STRIP_MM - 2, rect.height() - 6))
        return
    badge = QRectF(rect.left() + 5, rect.center().y() - 11, AIR_BADGE_MM, 22)
    painter.drawRoundedRect(badge, 5, 5)
    font = QFont()
    font.setPixelSize(AIR_FONT_MM)
    font.setBold(True)
    painter.setFont(font)
    painter.setPen(QColor("#10151c"))
    painter.drawText(badge, Qt.AlignmentFlag.AlignCenter, word)


def air_word(airflow: str, side: str) -> tuple[str, QColor | None]:
    """What the mark says on the device's ``side`` ("front" or "rear") for its airflow; no colour: no mark."""
    intake, exhaust = {
        "front-to-rear": ("front", "rear"),
        "rear-to-front": ("rear", "front"),
        "side-to-rear": (None, "rear"),
        "rear-to-side": ("rear", None),
    }.get(airflow, (None, None))
    if airflow in ("left-to-right", "right-to-left"):
        # Seen from the device's rear, its left is on the viewer's right.
        rightwards = (airflow == "left-to-right") == (side == "front")
        return ("air →" if rightwards else "air ←"), AIR_SIDE
    if side == intake:
        return "air in", AIR_IN
    if side == exhaust:
        return "air out", AIR_OUT
    return "", None


def _bays(painter: QPainter, area: QRectF, groups: Bays) -> None:
    """Each bay to its size's face (SFF figures), stood upright in a device of 2U or more, scaled to fit."""
    x = area.right()
    pitch_gap = 1.0
    for count, size in reversed(groups):
        width, height = BAY_FACE_MM.get(size or "2.5-inch", BAY_FACE_MM["2.5-inch"])
        if size == "2.5-inch" and area.height() >= 2 * height + 40:
            width, height = height, width  # stood on end, as 2U+ servers carry them
        count = min(count, MAX_BAYS_DRAWN)
        rows = max(1, min(count, int((area.height() + pitch_gap) // (height + pitch_gap))))
        columns = math.ceil(count / rows)
        room_w = max(1.0, x - area.left())
        scale = min(1.0, room_w / (columns * (width + pitch_gap)), area.height() / (rows * (height + pitch_gap)))
        w, h = width * scale, height * scale
        painter.setBrush(QBrush(BAY))
        pen = QPen(QColor(255, 255, 255, 110), 0.8)
        if size is None:
            pen.setStyle(Qt.PenStyle.DashLine)  # the size is not in the catalog
        painter.setPen(pen)
        top = area.top() + (area.height() - rows * (h + pitch_gap)) / 2
        for index in range(count):
            column, row = divmod(index, rows)
            left = x - (columns - column) * (w + pitch_gap)
            painter.drawRect(QRectF(left, top + row * (h + pitch_gap), w, h))
        x -= columns * (w + pitch_gap) + 8


def _ports(painter: QPainter, area: QRectF, count: int) -> None:
    rows = 2 if count > 8 and area.height() > 24 else 1
    per_row = (count + rows - 1) // rows
    pitch = area.width() / per_row
    size = min(pitch * 0.75, area.height() / rows * 0.7)
    painter.setBrush(QBrush(PORT))
    for index in range(count):
        row, column = divmod(index, per_row)
        x = area.left() + column * pitch + (pitch - size) / 2
        y = area.top() + row * area.height() / rows + (area.height() / rows - size) / 2
        painter.drawRect(QRectF(x, y, size, size))


def _psus(painter: QPainter, area: QRectF, count: int, lod: float) -> None:
    width = min(area.width() / count - 6, area.height() * 1.6)
    if width * lod < MIN_FEATURE_PX:
        return  # slivers too thin to read as supplies: the block's colour says enough
    painter.setBrush(QBrush(PSU))
    for index in range(count):
        box = QRectF(area.right() - (index + 1) * (width + 6), area.top(), width, area.height())
        painter.drawRect(box)
        radius = min(box.width(), box.height()) * 0.3
        painter.drawEllipse(QPointF(box.left() + radius + 4, box.center().y()), radius, radius)


def _vents(painter: QPainter, area: QRectF, lod: float) -> None:
    painter.setPen(QPen(VENT, 1.2))
    # Slots 8 mm apart, but never closer than a few pixels on screen: a denser hatch looks the
    # same grey and costs a line per slot.
    step = max(8.0, MIN_FEATURE_PX / 1.5 / lod)
    x = area.left()
    while x < area.right():
        painter.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()))
        x += step


def _outlets(painter: QPainter, area: QRectF, groups: tuple[int, ...]) -> None:
    """Each outlet group a framed segment along the PDU, its outlets as small sockets inside."""
    total = sum(groups) or 1
    y = area.top()
    painter.setBrush(QBrush(OUTLET))
    for outlets in groups:
        height = area.height() * outlets / total
        segment = QRectF(area.left(), y, area.width(), height - 8)
        painter.setBrush(QBrush())
        painter.drawRect(segment)
        painter.setBrush(QBrush(OUTLET))
        pitch = segment.height() / max(1, outlets)
        size = min(area.width() * 0.55, pitch * 0.7)
        for index in range(outlets):
            centre_y = segment.top() + pitch * (index + 0.5)
            painter.drawRect(QRectF(segment.center().x() - size / 2, centre_y - size / 2, size, size))
        y += height
