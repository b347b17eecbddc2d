"""File → Export Elevation…: the current rack, front and rear, as an SVG or a PNG."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFileDialog, QMessageBox

from rackplanner.core.errors import InputError, OutputError
from rackplanner.core.ids import slug

if TYPE_CHECKING:
    from rackplanner.gui.main_window import MainWindow

SVG_FILTER = "SVG drawing (*.svg)"
PNG_FILTER = "PNG image (*.png)"
TITLE = "Export elevation"


def export_elevation(window: MainWindow) -> Path | None:
    """Ask where, then write the rack the rack docks show (the first rack if none is chosen)."""
    doc = window.document
    rack = doc.plan.rack(doc.current_rack) or (doc.plan.racks[0] if doc.plan.racks else None)
    if rack is None:
        QMessageBox.information(window, TITLE, "The plan has no racks yet: add one from Rack → Add Rack….")
        return None
    stem = doc.path.stem if doc.path is not None else slug(doc.plan.name, "plan")
    folder = doc.path.parent if doc.path is not None else Path.home()
    default = folder / f"{stem}-{rack.id}.svg"
    name, chosen = QFileDialog.getSaveFileName(
        window, f"Export elevation of {rack.name}", str(default), f"{SVG_FILTER};;{PNG_FILTER}"
    )
    if not name:
        return None
    path = Path(name)
    if path.suffix.lower() not in (".svg", ".png"):
        path = path.with_suffix(".png" if chosen == PNG_FILTER else ".svg")
    from rackplanner.report.elevations import write_elevation

    try:
        write_elevation(doc.plan, doc.catalog, rack.id, path)
    except (InputError, OutputError, OSError) as exc:
        QMessageBox.warning(window, TITLE, str(exc))
        return None
    window.show_status(f"Wrote the elevation of {rack.name} to {path.name}")
    return path
