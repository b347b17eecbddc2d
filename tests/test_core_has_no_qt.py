"""rackplanner.core must stay pure Python: importing all of it loads no Qt module."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import importlib, pkgutil, sys
import rackplanner.core as core
for info in pkgutil.walk_packages(core.__path__, "rackplanner.core."):
    importlib.import_module(info.name)
QT = ("PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6")
qt = sorted(m for m in sys.modules if m.split(".")[0] in QT)
print("modules:", len([m for m in sys.modules if m.startswith("rackplanner.core")]))
print("qt:", ",".join(qt))
"""


def test_core_imports_without_qt() -> None:
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    lines = dict(line.split(": ", 1) if ": " in line else (line.rstrip(":"), "") for line in result.stdout.splitlines())
    assert int(lines["modules"]) >= 8, result.stdout  # every core module was imported
    assert lines["qt"] == "", f"core pulled in Qt: {lines['qt']}"
