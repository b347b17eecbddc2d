"""Rack elevations as SVG or PNG files: the front and rear of each rack, drawn as the app and the PDF draw them.

The picture is the report's own: ``Drawings.rack`` builds the rack row with the app's painters
and gives the part of the scene the PDF prints, which is rendered here into an SVG generator or
an image instead of a PDF page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.errors import InputError, OutputError
from rackplanner.core.files import ensure_folder, shown, write_atomic
from rackplanner.core.plan.model import Plan
from rackplanner.draw.images import scene_png, scene_svg
from rackplanner.report.drawings import Drawings
from rackplanner.report.export import ensure_application

ImageFormat = Literal["svg", "png"]
FORMATS: tuple[ImageFormat, ...] = ("svg", "png")
PNG_PX_PER_MM = 0.75  # a 42 U rack about 1,500 px tall: U numbers and labels readable, files small


def write_elevations(plan: Plan, catalog: Catalog, folder: Path, image_format: ImageFormat) -> list[Path]:
    """One file per rack, ``<rack id>.<format>`` in ``folder`` (created if missing); the paths written."""
    if not plan.racks:
        raise InputError("the plan has no racks to draw")
    ensure_application()
    ensure_folder(folder, "each rack's elevations")
    drawings = Drawings(plan, catalog)
    written = []
    try:
        for rack in plan.racks:
            path = folder / f"{rack.id}.{image_format}"
            written.append(_write(drawings, rack.id, path, image_format))
    finally:
        drawings.close()
    return written


def write_elevation(plan: Plan, catalog: Catalog, rack_id: str, path: Path) -> Path:
    """One rack's elevation into ``path``; the format from its suffix (``.svg`` or ``.png``)."""
    suffix = path.suffix.lower()
    image_format: ImageFormat
    if suffix == ".svg":
        image_format = "svg"
    elif suffix == ".png":
        image_format = "png"
    else:
        raise OutputError(f"{shown(path)}: an elevation is written as .svg or .png")
    ensure_application()
    drawings = Drawings(plan, catalog)
    try:
        return _write(drawings, rack_id, path, image_format)
    finally:
        drawings.close()


def _write(drawings: Drawings, rack_id: str, path: Path, image_format: ImageFormat) -> Path:
    drawn = drawings.rack(rack_id)
    if drawn is None:
        raise InputError(f"rack {rack_id!r} is not in the plan")
    scene, source = drawn
    if image_format == "svg":
        data = scene_svg(scene, source, PNG_PX_PER_MM, "Rack elevation, front and rear")
    else:
        data = scene_png(scene, source, PNG_PX_PER_MM)
    write_atomic(path, data)
    return path
