"""Helpers for driving the app's real widgets in tests: drops through the event path, isolated windows."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TypeVar

from PySide6.QtCore import QMimeData, QPoint, QPointF, QSettings
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from rackplanner.bench.events import drag_over, drop_at
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan.files import load_plan
from rackplanner.gui.app import application
from rackplanner.gui.canvases.machine import MachineCanvas
from rackplanner.gui.main_window import MainWindow, open_window

W = TypeVar("W", bound=QWidget)


def shown_dock(qtbot: QtBot, dock: W, size: tuple[int, int]) -> W:
    """A dock on its own, kept for pytest-qt to close, at ``size``, shown and exposed."""
    qtbot.addWidget(dock)
    dock.resize(*size)
    dock.show()
    qtbot.waitExposed(dock)
    return dock


def screenshot_dir(tmp_path: Path) -> Path:
    """Where tests save screenshots: ``$RACKPLANNER_SHOTS`` or the test's temporary folder."""
    folder = Path(os.environ.get("RACKPLANNER_SHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def make_window(tmp_path: Path, catalog: Catalog, example: Path | None) -> MainWindow:
    """A main window on an example plan with its own settings file (nothing of the user's is touched)."""
    application()
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    plan = load_plan(example, catalog) if example else None
    from rackplanner.core.plan.model import Plan

    window = open_window(catalog, plan or Plan(name="Empty"), example, settings)
    window.resize(1366, 768)
    return window


def keep(qtbot: QtBot, window: MainWindow) -> None:
    """Let pytest-qt close the window after the test without the unsaved-changes question."""
    qtbot.addWidget(window, before_close_func=lambda w: window.document.undo_stack.setClean())


def shown_window(qtbot: QtBot, tmp_path: Path, catalog: Catalog, example: Path | None) -> MainWindow:
    """``make_window``, kept for pytest-qt to close, shown and exposed."""
    window = make_window(tmp_path, catalog, example)
    keep(qtbot, window)
    window.show()
    qtbot.waitExposed(window)
    return window


def board_point(canvas: MachineCanvas) -> QPoint:
    """A point on the board away from every slot (its title corner)."""
    canvas.ensure_built()
    return canvas.mapFromScene(canvas.board_rect.topLeft() + QPointF(6, 4))


def slot_point(canvas: MachineCanvas, slot_id: str) -> QPoint:
    """The viewport position of a slot's centre."""
    canvas.ensure_built()
    return canvas.mapFromScene(canvas.slot_items[slot_id].sceneBoundingRect().center())


def drop(widget: QWidget, mime: QMimeData, point: QPoint) -> tuple[bool, bool]:
    """Drag ``mime`` into a widget (a view's viewport), over ``point``, and drop it, as Qt delivers a real drag.

    Returns (move accepted, drop accepted).
    """
    moved = drag_over(widget, mime, point)
    return moved, drop_at(widget, mime, point)
