"""What a rack device looks like from its catalog figures: a server's PSUs at the rear, a switch's
ports, a PDU's outlet groups. Only what the catalog gives is drawn (drive bays and airflow are not
catalog figures yet, so they are not drawn rather than guessed); details are left out when they
would be a few pixels across.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QBrush, QColor, QPainter, QPen

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import NetworkSwitch, Pdu, Server
from rackplanner.core.plan.model import Plan
from rackplanner.core.plan.resolve import server_of
from rackplanner.core.rack.mounting import DeviceShape

# Below this many pixels per millimetre a port or an outlet is a dot of noise: not drawn.
DETAIL_PX_PER_MM = 0.25
PORT = QColor(20, 24, 30, 200)
PSU = QColor(30, 34, 40, 170)
VENT = QColor(255, 255, 255, 60)
OUTLET = QColor(20, 24, 30, 190)
MAX_PORTS_DRAWN = 64


@dataclass(frozen=True)
class DeviceLook:
    """The catalog figures a device's drawing needs."""

    psus: int = 0
    ports: int = 0
    outlet_groups: tuple[int, ...] = ()  # outlets per group, in the PDU's order


def device_look(shape: DeviceShape, plan: Plan, catalog: Catalog, machine_id: str | None) -> DeviceLook:
    part = catalog.get(shape.part) if shape.part else None
    if isinstance(part, NetworkSwitch):
        return DeviceLook(psus=part.psu_count, ports=sum(g.count for g in part.ports))
    if isinstance(part, Pdu):
        return DeviceLook(outlet_groups=tuple(sum(g.outlets.values()) for g in part.outlet_groups))
    machine = plan.machine(machine_id) if machine_id else None
    server = server_of(machine, catalog) if machine else None
    if isinstance(server, Server):
        return DeviceLook(psus=server.psu_count)
    return DeviceLook()


def detail_room(rect: QRectF, look: DeviceLook, vertical: bool) -> float:
    """How much of the block's width the details take (the label keeps the rest)."""
    if vertical or not (look.ports or look.psus):
        return 0.0
    return rect.width() * (0.45 if look.ports else 0.3)


def paint_device_details(
    painter: QPainter, rect: QRectF, look: DeviceLook, face: str, vertical: bool, lod: float
) -> None:
    """Ports on a switch's face, PSUs at a server's rear (vents at its front), outlets along a PDU."""
    if lod < DETAIL_PX_PER_MM:
        return
    painter.save()
    painter.setPen(QPen(QColor(255, 255, 255, 90), 0.8))
    if vertical and look.outlet_groups:
        _outlets(painter, rect.adjusted(4, 30, -4, -30), look.outlet_groups)
    else:
        width = detail_room(rect, look, vertical)
        room = QRectF(rect.right() - width, rect.top(), width, rect.height()).adjusted(4, 6, -6, -6)
        if look.ports:
            _ports(painter, room, min(look.ports, MAX_PORTS_DRAWN))
        elif look.psus and face == "rear":
            _psus(painter, room, look.psus)
        elif look.psus:
            _vents(painter, room)
    painter.restore()


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


def _psus(painter: QPainter, area: QRectF, count: int) -> None:
    width = min(area.width() / count - 6, area.height() * 1.6)
    painter.setBrush(QBrush(PSU))
    for index in range(count):
        box = QRectF(area.right() - (index + 1) * (width + 6), area.top(), width, area.height())
        painter.drawRect(box)
        radius = min(box.width(), box.height()) * 0.3
        painter.drawEllipse(QPointF(box.left() + radius + 4, box.center().y()), radius, radius)


def _vents(painter: QPainter, area: QRectF) -> None:
    painter.setPen(QPen(VENT, 1.2))
    x = area.left()
    while x < area.right():
        painter.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()))
        x += 8


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
