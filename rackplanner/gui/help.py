"""The Help menu's windows: About (version, catalog date and size), Keyboard shortcuts, and the guide."""

from __future__ import annotations

import html
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from rackplanner.core.catalog.loading import BUILTIN_CATALOG_DIR, Catalog

if TYPE_CHECKING:
    from rackplanner.gui.main_window import MainWindow

GUIDE = BUILTIN_CATALOG_DIR.parent / "README.md"
CATALOG_DATE_FILE = BUILTIN_CATALOG_DIR / "catalog-date.txt"


def app_version() -> str:
    try:
        return metadata.version("rackplanner")
    except metadata.PackageNotFoundError:
        return "unknown"


def catalog_date() -> str:
    """The date the built-in catalog's figures were last checked (catalog/catalog-date.txt)."""
    try:
        return CATALOG_DATE_FILE.read_text(encoding="utf-8").strip() or "unknown"
    except OSError:
        return "unknown"


def about_html(catalog: Catalog) -> str:
    parts = len(catalog.parts)
    skipped_count = len(catalog.problems)
    skipped = (
        f"<br>{skipped_count} entries of your own catalog were skipped (see the message at start)."
        if skipped_count
        else ""
    )
    return (
        f"<h2>rackplanner {html.escape(app_version())}</h2>"
        "<p>Plan ML hardware from one desk to one colo cage: GPUs in a board's slots, servers in racks, "
        "PCIe paths, power, capacity and cost.</p>"
        f"<p>Built-in catalog checked {html.escape(catalog_date())}: {parts:,} parts, every figure with its "
        f"source.{skipped}</p>"
    )


def shortcuts_html(actions: list[QAction]) -> str:
    """Every action with a shortcut, as a two-column table, in menu order."""
    rows = []
    for action in actions:
        keys = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts()]
        if not keys:
            continue
        name = action.text().replace("&", "").rstrip("…").strip()
        rows.append(f"<tr><td>{html.escape(name)}</td><td><b>{html.escape(', '.join(keys))}</b></td></tr>")
    rows += [
        "<tr><td>Zoom the drawing</td><td><b>Mouse wheel</b></td></tr>",
        "<tr><td>Move between slots or rack units</td><td><b>Arrow keys</b></td></tr>",
        "<tr><td>Add the selected catalog part</td><td><b>Enter</b> (or double-click)</td></tr>",
    ]
    return f'<table cellspacing="0" cellpadding="4">{"".join(rows)}</table>'


class TextWindow(QDialog):
    """A titled, scrolling text window with a Close button (non-modal)."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addWidget(buttons)
        self.resize(560, 460)


def show_about(window: MainWindow) -> TextWindow:
    dialog = TextWindow("About rackplanner", window)
    dialog.browser.setHtml(about_html(window.document.catalog))
    dialog.resize(460, 260)
    dialog.show()
    return dialog


def show_shortcuts(window: MainWindow) -> TextWindow:
    dialog = TextWindow("Keyboard shortcuts", window)
    dialog.browser.setHtml(shortcuts_html(list(window.actions_by_name.values())))
    dialog.show()
    return dialog


def show_guide(window: MainWindow, guide: Path = GUIDE) -> TextWindow:
    dialog = TextWindow("rackplanner guide", window)
    try:
        dialog.browser.setMarkdown(guide.read_text(encoding="utf-8"))
    except OSError as exc:
        dialog.browser.setPlainText(f"The guide ({guide}) could not be read: {exc}")
    dialog.resize(760, 640)
    dialog.show()
    return dialog
