"""A graphics view that zooms with the mouse wheel: the base of every drawing in the app."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QWheelEvent
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView

WHEEL_STEP = 1.15  # zoom factor per wheel notch


class ZoomView(QGraphicsView):
    """Zooms 15% a wheel notch within ``min_scale``..``max_scale``; ``fit_rect`` shows a whole rectangle."""

    min_scale = 0.01
    max_scale = 20.0

    def setup_canvas(self, background: str) -> None:
        """A scene of its own, smooth drawing, drops accepted, rubber-band selection, zoom under the mouse."""
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setAcceptDrops(True)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setBackgroundBrush(QBrush(QColor(background)))

    def zoom(self, factor: float) -> None:
        current = self.transform().m11() or 1.0
        factor = max(self.min_scale / current, min(self.max_scale / current, factor))
        self.scale(factor, factor)

    def wheelEvent(self, event: QWheelEvent) -> None:
        steps = event.angleDelta().y() / 120
        if steps:
            self.zoom(WHEEL_STEP**steps)
        event.accept()

    def fit_rect(self, rect: QRectF, margin: float) -> bool:
        """Fit ``rect`` (plus a margin) into the view; False when there is nothing to show."""
        if rect.isEmpty():
            return False
        self.fitInView(rect.adjusted(-margin, -margin, margin, margin), Qt.AspectRatioMode.KeepAspectRatio)
        return True
