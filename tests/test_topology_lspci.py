"""``lspci -tv`` beside ``nvidia-smi topo -m``: GPUs by PCI address, and the host bridges the catalog does not know.

The trees are public printouts, verbatim: tests/data/topo/01-*.lspci.txt and 02-*.lspci.txt, from
github.com/luigifcruz/stelline @5abfb58 (docs/quickstart/validated-hardware/server/), the same
pages as their matrices.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.errors import InputError
from rackplanner.core.machine.topology import derive_topology
from rackplanner.core.machine.topology.compare import (
    compare_topology,
    format_comparison,
    parse_topo_matrix,
    read_real_machine,
)
from rackplanner.core.machine.topology.lspci import gpus_in_bus_order, parse_lspci_tree, shared_bridge_path
from rackplanner.core.plan.files import load_plan
from tests.clihelpers import run_cli

TOPO = Path(__file__).parent / "data" / "topo"
ESC8000A = "01-asus-esc8000a-e12-4x-rtx6000ada"
WRX90 = "02-puget-wrx90-2x-rtx6000ada"


def tree(stem: str) -> str:
    return (TOPO / f"{stem}.lspci.txt").read_text(encoding="utf-8")


def test_the_tree_gives_each_gpu_its_host_bridge_and_skips_its_audio_function() -> None:
    devices = parse_lspci_tree(tree(WRX90), WRX90)
    gpus = gpus_in_bus_order(devices)
    # 02's tree: "+-[0000:c0]-+-01.1-[c1]--+-00.0  NVIDIA … [RTX 6000 Ada Generation]" with its HD
    # audio at 00.1, and the second card at c0:03.1-[c2]: one host bridge, two root ports.
    assert [(g.address, g.host_bridge, g.bridges) for g in gpus] == [
        ("0000:c1:00.0", "0000:c0", ("0000:c0:01.1",)),
        ("0000:c2:00.0", "0000:c0", ("0000:c0:03.1",)),
    ]
    assert shared_bridge_path(gpus[0], gpus[1]) == "PHB"
    # The dual-port ConnectX-7 at 20:01.1-[21]: two functions on host bridge 0000:20.
    nics = [(d.address, d.host_bridge) for d in devices if d.is_rdma_nic]
    assert nics == [("0000:21:00.0", "0000:20"), ("0000:21:00.1", "0000:20")]
    # Eight NVMe drives behind two levels of switches on 0000:00: root port 03.1, a switch (01:00.0
    # up, 02:00.0 down), a second switch (03:00.0 up, 04:10.0 down), then the drive at 05:00.0.
    nvme = [d for d in devices if "NVMe SSD Controller S4LV008" in d.name]
    assert len(nvme) == 8 and {d.host_bridge for d in nvme} == {"0000:00"}
    assert nvme[0].address == "0000:05:00.0"
    assert nvme[0].bridges == ("0000:00:03.1", "0000:01:00.0", "0000:02:00.0", "0000:03:00.0", "0000:04:10.0")
    assert shared_bridge_path(nvme[0], nvme[1]) == "PIX" and shared_bridge_path(nvme[0], nvme[4]) == "PXB"


def test_gpus_on_four_host_bridges_print_node() -> None:
    gpus = gpus_in_bus_order(parse_lspci_tree(tree(ESC8000A), ESC8000A))
    # 01's tree: one RTX 6000 Ada on each of the first socket's four host bridges 00, 40, c0, e0 ...
    assert [g.host_bridge for g in gpus] == ["0000:00", "0000:40", "0000:c0", "0000:e0"]
    # ... and 01's matrix prints NODE between each pair of them.
    assert {shared_bridge_path(a, b) for a in gpus for b in gpus if a is not b} == {"NODE"}


def test_the_tree_settles_the_cell_the_catalog_cannot_check(catalog: Catalog) -> None:
    machine = load_plan(TOPO / f"{WRX90}.json", catalog).machines[0]
    real, devices = read_real_machine((TOPO / f"{WRX90}.txt").read_text(encoding="utf-8"), WRX90, tree(WRX90))
    plain = compare_topology(derive_topology(machine, catalog), real, machine.host.numa_per_socket)
    assert [(d.a, d.b, d.plan, d.real) for d in plain.unchecked] == [("GPU0", "GPU1", "NODE", "PHB")]
    result = compare_topology(derive_topology(machine, catalog), real, machine.host.numa_per_socket, devices)
    assert result.unchecked == [] and result.matches and result.agree == 5 and result.cells == 6
    (settled,) = result.settled
    assert "sit under one host bridge 0000:c0" in settled.cause
    assert "PCIEX16(G5)_1 and PCIEX16(G5)_3 share one" in settled.cause
    text = format_comparison(result, WRX90)
    assert "5 of 6 cells agree, 1 settled by lspci -tv" in text
    assert "GPU0 0000:c1:00.0 (host bridge 0000:c0), GPU1 0000:c2:00.0 (host bridge 0000:c0)" in text


def test_a_tree_of_another_machine_is_not_used_and_said(catalog: Catalog) -> None:
    machine = load_plan(TOPO / f"{ESC8000A}.json", catalog).machines[0]
    real = parse_topo_matrix((TOPO / f"{ESC8000A}.txt").read_text(encoding="utf-8"), ESC8000A)
    devices = parse_lspci_tree(tree(WRX90), WRX90)
    result = compare_topology(derive_topology(machine, catalog), real, machine.host.numa_per_socket, devices)
    assert "the lspci -tv tree shows 2 NVIDIA GPUs, the matrix 4: the tree is not used" in result.problems
    assert result.addresses == {}


def test_one_file_with_both_printouts_is_read_for_both(catalog: Catalog, tmp_path: Path) -> None:
    both = tmp_path / "both.txt"
    both.write_text((TOPO / f"{WRX90}.txt").read_text(encoding="utf-8") + "\n" + tree(WRX90), encoding="utf-8")
    run = run_cli("topo", str(TOPO / f"{WRX90}.json"), "--compare", str(both))
    assert run.returncode == 0, run.stderr
    assert "1 settled by lspci -tv" in run.stdout and "The plan matches the machine." in run.stdout


def test_lspci_without_a_matrix_or_without_a_tree_is_a_clear_error(tmp_path: Path) -> None:
    plan = str(TOPO / f"{WRX90}.json")
    alone = run_cli("topo", plan, "--lspci", str(TOPO / f"{WRX90}.lspci.txt"))
    assert alone.returncode == 2 and "--lspci goes with --compare" in alone.stderr
    junk = tmp_path / "junk.txt"
    junk.write_text("lspci: command not found\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"junk\.txt: no lspci -tv tree found"):
        parse_lspci_tree(junk.read_text(), str(junk))
    bad = run_cli("topo", plan, "--compare", str(TOPO / f"{WRX90}.txt"), "--lspci", str(junk))
    assert bad.returncode == 2 and "no lspci -tv tree found" in bad.stderr
