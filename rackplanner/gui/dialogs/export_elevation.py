"""File → Export Elevation…: the current rack, front and rear, as an SVG or a PNG."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMessageBox

from rackplanner.core.errors import InputError, OutputError
from rackplanner.core.ids import slug
from rackplanner.gui.dialogs.save_path import PNG_FILTER, SVG_FILTER, ask_save_path, beside_the_plan

if TYPE_CHECKING:
    from rackplanner.gui.main_window import MainWindow

TITLE = "Export elevation"


def export_elevation(window: MainWindow) -> Path | None:
    """Ask where, then write the rack the rack docks show (the first rack if none is chosen)."""
    doc = window.document
    rack = doc.plan.rack(doc.current_rack) or (doc.plan.racks[0] if doc.plan.racks else None)
    if rack is None:
        QMessageBox.information(window, TITLE, "The plan has no racks yet: add one from Rack → Add Rack….")
        return None
    stem = doc.path.stem if doc.path is not None else slug(doc.plan.name, "plan")
    default = beside_the_plan(doc, f"{stem}-{rack.id}.svg")
    path = ask_save_path(window, f"Export elevation of {rack.name}", default, [SVG_FILTER, PNG_FILTER])
    if path is None:
        return None
    from rackplanner.report.elevations import write_elevation

    try:
        write_elevation(doc.plan, doc.catalog, rack.id, path)
    except (InputError, OutputError, OSError) as exc:
        QMessageBox.warning(window, TITLE, str(exc))
        return None
    window.show_status(f"Wrote the elevation of {rack.name} to {path.name}")
    return path
