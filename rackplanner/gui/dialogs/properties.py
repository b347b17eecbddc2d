"""A part's properties: every figure the catalog has for it and where each comes from."""

from __future__ import annotations

import html

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from rackplanner.core.catalog.loading import Catalog


def properties_html(catalog: Catalog, part_id: str) -> str:
    """The part's specification (as the catalog's tooltip gives it), its notes and its file."""
    from rackplanner.gui.docks.palette import part_tooltip

    part = catalog.get(part_id)
    if part is None:
        return f"<p>{html.escape(part_id)} is not in the catalog.</p>"
    notes = f"<h4>Notes</h4><p>{html.escape(part.notes)}</p>" if part.notes else ""
    origin = catalog.origins.get(part_id)
    where = f"<p><i>From {html.escape(str(origin.path))}, entry {origin.index + 1}</i></p>" if origin else ""
    return part_tooltip(part) + notes + where


class PropertiesDialog(QDialog):
    """Non-modal: several parts' properties can be open side by side."""

    def __init__(self, catalog: Catalog, part_id: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        part = catalog.get(part_id)
        self.setWindowTitle(f"Properties · {part.label if part else part_id}")
        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(True)
        self.browser.setHtml(properties_html(catalog, part_id))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addWidget(buttons)
        self.resize(520, 480)
