"""The speed suite runs from end to end (quick mode) and prints every figure; it asserts no time."""

from __future__ import annotations

import os
import subprocess
import sys


def test_quick_speed_suite_prints_every_figure() -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    result = subprocess.run(
        [sys.executable, "-m", "rackplanner.bench", "--quick", "--markdown"],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    out = result.stdout
    for label in (
        "rackplanner --help (new process)",
        "app start to its first painted window (new process)",
        "open (load + validate) a 10-rack plan",
        "full analysis of a 10-rack plan, nothing cached",
        "change a GPU power limit in the 10-rack plan + re-analysis",
        "move a server to another rack in the 10-rack plan + re-analysis",
        "capacity table of one machine",
        "drop a GPU into the 8-GPU server -> every visible dock repainted",
        "the same, with the capacity dock in front",
        "drop a server into another rack of the 10-rack row -> docks repainted",
        "paint the 10-rack row (whole view, fitted)",
        "zoom the 10-rack row one wheel notch (one frame)",
        "scroll the 10-rack row 60 px (one frame)",
        "PDF and CSV export of the 10-rack plan",
        "growth from 1 to 10 racks",
        "| figure | median | worst | target | |",
    ):
        assert label in out, label
