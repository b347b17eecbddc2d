"""Autosave and recovery with real processes: kill -9 after an autosave, then start again.

The first process opens the app's main window on an example, makes a burst of edits through
the document, waits until the recovery file holds exactly that plan, makes one more edit
(which no autosave reaches), says so and is killed with SIGKILL. The next process starts
the app the same way, is offered the recovered plan (the question answered Yes) and must
show the plan as it was at the last autosave, belonging to the original file, unsaved.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rackplanner.core.plan.files import load_plan

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "resources" / "examples" / "home-rig-2x3090.json"

COMMON = """
import json, sys, time
from pathlib import Path
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox
from rackplanner.core.plan import edits
from rackplanner.core.catalog.loading import load_catalog
from rackplanner.core.plan.files import load_plan, plan_to_json
from rackplanner.gui import recovery
from rackplanner.gui.app import application, offer_recovery, report_catalog_problems
from rackplanner.gui.main_window import open_window

example, out = Path(sys.argv[1]), Path(sys.argv[2])
app = application()
catalog = load_catalog()
settings = QSettings(str(out / "settings.ini"), QSettings.Format.IniFormat)
"""

FIRST_START = (
    COMMON
    + """
window = open_window(catalog, load_plan(example, catalog), example, settings)
window.show()
document = window.document
machine = document.plan.machines[0]
slot = machine.cards[0].slot
# A burst of edits with no event processing in between, as fast typing or dragging gives.
for watts in (300, 290, 280):
    document.apply(edits.set_power_limit, machine=machine.id, slot=slot, watts=watts, catalog=catalog)
document.apply(edits.rename_machine, machine=machine.id, name="Renamed before the crash")
document.apply(edits.set_plan_notes, notes="edited in a burst")
expected = plan_to_json(document.plan)
target = recovery.recovery_dir() / recovery.PLAN_NAME
deadline = time.monotonic() + 60
while not (target.exists() and target.read_text(encoding="utf-8") == expected):
    app.processEvents()
    time.sleep(0.005)
    if time.monotonic() > deadline:
        print("NO AUTOSAVE", flush=True)
        sys.exit(1)
(out / "expected.json").write_text(expected, encoding="utf-8")
# One more edit; the event loop never runs again, so no autosave writes it before the kill.
document.apply(edits.set_plan_notes, notes="lost in the crash")
print("AUTOSAVED", flush=True)
time.sleep(600)
"""
)

NEXT_START = (
    COMMON
    + """
asked, warned = [], []
def question(parent, title, text, *args):
    asked.append(text)
    return QMessageBox.StandardButton.Yes
def warning(parent, title, text, *args):
    warned.append(text)
    return QMessageBox.StandardButton.Ok
QMessageBox.question = question
QMessageBox.warning = warning
# The next start opens the default plan, as run_app does, then offers the recovery file.
window = open_window(catalog, load_plan(example, catalog), None, settings)
window.show()
restored = offer_recovery(window)
reported = report_catalog_problems(window)
result = {
    "restored": restored,
    "asked": asked,
    "warned": warned,
    "reported": reported,
    "plan": plan_to_json(window.document.plan),
    "path": str(window.document.path),
    "modified": window.document.is_modified,
}
(out / "next-start.json").write_text(json.dumps(result), encoding="utf-8")
window.document.undo_stack.setClean()
"""
)

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")


def child_env(tmp_path: Path, autosave_ms: str) -> dict[str, str]:
    user_catalog = tmp_path / "user-catalog"
    user_catalog.mkdir(exist_ok=True)
    # One broken entry in the user's own catalog: skipped, and the app says so at start.
    (user_catalog / "gpu.yaml").write_text(
        "- {id: my-card, vendor: Me, model: Mine, source: [my notes], vram_gb: 24}\n", encoding="utf-8"
    )
    return {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "QT_QPA_PLATFORM": "offscreen",
        "RACKPLANNER_RECOVERY_DIR": str(tmp_path / "recovery"),
        "RACKPLANNER_USER_CATALOG": str(user_catalog),
        "RACKPLANNER_AUTOSAVE_MS": autosave_ms,
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }


def read_line(child: subprocess.Popen[str], timeout_s: float = 120.0) -> str:
    assert child.stdout is not None
    ready, _, _ = select.select([child.stdout], [], [], timeout_s)
    assert ready, "the app process said nothing"
    return child.stdout.readline().strip()


@pytest.mark.parametrize(
    ("trigger", "autosave_ms"),
    [
        # Only the after-edit timer can write (the periodic one is ten minutes away) ...
        ("after the edit burst", "600000,150"),
        # ... and only the periodic timer (the after-edit one is ten minutes away).
        ("on the timer", "200,600000"),
    ],
)
def test_plan_at_last_autosave_is_offered_after_kill_9(tmp_path: Path, trigger: str, autosave_ms: str) -> None:
    env = child_env(tmp_path, autosave_ms)
    first = tmp_path / "first_start.py"
    first.write_text(FIRST_START, encoding="utf-8")
    child = subprocess.Popen(
        [sys.executable, str(first), str(EXAMPLE), str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    try:
        assert read_line(child) == "AUTOSAVED", f"no autosave {trigger}"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(60)
        if child.stdout is not None:
            child.stdout.close()
    assert child.returncode == -signal.SIGKILL

    expected = (tmp_path / "expected.json").read_text(encoding="utf-8")
    recovery_file = tmp_path / "recovery" / "recovery.json"
    assert recovery_file.read_text(encoding="utf-8") == expected
    assert "lost in the crash" not in expected and "Renamed before the crash" in expected

    second = tmp_path / "next_start.py"
    second.write_text(NEXT_START, encoding="utf-8")
    subprocess.run(
        [sys.executable, str(second), str(EXAMPLE), str(tmp_path)], env=env, cwd=tmp_path, check=True, timeout=120
    )
    result: dict[str, Any] = json.loads((tmp_path / "next-start.json").read_text(encoding="utf-8"))
    assert result["restored"] is True
    name = json.loads(expected)["name"]
    assert result["asked"] == [
        f"rackplanner did not close properly. Restore the plan “{name}” as it was at the last autosave?"
    ]
    # The plan at the last autosave, exactly; it belongs to the file it came from and is unsaved.
    assert result["plan"] == expected
    assert result["path"] == str(EXAMPLE)
    assert result["modified"] is True
    original = load_plan(EXAMPLE)
    assert original.machines[0].name != "Renamed before the crash"
    # The broken user catalog entry was reported once, naming file, entry and field.
    assert result["reported"] is True and len(result["warned"]) == 1
    assert f"{tmp_path / 'user-catalog' / 'gpu.yaml'}: entry 0 (my-card): " in result["warned"][0]
    assert "tdp_w: Field required" in result["warned"][0]
