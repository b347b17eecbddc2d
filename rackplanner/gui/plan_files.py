"""Opening and saving plans from the window: dialogs, unsaved changes, recent files, autosave for recovery."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QSettings, QTimer
from PySide6.QtWidgets import QFileDialog, QMessageBox

from rackplanner.core.errors import InputError, OutputError
from rackplanner.core.files import shown
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.model import Plan
from rackplanner.gui import recovery
from rackplanner.gui.document import PlanDocument

if TYPE_CHECKING:
    from rackplanner.gui.main_window import MainWindow

APP_NAME = "rackplanner"
PLAN_FILTER = "rackplanner plans (*.json);;All files (*)"
MAX_RECENT = 8
AUTOSAVE_INTERVAL_MS = 60_000
# After an edit, wait this long for the burst to end before writing the recovery file.
AUTOSAVE_AFTER_EDIT_MS = 5_000


def autosave_intervals() -> tuple[int, int]:
    """The timer and after-edit intervals in ms; ``RACKPLANNER_AUTOSAVE_MS=TIMER[,AFTER_EDIT]`` overrides them."""
    override = os.environ.get("RACKPLANNER_AUTOSAVE_MS", "")
    try:
        values = [max(1, int(v)) for v in override.split(",") if v.strip()]
    except ValueError:
        values = []
    if not values:
        return AUTOSAVE_INTERVAL_MS, AUTOSAVE_AFTER_EDIT_MS
    return values[0], values[1] if len(values) > 1 else values[0]


class PlanFiles(QObject):
    """The window's plan file: new, open, save, save as, recent files, and the recovery copy kept while editing."""

    def __init__(self, window: MainWindow, document: PlanDocument, settings: QSettings) -> None:
        super().__init__(window)
        self.window = window
        self.document = document
        self.settings = settings
        interval_ms, after_edit_ms = autosave_intervals()
        self._autosave_timer = QTimer(self)
        self._autosave_timer.setInterval(interval_ms)
        self._autosave_timer.timeout.connect(self.write_recovery)
        self._autosave_timer.start()
        self._burst_timer = QTimer(self)
        self._burst_timer.setSingleShot(True)
        self._burst_timer.setInterval(after_edit_ms)
        self._burst_timer.timeout.connect(self.write_recovery)

    def edited(self) -> None:
        """An edit was made: write the recovery copy once the burst of edits ends."""
        self._burst_timer.start()

    def new_plan(self) -> None:
        if not self.maybe_save():
            return
        self.document.replace(Plan(name="New plan"), None)

    def open_dialog(self) -> None:
        if not self.maybe_save():
            return
        start = str(self.document.path.parent) if self.document.path else ""
        name, _ = QFileDialog.getOpenFileName(self.window, "Open plan", start, PLAN_FILTER)
        if name:
            self.open_path(Path(name))

    def open_path(self, path: Path, *, untitled: bool = False) -> bool:
        try:
            plan = load_plan(path, self.document.catalog)
        except InputError as exc:
            QMessageBox.warning(self.window, "Cannot open plan", str(exc))
            return False
        self.document.replace(plan, None if untitled else path)
        if not untitled:
            self._remember(path)
        return True

    def open_example(self, path: Path) -> bool:
        """Open an example as an untitled plan, so Save asks where rather than overwrite the example."""
        if not self.open_path(path, untitled=True):
            return False
        self.window.show_status(f"Opened the example {path.name}; Save As keeps your changes")
        return True

    def save(self) -> bool:
        if self.document.path is None:
            return self.save_as()
        return self._save_to(self.document.path)

    def save_as(self) -> bool:
        start = str(self.document.path) if self.document.path else f"{self.document.plan.name}.json"
        name, _ = QFileDialog.getSaveFileName(self.window, "Save plan as", start, PLAN_FILTER)
        if not name:
            return False
        path = Path(name)
        if path.suffix == "":
            path = path.with_suffix(".json")
        return self._save_to(path)

    def _save_to(self, path: Path) -> bool:
        try:
            self.document.save(path)
        except (InputError, OutputError) as exc:
            # The same line the command line prints; the plan stays open and unsaved.
            QMessageBox.critical(self.window, "Cannot save plan", str(exc))
            return False
        except OSError as exc:
            QMessageBox.critical(self.window, "Cannot save plan", f"{shown(path)}: cannot write: {exc.strerror or exc}")
            return False
        self._remember(path)
        recovery.clear()
        self.window.show_status(f"Saved {path}")
        self.window.update_title()
        return True

    def maybe_save(self) -> bool:
        """Ask to save unsaved changes; False when the user cancels."""
        if not self.document.is_modified:
            return True
        answer = QMessageBox.question(
            self.window,
            APP_NAME,
            f"Save the changes to {self.document.path.name if self.document.path else 'this plan'}?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def _remember(self, path: Path) -> None:
        recent = [p for p in self.recent_files() if p != str(path)]
        self.settings.setValue("files/recent", [str(path), *recent][:MAX_RECENT])
        self.settings.setValue("files/last", str(path))

    def recent_files(self) -> list[str]:
        value = self.settings.value("files/recent", [])
        if isinstance(value, str):
            return [value]
        if isinstance(value, list):
            return [str(v) for v in value]
        return []

    def fill_recent(self) -> None:
        self.window.recent_menu.clear()
        for entry in self.recent_files():
            action = self.window.recent_menu.addAction(entry)
            action.triggered.connect(partial(self._open_recent, entry))
        self.window.recent_menu.setEnabled(bool(self.recent_files()))

    def _open_recent(self, entry: str) -> None:
        if self.maybe_save():
            self.open_path(Path(entry))

    def write_recovery(self) -> None:
        if self.document.is_modified:
            recovery.write(self.document.plan, self.document.path)
