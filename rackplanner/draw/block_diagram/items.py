"""The scene items of a block diagram: boxes and link labels that draw their own pre-shaped text."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QPainter,
    QPainterPath,
    QStaticText,
)
from PySide6.QtWidgets import (
    QGraphicsPathItem,
    QGraphicsRectItem,
    QStyleOptionGraphicsItem,
    QWidget,
)

from rackplanner.draw import colors
from rackplanner.draw.block_diagram.layout import RADIUS
from rackplanner.draw.block_diagram.tree import DEVICE_KINDS, DiagramNode
from rackplanner.draw.static_text import StaticTextItem, static_text


@dataclass(frozen=True)
class SceneText:
    top_left: QPointF
    text: str
    font: QFont
    color: QColor
    # Shaped once and kept: drawing it again costs no text layout.
    static: QStaticText = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "static", static_text(self.text))


def draw_texts(painter: QPainter, texts: list[SceneText]) -> None:
    for line in texts:
        painter.setFont(line.font)
        painter.setPen(line.color)
        painter.drawStaticText(line.top_left, line.static)


class TextPath(QGraphicsPathItem):
    """A shape that draws its own lines of text: one item per box rather than one per line keeps a rebuild quick."""

    def __init__(self, path: QPainterPath | None = None) -> None:
        super().__init__(path) if path is not None else super().__init__()
        self.texts: list[SceneText] = []

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        super().paint(painter, option, widget)
        draw_texts(painter, self.texts)


class LinkLabel(QGraphicsRectItem):
    """A link label: a plain background with its lines of text."""

    def __init__(self, rect: QRectF) -> None:
        super().__init__(rect)
        self.texts: list[SceneText] = []

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        super().paint(painter, option, widget)
        draw_texts(painter, self.texts)


class DiagramBox(TextPath):
    """A rounded box of the diagram; devices carry their slot and name."""

    def __init__(self, node: DiagramNode, rect: QRectF) -> None:
        path = QPainterPath()
        path.addRoundedRect(rect, RADIUS, RADIUS)
        super().__init__(path)
        self.node = node
        self.badge: StaticTextItem | None = None
        self.setToolTip(node.tooltip)
        self.setZValue(3)
        if node.kind in DEVICE_KINDS:
            self.setCursor(Qt.CursorShape.PointingHandCursor)

    @property
    def kind(self) -> str:
        return self.node.kind

    def fill(self) -> QColor:
        return self.brush().color()


BASE_FILL = {
    "socket": colors.SOCKET_FILL,
    "root": colors.ROOT_FILL,
    "switch": colors.SWITCH_FILL,
    "chipset": colors.CHIPSET_FILL,
}
