"""The block diagram view: fitted to its dock, never unreadably small, until the user zooms; a click reports a slot."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import (
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
        self.set_background("#ffffff")
        self.follow_user_panning()

    # The opening scale never goes below this (the dock scrolls instead), nor below the scale at
    # which the diagram's text is READABLE_TEXT_PX high on screen.
    MIN_OPEN_SCALE = 0.6
    READABLE_TEXT_PX = 7.0

    def refit(self) -> None:
        rect = self.sceneRect()
        if rect.isEmpty():
            return
        self.resetTransform()
        scale = self.scale_for(rect)
        self.scale(scale, scale)
        view = self.viewport().rect()
        # Too large to fit at a readable scale: start at the top (the CPUs), centred across.
        top = rect.top() + view.height() / (2 * scale)
        self.centerOn(rect.center().x(), min(rect.center().y(), top))

    def readable_scale(self) -> float:
        """The smallest scale at which the diagram's text is still readable."""
        text_px = self.font().pixelSize() if self.font().pixelSize() > 0 else self.fontInfo().pixelSize()
        return max(self.MIN_OPEN_SCALE, self.READABLE_TEXT_PX / max(1.0, text_px))

    def scale_for(self, rect: QRectF) -> float:
        """The scale the view shows a scene of this size at: fitted (but readable), or as the user zoomed it."""
        if not self.auto_fit:
            return self.transform().m11()
        view = self.viewport().rect()
        fitted = min(view.width() / rect.width(), view.height() / rect.height(), 1.0) * 0.98
        return max(fitted, self.readable_scale())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.auto_fit:
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
