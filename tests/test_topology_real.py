"""Plans rebuilt from catalog parts against real ``nvidia-smi topo -m`` printouts, and the rules behind them.

Each ``tests/data/topo/NN-*.txt`` is a public printout, verbatim (sources in each plan's
notes and below); ``NN-*.json`` is the machine rebuilt from the catalog.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from rackplanner.core.capacity.hardware import from_machine
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Board
from rackplanner.core.errors import InputError
from rackplanner.core.machine.fit import check_machine
from rackplanner.core.machine.topology import derive_topology
from rackplanner.core.machine.topology.compare import compare_topology, parse_topo_matrix
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.model import HostSettings, Machine

TOPO = Path(__file__).parent / "data" / "topo"

# stem: (cells compared, cells that differ, problem text expected or None, cells not checked)
REAL = {
    # github.com/luigifcruz/stelline @5abfb58, ASUS ESC8000A-E12: GPUs on their own host bridges
    # (NODE within a socket, SYS across), dual-port CX-7 as mlx5_0/1 (PIX), SMT off (0-31).
    "01-asus-esc8000a-e12-4x-rtx6000ada": (28, {}, None, {}),
    # Same source, Puget WRX90: the two GPUs are PHB (one host bridge, lspci c0:01.1 and c0:03.1)
    # in the machine. Which WRX90E slots share one of the four host bridges needs ASUS's block
    # diagram, which was not read: the board says so, and the cell is reported as not checked.
    "02-puget-wrx90-2x-rtx6000ada": (6, {}, None, {("GPU0", "GPU1"): ("NODE", "PHB")}),
    # github.com/ec-jt/gpu-test @de8b157, G292-Z20 with 8x RTX 5090: every cell agrees. The CPU is
    # not named (24 cores, affinity 0-23); the plan's 16-core EPYC 7302P differs in affinity only.
    "03-gigabyte-g292-z20-8x-rtx5090": (45, {}, "CPU affinity 0-23 in the machine, 0-15 in the plan", {}),
    # search-index file 27527940882, DGX A100 at NPS4: NUMA nodes 3,1,7,5 and the 10 mlx5 devices.
    "05-nvidia-dgx-a100-8x-a100-10nic": (153, {}, None, {}),
    # github.com/sgl-project/sglang issue 30401, HGX H100: NV18 everywhere, one NIC per GPU (PIX).
    "06-hgx-h100-8x-h100-8nic-sglang30401": (120, {}, None, {}),
    # search-index file 70257547630, Gooxi AS4110G: as delivered (5 GPUs on CPU0's switch, 3 on
    # CPU1's) and recabled (both switches on CPU1): the same server, two matrices.
    "07-gooxi-as4110g-8x-rtx4090-48g-as-delivered": (45, {}, None, {}),
    "08-gooxi-as4110g-8x-rtx4090-48g-recabled": (45, {}, None, {}),
    # github.com/noonghunna/club-3090 issue 1140, an unnamed WRX80 board: PHB in the machine (lspci
    # 00:01.1 and 00:03.1, club-3090 issue 1133), not checked for the same reason as 02.
    "14-wrx80-3975wx-2x-rtx5090-club3090-1140": (1, {}, None, {("GPU0", "GPU1"): ("NODE", "PHB")}),
    # github.com/noonghunna/club-3090 issue 1125, H12SSL-NT with an EPYC 7302P, SMT off (0-15): two
    # RTX 3090 on different host bridges print NODE, as the plan's slots A and B do.
    "15-h12ssl-nt-7302p-2x-rtx3090-club3090-1125": (1, {}, None, {}),
    # github.com/Czyszka/nanoserve-mini @ea27445d, Supermicro SYS-521GE-TNRT (X13DEG-OA, Emerald
    # Rapids, SNC-2): two GPUs per Gen5 switch (PIX), two switches per socket (NODE), SYS across;
    # both switches of a socket on its first sub-NUMA node (NUMA affinity 0 and 2).
    "16-supermicro-sys-521ge-tnrt-8x-h200nvl": (28, {}, None, {}),
}


@pytest.mark.parametrize("stem", sorted(REAL))
def test_real_matrix_agrees_or_differs_as_documented(stem: str, catalog: Catalog) -> None:
    plan = load_plan(TOPO / f"{stem}.json", catalog)
    machine = plan.machines[0]
    real = parse_topo_matrix((TOPO / f"{stem}.txt").read_text(encoding="utf-8", errors="replace"), stem)
    result = compare_topology(derive_topology(machine, catalog), real, machine.host.numa_per_socket)
    cells, differing, problem, unchecked = REAL[stem]
    assert result.cells == cells
    assert {(d.a, d.b): (d.plan, d.real) for d in result.differences} == differing
    assert {(d.a, d.b): (d.plan, d.real) for d in result.unchecked} == unchecked
    assert result.agree == cells - len(differing) - len(unchecked)
    if problem is None:
        assert result.problems == []
    else:
        assert len(result.problems) == 1 and problem in result.problems[0]
    # The rebuilt machines pass the plan's own checks: no error finding on any of them.
    assert [
        f.message for f in check_machine(machine, catalog, derive_topology(machine, catalog)) if f.severity == "error"
    ] == []


def test_dgx_a100_nps4_numbering_and_nics(catalog: Catalog) -> None:
    topo = derive_topology(load_plan(TOPO / "05-nvidia-dgx-a100-8x-a100-10nic.json", catalog).machines[0], catalog)
    # 05's printout: NUMA 3,3,1,1,7,7,5,5 and affinity 48-63,176-191 for GPU0 (64 cores, NPS4: 16 per node).
    assert [topo.device(g).numa_node for g in topo.gpus] == [3, 3, 1, 1, 7, 7, 5, 5]
    assert topo.device("GPU0").cpu_affinity == "48-63,176-191"
    # Eight single-port CX-6 and a dual-port storage card: ten mlx5 devices, one per port.
    assert [topo.device(n).os_name for n in topo.nics] == [f"mlx5_{i}" for i in range(10)]
    assert topo.matrix["NIC8"]["NIC9"] == "PIX"


def test_parser_reads_what_users_paste() -> None:
    # A P2P status matrix before the path matrix (14's file), ANSI underlines, old mlx columns.
    stem = "14-wrx80-3975wx-2x-rtx5090-club3090-1140"
    text = (TOPO / f"{stem}.p2p.txt").read_text(encoding="utf-8") + (TOPO / f"{stem}.txt").read_text(encoding="utf-8")
    assert "GNS" in text
    real = parse_topo_matrix("\x1b[4m" + text + "\x1b[0m", "14")
    assert real.matrix["GPU0"]["GPU1"] == "PHB" and real.cpu_affinity["GPU0"] == "0-63"
    # Older drivers name the NIC columns by device (the OneFlow V100 report, ~2020).
    old = "\tGPU0\tGPU1\tmlx5_0\tCPU Affinity\nGPU0\t X \tNV1\tNODE\t0-11,24-35\nGPU1\tNV1\t X \tPIX\t0-11,24-35\n"
    old += "mlx5_0\tNODE\tPIX\t X \t\n"
    real = parse_topo_matrix(old, "old")
    assert real.nics == ["mlx5_0"] and real.nic_names == {"mlx5_0": "mlx5_0"} and real.matrix["GPU1"]["mlx5_0"] == "PIX"
    for broken in ("", "GPU0 GPU1\nGPU0 X banana\n", "\x00" * 50, "GPU0\n" * 10_000):
        with pytest.raises(InputError, match=r"^mine\.txt: no nvidia-smi topo -m matrix found"):
            parse_topo_matrix(broken, "mine.txt")


def test_cli_compare_exit_status(tmp_path: Path) -> None:
    def run(stem: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "rackplanner",
                "topo",
                str(TOPO / f"{stem}.json"),
                "--compare",
                str(TOPO / f"{stem}.txt"),
            ],
            capture_output=True,
            text=True,
            check=False,
        )

    same = run("06-hgx-h100-8x-h100-8nic-sglang30401")
    assert same.returncode == 0 and "120 of 120 cells agree" in same.stdout and "matches the machine" in same.stdout
    unsure = run("14-wrx80-3975wx-2x-rtx5090-club3090-1140")
    assert unsure.returncode == 0 and "Not checked (1)" in unsure.stdout
    assert "GPU0-GPU1 plan NODE / real PHB" in unsure.stdout and "in every cell it can check" in unsure.stdout
    # The Gooxi server as delivered, against its own recabled matrix (07 vs 08): the GPUs that moved
    # from CPU0's switch to CPU1's now differ.
    differs = subprocess.run(
        [
            sys.executable,
            "-m",
            "rackplanner",
            "topo",
            str(TOPO / "07-gooxi-as4110g-8x-rtx4090-48g-as-delivered.json"),
            "--compare",
            str(TOPO / "08-gooxi-as4110g-8x-rtx4090-48g-recabled.txt"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert differs.returncode == 1 and "plan SYS / real PIX" in differs.stdout
    junk = tmp_path / "junk.txt"
    junk.write_text("not a matrix", encoding="utf-8")
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "rackplanner",
            "topo",
            str(TOPO / "06-hgx-h100-8x-h100-8nic-sglang30401.json"),
            "--compare",
            str(junk),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and "junk.txt: no nvidia-smi topo -m matrix found" in bad.stderr


def _machine(**fields: object) -> Machine:
    return Machine.model_validate({"id": "m", "name": "M", **fields})


def test_cpu_against_board(catalog: Catalog) -> None:
    def errors(**fields: object) -> list[str]:
        machine = _machine(**fields)
        return [
            f.code + ": " + f.message
            for f in check_machine(machine, catalog, derive_topology(machine, catalog))
            if f.severity == "error"
        ]

    # A server CPU on a desktop socket: both socket names in the message.
    assert errors(board="proart-x670e-creator", cpu="epyc-7543") == [
        "cpu-socket: EPYC 7543 is a SP3 CPU; ProArt X670E-CREATOR WIFI has AM5 sockets."
    ]
    # Two CPUs on a one-socket board, and a 1P-only part (the P suffix) twice.
    assert errors(board="h12ssl-i", cpu="epyc-7543", cpu_count=2)[0].startswith("cpu-count: 2 CPUs on H12SSL-i")
    assert any(
        "EPYC 7302P runs in at most 1 socket" in e
        for e in errors(board="dgx-a100-baseboard", cpu="epyc-7302p", cpu_count=2)
    )
    # Right socket, wrong family: the non-PRO Threadripper 7960X on a WRX90 board (PRO parts only).
    assert errors(board="pro-ws-wrx90e-sage-se", cpu="threadripper-7960x")[0].startswith("cpu-family: ")


def test_missing_second_cpu_switches_its_slots_off(catalog: Catalog) -> None:
    cards = [{"slot": s, "part": "v100-32gb-pcie"} for s in ("gpu1", "gpu2", "gpu5", "gpu6")]
    machine = _machine(server="sys-4029gp-trt", cpu="xeon-gold-6148", cpu_count=1, cards=cards)
    topo = derive_topology(machine, catalog)
    # SYS-4029GP-TRT dual root: GPU slots 5-8 hang off CPU1's switch, so with one CPU only two GPUs exist.
    assert topo.gpus == ["GPU0", "GPU1"] and topo.dead_slots == ["gpu5", "gpu6", "gpu7", "gpu8"]
    found = [f for f in check_machine(machine, catalog, topo) if f.code == "empty-socket"]
    assert [f.slots for f in found] == [["gpu5"], ["gpu6"]] and all(f.severity == "error" for f in found)
    assert from_machine(machine, catalog).devices == 2
    both = machine.model_copy(update={"cpu_count": 2})
    assert len(derive_topology(both, catalog).gpus) == 4 and from_machine(both, catalog).devices == 4


def test_rejected_bridge_is_never_nvlink(catalog: Catalog) -> None:
    cards = [{"slot": "pciex16-g5-1", "part": "rtx-3090"}, {"slot": "pciex16-g5-2", "part": "rtx-3090"}]
    bridge = [{"part": "nvlink-bridge-a100-2slot", "slots": ["pciex16-g5-1", "pciex16-g5-2"]}]
    machine = _machine(board="proart-x670e-creator", cpu="ryzen-9-7950x", cards=cards, bridges=bridge)
    topo = derive_topology(machine, catalog)
    assert [f.code for f in check_machine(machine, catalog, topo) if f.severity == "error"] == ["bridge-unfit"]
    assert topo.matrix["GPU0"]["GPU1"] == "PHB" and topo.rejected_bridges


def _pair(
    catalog: Catalog, host: HostSettings, cpu: str = "threadripper-pro-7975wx", part: str = "rtx-6000-ada"
) -> tuple[str, bool, str]:
    cards = [{"slot": "x16-a", "part": part}, {"slot": "x16-b", "part": part}]
    topo = derive_topology(
        _machine(board="pro-ws-wrx90e-sage-se", cpu=cpu, cards=cards, host=host.model_dump()), catalog
    )
    pair = topo.pair("GPU0", "GPU1")
    return pair.code, pair.p2p, pair.nccl


def test_nccl_p2p_level_rules(catalog: Catalog) -> None:
    # NCCL src/graph/paths.cc (ncclTopoCheckP2p): level PXB by default, SYS on AMD x86 with <= 2 GPUs.
    assert _pair(catalog, HostSettings()) == ("NODE", True, "P2P over PCIe")
    # NCCL_P2P_LEVEL=PXB (the Intel default) keeps NODE pairs in host memory.
    assert _pair(catalog, HostSettings(nccl_p2p_level="PXB")) == ("NODE", False, "SHM through host memory")
    assert _pair(catalog, HostSettings(nccl_p2p_disable=True))[1] is False
    # NVML reports no P2P with the IOMMU translating, and on GeForce unless a P2P driver is used.
    assert _pair(catalog, HostSettings(iommu=True))[1] is False
    assert _pair(catalog, HostSettings(), part="rtx-4090")[1] is False
    assert _pair(catalog, HostSettings(p2p_driver=True), part="rtx-4090")[1] is True


def test_intel_host_advice_names_the_variable(catalog: Catalog) -> None:
    # ESC8000A-E12's GPUs each on their own host bridge: NODE. On an Intel-style default (PXB) NCCL
    # uses host memory; the finding names NCCL_P2P_LEVEL.
    plan = load_plan(TOPO / "01-asus-esc8000a-e12-4x-rtx6000ada.json", catalog)
    machine = plan.machines[0]
    findings = check_machine(machine, catalog, derive_topology(machine, catalog))
    advice = [f.message for f in findings if f.code == "nccl-p2p"]
    assert len(advice) == 1 and "NCCL_P2P_LEVEL=SYS" in advice[0] and "GPU0-GPU1 (NODE)" in advice[0]


def test_nic_ports_dual_gpu_cards_and_upi(catalog: Catalog) -> None:
    cards = [{"slot": "gpu1", "part": "tesla-k80"}, {"slot": "cpu1-x8", "part": "connectx-3-mcx354a-fcbt"}]
    topo = derive_topology(_machine(server="sys-4028gr-trt2", cpu="xeon-e5-2680-v4", cpu_count=2, cards=cards), catalog)
    # A K80 card is two GPUs behind its own switch (PIX); ConnectX-3 is one mlx4 device for both ports.
    assert topo.gpus == ["GPU0", "GPU1"] and topo.matrix["GPU0"]["GPU1"] == "PIX"
    assert [topo.device(n).os_name for n in topo.nics] == ["mlx4_0"]
    # Xeon Platinum 8380: three UPI links at 11.2 GT/s, 2 bytes per transfer = 67.2 GB/s per direction.
    hgx = _machine(board="poweredge-r750xa-board", cpu="xeon-platinum-8380", cpu_count=2)
    assert derive_topology(hgx, catalog).inter_socket_gbs == pytest.approx(67.2)


def test_xgmi_bandwidth_and_unknown_links(catalog: Catalog) -> None:
    # 01's ESC8000A-E12 with two EPYC 9354: four xGMI links at 32 Gbps (Lenovo Press LP1852),
    # x16 each = 4 x 32 x 2 bytes = 256 GB/s per direction (LP1852's 512 GB/s counts both ways).
    topo = derive_topology(load_plan(TOPO / "01-asus-esc8000a-e12-4x-rtx6000ada.json", catalog).machines[0], catalog)
    assert topo.inter_socket_gbs == pytest.approx(256.0)
    assert not any("not in the catalog" in n for n in topo.notes)
    # DGX A100 with EPYC 7742: four links at 18 GT/s (a forum figure, cited on the part) = 144 GB/s.
    dgx = derive_topology(load_plan(TOPO / "05-nvidia-dgx-a100-8x-a100-10nic.json", catalog).machines[0], catalog)
    assert dgx.inter_socket_gbs == pytest.approx(144.0)
    # EPYC 7763 (Milan): no source gave its xGMI rate, so the bandwidth is unknown and said to be.
    milan = load_plan(TOPO / "05-nvidia-dgx-a100-8x-a100-10nic.json", catalog).machines[0]
    milan = milan.model_copy(update={"cpu": "epyc-7763"})
    unknown = derive_topology(milan, catalog)
    assert unknown.inter_socket_gbs is None
    assert any("not in the catalog" in n and "not checked" in n for n in unknown.notes)


def test_boards_with_more_links_than_host_bridges(catalog: Catalog) -> None:
    # An SP3 CPU has four PCIe host bridges (lspci -tv of G292-Z20: 00/40/80/c0): a board that lists
    # five root complexes on one socket must say its host bridges are not known.
    h12 = catalog.get_as("h12ssl-i", Board)
    assert h12 is not None and not h12.host_bridges_known
    data = h12.model_dump() | {"host_bridges_known": True}
    with pytest.raises(ValidationError, match="socket 0 has 5 root complexes, but a SP3 CPU has 4 PCIe host bridges"):
        Board.model_validate(data)
    # Two GPUs on such a board: NODE, flagged, and a note that says it is not checked.
    cards = [{"slot": "x16-a", "part": "rtx-3090"}, {"slot": "x16-b", "part": "rtx-3090"}]
    topo = derive_topology(_machine(board="h12ssl-i", cpu="epyc-7302p", cpu_count=1, cards=cards), catalog)
    pair = topo.pair("GPU0", "GPU1")
    assert pair.code == "NODE" and pair.host_bridge_unknown
    assert any("share a PCIe host bridge is not known" in n for n in topo.notes)
    # Boards whose host bridges are known never flag a pair (ESC8000A-E12, one GPU per host bridge).
    assert not any(
        p.host_bridge_unknown
        for p in derive_topology(
            load_plan(TOPO / "01-asus-esc8000a-e12-4x-rtx6000ada.json", catalog).machines[0], catalog
        ).pairs
    )


def test_hgx_a100_four_gpu_board(catalog: Catalog) -> None:
    # NVIDIA's HGX A100 4-GPU: every pair joined by four NVLinks, 200 GB/s both ways (NVIDIA's
    # HGX A100 post) = 4 links x 25 GB/s = 100 GB/s per direction; no PCIe switch.
    cards = [{"slot": f"sxm{i}", "part": "a100-80gb-sxm"} for i in range(1, 5)]
    topo = derive_topology(_machine(board="hgx-a100-4gpu", cpu="epyc-7763", cpu_count=1, cards=cards), catalog)
    gpu_pairs = [p for p in topo.pairs if p.a in topo.gpus and p.b in topo.gpus]
    assert len(gpu_pairs) == 6 and {(p.code, p.gbs) for p in gpu_pairs} == {("NV4", 100.0)}
    assert all(len(topo.device(g).chain) == 1 for g in topo.gpus)


def test_sapphire_rapids_server_with_sub_numa_clusters(catalog: Catalog) -> None:
    cards = [{"slot": f"gpu{i}", "part": "h100-nvl"} for i in range(1, 9)]
    # catalog/cpu.yaml: Xeon Gold 6448Y, Sapphire Rapids (4th gen), 32 cores, LGA4677; the X13DEG-OA
    # data sheet: 5th Gen Intel Xeon / 4th Gen Intel Xeon Scalable.
    machine = _machine(server="sys-521ge-tnrt", cpu="xeon-gold-6448y", cpu_count=2, cards=cards)
    topo = derive_topology(machine, catalog)
    assert [f.message for f in check_machine(machine, catalog, topo) if f.severity == "error"] == []
    # NPS1/SNC off: one NUMA node per socket; SNC-2 as in tests/data/topo/16: nodes 0 and 2.
    assert [topo.device(g).numa_node for g in topo.gpus] == [0, 0, 0, 0, 1, 1, 1, 1]
    snc2 = machine.model_copy(update={"host": HostSettings(numa_per_socket=2)})
    split = derive_topology(snc2, catalog)
    assert [split.device(g).numa_node for g in split.gpus] == [0, 0, 0, 0, 2, 2, 2, 2]
    assert split.matrix["GPU0"]["GPU1"] == "PIX" and split.matrix["GPU0"]["GPU2"] == "NODE"
    assert split.matrix["GPU3"]["GPU4"] == "SYS"
    # Without its second CPU, the four GPUs behind CPU1's two switches are not seen.
    lone = derive_topology(machine.model_copy(update={"cpu_count": 1}), catalog)
    assert lone.dead_slots == ["gpu5", "gpu6", "gpu7", "gpu8"]
