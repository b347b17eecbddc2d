"""The app on the 16,384-GPU plan: open, drag a server to another rack, change a power limit, zoom, scroll."""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QMimeData, QPoint, QSettings

from rackplanner.bench.events import drag_over, drop_at
from rackplanner.bench.gui import (
    APP,
    FRAME_S,
    ROW_OPEN_TARGET_S,
    _close,
    _look_at,
    _open,
    _point_for_u,
    _row_canvas,
    settle,
)
from rackplanner.bench.table import Figure, Report, timed
from rackplanner.core.catalog.loading import load_catalog
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan
from rackplanner.core.rack.cluster_plan import SERVER_HEIGHT_U
from rackplanner.gui.main_window import open_window
from rackplanner.gui.mime import device_mime

LABEL = "16,384-GPU plan"


def cluster_gui_figures(report: Report, path: Path, settings: QSettings, repeat: int) -> None:
    _open_and_paint(report, path, settings)
    window = _open(path, settings)
    doc, catalog = window.document, window.document.catalog
    canvas = _row_canvas(window)
    racks = [r for r in canvas.racks if (rack := doc.plan.rack(r)) is not None and any(d.machine for d in rack.devices)]
    runs = iter(range(repeat))
    pending: list[tuple[QMimeData, QPoint]] = []

    def setup_move() -> None:
        run = next(runs)
        if doc.undo_stack.canUndo():
            doc.undo_stack.undo()  # back to full racks: U33 is free in every compute rack again
        source, target = racks[run % len(racks)], racks[(run + 1) % len(racks)]
        rack = doc.plan.rack(source)
        assert rack is not None
        server = [d.id for d in rack.devices if d.machine][(run // len(racks)) % 4]
        doc.set_current_rack(target)
        settle()
        _look_at(canvas, target)
        settle()
        data = device_mime(source, server)
        point = _point_for_u(canvas, data, target, 33, SERVER_HEIGHT_U)
        if not drag_over(canvas, data, point):
            raise RuntimeError(f"moving {server} to {target} U33 was refused")
        settle()
        pending[:] = [(data, point)]

    def move() -> None:
        data, point = pending[0]
        if not drop_at(canvas, data, point):
            raise RuntimeError("the drop was refused")
        settle()

    times = timed(move, repeat, setup=setup_move)
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
    viewport = canvas.viewport()
    steps = iter(range(repeat))

    def zoom() -> None:
        canvas.zoom(1.15 if next(steps) % 2 == 0 else 1 / 1.15)
        viewport.repaint()

    report.add(Figure(APP, f"zoom a row of the {LABEL} one wheel notch (one frame)", timed(zoom, repeat), FRAME_S))
    bar = canvas.horizontalScrollBar()
    steps = iter(range(repeat))

    def scroll() -> None:
        bar.setValue(bar.value() + (60 if next(steps) % 8 < 4 else -60))
        viewport.repaint()

    report.add(Figure(APP, f"scroll a row of the {LABEL} 60 px (one frame)", timed(scroll, repeat), FRAME_S))
    _close(window)


def _open_and_paint(report: Report, path: Path, settings: QSettings) -> None:
    catalog = load_catalog(include_user=False)
    start = time.perf_counter()
    plan = load_plan(path, catalog)
    window = open_window(catalog, plan, path, settings)
    window.resize(1366, 768)
    window.show()
    settle()
    window.repaint()
    elapsed = time.perf_counter() - start
    report.add(Figure(APP, f"open the {LABEL} in the app and paint its first row", [elapsed], ROW_OPEN_TARGET_S,
                      note="load (the core's open figure) plus the window"))  # fmt: skip
    _close(window)
