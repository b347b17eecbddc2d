"""Text in a graphics scene drawn from a layout made once, not on every paint.

``QGraphicsSimpleTextItem`` shapes its text again each time it is painted, which on a board
with dozens of labels is a good part of a frame. ``QStaticText`` keeps the shaped glyphs and only
lays them out again when the text, the font or the view's scale changes.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QStaticText, QTransform
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget


def static_text(text: str) -> QStaticText:
    """Plain text (never read as HTML), line breaks kept, glyphs cached."""
    static = QStaticText(text.replace("\n", "\u2028"))
    static.setTextFormat(Qt.TextFormat.PlainText)
    static.setPerformanceHint(QStaticText.PerformanceHint.AggressiveCaching)
    return static


class StaticTextItem(QGraphicsItem):
    """A drop-in for ``QGraphicsSimpleTextItem`` (text, font, brush) that keeps its layout between paints."""

    def __init__(self, text: str = "", parent: QGraphicsItem | None = None) -> None:
        super().__init__(parent)
        self._text = ""
        self._font = QFont()
        self._brush = QBrush(QColor("black"))
        self._static = static_text("")
        self._rect = QRectF()
        self.setText(text)

    def text(self) -> str:
        return self._text

    def setText(self, text: str) -> None:
        if text == self._text and not self._rect.isNull():
            return
        self._text = text
        self._static = static_text(text)
        self._relayout()

    def font(self) -> QFont:
        return QFont(self._font)

    def setFont(self, font: QFont) -> None:
        self._font = QFont(font)
        self._relayout()

    def brush(self) -> QBrush:
        return QBrush(self._brush)

    def setBrush(self, brush: QBrush | QColor) -> None:
        self._brush = QBrush(brush)
        self.update()

    def prepare(self, transform: QTransform) -> None:
        """Lay the text out now for a view of this scale, so its first paint does not have to."""
        scale = QTransform(transform.m11(), transform.m12(), transform.m21(), transform.m22(), 0.0, 0.0)
        self._static.prepare(scale, self._font)

    def _relayout(self) -> None:
        self.prepareGeometryChange()
        # Measured, not laid out: the layout is made once, at the scale of the view that paints it.
        metrics = QFontMetricsF(self._font)
        lines = self._text.split("\n") if self._text else []
        width = max((metrics.horizontalAdvance(line) for line in lines), default=0.0)
        # As tall as the simple text item would be: whole lines of the font's height.
        self._rect = QRectF(0.0, 0.0, width, len(lines) * metrics.height())

    def boundingRect(self) -> QRectF:
        return self._rect

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        if not self._text:
            return
        painter.setFont(self._font)
        painter.setPen(self._brush.color())
        painter.drawStaticText(QPointF(0.0, 0.0), self._static)
