"""A graphics view that zooms with the wheel and keeps its drawing fitted: the base of every drawing in the app."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QMouseEvent, QPainter, QResizeEvent, QShowEvent, QWheelEvent
from PySide6.QtWidgets import QAbstractSlider, QGraphicsScene, QGraphicsView

from rackplanner.gui.theme import canvas_background

WHEEL_STEP = 1.15  # zoom factor per wheel notch


class ZoomView(QGraphicsView):
    """Zooms 15% a wheel notch within ``min_scale``..``max_scale``.

    The view opens fitted to ``fit_target`` and refits whenever its size changes, until the user
    zooms or pans; ``fit`` (Ctrl+0) returns to that mode.
    """

    min_scale = 0.01
    max_scale = 20.0
    # True while the view keeps its drawing fitted (until the user zooms or pans).
    auto_fit = True
    # The canvas colour in the light theme (None: the view keeps Qt's background).
    _light_background: str | None = None

    def setup_canvas(self, background: str) -> None:
        """A scene of its own, smooth drawing, drops accepted, rubber-band selection, zoom under the mouse."""
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setAcceptDrops(True)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.set_background(background)
        self.follow_user_panning()

    def set_background(self, background: str) -> None:
        """The canvas colour in the light theme; the dark theme dims it (see ``theme``)."""
        self._light_background = background
        self.setBackgroundBrush(QBrush(QColor(canvas_background(background))))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self._light_background is not None:
            self.setBackgroundBrush(QBrush(QColor(canvas_background(self._light_background))))

    def follow_user_panning(self) -> None:
        """Scrolling by hand (scroll bars, keys) ends auto-fit; scrolling by the view itself does not."""
        for bar in (self.horizontalScrollBar(), self.verticalScrollBar()):
            bar.actionTriggered.connect(self._user_scrolled)

    def _user_scrolled(self, action: int) -> None:
        if action != QAbstractSlider.SliderAction.SliderNoAction.value:
            self.auto_fit = False

    def fit_target(self) -> tuple[QRectF, float] | None:
        """The scene rectangle to keep fitted and its margin; None for nothing to show."""
        return None

    def fit(self) -> None:
        """Fit the drawing to the view and keep it fitted (Ctrl+0)."""
        self.auto_fit = True
        self.refit()

    def refit(self) -> None:
        target = self.fit_target()
        if target is not None:
            self.fit_rect(*target)

    def zoom(self, factor: float) -> None:
        self.auto_fit = False
        # Zoomed in, the whole scene scrolls (not only the rectangle that was fitted).
        self.setSceneRect(QRectF())
        current = self.transform().m11() or 1.0
        factor = max(self.min_scale / current, min(self.max_scale / current, factor))
        self.scale(factor, factor)

    def wheelEvent(self, event: QWheelEvent) -> None:
        steps = event.angleDelta().y() / 120
        if steps:
            self.zoom(WHEEL_STEP**steps)
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self.dragMode() == QGraphicsView.DragMode.ScrollHandDrag and event.buttons() & Qt.MouseButton.LeftButton:
            self.auto_fit = False
        super().mouseMoveEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        # The first fit can run before the view has its real size: every resize fits again.
        if self.auto_fit:
            self.refit()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.auto_fit:
            self.refit()

    def fit_rect(self, rect: QRectF, margin: float) -> bool:
        """Fit ``rect`` (plus a margin) into the view; False when there is nothing to show."""
        if rect.isEmpty():
            return False
        shown = rect.adjusted(-margin, -margin, margin, margin)
        # The view scrolls over the fitted rectangle only, so no scroll bar appears and takes room.
        self.setSceneRect(shown)
        self.fitInView(shown, Qt.AspectRatioMode.KeepAspectRatio)
        return True
