"""The welcome view, shown when the plan has no machines: the examples to open, and where to start one.

A board or a server dropped on it starts a machine, as on an empty canvas.
"""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QCommandLinkButton, QFrame, QLabel, QScrollArea, QVBoxLayout, QWidget

from rackplanner.core.catalog.loading import BUILTIN_CATALOG_DIR
from rackplanner.core.catalog.parts import Board, Server
from rackplanner.core.plan import edits
from rackplanner.gui.document import PlanDocument
from rackplanner.gui.mime import part_from_mime

EXAMPLES_DIR = BUILTIN_CATALOG_DIR.parent / "resources" / "examples"
# The examples in the order a new user meets them; others in the folder follow by name.
EXAMPLE_ORDER = ("home-rig-2x3090", "sys-4028gr-trt2-8gpu", "colo-rack", "teaching-mistakes")


def examples(folder: Path = EXAMPLES_DIR) -> list[tuple[Path, str, str]]:
    """Each example plan's path, name and notes (first sentence); unreadable files are left out."""
    found = []
    paths = sorted(folder.glob("*.json"), key=lambda p: (p.stem not in EXAMPLE_ORDER, _order(p.stem), p.stem))
    for path in paths:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict):
            continue
        name = str(data.get("name") or path.stem)
        notes = str(data.get("notes") or "")
        found.append((path, name, notes.split(". ")[0].rstrip(".") + "." if notes else ""))
    return found


def _order(stem: str) -> int:
    return EXAMPLE_ORDER.index(stem) if stem in EXAMPLE_ORDER else len(EXAMPLE_ORDER)


class WelcomeView(QScrollArea):
    """What to do first: open an example, open a plan, or drag a board or server here."""

    open_requested = Signal(Path)
    open_dialog_requested = Signal()

    def __init__(self, document: PlanDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.setObjectName("welcome-view")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setAcceptDrops(True)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(40, 32, 40, 32)
        layout.setSpacing(8)
        title = QLabel("Welcome to rackplanner")
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.8)
        font.setBold(True)
        title.setFont(font)
        layout.addWidget(title)
        intro = QLabel(
            "This plan has no machines yet. Drag a board or a server from the catalog on the left "
            "into this space to start one, or open one of the examples to see what the app checks."
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.example_buttons: dict[Path, QCommandLinkButton] = {}
        for path, name, notes in examples():
            button = QCommandLinkButton(name, notes)
            button.setToolTip(str(path))
            button.clicked.connect(lambda _checked=False, p=path: self.open_requested.emit(p))
            layout.addWidget(button)
            self.example_buttons[path] = button
        self.open_button = QCommandLinkButton("Open a plan…", "A plan file you saved before (Ctrl+O).")
        self.open_button.clicked.connect(self.open_dialog_requested)
        layout.addWidget(self.open_button)
        layout.addStretch(1)
        body.setMaximumWidth(760)
        self.setWidget(body)
        self.setAlignment(Qt.AlignmentFlag.AlignHCenter)

    def _part(self, event: QDropEvent | QDragEnterEvent) -> Board | Server | None:
        part_id = part_from_mime(event.mimeData())
        part = self.document.catalog.get(part_id) if part_id else None
        return part if isinstance(part, (Board, Server)) else None

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        event.setAccepted(self._part(event) is not None)

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        event.setAccepted(self._part(event) is not None)

    def dropEvent(self, event: QDropEvent) -> None:
        part = self._part(event)
        if part is None:
            event.ignore()
            return
        kind = "server" if isinstance(part, Server) else "board"
        result = self.document.apply(
            edits.add_machine, name=part.model, catalog=self.document.catalog, **{kind: part.id}
        )
        if result is not None and result.machines:
            self.document.set_current_machine(next(iter(result.machines)))
        event.setAccepted(result is not None)
