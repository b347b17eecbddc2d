"""The app on the 16,384-GPU plan: open, drag a server to another rack, change a power limit, zoom, scroll."""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QSettings

from rackplanner.bench.gui import (
    APP,
    FRAME_S,
    ROW_OPEN_TARGET_S,
    _close,
    _open,
    _row_canvas,
    drop_runs,
    frame_runs,
    settle,
    window_seconds,
)
from rackplanner.bench.table import Figure, Report, timed
from rackplanner.core.catalog.loading import load_catalog
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan
from rackplanner.core.rack.cluster_plan import SERVER_HEIGHT_U

LABEL = "16,384-GPU plan"


def cluster_gui_figures(report: Report, path: Path, settings: QSettings, repeat: int) -> None:
    _open_and_paint(report, path, settings)
    window = _open(path, settings)
    doc, catalog = window.document, window.document.catalog
    canvas = _row_canvas(window)
    racks = [r for r in canvas.racks if (rack := doc.plan.rack(r)) is not None and any(d.machine for d in rack.devices)]
    times = drop_runs(canvas, racks, SERVER_HEIGHT_U, repeat)
    report.add(Figure(APP, f"drop a server into another rack of the {LABEL} -> docks repainted", times, FRAME_S))
    if doc.undo_stack.canUndo():
        doc.undo_stack.undo()
    settle()
    runs = iter(range(repeat))
    state: dict[str, str | int] = {}

    def setup_limit() -> None:
        run = next(runs)
        machine = doc.plan.machines[(run * 37) % len(doc.plan.machines)].id
        state["machine"], state["run"] = machine, run

    def limit() -> None:
        watts = 400.25 + int(state["run"])
        doc.apply(edits.set_power_limit, machine=str(state["machine"]), slot="sxm2", watts=watts, catalog=catalog)
        settle()

    times = timed(limit, repeat, setup=setup_limit)
    report.add(Figure(APP, f"change a GPU power limit in the {LABEL} -> docks repainted", times, FRAME_S))
    zooms, scrolls = frame_runs(canvas, repeat)
    report.add(Figure(APP, f"zoom a row of the {LABEL} one wheel notch (one frame)", zooms, FRAME_S))
    report.add(Figure(APP, f"scroll a row of the {LABEL} 60 px (one frame)", scrolls, FRAME_S))
    _close(window)


def _open_and_paint(report: Report, path: Path, settings: QSettings) -> None:
    catalog = load_catalog(include_user=False)
    start = time.perf_counter()
    plan = load_plan(path, catalog)
    elapsed = time.perf_counter() - start + window_seconds(catalog, plan, path, settings)
    report.add(Figure(APP, f"open the {LABEL} in the app and paint its first row", [elapsed], ROW_OPEN_TARGET_S,
                      note="load (the core's open figure) plus the window"))  # fmt: skip
