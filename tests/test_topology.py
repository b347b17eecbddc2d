"""Topology known answers from the reference documents (each test names its seed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.machine.topology import Topology, derive_topology, format_topo_matrix, pcie_gbs
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan
from tests.conftest import EXAMPLES
from tests.machinefixtures import build


def example_topology(catalog: Catalog, name: str) -> Topology:
    plan = load_plan(EXAMPLES / f"{name}.json", catalog)
    return derive_topology(plan.machines[0], catalog)


def test_pcie_rates() -> None:
    # 000_2736fecfd42346e5.txt: "PCI-e 3.0 is good for 128 gbits/sec" = 15.75 GB/s per direction.
    assert pcie_gbs(3, 16) == pytest.approx(15.75, abs=0.02)
    assert pcie_gbs(3, 16) * 8 == pytest.approx(126, abs=0.2)  # Gbit/s after 128b/130b coding
    # DESIGN.md: 0.985 / 1.97 / 3.94 / 7.88 GB/s per lane at Gen3/4/5/6.
    assert [round(pcie_gbs(g, 1), 2) for g in (3, 4, 5, 6)] == [0.98, 1.97, 3.94, 7.88]


def test_single_root_eight_gpus(catalog: Catalog) -> None:
    """000_2736fecfd42346e5.txt: hives of four through the 96-lane switches, both hives on one
    root complex, 128 GPU lanes on 32 upstream lanes (4:1)."""
    topo = example_topology(catalog, "sys-4028gr-trt2-8gpu")
    assert topo.gpus == [f"GPU{i}" for i in range(8)]
    m = topo.matrix
    for hive in (range(0, 4), range(4, 8)):
        for a in hive:
            for b in hive:
                if a != b:
                    assert m[f"GPU{a}"][f"GPU{b}"] == "PIX"
    assert m["GPU0"]["GPU4"] == "PHB" and m["GPU3"]["GPU7"] == "PHB"
    assert all(code != "SYS" for row in m.values() for code in row.values())
    assert {d.socket for d in topo.devices} == {0}
    assert [u.ratio for u in topo.uplinks] == [4.0, 4.0]
    assert sum(u.device_lanes for u in topo.uplinks) / sum(u.upstream_lanes for u in topo.uplinks) == 4
    # Datacentre cards: P2P through one switch, and NCCL uses it (PXB or closer).
    pair = topo.pair("GPU0", "GPU1")
    assert pair.p2p and pair.nccl == "P2P over PCIe"
    # Across the hives NCCL >= 2.23.4 falls back to host memory (PHB is beyond PXB).
    assert topo.pair("GPU0", "GPU4").nccl == "SHM through host memory"
    # The x8 NIC slot sits on the same root complex: PHB to every GPU.
    assert {m[g]["NIC0"] for g in topo.gpus} == {"PHB"}
    assert topo.device("NIC0").lanes == 8
    assert "All 8 GPUs hang off one root complex: no pair crosses a socket." in topo.notes


def test_dual_root_x9_layout(catalog: Catalog) -> None:
    """000_2736fecfd42346e5.txt: X9DRG-O-PCIE, two PLX switches per socket with two GPUs
    each; the hives talk over QPI; the x8 slot is on the same root complex."""
    cards = {f"gpu{i}": "v100-32gb-pcie" for i in range(1, 9)}
    cards["cpu1-x8"] = "connectx-3-mcx354a-fcbt"
    plan = build(catalog, board="x9drg-o-pcie", cards=cards, cpu="xeon-e5-2680-v2", cpu_count=2)
    topo = derive_topology(plan.machines[0], catalog)
    m = topo.matrix
    assert m["GPU0"]["GPU1"] == "PIX"  # behind one PLX
    assert m["GPU0"]["GPU2"] == "PHB"  # other PLX, same socket
    assert m["GPU0"]["GPU4"] == "SYS" and m["GPU3"]["GPU7"] == "SYS"
    assert not topo.pair("GPU0", "GPU4").p2p
    assert "inter-socket" in topo.pair("GPU0", "GPU4").p2p_note
    assert [m[f"GPU{i}"]["NIC0"] for i in range(8)] == ["PHB"] * 4 + ["SYS"] * 4
    assert "GPUs 0-3 and GPUs 4-7 reach each other only across the QPI (SYS)." in topo.notes
    # Xeon E5-2680 v2: 10 cores, 20 threads per socket -> socket 1 is CPUs 10-19,30-39.
    assert topo.device("GPU4").cpu_affinity == "10-19,30-39"
    assert topo.device("GPU4").numa_node == 1


def test_home_rig_nvlink_pair(catalog: Catalog) -> None:
    """Issue known answer: two RTX 3090 at x8/x8 on AM5 with an NVLink bridge: NV4 at
    56.25 GB/s per direction, each PCIe link 4.0 x8 (~15.75 GB/s)."""
    topo = example_topology(catalog, "home-rig-2x3090")
    assert topo.matrix["GPU0"]["GPU1"] == "NV4"
    pair = topo.pair("GPU0", "GPU1")
    assert pair.gbs == 56.25 and pair.nccl == "NVLink"
    for gpu in topo.gpus:
        dev = topo.device(gpu)
        assert (dev.gen, dev.lanes) == (4, 8)
        assert dev.gbs == pytest.approx(15.75, abs=0.01)


def test_geforce_without_bridge_has_no_p2p(catalog: Catalog) -> None:
    # 001_1caa315e8577a206.txt: only workstation GPUs have PCIe P2P enabled.
    plan = build(
        catalog,
        board="proart-x670e-creator",
        cards={"pciex16-g5-1": "rtx-3090", "pciex16-g5-2": "rtx-3090"},
        cpu="ryzen-9-7950x",
    )
    topo = derive_topology(plan.machines[0], catalog)
    pair = topo.pair("GPU0", "GPU1")
    assert pair.code == "PHB" and not pair.p2p
    assert "does not enable PCIe P2P" in pair.p2p_note
    assert pair.nccl == "SHM through host memory"


def test_single_card_gets_all_sixteen_lanes(catalog: Catalog) -> None:
    # Bifurcation only splits when both slots of the group are filled.
    plan = build(catalog, board="proart-x670e-creator", cards={"pciex16-g5-1": "rtx-4090"})
    dev = derive_topology(plan.machines[0], catalog).device("GPU0")
    assert (dev.gen, dev.lanes) == (4, 16)
    assert dev.gbs == pytest.approx(31.5, abs=0.05)


def test_chipset_slot_goes_through_the_chipset(catalog: Catalog) -> None:
    plan = build(
        catalog,
        board="proart-x670e-creator",
        cards={"pciex16-g5-1": "rtx-a6000", "pciex16-chipset": "rtx-a6000"},
    )
    topo = derive_topology(plan.machines[0], catalog)
    assert topo.device("GPU1").chain == ["x670e", "cpu"]
    assert topo.matrix["GPU0"]["GPU1"] == "PHB"
    assert topo.device("GPU1").lanes == 2
    # The chipset slot's x2 Gen4 link is the narrowest hop: 3.94 GB/s.
    assert topo.pair("GPU0", "GPU1").gbs == pytest.approx(3.94, abs=0.01)


def test_ring_shares_uplinks(catalog: Catalog) -> None:
    """A ring over GPUs on one x16 switch uplink plus a GPU outside it: the hop leaving the
    switch and the one entering it each use the uplink once per direction."""
    topo = example_topology(catalog, "sys-4028gr-trt2-8gpu")
    assert topo.ring is not None
    assert topo.ring.bottleneck_gbs == pytest.approx(15.76, abs=0.01)
    from rackplanner.core.machine.topology import ring_allreduce

    # GPU0->GPU4->GPU1->GPU5->GPU0 crosses each switch uplink twice in each direction.
    zigzag = ring_allreduce(topo, ["GPU0", "GPU4", "GPU1", "GPU5"])
    assert zigzag.bottleneck_gbs == pytest.approx(15.76 / 2, abs=0.01)


def test_topo_text_layout(catalog: Catalog) -> None:
    text = format_topo_matrix(example_topology(catalog, "sys-4028gr-trt2-8gpu"))
    lines = text.splitlines()
    assert lines[0].split("\t")[1:] == [
        *(f"GPU{i}" for i in range(8)),
        "NIC0",
        "CPU Affinity",
        "NUMA Affinity",
    ]
    # Xeon E5-2680 v4: 14 cores, 28 threads per socket.
    assert lines[1].split("\t") == ["GPU0", " X", *[" PIX"] * 3, *[" PHB"] * 4, " PHB", " 0-13,28-41", " 0"]
    assert "  PIX  = Connection traversing at most a single PCIe bridge" in lines
    # ConnectX-3 is driven by mlx4, one RDMA device for both ports (Mellanox OFED: mlx4 for
    # ConnectX-3, mlx5 for ConnectX-4 and later).
    assert "  NIC0: mlx4_0" in lines


def test_board_lane_budget_problems(catalog: Catalog, tmp_path: Path) -> None:
    """A switch wired to more lanes than it has is a catalog error with a clear message."""
    (tmp_path / "board.yaml").write_text(
        "- id: bad-board\n  vendor: Me\n  model: Overwired\n  source: fixture\n  platform: server\n"
        "  form_factor: proprietary\n  cpu_socket: LGA2011-3\n  sockets: 1\n"
        "  root_complexes: [{id: cpu0, socket: 0, lanes: 40}]\n"
        "  switches: [{id: sw, part: pex8747, upstream: cpu0, upstream_lanes: 16, upstream_gen: 3}]\n"
        "  slots:\n"
        + "".join(
            f"    - {{id: s{i}, label: S{i}, physical_lanes: 16, electrical_lanes: 16, gen: 3, parent: sw}}\n"
            for i in range(3)
        )
    )
    from rackplanner.core.catalog.loading import load_catalog

    mine = load_catalog([tmp_path], include_user=False)
    plan = build(mine, board="bad-board", cards={"s0": "v100-32gb-pcie"})
    topo = derive_topology(plan.machines[0], mine)
    (problem,) = topo.problems
    # PEX8747: 48 lanes; 16 up plus three x16 slots = 64.
    assert problem.startswith("bad-board: switch sw (")
    assert problem.endswith("48 lanes) is wired to 64 lanes (x16 up plus its slots)")


def test_builtin_boards_respect_lane_budgets(catalog: Catalog) -> None:
    from rackplanner.core.catalog.parts import Board
    from rackplanner.core.machine.topology import check_board

    for board in catalog.of_kind(Board):
        assert check_board(board, catalog) == [], board.id


def test_results_are_cached_per_machine_by_content(catalog: Catalog) -> None:
    plan = load_plan(EXAMPLES / "colo-rack.json", catalog)
    first = {m.id: derive_topology(m, catalog) for m in plan.machines}
    edited = edits.set_power_limit(plan, machine="gpu-1", slot="gpu1", watts=250, catalog=catalog).plan
    second = {m.id: derive_topology(m, catalog) for m in edited.machines}
    assert second["gpu-2"] is first["gpu-2"]  # untouched machine: same result object, not recomputed
    assert second["gpu-1"] is not first["gpu-1"]
    assert second["gpu-1"].device("GPU0").power_limit_w == 250
