"""The path class of a device pair (as `nvidia-smi topo -m`) and what P2P, GPUDirect RDMA and NCCL make of it."""

from __future__ import annotations

from collections.abc import Mapping

from rackplanner.core.catalog.parts import (
    Gpu,
    Nic,
)
from rackplanner.core.machine.topology.bandwidth import lowest_shared, uplink_floor
from rackplanner.core.machine.topology.board_info import BoardInfo
from rackplanner.core.machine.topology.model import PATH_RANK, PairPath, PathCode, TopologyDevice


def _pcie_code(a: TopologyDevice, b: TopologyDevice) -> PathCode:
    # nvidia-smi prints SYS for any path between NUMA nodes, also two nodes of one socket.
    if a.socket != b.socket or a.numa_node != b.numa_node:
        return "SYS"
    if a.root_complex != b.root_complex:
        return "NODE"
    lowest = lowest_shared(a, b)
    if lowest is None:
        return "PHB"
    hops = a.chain.index(lowest) + b.chain.index(lowest) + 1
    return "PIX" if hops == 1 else "PXB"


def pair_path(
    a: TopologyDevice,
    b: TopologyDevice,
    nv_links: dict[frozenset[str], tuple[int, float]],
    parts: Mapping[str, object],
    *,
    amd_host: bool,
    gpu_count: int,
    info: BoardInfo,
) -> PairPath:
    path = info.paths.get((a.slot, b.slot))
    if path is None:
        pcie = _pcie_code(a, b)
        path = info.paths[(a.slot, b.slot)] = (pcie, uplink_floor(a, b, pcie, info))
    pcie, floor = path
    nv = nv_links.get(frozenset((a.name, b.name))) if nv_links else None
    code = f"NV{nv[0]}" if nv else pcie
    gbs = nv[1] if nv else round(min(a.gbs, b.gbs, floor), 2)
    if a.kind == "gpu" and b.kind == "gpu":
        key: tuple[object, ...] = (a.part, b.part, code, pcie, a.socket == b.socket, amd_host, gpu_count <= 2)
        verdict = info.verdicts.get(key)
        if verdict is None:
            verdict = _gpu_p2p(parts[a.name], parts[b.name], code, pcie, a, b, amd_host=amd_host, gpu_count=gpu_count)
            info.verdicts[key] = verdict
    else:
        gpu_dev, nic_dev = (a, b) if a.kind == "gpu" else (b, a)
        key = ("rdma", gpu_dev.part, nic_dev.part, pcie)
        verdict = info.verdicts.get(key)
        if verdict is None:
            verdict = info.verdicts[key] = _gpu_rdma(parts[gpu_dev.name], parts[nic_dev.name], pcie)
    p2p, note, nccl = verdict
    return PairPath(a=a.name, b=b.name, code=code, p2p=p2p, p2p_note=note, nccl=nccl, gbs=gbs)


def _gpu_p2p(
    part_a: object,
    part_b: object,
    code: PathCode,
    pcie: PathCode,
    a: TopologyDevice,
    b: TopologyDevice,
    *,
    amd_host: bool,
    gpu_count: int,
) -> tuple[bool, str, str]:
    if code.startswith("NV"):
        return True, "NVLink", "NVLink"
    blocked = [p for p in (part_a, part_b) if isinstance(p, Gpu) and not p.p2p_pcie]
    if blocked:
        names = " and ".join(sorted({p.model for p in blocked}))
        return False, f"{names}: this product line does not enable PCIe P2P", _shm(pcie)
    if pcie == "SYS":
        if a.socket == b.socket:
            return False, "the path crosses between NUMA nodes of one socket", _shm(pcie)
        return False, "the path crosses the inter-socket link", _shm(pcie)
    if pcie == "NODE":
        return False, "the path crosses between root complexes", _shm(pcie)
    nccl_p2p = PATH_RANK[pcie] <= PATH_RANK["PXB"] or (amd_host and gpu_count <= 2 and pcie == "PHB")
    if pcie == "PHB":
        note = "through the CPU's host bridge: works where the platform routes peer traffic"
        return True, note, "P2P over PCIe" if nccl_p2p else _shm(pcie)
    return True, f"PCIe P2P through {'one switch' if pcie == 'PIX' else 'switches'}", "P2P over PCIe"


def _shm(pcie: PathCode) -> str:
    return "SHM across sockets" if pcie == "SYS" else "SHM through host memory"


def _gpu_rdma(gpu: object, nic: object, pcie: PathCode) -> tuple[bool, str, str]:
    if not isinstance(nic, Nic) or not nic.rdma:
        return False, "the NIC does not do RDMA", "sockets through host memory"
    if isinstance(gpu, Gpu) and not gpu.p2p_pcie:
        return (
            False,
            f"{gpu.model}: GPUDirect RDMA is not enabled on this product line",
            "RDMA via host memory",
        )
    if PATH_RANK[pcie] <= PATH_RANK["PXB"]:
        return True, "GPUDirect RDMA", "GPUDirect RDMA"
    return (
        False,
        f"the NIC is {pcie} from the GPU (NCCL uses GPUDirect RDMA only at PXB or closer)",
        ("RDMA via host memory"),
    )
