"""File → Export Image… and Copy Image: the board, the rack row or the block diagram as PNG or SVG.

The picture is the scene the view shows, drawn again at a fixed resolution (not a screen grab),
so it is sharp whatever the zoom and has no scroll bars or selection marks.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage
from PySide6.QtWidgets import QGraphicsView, QMessageBox

from rackplanner.core.errors import OutputError
from rackplanner.core.files import write_atomic
from rackplanner.core.ids import slug
from rackplanner.draw.images import scene_image, scene_png, scene_svg
from rackplanner.gui.canvases.machine import MachineCanvas
from rackplanner.gui.canvases.rack_row import RackRowCanvas
from rackplanner.gui.dialogs.save_path import PNG_FILTER, SVG_FILTER, ask_save_path, beside_the_plan

if TYPE_CHECKING:
    from rackplanner.gui.main_window import MainWindow

Drawing = Literal["centre", "diagram"]
# About 1,600 px across for a board or a rack row: sharp in a forum post, small enough for a ticket.
TARGET_WIDTH_PX = 1600
MAX_SIDE_PX = 8000


def drawing_view(window: MainWindow, which: Drawing) -> tuple[QGraphicsView, QRectF, str] | None:
    """The view, the scene rectangle worth showing and a name for the file; None when nothing is drawn."""
    if which == "diagram":
        dock = window.docks["BlockDiagramDock"]
        view = getattr(dock, "view", None)
        machine = window.document.plan.machine(window.document.current_machine)
        if view is None or machine is None or view.scene().sceneRect().isEmpty():
            return None
        return view, view.scene().sceneRect(), f"{machine.name} block diagram"
    widget = window.tabs.currentWidget()
    if isinstance(widget, MachineCanvas):
        widget.ensure_built()
        machine = window.document.plan.machine(widget.machine_id)
        target = widget.fit_target()
        if target is None or machine is None:
            return None
        return widget, target[0].adjusted(-target[1], -target[1], target[1], target[1]), machine.name
    if isinstance(widget, RackRowCanvas):
        target = widget.fit_target()
        if target is None:
            return None
        return widget, target[0].adjusted(-target[1], -target[1], target[1], target[1]), f"racks {widget.row}"
    return None


def _scale(rect: QRectF) -> float:
    scale = TARGET_WIDTH_PX / max(1.0, rect.width())
    return min(scale, MAX_SIDE_PX / max(1.0, rect.width()), MAX_SIDE_PX / max(1.0, rect.height()))


def _background(view: QGraphicsView) -> QColor:
    """The picture's ground: the view's own colour, or white where it has none."""
    brush = view.backgroundBrush()
    return brush.color() if brush.style() != Qt.BrushStyle.NoBrush else QColor("white")


def drawing_image(window: MainWindow, which: Drawing) -> QImage | None:
    """The drawing as an image about 1,600 px wide, on the view's background."""
    found = drawing_view(window, which)
    if found is None:
        return None
    view, rect, _name = found
    return scene_image(view.scene(), rect, _scale(rect), _background(view))


def write_drawing(window: MainWindow, which: Drawing, path: Path) -> Path:
    """Write the drawing to ``path`` as SVG (by its suffix) or PNG; atomically."""
    found = drawing_view(window, which)
    if found is None:
        raise OutputError("there is no drawing to export here")
    view, rect, name = found
    if path.suffix.lower() == ".svg":
        data = scene_svg(view.scene(), rect, _scale(rect), name)
    else:
        data = scene_png(view.scene(), rect, _scale(rect), _background(view))
    write_atomic(path, data)
    return path


def export_image(window: MainWindow, which: Drawing) -> Path | None:
    """Ask where, then write the drawing as PNG or SVG."""
    found = drawing_view(window, which)
    title = "Export image"
    if found is None:
        QMessageBox.information(window, title, "Nothing is drawn here yet.")
        return None
    default = beside_the_plan(window.document, f"{slug(found[2], 'drawing')}.png")
    path = ask_save_path(window, title, default, [PNG_FILTER, SVG_FILTER])
    if path is None:
        return None
    try:
        write_drawing(window, which, path)
    except (OutputError, OSError) as exc:
        QMessageBox.warning(window, title, str(exc))
        return None
    window.show_status(f"Wrote {found[2]} to {path.name}")
    return path


def copy_image(window: MainWindow, which: Drawing) -> bool:
    """Put the drawing on the clipboard as an image, for pasting into a post or a ticket."""
    image = drawing_image(window, which)
    if image is None:
        window.show_status("Nothing is drawn here to copy")
        return False
    QGuiApplication.clipboard().setImage(image)
    window.show_status(f"Copied the drawing ({image.width()} × {image.height()} px)")
    return True
