"""Figures that need a new process: cold start of the command and of the app, peak memory of a big plan."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from rackplanner.bench.table import Figure, Report

PROCESS = "start-up"
HELP_TARGET_S = 0.3
APP_START_TARGET_S = 1.5
MEMORY_TARGET_MB = 400

_APP_START = """
import time
start = time.perf_counter()
from PySide6.QtCore import QSettings
from rackplanner.core.catalog.loading import load_catalog
from rackplanner.core.plan.files import load_plan
from rackplanner.gui.app import DEFAULT_EXAMPLE, application
from rackplanner.gui.main_window import open_window
app = application()
catalog = load_catalog(include_user=False)
settings = QSettings({settings!r}, QSettings.Format.IniFormat)
window = open_window(catalog, load_plan(DEFAULT_EXAMPLE, catalog), DEFAULT_EXAMPLE, settings)
window.show()
window.repaint()
print(time.perf_counter() - start)
"""

# The 50-rack plan open in the app, its row painted and zoomed, every dock built.
_BIG_PLAN = """
import resource
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
from rackplanner.core.catalog.loading import load_catalog
from rackplanner.core.plan.files import load_plan
from rackplanner.gui.app import application
from rackplanner.gui.main_window import open_window
from pathlib import Path
app = application()
catalog = load_catalog(include_user=False)
path = Path({path!r})
window = open_window(catalog, load_plan(path, catalog), path, QSettings({settings!r}, QSettings.Format.IniFormat))
window.resize(1366, 768)
window.show()
for _ in range(3):
    QApplication.processEvents()
window.build_rack_docks()
canvas = window.current_row_canvas()
for factor in (4.0, 0.25):
    canvas.zoom(factor)
    canvas.viewport().repaint()
QApplication.processEvents()
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def _env(folder: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env["RACKPLANNER_RECOVERY_DIR"] = str(folder / "recovery")
    return env


def _wall(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=env)
    return time.perf_counter() - start


def process_figures(report: Report, folder: Path, big_plan: Path | None, repeat: int) -> None:
    env = _env(folder)
    script = Path(sys.executable).with_name("rackplanner")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "rackplanner"]
    helps = [_wall([*command, "--help"], env) for _ in range(repeat)]
    report.add(Figure(PROCESS, "rackplanner --help (new process)", helps, HELP_TARGET_S))
    settings = str(folder / "startup.ini")
    starts = [_wall([sys.executable, "-c", _APP_START.format(settings=settings)], env) for _ in range(repeat)]
    report.add(Figure(PROCESS, "app start to its first painted window (new process)", starts, APP_START_TARGET_S))
    if big_plan is not None:
        script_text = _BIG_PLAN.format(path=str(big_plan), settings=str(folder / "memory.ini"))
        out = subprocess.run(
            [sys.executable, "-c", script_text], check=True, capture_output=True, text=True, env=env
        ).stdout
        peak_mb = float(out.strip().splitlines()[-1])
        report.add(
            Figure(PROCESS, "peak memory, the 50-rack plan open in the app", [peak_mb], MEMORY_TARGET_MB, unit="MB")
        )
