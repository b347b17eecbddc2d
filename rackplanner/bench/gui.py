"""Speed of the app, offscreen: from a drop to every visible dock repainted, painting and zooming a row, the PDF.

A figure counts from the event (the drop, or the edit a menu action makes) until Qt has run
the updates and repainted every view that changed, as a user would see it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QMimeData, QPoint, QPointF, QSettings
from PySide6.QtWidgets import QApplication

from rackplanner.bench.core import EXAMPLES
from rackplanner.bench.events import drag_over, drop_at
from rackplanner.bench.table import Figure, Report, timed
from rackplanner.core.catalog.loading import Catalog, load_catalog
from rackplanner.core.catalog.parts import Gpu
from rackplanner.core.machine.placement import slot_verdicts
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.generate import generate_row
from rackplanner.core.plan.model import Plan
from rackplanner.gui.app import application
from rackplanner.gui.canvases.rack_row import RackRowCanvas
from rackplanner.gui.main_window import MainWindow, open_window
from rackplanner.gui.mime import device_mime, part_mime

APP = "app"
FRAME_S = 0.016  # one frame at 60 Hz: the target for every edit
ROW_OPEN_TARGET_S = 2.0  # opening and painting a 50-rack row (the rack elevations issue)
PDF_TARGET_S = 3.0
ROW_SCALE = 0.25  # view pixels per millimetre when working in a row: a rack about 300 px wide


def settle() -> None:
    """Run what the event loop has queued: refreshes, then the repaint of every view that changed."""
    # Twice: a view that defers work to the next pass (a zero timer) paints in the second one.
    QApplication.processEvents()
    QApplication.processEvents()


def gui_figures(report: Report, paths: dict[int, Path], folder: Path, repeat: int) -> None:
    application()
    os.environ["RACKPLANNER_RECOVERY_DIR"] = str(folder / "recovery")
    settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    _server_drop(report, settings, repeat)
    # The capacity dock shares the diagram's place: in front, it is the one a drop updates most.
    _server_drop(report, settings, repeat, front="CapacityDock")
    if 50 in paths:
        _row_open(report, paths[50], settings)
        _row_edits(report, paths[50], settings, repeat)
    if 10 in paths:
        _row_edits(report, paths[10], settings, repeat, only_drop=True)
        _row_painting(report, paths[10], settings, repeat)
    _pdf_export(report, folder, max(2, repeat // 4))


def _open(path: Path, settings: QSettings) -> MainWindow:
    catalog = load_catalog(include_user=False)
    window = open_window(catalog, load_plan(path, catalog), path, settings)
    window.resize(1366, 768)
    window.show()
    settle()
    window.build_rack_docks()
    settle()
    return window


def _close(window: MainWindow) -> None:
    window.document.undo_stack.setClean()
    window.close()
    window.deleteLater()
    settle()


def _server_drop(report: Report, settings: QSettings, repeat: int, front: str | None = None) -> None:
    """A GPU dropped from the catalog into GPU slot 8 of the SYS-4028GR-TRT2 example, the machine tab in front.

    ``front`` names a dock to raise first (the default layout otherwise).
    """
    window = _open(EXAMPLES / "sys-4028gr-trt2-8gpu.json", settings)
    if front is not None:
        window.docks[front].show()
        window.docks[front].raise_()
        settle()
    doc, catalog = window.document, window.document.catalog
    doc.apply(edits.remove_card, machine="trainer", slot="gpu8")
    settle()
    canvas = window.current_canvas()
    assert canvas is not None
    canvas.ensure_built()
    point = canvas.mapFromScene(canvas.slot_items["gpu8"].sceneBoundingRect().center())
    # Every catalog GPU the slot takes, in turn, so each drop makes a machine not seen before.
    parts = [g.id for g in catalog.of_kind(Gpu) if slot_verdicts(doc.plan, "trainer", g.id, catalog)["gpu8"].ok]
    runs = iter(range(repeat))
    mime = {}

    def setup() -> None:
        if doc.undo_stack.canUndo() and doc.plan.machines[0].card_in("gpu8") is not None:
            doc.undo_stack.undo()
            settle()
        mime["data"] = part_mime(parts[next(runs) % len(parts)])
        # The drag crosses the slot before the drop (it lights up the slots): not part of the figure.
        if not drag_over(canvas, mime["data"], point):
            raise RuntimeError("the drag over GPU slot 8 was refused")
        settle()  # the lit slots are on screen before the drop, as during a real drag

    updated: list[float] = []

    def run() -> None:
        start = time.perf_counter()
        if not drop_at(canvas, mime["data"], point):
            raise RuntimeError("the drop on GPU slot 8 was refused")
        updated.append(time.perf_counter() - start)
        settle()

    times = timed(run, repeat, setup=setup)
    label = "drop a GPU into the 8-GPU server -> every visible dock repainted"
    if front is not None:
        label = f"the same, with the {window.docks[front].windowTitle().lower()} dock in front"
    report.add(
        Figure(
            APP,
            label,
            times,
            FRAME_S,
            note=f"{len(parts)} GPU models in turn",
        )
    )
    report.add(Figure(APP, "  of which the drop and every dock's update, before painting", updated))
    _close(window)


def window_seconds(catalog: Catalog, plan: Plan, path: Path, settings: QSettings) -> float:
    """Seconds from opening ``plan`` in a window to its first full paint (the window is closed after)."""
    start = time.perf_counter()
    window = open_window(catalog, plan, path, settings)
    window.resize(1366, 768)
    window.show()
    settle()
    window.repaint()
    elapsed = time.perf_counter() - start
    _close(window)
    return elapsed


def _row_open(report: Report, path: Path, settings: QSettings) -> None:
    catalog = load_catalog(include_user=False)
    plan = load_plan(path, catalog)
    elapsed = window_seconds(catalog, plan, path, settings)
    report.add(
        Figure(
            APP,
            f"open and paint the 50-rack row ({len(plan.machines)} servers) in the app",
            [elapsed],
            ROW_OPEN_TARGET_S,
        )
    )


def _row_canvas(window: MainWindow) -> RackRowCanvas:
    canvas = window.current_row_canvas()
    assert canvas is not None, "a plan whose machines are all racked opens on its row"
    return canvas


def _look_at(canvas: RackRowCanvas, rack_id: str) -> None:
    """Zoom the row so racks are about 300 px wide and centre the view on one rack."""
    # Through zoom(), as the wheel does: it ends auto-fit, so a later refit cannot undo it.
    canvas.zoom(ROW_SCALE / (canvas.transform().m11() or 1.0))
    canvas.centerOn(canvas.racks[rack_id].front.center())


def _point_for_u(canvas: RackRowCanvas, data: QMimeData, rack_id: str, u: int, height_u: int) -> QPoint:
    """A viewport point where a dragged ``height_u`` device lands at ``u``: the device's middle,
    nudged by whole pixels when rounding to the pixel grid would land it a U lower or higher."""
    start = canvas.device_point(rack_id, u, "front", height_u=height_u).toPoint()
    canvas._drag = canvas._begin(data)  # what a drag-enter would set: the device's height
    try:
        for dy in (0, -1, 1, -2, 2, -3, 3):
            point = QPoint(start.x(), start.y() + dy)
            found = canvas._target(QPointF(point))
            if found is not None and found[2] == u:
                return point
    finally:
        canvas._drag = None
    return start


def drag_to(
    canvas: RackRowCanvas, source: str, server: str, target: str, u: int, height_u: int
) -> tuple[QMimeData, QPoint]:
    """Drag ``server`` of rack ``source`` over U ``u`` of rack ``target`` (untimed: what precedes a drop)."""
    doc = canvas.document
    # The current rack first: choosing it may re-fit the view, which the zoom then overrides.
    doc.set_current_rack(target)
    settle()
    _look_at(canvas, target)
    settle()
    data = device_mime(source, server)
    point = _point_for_u(canvas, data, target, u, height_u)
    if not drag_over(canvas, data, point):
        raise RuntimeError(f"moving {server} to {target} U{u} was refused")
    settle()  # the drop ghost is on screen before the drop, as during a real drag
    return data, point


def drop_runs(canvas: RackRowCanvas, racks: list[str], height_u: int, repeat: int) -> list[float]:
    """Each run drops a server of one rack into U33 of the next (racks full from U1 to U32), undoing
    the run before; another server each time round the racks, so no move repeats an earlier one."""
    doc = canvas.document
    runs = iter(range(repeat))
    pending: list[tuple[QMimeData, QPoint]] = []

    def setup_move() -> None:
        run = next(runs)
        if doc.undo_stack.canUndo():
            doc.undo_stack.undo()  # back to the generated plan: U33 is free in every rack again
        source, target = racks[run % len(racks)], racks[(run + 1) % len(racks)]
        rack = doc.plan.rack(source)
        assert rack is not None
        servers = [d.id for d in rack.devices if d.machine]
        pending[:] = [drag_to(canvas, source, servers[(run // len(racks)) % len(servers)], target, 33, height_u)]

    def move() -> None:
        data, point = pending[0]
        if not drop_at(canvas, data, point):
            raise RuntimeError("the drop was refused")
        settle()

    return timed(move, repeat, setup=setup_move)


def frame_runs(canvas: RackRowCanvas, repeat: int) -> tuple[list[float], list[float]]:
    """One wheel notch of zoom (in and out in turn), then 60 px of horizontal scroll, each repainted."""
    viewport = canvas.viewport()
    steps = iter(range(repeat))

    def zoom() -> None:
        canvas.zoom(1.15 if next(steps) % 2 == 0 else 1 / 1.15)
        viewport.repaint()

    zooms = timed(zoom, repeat)
    bar = canvas.horizontalScrollBar()
    steps = iter(range(repeat))

    def scroll() -> None:
        bar.setValue(bar.value() + (60 if next(steps) % 8 < 4 else -60))
        viewport.repaint()

    return zooms, timed(scroll, repeat)


def _row_edits(report: Report, path: Path, settings: QSettings, repeat: int, *, only_drop: bool = False) -> None:
    """Edits in a generated row with its tab and the rack power dock in front."""
    window = _open(path, settings)
    doc, catalog = window.document, window.document.catalog
    canvas = _row_canvas(window)
    racks = [r.id for r in doc.plan.racks]
    state: dict[str, object] = {}
    times = drop_runs(canvas, racks, 4, repeat)
    size = f"{len(racks)}-rack row"
    report.add(Figure(APP, f"drop a server into another rack of the {size} -> docks repainted", times, FRAME_S))
    if only_drop:
        _close(window)
        return

    runs = iter(range(repeat))

    def pick() -> str:
        run = next(runs)
        rack = doc.plan.racks[(run * 3) % len(racks)]
        doc.set_current_rack(rack.id)
        settle()
        state["run"] = run
        return next(d.machine for d in rack.devices if d.machine is not None)

    def setup_limit() -> None:
        state["machine"] = pick()

    def limit() -> None:
        watts = 200.25 + 0.25 * state["run"]  # type: ignore[operator]
        doc.apply(edits.set_power_limit, machine=state["machine"], slot="gpu2", watts=watts, catalog=catalog)
        settle()

    times = timed(limit, repeat, setup=setup_limit)
    report.add(Figure(APP, "change a GPU power limit in the 50-rack row -> docks repainted", times, FRAME_S))

    runs = iter(range(repeat))

    def setup_gpu() -> None:
        machine = pick()
        doc.apply(edits.remove_card, machine=machine, slot="gpu8")
        settle()
        state["machine"] = machine

    def move_gpu() -> None:
        doc.apply(edits.move_card, machine=state["machine"], from_slot="gpu7", to_slot="gpu8", catalog=catalog)
        settle()

    times = timed(move_gpu, repeat, setup=setup_gpu)
    report.add(Figure(APP, "move a GPU in a server of the 50-rack row -> docks repainted", times, FRAME_S))
    _close(window)


def _row_painting(report: Report, path: Path, settings: QSettings, repeat: int) -> None:
    """Painting the whole 10-rack row, and one frame of zooming and of scrolling it."""
    window = _open(path, settings)
    canvas = _row_canvas(window)
    canvas.fit()
    settle()
    viewport = canvas.viewport()
    report.add(Figure(APP, "paint the 10-rack row (whole view, fitted)", timed(viewport.repaint, repeat)))
    # Zoom frames on the fitted row; scroll frames with racks about 300 px wide.
    zooms, _ = frame_runs(canvas, repeat)
    report.add(Figure(APP, "zoom the 10-rack row one wheel notch (one frame)", zooms, FRAME_S))
    _look_at(canvas, window.document.plan.racks[0].id)
    settle()
    _, scrolls = frame_runs(canvas, repeat)
    report.add(Figure(APP, "scroll the 10-rack row 60 px (one frame)", scrolls, FRAME_S))
    _close(window)


def _pdf_export(report: Report, folder: Path, repeat: int) -> None:
    from rackplanner.report.export import export_report

    plan = generate_row(10, seed=1)
    state: dict[str, object] = {}

    def setup() -> None:
        state["catalog"] = load_catalog(include_user=False)  # nothing cached

    def run() -> None:
        export_report(plan, state["catalog"], pdf=folder / "row-10.pdf", csv=folder / "row-10.csv")  # type: ignore[arg-type]

    report.add(Figure(APP, "PDF and CSV export of the 10-rack plan", timed(run, repeat, setup=setup), PDF_TARGET_S))
