"""``rackplanner power`` and ``rackplanner import-netbox`` run as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import EXAMPLES, REPO
from tests.test_cli import run


def test_power_prints_normal_and_failover_tables() -> None:
    result = run("power", str(EXAMPLES / "colo-rack.json"))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for text in ("PDU A: AP8886", "Normal", "Feed A failed", "Feed B failed", "power cords:", "outlets used: C13"):
        assert text in out
    # AP8886: 32 A x 0.8 = 25.6 A per line (002_daeb2f0cc80a7fe9.txt's 80% derating).
    assert "PDU input 32 A x 0.8 derating = 25.6 A" in out
    assert "BTU/hr" in out and "kVA" in out
    assert "Compute fabric, row-1: 4 ports at 200 Gb/s" in out


def test_power_json_has_every_scenario() -> None:
    result = run("power", str(EXAMPLES / "colo-rack.json"), "--json")
    data = json.loads(result.stdout)
    rack = data["racks"][0]
    assert [s["scenario"] for s in rack["power"]["scenarios"]] == ["normal", "feed-a-failed", "feed-b-failed"]
    assert len(rack["machines"]) == 4
    assert rack["layout"]["used_u"] == 18


def test_power_unknown_rack_is_exit_2() -> None:
    result = run("power", str(EXAMPLES / "colo-rack.json"), "--rack", "nope")
    assert result.returncode == 2
    assert "no rack 'nope'" in result.stderr


def test_import_netbox_into_a_catalog_folder(tmp_path: Path) -> None:
    fixtures = REPO / "tests" / "data" / "netbox"
    folder = tmp_path / "catalog"
    result = run(
        "import-netbox",
        str(fixtures / "leaf-switch.yaml"),
        str(fixtures / "gpu-server-nameplate.yaml"),
        "--to",
        str(folder),
    )
    assert result.returncode == 0, result.stderr
    assert "switch example-ex-4816" in result.stdout
    assert "nameplate" in result.stdout
    listed = run("catalog", "switch", "--catalog", str(folder), "--search", "ex-4816")
    assert "example-ex-4816" in listed.stdout
    bad = run("import-netbox", str(tmp_path / "missing.yaml"), "--to", str(folder))
    assert bad.returncode == 2
    assert "missing.yaml: cannot read the NetBox device type (No such file or directory)" in bad.stderr
