"""Light or dark, as the desktop is: the window's palette and style sheet follow the system's colour scheme.

The drawings keep their own colours in both (they are the ones the PDF prints on white paper);
in the dark theme their background is a dimmed grey so they do not glare beside dark docks.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from rackplanner.core.catalog.loading import BUILTIN_CATALOG_DIR

RESOURCES = BUILTIN_CATALOG_DIR.parent / "resources"
STYLE_SHEETS = {False: RESOURCES / "style.qss", True: RESOURCES / "style-dark.qss"}
# Canvas backgrounds by theme: the light one is each canvas's own colour.
DARK_CANVAS = "#c9ced6"

_forced: bool | None = None  # a theme set by hand (tests, or a setting), else the system's


def system_is_dark() -> bool:
    hints = QGuiApplication.styleHints()
    return hints is not None and hints.colorScheme() == Qt.ColorScheme.Dark


def is_dark() -> bool:
    return system_is_dark() if _forced is None else _forced


def dark_palette() -> QPalette:
    """Fusion's palette in dark greys with a blue highlight; disabled text dimmed."""
    palette = QPalette()
    colours = {
        QPalette.ColorRole.Window: "#1f2227",
        QPalette.ColorRole.WindowText: "#e6e8eb",
        QPalette.ColorRole.Base: "#181a1e",
        QPalette.ColorRole.AlternateBase: "#272b31",
        QPalette.ColorRole.ToolTipBase: "#2b2f36",
        QPalette.ColorRole.ToolTipText: "#e6e8eb",
        QPalette.ColorRole.Text: "#e6e8eb",
        QPalette.ColorRole.Button: "#2b2f36",
        QPalette.ColorRole.ButtonText: "#e6e8eb",
        QPalette.ColorRole.BrightText: "#ff6b6b",
        QPalette.ColorRole.Link: "#6cb4ff",
        QPalette.ColorRole.Highlight: "#3d7bd9",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.PlaceholderText: "#8a9099",
        QPalette.ColorRole.Mid: "#3a3f47",
        QPalette.ColorRole.Dark: "#15171a",
        QPalette.ColorRole.Light: "#3a3f47",
    }
    for role, colour in colours.items():
        palette.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText, QPalette.ColorRole.WindowText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#6b717a"))
    return palette


def apply_theme(app: QApplication, dark: bool | None = None) -> bool:
    """Set the palette and style sheet for ``dark`` (the system's scheme when None); True when dark."""
    global _forced
    _forced = dark
    dark_now = is_dark()
    app.setPalette(dark_palette() if dark_now else app.style().standardPalette())
    sheet: Path = STYLE_SHEETS[dark_now]
    if sheet.exists():
        app.setStyleSheet(sheet.read_text(encoding="utf-8"))
    return dark_now


def canvas_background(light: str) -> str:
    """A canvas's background in the current theme (``light`` is its light-theme colour)."""
    return DARK_CANVAS if is_dark() else light


_following = False


def follow_system(app: QApplication) -> None:
    """Switch theme when the desktop does (unless a theme was set by hand); connected once."""
    global _following
    hints = QGuiApplication.styleHints()
    if hints is not None and not _following:
        _following = True
        hints.colorSchemeChanged.connect(lambda _scheme: _forced is None and apply_theme(app))
