"""Docks that redraw from the plan only while the user can see them."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QScrollArea, QTableWidget, QWidget


class LiveDock(QDockWidget):
    """A dock that is redrawn when shown; hidden or tabbed away behind another, it only notes it is stale.

    Subclasses implement ``refresh`` (which clears ``_dirty``) and call ``refresh_when_visible``
    when the plan changes in a way they show.
    """

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(title, parent)
        self._dirty = True
        # Qt says a dock tabbed behind another is still visible; its visibilityChanged signal
        # tells the truth, so the last one it sent is kept (None until it sends one).
        self._shown: bool | None = None
        self.visibilityChanged.connect(self._on_visibility_changed)

    def is_showing(self) -> bool:
        """On screen, not hidden and not tabbed away behind another dock."""
        if self._shown is None and self.isVisible():
            # No signal yet (docks tabbed together before the window was shown): ask the tab bar.
            return not self._behind_another_tab()
        return self.isVisible() and self._shown is not False

    def _behind_another_tab(self) -> bool:
        window = self.parentWidget()
        if not isinstance(window, QMainWindow):
            return False
        return any(not other.visibleRegion().isEmpty() for other in window.tabifiedDockWidgets(self)) and (
            self.visibleRegion().isEmpty()
        )

    def refresh(self) -> None:
        raise NotImplementedError

    def refresh_when_visible(self) -> None:
        self._dirty = True
        if self.is_showing():
            self.refresh()

    def _on_visibility_changed(self, visible: bool) -> None:
        self._shown = visible
        if visible and self._dirty:
            self.refresh()


def scrolling(body: QWidget) -> QScrollArea:
    """``body`` in a frameless scroll area: a dock's content scrolls rather than forcing the window taller."""
    scroll = QScrollArea()
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QScrollArea.Shape.NoFrame)
    scroll.setWidget(body)
    return scroll


def fit_table_height(table: QTableWidget) -> None:
    """Show every row of a table in a dock without an inner scroll bar; the dock scrolls as a whole."""
    header = table.horizontalHeader()
    height = (0 if header.isHidden() else header.sizeHint().height()) + 2 * table.frameWidth()
    height += sum(table.rowHeight(r) for r in range(table.rowCount()))
    if table.horizontalScrollBar().isVisible():
        height += table.horizontalScrollBar().height()
    table.setFixedHeight(height)


def wrapped_label() -> QLabel:
    """A label for figures: wraps, and its text can be selected and copied."""
    label = QLabel()
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def note_label() -> QLabel:
    """A wrapped label in the muted colour of a note."""
    label = wrapped_label()
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    return label
