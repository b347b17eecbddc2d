"""``python -m rackplanner.bench [--quick] [--markdown]``: every speed figure, median and worst, against its target."""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rackplanner.bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="few runs and rows of 1 and 10 racks only (a smoke run)")
    parser.add_argument("--markdown", action="store_true", help="also print the table as Markdown")
    args = parser.parse_args(argv)

    from rackplanner.bench.core import SIZES, core_figures, write_rows
    from rackplanner.bench.gui import gui_figures
    from rackplanner.bench.process import process_figures
    from rackplanner.bench.table import HEADER, Report, markdown

    repeat = 2 if args.quick else 15
    sizes = (1, 10) if args.quick else SIZES
    print(f"rackplanner speed suite: Python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.platform()}")
    print(f"{repeat} runs per figure unless noted; times are wall clock.\n")
    print(HEADER)
    report = Report()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        paths = write_rows(folder, sizes)
        process_figures(report, folder, paths.get(50), 2 if args.quick else 7)
        core_figures(report, paths, repeat)
        if not args.quick:
            from rackplanner.bench.cluster import cluster_figures, write_cluster

            cluster = write_cluster(folder)
            cluster_figures(report, cluster, repeat)
        gui_figures(report, paths, folder, repeat)
        if not args.quick:
            from PySide6.QtCore import QSettings

            from rackplanner.bench.cluster_gui import cluster_gui_figures

            settings = QSettings(str(folder / "cluster-settings.ini"), QSettings.Format.IniFormat)
            cluster_gui_figures(report, cluster, settings, repeat)
    missed = [f.label for f in report.figures if f.verdict == "MISSED"]
    print(f"\n{len(report.figures)} figures, {len(missed)} over target" + (": " + "; ".join(missed) if missed else ""))
    if args.markdown:
        print("\n" + markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
