"""A part's properties: every figure the catalog has for it and where each comes from."""

from __future__ import annotations

import html

from PySide6.QtWidgets import QWidget

from rackplanner.core.catalog.loading import Catalog
from rackplanner.gui.help import TextWindow


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


class PropertiesDialog(TextWindow):
    """Non-modal: several parts' properties can be open side by side."""

    def __init__(self, catalog: Catalog, part_id: str, parent: QWidget | None = None) -> None:
        part = catalog.get(part_id)
        super().__init__(f"Properties · {part.label if part else part_id}", parent)
        self.browser.setHtml(properties_html(catalog, part_id))
        self.resize(520, 480)
