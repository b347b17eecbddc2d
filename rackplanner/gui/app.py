"""Start the desktop app: ``rackplanner [PLAN]``."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QByteArray, QCoreApplication, QSettings, Qt
from PySide6.QtGui import QGuiApplication, QIcon
from PySide6.QtWidgets import QApplication, QMessageBox

from rackplanner.core.catalog.loading import BUILTIN_CATALOG_DIR, Catalog
from rackplanner.core.errors import InputError
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.model import Plan
from rackplanner.gui import recovery
from rackplanner.gui.main_window import APP_NAME, MainWindow, open_window
from rackplanner.gui.theme import apply_theme, follow_system

RESOURCES = BUILTIN_CATALOG_DIR.parent / "resources"
DEFAULT_EXAMPLE = RESOURCES / "examples" / "home-rig-2x3090.json"


def application(argv: list[str] | None = None) -> QApplication:
    """The QApplication with rackplanner's names, style and style sheet (created once)."""
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        app = existing
    else:
        QGuiApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
        app = QApplication(argv if argv is not None else sys.argv[:1])
    QCoreApplication.setOrganizationName(APP_NAME)
    QCoreApplication.setApplicationName(APP_NAME)
    app.setStyle("Fusion")
    icon = RESOURCES / "icons" / "rackplanner.svg"
    if icon.exists():
        app.setWindowIcon(QIcon(str(icon)))
    apply_theme(app)
    follow_system(app)
    return app


def initial_plan(path: Path | None, catalog: Catalog, settings: QSettings) -> tuple[Plan, Path | None, str | None]:
    """The plan to open: the one asked for, else the last one, else an empty plan (the welcome view)."""
    if path is not None:
        return load_plan(path, catalog), path, None
    last = settings.value("files/last")
    if isinstance(last, str) and Path(last).exists():
        try:
            return load_plan(Path(last), catalog), Path(last), None
        except InputError as exc:
            return Plan(name="New plan"), None, f"Could not reopen the last plan: {exc}"
    return Plan(name="New plan"), None, None


def offer_recovery(window: MainWindow) -> bool:
    """If a crashed session left a recovery file, ask whether to restore it."""
    found = recovery.pending(window.document.catalog)
    if found is None:
        return False
    plan, original = found
    answer = QMessageBox.question(
        window,
        APP_NAME,
        f"rackplanner did not close properly. Restore the plan “{plan.name}” as it was at the last autosave?",
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        QMessageBox.StandardButton.Yes,
    )
    if answer != QMessageBox.StandardButton.Yes:
        recovery.clear()
        return False
    window.document.replace(plan, original)
    window.document.undo_stack.resetClean()
    window.show_status("Restored the plan from the recovery file; save it to keep it")
    return True


# Longest list of skipped catalog entries shown in the start-up message.
MAX_PROBLEMS_SHOWN = 12


def report_catalog_problems(window: MainWindow) -> bool:
    """Tell the user once, at start, which entries of their own catalog were skipped and why."""
    problems = window.document.catalog.problems
    if not problems:
        return False
    shown = problems[:MAX_PROBLEMS_SHOWN]
    more = len(problems) - len(shown)
    text = (
        "Parts of your own catalog could not be used and were skipped; the rest of the catalog is loaded.\n\n"
        + "\n".join(f"• {p}" for p in shown)
        + (f"\n… and {more} more" if more else "")
    )
    QMessageBox.warning(window, APP_NAME, text)
    window.show_status(f"Skipped {len(problems)} catalog entries; see the message at start")
    return True


def run_app(path: Path | None, catalog: Catalog) -> int:
    app = application()
    settings = QSettings()
    try:
        plan, plan_path, note = initial_plan(path, catalog, settings)
    except InputError as exc:
        print(f"rackplanner: {exc}", file=sys.stderr)
        return 2
    window = open_window(catalog, plan, plan_path, settings)
    geometry = settings.value("window/geometry")
    if isinstance(geometry, QByteArray):
        window.restoreGeometry(geometry)
    window.show()
    offer_recovery(window)
    report_catalog_problems(window)
    if note:
        window.show_status(note)
    return app.exec()
