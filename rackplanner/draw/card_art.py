"""What a card looks like, drawn from its catalog figures: bracket, cooler, power plugs, NVLink fingers.

The board is drawn from above, so a card is its footprint: as long as the card, as wide as the
slots it covers. On it, like a stencil: the metal bracket at the rear-panel end, the cooler
(open-air fans, a blower's single fan and exhaust, or a passive heatsink's fins), the power
plugs on the far end and, on cards with NVLink, the gold fingers a bridge clips on. Details
are left out when they would be a few pixels across.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QBrush, QColor, QPainter, QPen

from rackplanner.core.catalog.parts import Gpu, Nic, Part

BRACKET_MM = 4.0
BRACKET = QColor("#b8bec7")
FAN_EDGE = QColor(255, 255, 255, 110)
FIN = QColor(255, 255, 255, 70)
PLUG = QColor("#23272e")
NVLINK_GOLD = QColor("#d4a017")
# Below this many pixels per millimetre the stencil's details are noise: only the outline is drawn.
DETAIL_PX_PER_MM = 0.9
# Where the NVLink fingers sit along the card (mm from the bracket): the bridge drawn on the
# board joins cards at this distance too.
NVLINK_AT_MM = 120.0


@dataclass(frozen=True)
class CardLook:
    """The catalog figures a card's drawing needs."""

    cooling: str | None = None  # "blower", "open-air", "passive", "liquid"
    power_connectors: tuple[str, ...] = ()
    nvlink: bool = False
    bracket: bool = True


def card_look(part: Part | None) -> CardLook:
    if isinstance(part, Gpu):
        return CardLook(
            cooling=part.cooling,
            power_connectors=tuple(part.power_connectors),
            nvlink=bool(part.nvlink_links),
        )
    if isinstance(part, Nic):
        return CardLook(cooling="passive")
    return CardLook(bracket=False)


def plug_label(connector: str) -> str:
    """'pcie-8pin' -> '8-pin', '12vhpwr' -> '12VHPWR'."""
    names = {"pcie-8pin": "8-pin", "pcie-6pin": "6-pin", "eps-8pin": "EPS", "12vhpwr": "12VHPWR", "12v-2x6": "12V-2x6"}
    return names.get(connector, connector)


def paint_card_details(painter: QPainter, rect: QRectF, look: CardLook, lod: float) -> None:
    """Bracket, cooler, plugs and NVLink fingers inside ``rect`` (the card's footprint)."""
    if lod < DETAIL_PX_PER_MM or rect.width() < 40 or rect.height() < 8:
        return
    painter.save()
    if look.bracket:
        painter.setPen(QPen(QColor("#6b7280"), 0.4))
        painter.setBrush(QBrush(BRACKET))
        painter.drawRect(QRectF(rect.left() - BRACKET_MM, rect.top() - 1.5, BRACKET_MM, rect.height() + 3))
    body = rect.adjusted(BRACKET_MM + 2, 1.5, -26 if look.power_connectors else -4, -1.5)
    if look.cooling == "open-air":
        _fans(painter, body, count=3 if body.width() > 220 else 2)
    elif look.cooling == "blower":
        _fans(painter, QRectF(body.right() - body.height() * 1.2, body.top(), body.height() * 1.2, body.height()), 1)
        _fins(painter, QRectF(body.left(), body.top(), min(30.0, body.width() / 5), body.height()), spacing=2.5)
    elif look.cooling == "passive" or (look.cooling is None and look.bracket):
        _fins(painter, body, spacing=4.0)
    _plugs(painter, rect, look.power_connectors)
    if look.nvlink and rect.width() > NVLINK_AT_MM + 20:
        painter.setPen(QPen(QColor("#8a6d0b"), 0.3))
        painter.setBrush(QBrush(NVLINK_GOLD))
        painter.drawRect(QRectF(rect.left() + NVLINK_AT_MM - 12, rect.top() - 1.2, 24, 2.4))
    painter.restore()


def _fans(painter: QPainter, area: QRectF, count: int) -> None:
    diameter = min(area.height() - 2, area.width() / count - 4)
    if diameter < 6:
        return
    painter.setBrush(QBrush())
    step = area.width() / count
    for index in range(count):
        centre = QPointF(area.left() + step * (index + 0.5), area.center().y())
        painter.setPen(QPen(FAN_EDGE, 0.8))
        painter.drawEllipse(centre, diameter / 2, diameter / 2)
        painter.setPen(QPen(FIN, 0.6))
        painter.drawEllipse(centre, diameter / 6, diameter / 6)
        # Three blades, as a fan is drawn on a stencil.
        for dx, dy in ((0.0, -1.0), (0.87, 0.5), (-0.87, 0.5)):
            painter.drawLine(centre, QPointF(centre.x() + dx * diameter * 0.42, centre.y() + dy * diameter * 0.42))


def _fins(painter: QPainter, area: QRectF, spacing: float) -> None:
    painter.setPen(QPen(FIN, 0.5))
    x = area.left() + spacing
    while x < area.right():
        painter.drawLine(QPointF(x, area.top() + 1), QPointF(x, area.bottom() - 1))
        x += spacing


def _plugs(painter: QPainter, rect: QRectF, connectors: tuple[str, ...]) -> None:
    """One small block per power plug on the far end of the card, the 12V-2x6 kind narrower."""
    if not connectors:
        return
    painter.setPen(QPen(QColor("#9aa3ae"), 0.3))
    painter.setBrush(QBrush(PLUG))
    height = min(6.0, (rect.height() - 4) / max(1, len(connectors)))
    for index, connector in enumerate(connectors):
        width = 9.0 if connector in ("12vhpwr", "12v-2x6") else 12.0
        top = rect.top() + 2 + index * (height + 1)
        painter.drawRect(QRectF(rect.right() - width - 6, top, width, height - 0.5))
