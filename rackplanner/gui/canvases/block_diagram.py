"""The view of the block diagram: fitted to its dock until the user zooms; clicking a device reports its slot."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QMouseEvent,
    QPainter,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QGraphicsView,
    QWidget,
)

from rackplanner.draw.block_diagram.items import DiagramBox
from rackplanner.draw.block_diagram.scene import DiagramScene
from rackplanner.gui.canvases.zoom_view import ZoomView


class DiagramView(ZoomView):
    """Shows the scene fitted to the dock until the user zooms; clicking a device reports its slot."""

    device_clicked = Signal(str)
    resized = Signal()
    min_scale = 0.05
    max_scale = 4.0

    def __init__(self, scene: DiagramScene, parent: QWidget | None = None) -> None:
        super().__init__(scene, parent)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setBackgroundBrush(QBrush(self.palette().base()))
        self.auto_fit = True

    def fit(self) -> None:
        self.auto_fit = True
        rect = self.sceneRect()
        if rect.isEmpty():
            return
        self.resetTransform()
        scale = self.scale_for(rect)
        self.scale(scale, scale)
        self.centerOn(rect.center())

    def scale_for(self, rect: QRectF) -> float:
        """The scale the view shows a scene of this size at: fitted, or as the user zoomed it."""
        if not self.auto_fit:
            return self.transform().m11()
        view = self.viewport().rect()
        return min(view.width() / rect.width(), view.height() / rect.height(), 1.0) * 0.98

    def zoom(self, factor: float) -> None:
        self.auto_fit = False
        super().zoom(factor)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.auto_fit:
            self.fit()
            self.resized.emit()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            item = self.itemAt(event.position().toPoint())
            while item is not None and not isinstance(item, DiagramBox):
                item = item.parentItem()
            if isinstance(item, DiagramBox) and item.node.slot:
                self.device_clicked.emit(item.node.slot)
                event.accept()
                return
        super().mousePressEvent(event)
