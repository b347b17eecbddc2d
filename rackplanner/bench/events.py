"""A drag and drop delivered to a widget as Qt delivers a real one (enter, move, drop), with no mouse."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QPoint, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QWidget

_ACTIONS = Qt.DropAction.CopyAction | Qt.DropAction.MoveAction


def _target(widget: QWidget) -> QWidget:
    return widget.viewport() if isinstance(widget, QAbstractScrollArea) else widget


def drag_over(widget: QWidget, mime: QMimeData, point: QPoint) -> bool:
    """Drag ``mime`` into a widget (a view's viewport) and over ``point``; True when the move is accepted."""
    target = _target(widget)
    buttons, modifiers = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    QApplication.sendEvent(target, QDragEnterEvent(point, _ACTIONS, mime, buttons, modifiers))
    move = QDragMoveEvent(point, _ACTIONS, mime, buttons, modifiers)
    QApplication.sendEvent(target, move)
    return move.isAccepted()


def drop_at(widget: QWidget, mime: QMimeData, point: QPoint) -> bool:
    """Drop ``mime`` at ``point`` (after ``drag_over``); True when the drop is accepted."""
    dropped = QDropEvent(point.toPointF(), _ACTIONS, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(_target(widget), dropped)
    return dropped.isAccepted()
