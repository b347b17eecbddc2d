"""A graphics view that zooms with the mouse wheel: the base of every drawing in the app."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QGraphicsView

WHEEL_STEP = 1.15  # zoom factor per wheel notch


class ZoomView(QGraphicsView):
    """Zooms 15% a wheel notch within ``min_scale``..``max_scale``; ``fit_rect`` shows a whole rectangle."""

    min_scale = 0.01
    max_scale = 20.0

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
