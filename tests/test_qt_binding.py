"""The Qt binding must not leak references to None from Python overrides (it crashes long sessions)."""

from __future__ import annotations

import sys

from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot


class _Painted(QWidget):
    def paintEvent(self, event: QPaintEvent) -> None:
        pass


def test_overriding_paint_event_keeps_none_alive(qtbot: QtBot) -> None:
    # PySide6 6.12.0 decremented None's reference count on every call of a Python override of a
    # void virtual; on Python 3.11, where None is not immortal, the app then dies with
    # "none_dealloc". pyproject.toml keeps that release out; this catches a binding that regresses.
    widget = _Painted()
    qtbot.addWidget(widget)
    widget.show()
    widget.repaint()
    before = sys.getrefcount(None)
    for _ in range(200):
        widget.repaint()
    assert sys.getrefcount(None) >= before - 5
