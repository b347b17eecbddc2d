"""What the board and server editors share: the form beside a live drawing, and Save to the user's catalog."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QMessageBox, QSplitter, QVBoxLayout, QWidget

from rackplanner.core.catalog.loading import reload_catalog, user_catalog_dir
from rackplanner.core.catalog.parts import Part
from rackplanner.core.catalog.user_entries import save_part
from rackplanner.core.errors import InputError
from rackplanner.gui.canvases.zoom_view import ZoomView
from rackplanner.gui.document import PlanDocument


class PreviewView(ZoomView):
    """The draft's drawing, kept fitted."""

    def fit_target(self) -> tuple[QRectF, float] | None:
        scene = self.scene()
        return (scene.itemsBoundingRect(), 8.0) if scene is not None and scene.items() else None


def field_text(value: object) -> str:
    """A catalog value as a form shows it (a list joined with "; ")."""
    if isinstance(value, list):
        return "; ".join(str(v) for v in value)
    return "" if value is None else str(value)


class EntryEditor(QDialog):
    """A catalog entry's form (``left``) beside its drawing, with Save and Cancel."""

    # "board", "server": in titles and messages.
    noun = "entry"

    def __init__(self, document: PlanDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.noun.capitalize())
        self.document = document
        self.draft: Part | None = None
        self.saved_path: Path | None = None
        self.view = PreviewView()
        self.view.setup_canvas("#eef1f4")
        self.scene = self.view.scene()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)

    def place(self, left: QWidget, sizes: tuple[int, int], size: tuple[int, int]) -> None:
        """Lay the form and the drawing side by side above the buttons."""
        splitter = QSplitter()
        splitter.addWidget(left)
        splitter.addWidget(self.view)
        splitter.setSizes(list(sizes))
        layout = QVBoxLayout(self)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.buttons)
        self.resize(*size)

    def save(self) -> None:
        """Write the draft to the user's catalog, reload the catalog, and close."""
        if self.draft is None:
            return
        title = f"Save {self.noun}"
        origin = self.document.catalog.origins.get(self.draft.id)
        if origin is not None and origin.path.parent != user_catalog_dir():
            answer = QMessageBox.question(
                self,
                title,
                f"{self.draft.id} is a built-in {self.noun}; your entry will replace it. Save anyway?",
            )
            if answer != QMessageBox.StandardButton.Yes:
                return
        try:
            self.saved_path = save_part(self.draft, user_catalog_dir())
            self.document.set_catalog(reload_catalog(self.document.catalog))
        except (InputError, OSError) as exc:
            QMessageBox.warning(self, title, str(exc))
            return
        self.accept()
