"""Ask where to write a picture: the save dialog with its filters, and the suffix the chosen filter implies."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

from rackplanner.gui.document import PlanDocument

SVG_FILTER = ("SVG drawing (*.svg)", ".svg")
PNG_FILTER = ("PNG image (*.png)", ".png")


def beside_the_plan(document: PlanDocument, name: str) -> Path:
    """A default file name in the plan's folder (the home folder for an unsaved plan)."""
    folder = document.path.parent if document.path is not None else Path.home()
    return folder / name


def ask_save_path(parent: QWidget, title: str, default: Path, filters: list[tuple[str, str]]) -> Path | None:
    """The path the user chose, with the chosen filter's suffix added when the name has none it takes."""
    name, chosen = QFileDialog.getSaveFileName(parent, title, str(default), ";;".join(f for f, _ in filters))
    if not name:
        return None
    path = Path(name)
    if path.suffix.lower() not in {suffix for _, suffix in filters}:
        path = path.with_suffix(dict(filters).get(chosen, filters[0][1]))
    return path
