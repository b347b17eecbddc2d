"""Known answers for the catalog's GPU servers: each figure names the seed or source it comes from.

Every test builds a machine on a catalog board with cards in its slots and checks what
``derive_topology`` finds, as ``nvidia-smi topo -m`` would print it on the real machine.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rackplanner.core.catalog.loading import Catalog, load_catalog
from rackplanner.core.catalog.parts import Board
from rackplanner.core.machine.topology import PATH_RANK, Topology, check_board, derive_topology, pcie_gbs
from tests.machinefixtures import build


def derive(
    catalog: Catalog, board: str, cards: dict[str, str], *, cpu: str | None = None, cpu_count: int = 1
) -> Topology:
    plan = build(catalog, board=board, cards=cards, cpu=cpu, cpu_count=cpu_count)
    return derive_topology(plan.machines[0], catalog)


def gpu_codes(topo: Topology) -> set[str]:
    return {topo.matrix[a][b] for a in topo.gpus for b in topo.gpus if a != b}


# --- PCIe-only servers -----------------------------------------------------------------


def test_cascade_all_gpus_behind_switches_on_one_uplink(catalog: Catalog) -> None:
    """Supermicro PCIe Root Architectures page (SYS-4029GP-TRT3): GPUs talk through the PCIe
    switches, with only one PCIe x16 Gen 3 link between the CPU and all eight GPUs."""
    cards = {f"gpu{i}": "v100-32gb-pcie" for i in range(1, 9)}
    topo = derive(catalog, "x11dpg-ot-cpu-cascade", cards, cpu="xeon-platinum-8280", cpu_count=2)
    m = topo.matrix
    assert m["GPU0"]["GPU1"] == "PIX" and m["GPU4"]["GPU7"] == "PIX"
    assert m["GPU0"]["GPU4"] == "PXB" and m["GPU3"]["GPU7"] == "PXB"
    assert gpu_codes(topo) == {"PIX", "PXB"}  # PXB at worst: never the host bridge
    # NCCL >= 2.23.4 uses PCIe P2P on PXB paths: every pair, even across the cascade.
    assert all(p.nccl == "P2P over PCIe" for p in topo.pairs)
    top = next(u for u in topo.uplinks if u.upstream == "cpu1")
    # 8 GPUs x16 = 128 lanes on one x16 Gen3 link (15.76 GB/s): 8:1.
    assert top.ratio == 8.0 and top.device_lanes == 128
    assert top.upstream_gbs == pytest.approx(pcie_gbs(3, 16), abs=0.01)
    assert "sw-a carries 128 device lanes on a x16 Gen3 uplink (15.76 GB/s): 8:1 oversubscribed." in topo.notes
    # The cascaded switch's own link to the first switch carries its four GPUs: 4:1.
    assert next(u for u in topo.uplinks if u.switch == "sw-b").ratio == 4.0


def test_gigabyte_g482_pairs_at_best_and_hives_across_sockets(catalog: Catalog) -> None:
    """000_2736fecfd42346e5.txt (G482): four GPUs per socket, several PCIe controllers per EPYC
    socket so at best pairs talk directly, the hives of four cross the inter-socket link, and
    one CPU has no NIC slot."""
    cards = {f"gpu{i}": "a100-80gb-pcie" for i in range(1, 9)}
    cards["nic1"] = "connectx-6-mcx653105a-hdat"
    topo = derive(catalog, "mz52-g40-g482", cards, cpu="epyc-7742", cpu_count=2)
    m = topo.matrix
    for gpu in topo.gpus:
        best = min((m[gpu][o] for o in topo.gpus if o != gpu), key=PATH_RANK.__getitem__)
        assert best == "PHB"  # a pair on one host bridge at best, never a switch
    assert m["GPU0"]["GPU1"] == "PHB" and m["GPU0"]["GPU2"] == "NODE"
    assert all(m[f"GPU{a}"][f"GPU{b}"] == "SYS" for a in range(4) for b in range(4, 8))
    assert "GPUs 0-3 and GPUs 4-7 reach each other only across the Infinity Fabric (xGMI) (SYS)." in topo.notes
    # The NIC hangs off CPU1 only: the first hive reaches it across sockets.
    assert [m[g]["NIC0"] for g in topo.gpus] == ["SYS"] * 4 + ["NODE"] * 4
    # With eight GPUs on an AMD host, NCCL keeps PHB pairs on host memory.
    assert topo.pair("GPU0", "GPU1").nccl == "SHM through host memory"


def test_g482_two_gpus_on_amd_use_p2p_at_phb(catalog: Catalog) -> None:
    """Issue 4: since NCCL 2.23.4 PCIe P2P only at PXB or closer, AMD hosts with at most two
    GPUs excepted (the G482 pair of 000_2736fecfd42346e5.txt shares one host bridge)."""
    cards = {"gpu1": "a100-80gb-pcie", "gpu2": "a100-80gb-pcie"}
    topo = derive(catalog, "mz52-g40-g482", cards, cpu="epyc-7742", cpu_count=2)
    pair = topo.pair("GPU0", "GPU1")
    assert pair.code == "PHB" and pair.p2p and pair.nccl == "P2P over PCIe"


def test_asus_esc4000a_e10_four_gpus_on_one_socket(catalog: Catalog) -> None:
    """000_2736fecfd42346e5.txt: ESC4000 as a quad-GPU node with 4x A5000; ESC4000A-E10 is
    single-socket EPYC 7002 (reseller copy of ASUS's summary, search-index id 22171670110)."""
    cards = {f"gpu{i}": "rtx-a5000" for i in range(1, 5)}
    topo = derive(catalog, "esc4000a-e10-board", cards, cpu="epyc-7742")
    assert gpu_codes(topo) == {"NODE"}  # one socket: nothing crosses an SMP link
    pair = topo.pair("GPU0", "GPU3")
    # EPYC host with four GPUs: NCCL's level stays PXB (the AMD rule is for two GPUs or fewer).
    assert not pair.p2p and pair.p2p_note.startswith("the path crosses between root complexes; NCCL stops P2P at PXB")
    assert pair.advice is not None and pair.advice.startswith("NCCL_P2P_LEVEL=SYS")
    assert pair.nccl == "SHM through host memory"
    assert "The 4 GPUs spread over 4 root complexes of one socket (NODE between them)." in topo.notes
    # PCIe 4.0 x16 for each A5000: 31.5 GB/s per direction (0.985 x 2 x 16).
    assert [topo.device(g).gbs for g in topo.gpus] == [pytest.approx(31.5, abs=0.01)] * 4


@pytest.mark.parametrize(
    ("board", "slots", "cpu"),
    [
        ("h12ssl-i", ["x16-a", "x16-b", "x16-c", "x16-d"], "epyc-7742"),
        ("pro-ws-wrx80e-sage-se-wifi", ["pciex16-1", "pciex16-3", "pciex16-5", "pciex16-7"], "threadripper-pro-5995wx"),
        # tomshw.it: ROMED8-2T, seven PCIe 4.0 x16 slots on one EPYC socket.
        ("romed8-2t", ["pcie1", "pcie3", "pcie5", "pcie7"], "epyc-7742"),
    ],
)
def test_epyc_and_threadripper_pro_slots_are_node_never_pix(
    catalog: Catalog, board: str, slots: list[str], cpu: str
) -> None:
    """Issue 4 / 000_2736fecfd42346e5.txt: EPYC-family sockets have several root complexes and
    these boards put each x16 slot on its own, so GPUs in different slots are NODE."""
    topo = derive(catalog, board, {s: "rtx-a6000" for s in slots}, cpu=cpu)
    assert gpu_codes(topo) == {"NODE"}
    assert "PIX" not in gpu_codes(topo) and "SYS" not in gpu_codes(topo)
    assert {topo.device(g).socket for g in topo.gpus} == {0}
    assert {topo.device(g).lanes for g in topo.gpus} == {16}


# --- NVLink systems --------------------------------------------------------------------

# nvidia-smi topo -m of an 8x V100-SXM2 hybrid cube-mesh server (public GitHub file,
# search-index id 22149864117); rows GPU0-GPU1 agree with the DGX-1 NCCL dump of
# github.com/NVIDIA/nccl/issues/671.
DGX1_MATRIX = """
X   NV1 NV1 NV2 NV2 SYS SYS SYS
NV1 X   NV2 NV1 SYS NV2 SYS SYS
NV1 NV2 X   NV2 SYS SYS NV1 SYS
NV2 NV1 NV2 X   SYS SYS SYS NV1
NV2 SYS SYS SYS X   NV1 NV1 NV2
SYS NV2 SYS SYS NV1 X   NV2 NV1
SYS SYS NV1 SYS NV1 NV2 X   NV2
SYS SYS SYS NV1 NV2 NV1 NV2 X
"""


def test_dgx1_hybrid_cube_mesh(catalog: Catalog) -> None:
    cards = {f"sxm{i}": "v100-16gb-sxm2" for i in range(1, 9)}
    cards["ib0"] = "connectx-5-mcx516a-ccat"
    topo = derive(catalog, "dgx-1-v100", cards, cpu="xeon-e5-2698-v4", cpu_count=2)
    expected = [row.split() for row in DGX1_MATRIX.strip().splitlines()]
    assert [[topo.matrix[a][b] for b in topo.gpus] for a in topo.gpus] == expected
    for gpu in topo.gpus:
        peers = [topo.matrix[gpu][o] for o in topo.gpus if topo.matrix[gpu][o].startswith("NV")]
        # iitr.ac.in/dgx: six NVLinks per V100, to four peers (two edges doubled).
        assert len(peers) == 4 and sum(int(c[2:]) for c in peers) == 6
    # 25 GB/s per link per direction (iitr.ac.in/dgx): NV2 = 50, NV1 = 25.
    assert topo.pair("GPU0", "GPU3").gbs == 50 and topo.pair("GPU0", "GPU1").gbs == 25
    # Pairs without NVLink show their PCIe class (SYS, across the sockets), but NCCL routes them
    # over NVLink through a GPU both reach (path NVB, NCCL src/graph/paths.cc): GPU0-GPU1 is NV1
    # and GPU1-GPU5 NV2, so P2P through GPU1 at the narrower 25 GB/s.
    fallback = topo.pair("GPU0", "GPU5")
    assert fallback.code == "SYS" and fallback.p2p and fallback.nccl == "P2P over NVLink through GPU1 (NVB)"
    assert fallback.gbs == 25 and fallback.via == "GPU1"
    assert "GPU0-GPU5, GPU0-GPU6, GPU0-GPU7, GPU1-GPU4" in topo.notes[-3]
    assert topo.notes[-3].endswith("have no NVLink and fall back to PCIe (SYS).")
    # A ring over doubled links only exists in this matrix (0-3-2-1-5-6-7-4): NV2 at every hop.
    assert topo.ring is not None and topo.ring.gpus == ["GPU0", "GPU3", "GPU2", "GPU1", "GPU5", "GPU6", "GPU7", "GPU4"]
    assert topo.ring.bottleneck_gbs == 50 and set(topo.ring.hop_gbs) == {50}
    # NCCL dump of issue 671: GPU0 and GPU1 behind one PLX switch, the NIC beside them.
    assert topo.matrix["GPU0"]["NIC0"] == "PIX" and topo.pair("GPU0", "NIC0").nccl == "GPUDirect RDMA"
    assert topo.matrix["GPU4"]["NIC0"] == "SYS"


@pytest.mark.parametrize(
    ("board", "gpu", "code", "gbs"),
    [
        # NVIDIA NVLink page: A100, twelve NVLinks, 600 GB/s total -> NV12, 300 per direction.
        ("dgx-a100-baseboard", "a100-40gb-sxm", "NV12", 300),
        # NCCL issue 1182: 18 NVLinks per H100; HGX H100 post: 900 GB/s bidirectional -> 450.
        ("hgx-h100-8gpu", "h100-sxm", "NV18", 450),
    ],
)
def test_nvswitch_systems_join_every_pair(catalog: Catalog, board: str, gpu: str, code: str, gbs: float) -> None:
    cards = {f"sxm{i}": gpu for i in range(1, 9)}
    cards["nic0"] = "connectx-7-mcx75310aas-neat"
    topo = derive(catalog, board, cards)
    assert gpu_codes(topo) == {code}
    gpu_pairs = [p for p in topo.pairs if p.a in topo.gpus and p.b in topo.gpus]
    assert len(gpu_pairs) == 28
    assert {p.gbs for p in gpu_pairs} == {gbs} and {p.nccl for p in gpu_pairs} == {"NVLink"}
    assert topo.ring is not None and topo.ring.bottleneck_gbs == gbs
    # GPU0 and its compute NIC share a switch tree: GPUDirect RDMA (PXB on DGX A100 per the
    # NCCL dump of issue 1505, PIX on HGX H100 per SimAI issue 128).
    assert topo.matrix["GPU0"]["NIC0"] == {"NV12": "PXB", "NV18": "PIX"}[code]
    assert topo.pair("GPU0", "NIC0").nccl == "GPUDirect RDMA"


# --- layout rules the new boards rely on ----------------------------------------------


def _tmp_board(tmp_path: Path, body: str) -> Catalog:
    (tmp_path / "board.yaml").write_text(
        "- id: tmp-board\n  vendor: Me\n  model: Test layout\n  source: fixture\n  platform: server\n"
        "  form_factor: proprietary\n  cpu_socket: SP3\n" + body
    )
    return load_catalog([tmp_path], include_user=False)


def test_numa_nodes_of_one_socket_are_sys(tmp_path: Path) -> None:
    """A socket split into NUMA nodes (EPYC NPS2/NPS4): nvidia-smi's legend defines SYS as the
    SMP interconnect between NUMA nodes, and each node gets its share of the cores."""
    mine = _tmp_board(
        tmp_path,
        "  sockets: 1\n"
        "  root_complexes: [{id: q0, socket: 0, numa_node: 0}, {id: q1, socket: 0, numa_node: 1}]\n"
        "  slots:\n"
        "    - {id: s0, label: S0, physical_lanes: 16, electrical_lanes: 16, gen: 4, parent: q0}\n"
        "    - {id: s1, label: S1, physical_lanes: 16, electrical_lanes: 16, gen: 4, parent: q1}\n",
    )
    topo = derive(mine, "tmp-board", {"s0": "a100-80gb-pcie", "s1": "a100-80gb-pcie"}, cpu="epyc-7742")
    pair = topo.pair("GPU0", "GPU1")
    assert pair.code == "SYS" and pair.p2p_note == "the path crosses between NUMA nodes of one socket"
    # EPYC 7742: 64 cores, 128 threads; two nodes of 32 cores, SMT siblings from CPU 64 on.
    assert [topo.device(g).cpu_affinity for g in topo.gpus] == ["0-31,64-95", "32-63,96-127"]
    assert [topo.device(g).numa_node for g in topo.gpus] == [0, 1]


def test_cascaded_switch_link_counts_against_the_upper_switch(tmp_path: Path) -> None:
    """A switch feeding another switch spends lanes on that link too (PEX 8747: 48 lanes)."""
    mine = _tmp_board(
        tmp_path,
        "  sockets: 1\n  root_complexes: [{id: rc, socket: 0}]\n"
        "  switches:\n"
        "    - {id: up, part: pex8747, upstream: rc, upstream_lanes: 16, upstream_gen: 3}\n"
        "    - {id: down, part: pex8747, upstream: up, upstream_lanes: 16, upstream_gen: 3}\n"
        "  slots:\n"
        "    - {id: a, label: A, physical_lanes: 16, electrical_lanes: 16, gen: 3, parent: up}\n"
        "    - {id: a2, label: A2, physical_lanes: 16, electrical_lanes: 16, gen: 3, parent: up}\n"
        "    - {id: b, label: B, physical_lanes: 16, electrical_lanes: 16, gen: 3, parent: down}\n",
    )
    board = mine.get_as("tmp-board", Board)
    assert board is not None
    # up: x16 to the CPU + two x16 slots + x16 to the lower switch = 64 > 48; down: 32 fits.
    assert check_board(board, mine) == [
        "tmp-board: switch up (ExpressLane PEX 8747, 48 lanes) is wired to 64 lanes (x16 up plus its slots)"
    ]
