"""Crash-safe saves: a child process saving a large plan is killed (SIGKILL) at many moments.

After every kill the plan file is the complete old plan or the complete new one, never a
mixture or a truncated file, and ``PLAN.json.bak`` is a complete earlier plan: the one
before the old plan, or the old plan itself once the new one has landed.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from rackplanner.core.plan.files import load_plan, plan_to_json, save_plan
from rackplanner.core.plan.generate import generate_row

REPO = Path(__file__).resolve().parent.parent
RACKS = 50
KILLS = 60

# The child prepares the new plan once, then for each "GO" forks a process that saves it
# (a fresh process mid-save, started in microseconds) and reports its pid for the kill.
CHILD = """
import os, sys
from pathlib import Path
from rackplanner.core.plan.generate import generate_row
from rackplanner.core.plan.files import save_plan

plan = generate_row({racks}, seed=2).model_copy(update={{"name": "New plan"}})
target = Path(sys.argv[1])
print("READY", flush=True)
for line in sys.stdin:
    if line.strip() != "GO":
        break
    pid = os.fork()
    if pid == 0:
        save_plan(plan, target)
        os._exit(0)
    print(f"PID {{pid}}", flush=True)
    _, status = os.waitpid(pid, 0)
    print(f"DONE {{status}}", flush=True)
"""

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")


def start_child(script: Path, target: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, str(script), str(target)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=REPO,
    )


def save_in_child(child: subprocess.Popen[str], kill_after_s: float | None) -> tuple[int, float]:
    """One save by a fresh forked process; SIGKILL it after ``kill_after_s``. Returns (status, seconds)."""
    assert child.stdin is not None
    child.stdin.write("GO\n")
    child.stdin.flush()
    line = read_line(child)
    assert line.startswith("PID "), line
    began = time.perf_counter()
    if kill_after_s is not None:
        time.sleep(kill_after_s)
        with contextlib.suppress(ProcessLookupError):  # it finished first
            os.kill(int(line.split()[1]), signal.SIGKILL)
    done = read_line(child)
    assert done.startswith("DONE "), done
    return int(done.split()[1]), time.perf_counter() - began


def read_line(child: subprocess.Popen[str], timeout_s: float = 60.0) -> str:
    assert child.stdout is not None
    ready, _, _ = select.select([child.stdout], [], [], timeout_s)
    assert ready, "the child process said nothing"
    return child.stdout.readline().strip()


def test_killed_save_leaves_old_or_new_plan_and_an_intact_backup(
    tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    before_old = generate_row(RACKS, seed=0).model_copy(update={"name": "Plan before the old one"})
    old = generate_row(RACKS, seed=1).model_copy(update={"name": "Old plan"})
    new = generate_row(RACKS, seed=2).model_copy(update={"name": "New plan"})
    texts = {
        name: plan_to_json(plan).encode("utf-8") for name, plan in (("before", before_old), ("old", old), ("new", new))
    }
    assert len(texts["new"]) > 500_000  # a large plan: the save takes a while

    target = tmp_path / "plan.json"
    backup = tmp_path / "plan.json.bak"
    script = tmp_path / "child.py"
    script.write_text(CHILD.format(racks=RACKS), encoding="utf-8")

    save_plan(before_old, target)
    save_plan(old, target)
    child = start_child(script, target)
    try:
        assert read_line(child) == "READY"
        # How long a whole save takes in a forked child, to spread the kills over it.
        status, save_s = save_in_child(child, None)
        assert status == 0
        assert target.read_bytes() == texts["new"] and backup.read_bytes() == texts["old"]

        outcomes: Counter[str] = Counter()
        leftovers = 0
        loaded: set[tuple[bytes, bytes]] = set()
        started = time.monotonic()
        # From at once to a little after a save should have finished; then, if the machine is
        # so busy that no kill came late enough, later and later until one does.
        delays = [save_s * 1.2 * i / (KILLS - 1) for i in range(KILLS)]
        delays += [save_s * 1.5 * 2**k for k in range(8)]
        for attempt, delay in enumerate(delays):
            if attempt >= KILLS and outcomes["new plan"]:
                break
            for stale in tmp_path.glob(".plan.json*.tmp"):
                stale.unlink()
            target.write_bytes(texts["old"])
            backup.write_bytes(texts["before"])
            save_in_child(child, delay)

            on_disk = target.read_bytes()
            kept = backup.read_bytes()
            assert on_disk in (texts["old"], texts["new"]), f"kill {attempt}: the plan file is neither plan"
            assert kept in (texts["before"], texts["old"]), f"kill {attempt}: the backup is not a complete plan"
            if on_disk == texts["new"]:
                # The backup is replaced before the plan: once the new plan is there, the old one is kept.
                assert kept == texts["old"]
                outcomes["new plan"] += 1
            else:
                outcomes["old plan, backup updated" if kept == texts["old"] else "old plan"] += 1
            if (on_disk, kept) not in loaded:
                # Byte-equal to a saved plan already says it all; load each combination once anyway.
                assert load_plan(target).name in ("Old plan", "New plan")
                assert load_plan(backup).name in ("Plan before the old one", "Old plan")
                loaded.add((on_disk, kept))
            leftovers += len(list(tmp_path.glob(".plan.json*.tmp")))
    finally:
        if child.stdin is not None:
            child.stdin.close()
        child.wait(60)

    line = (
        f"{sum(outcomes.values())} kills over a {save_s * 1000:.0f} ms save in {time.monotonic() - started:.1f} s: "
        + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
        + f"; temporary files left by killed saves: {leftovers}"
    )
    print("\n" + line)
    record_property("killed_saves", dict(outcomes))
    # Kills landed both before and after the switch to the new plan.
    assert outcomes["new plan"] > 0
    assert outcomes["old plan"] + outcomes["old plan, backup updated"] > 0
