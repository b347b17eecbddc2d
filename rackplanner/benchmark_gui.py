"""Speed figures of the app, offscreen and printed (not asserted): ``python -m rackplanner.benchmark_gui``."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

STARTUP_SCRIPT = """
import time
start = time.perf_counter()
from PySide6.QtCore import QSettings, QTimer
from rackplanner.core.catalog import load_catalog
from rackplanner.core.planfile import load_plan
from rackplanner.gui.app import DEFAULT_EXAMPLE, application
from rackplanner.gui.main_window import open_window
app = application()
catalog = load_catalog(include_user=False)
settings = QSettings("{settings}", QSettings.Format.IniFormat)
window = open_window(catalog, load_plan(DEFAULT_EXAMPLE, catalog), DEFAULT_EXAMPLE, settings)
window.show()
window.repaint()
print(time.perf_counter() - start)
"""


def startup_s(settings: str) -> float:
    """Seconds from a new interpreter to the first painted main window (imports included)."""
    begin = time.perf_counter()
    subprocess.run([sys.executable, "-c", STARTUP_SCRIPT.format(settings=settings)], check=True, capture_output=True)
    return time.perf_counter() - begin


def main() -> None:
    import tempfile
    from pathlib import Path

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from rackplanner.core import edits
    from rackplanner.core.catalog import load_catalog
    from rackplanner.core.planfile import load_plan
    from rackplanner.gui.app import RESOURCES, application
    from rackplanner.gui.main_window import open_window

    with tempfile.TemporaryDirectory() as folder:
        os.environ["RACKPLANNER_RECOVERY_DIR"] = folder
        settings_path = str(Path(folder) / "settings.ini")
        runs = [startup_s(settings_path) for _ in range(3)]
        print(f"start-up to a painted window (new process, imports included): median {statistics.median(runs):.2f} s")
        app = application()
        catalog = load_catalog(include_user=False)
        path = RESOURCES / "examples" / "sys-4028gr-trt2-8gpu.json"
        settings = QSettings(settings_path, QSettings.Format.IniFormat)
        window = open_window(catalog, load_plan(path, catalog), path, settings)
        window.resize(1366, 768)
        window.show()
        app.processEvents()
        doc = window.document
        doc.apply(edits.remove_card, machine="trainer", slot="gpu8")
        app.processEvents()
        times = []
        for n in range(21):
            part = "v100-32gb-pcie" if n % 2 else "a100-80gb-pcie"
            start = time.perf_counter()
            doc.apply(edits.place_card, machine="trainer", slot="gpu8", part=part, catalog=catalog)
            # Qt paints only what changed (each view asks for an update): one pass of the event loop.
            QApplication.processEvents()
            times.append(time.perf_counter() - start)
            doc.undo_stack.undo()
            QApplication.processEvents()
        print(
            f"drop a GPU into the 8-GPU server -> every visible dock and the canvas updated and painted: "
            f"median {statistics.median(times) * 1000:.1f} ms, worst {max(times) * 1000:.1f} ms"
        )
        doc.undo_stack.setClean()
        window.close()
        _row_figures(catalog, settings)


def _row_figures(catalog: object, settings: object) -> None:
    """Opening and painting a generated 50-rack row (400 servers) and one move in a 10-rack row."""
    from PySide6.QtWidgets import QApplication

    from rackplanner.core import edits
    from rackplanner.core.generate import generate_row
    from rackplanner.gui.main_window import open_window

    app = QApplication.instance()
    assert app is not None
    for racks in (10, 50):
        plan = generate_row(racks, seed=1)
        start = time.perf_counter()
        window = open_window(catalog, plan, None, settings)  # type: ignore[arg-type]
        window.resize(1366, 768)
        window.show()
        canvas = next(iter(window.row_canvases.values()))
        window.tabs.setCurrentWidget(canvas)
        QApplication.processEvents()
        window.repaint()
        opened = time.perf_counter() - start
        print(f"open and paint a {racks}-rack row ({len(plan.machines)} servers): {opened:.2f} s")
        if racks == 10:
            doc = window.document
            times = []
            for n in range(11):
                start = time.perf_counter()
                doc.apply(edits.move_device, rack="rack-01", device="mgmt", position_u=33 + n % 2)
                QApplication.processEvents()
                times.append(time.perf_counter() - start)
            print(
                f"move a switch in the 10-rack row -> every visible dock and the row updated and painted: "
                f"median {statistics.median(times) * 1000:.1f} ms"
            )
            doc.undo_stack.setClean()
        window.close()
        window.deleteLater()
        QApplication.processEvents()


if __name__ == "__main__":
    main()
