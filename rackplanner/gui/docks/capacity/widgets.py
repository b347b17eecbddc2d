"""Small widgets the capacity dock's parts share: wrapped labels and notes, a column that fills its dock."""

from __future__ import annotations

from PySide6.QtCore import (
    Qt,
)
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QLabel,
    QVBoxLayout,
)


class FillLayout(QVBoxLayout):
    """A column that does not report height-for-width: a scroll area would otherwise give it
    its preferred height (table and plot at full size) and scroll, instead of fitting it to
    the dock and scrolling only below the minimum."""

    def hasHeightForWidth(self) -> bool:
        return False


def wrapped_label() -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def note_label() -> QLabel:
    label = wrapped_label()
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    return label
