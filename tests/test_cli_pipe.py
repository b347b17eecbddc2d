"""A reader that stops early (`rackplanner ... | head`) ends the command quietly, with no traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from rackplanner.core.rack.cluster_plan import generate_cluster


def test_a_closed_pipe_is_not_a_crash(tmp_path: Path) -> None:
    plan = tmp_path / "cluster.json"
    plan.write_text(generate_cluster(256).model_dump_json(), encoding="utf-8")
    for command in (["power", str(plan)], ["fabric", str(plan), "--json"], ["catalog", "gpu"]):
        process = subprocess.Popen(
            [sys.executable, "-m", "rackplanner", *command],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        assert process.stdout is not None and process.stderr is not None
        first = process.stdout.read(20)
        process.stdout.close()  # as `head -c 20` does
        stderr = process.stderr.read().decode()
        process.wait(timeout=120)
        assert first, command
        assert "Traceback" not in stderr, (command, stderr)
