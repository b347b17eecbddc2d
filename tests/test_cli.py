"""The rackplanner command, run as a user runs it: a subprocess with real files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import EXAMPLES


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rackplanner", *args], capture_output=True, text=True, timeout=60)


def test_check_prints_summary_of_each_example() -> None:
    result = run("check", str(EXAMPLES / "sys-4028gr-trt2-8gpu.json"))
    assert result.returncode == 0, result.stderr
    assert "Machines: 1 (8 GPUs)" in result.stdout
    assert "8 x v100-32gb-pcie" in result.stdout
    colo = run("check", str(EXAMPLES / "colo-rack.json"))
    assert "Machines: 4 (16 GPUs)" in colo.stdout
    assert "Rack 1 [rack-1], 42U: 8 devices (4 machines)" in colo.stdout


def test_check_json() -> None:
    result = run("check", str(EXAMPLES / "home-rig-2x3090.json"), "--json")
    data = json.loads(result.stdout)
    assert data["valid"] is True
    assert data["total_gpus"] == 2
    assert data["machines"][0]["parts"]["rtx-3090"] == 2


def test_check_bad_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "broken.json"
    bad.write_text('{"schema_version": 1, "name": ')
    result = run("check", str(bad))
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"rackplanner: {bad}: not valid JSON")
    as_json = run("check", str(bad), "--json")
    assert as_json.returncode == 2
    assert json.loads(as_json.stdout)["error"].startswith(f"{bad}: not valid JSON")


def test_catalog_lists_gpus_with_figures() -> None:
    result = run("catalog", "gpu")
    assert result.returncode == 0
    line = next(x for x in result.stdout.splitlines() if x.strip().startswith("rtx-4090 "))
    # 001_1caa315e8577a206.txt: RTX 4090, 165 TFLOP/s, 1008 GB/s, 24 GB.
    assert "VRAM 24 GB" in line and "bandwidth 1,008 GB/s" in line and "FP16 tensor 165 TFLOP/s" in line
    assert "cpu" not in result.stdout.split()


def test_catalog_search_and_json() -> None:
    result = run("catalog", "--search", "supermicro", "--json")
    rows = json.loads(result.stdout)
    assert {"sys-4028gr-trt2", "x10drg-o-plus-cpu"} <= {r["id"] for r in rows}
    assert all("supermicro" in (r["vendor"] + r["model"] + r["id"]).lower() for r in rows)


def test_user_catalog_override(tmp_path: Path) -> None:
    (tmp_path / "gpu.yaml").write_text(
        "- {id: rtx-3090, vendor: Me, model: Modded 3090 48GB, source: my card, product_line: geforce,\n"
        "   vram_gb: 48, tdp_w: 350, pcie_gen: 4, p2p_pcie: false}\n"
    )
    result = run("catalog", "gpu", "--search", "3090", "--catalog", str(tmp_path))
    assert "Modded 3090 48GB" in result.stdout and "VRAM 48 GB" in result.stdout


def test_broken_user_catalog_names_file(tmp_path: Path) -> None:
    # A broken entry of the user's own catalog is skipped with a warning; the command still runs.
    (tmp_path / "gpu.yaml").write_text("- {id: x, vendor: Me, model: M, source: s}\n")
    result = run("catalog", "--catalog", str(tmp_path))
    assert result.returncode == 0
    assert f"rackplanner: warning: {tmp_path / 'gpu.yaml'}: entry 0 (x): " in result.stderr
    assert "Field required" in result.stderr and "(entry skipped)" in result.stderr
    assert "rtx-3090" in result.stdout


def test_unknown_kind_is_refused() -> None:
    result = run("catalog", "gpus")
    assert result.returncode == 2
    assert "invalid choice: 'gpus'" in result.stderr


def test_help_answers_without_importing_the_core() -> None:
    # --help must answer at once (the speed suite's target is 0.3 s): argparse alone, no pydantic,
    # no YAML, no catalog. Checked by what got imported, not by a clock.
    probe = (
        "import sys\n"
        "from rackplanner.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = sorted(m for m in ('pydantic', 'yaml', 'rackplanner.core.catalog', 'PySide6') if m in sys.modules)\n"
        "print('HEAVY', heavy)\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert "usage: rackplanner" in result.stdout
    assert "HEAVY []" in result.stdout, result.stdout[-300:]


def test_kind_names_for_the_command_line_match_the_part_models() -> None:
    from rackplanner.core.catalog.parts import PART_KINDS
    from rackplanner.core.kinds import PART_KIND_NAMES

    assert sorted(PART_KIND_NAMES) == sorted(PART_KINDS)


def test_check_says_when_a_plan_has_errors() -> None:
    # resources/examples/teaching-mistakes.json is built to show three errors; "valid" and exit
    # 0 said otherwise. The file still reads: its summary is printed.
    result = run("check", str(EXAMPLES / "teaching-mistakes.json"))
    assert result.returncode == 1
    assert result.stdout.splitlines()[0].endswith("reads, but 3 errors below")
    data = json.loads(run("check", str(EXAMPLES / "teaching-mistakes.json"), "--json").stdout)
    assert (data["valid"], data["readable"], data["errors"]) == (False, True, 3)
