"""The path class of a device pair (as `nvidia-smi topo -m`) and its bandwidth; ``nccl`` says what NCCL makes of it."""

from __future__ import annotations

from collections.abc import Mapping

from rackplanner.core.machine.topology.bandwidth import lowest_shared, uplink_floor
from rackplanner.core.machine.topology.board_info import BoardInfo
from rackplanner.core.machine.topology.model import PairPath, PathCode, TopologyDevice
from rackplanner.core.machine.topology.nccl import gpu_nic_verdict, gpu_pair_verdict
from rackplanner.core.plan.model import HostSettings


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
    host: HostSettings,
    amd_host: bool,
    gpu_count: int,
    info: BoardInfo,
) -> PairPath:
    """The pair's class as ``nvidia-smi topo -m`` prints it, its bandwidth, and what P2P and NCCL make of it."""
    if a.slot == b.slot:
        # Two GPUs of one card, or two ports of one NIC: one bridge (the card's switch or the NIC's own port) apart.
        path: tuple[PathCode, float] = ("PIX", float("inf"))
    else:
        key = (a.slot, b.slot, host.numa_per_socket)
        cached = info.paths.get(key)
        if cached is None:
            pcie = _pcie_code(a, b)
            cached = info.paths[key] = (pcie, uplink_floor(a, b, pcie, info))
        path = cached
    pcie, floor = path
    nv = nv_links.get(frozenset((a.name, b.name))) if nv_links else None
    code = f"NV{nv[0]}" if nv else pcie
    gbs = nv[1] if nv else round(min(a.gbs, b.gbs, floor), 2)
    if a.kind == "gpu" and b.kind == "gpu":
        via = None if nv else _nvb_peer(a.name, b.name, nv_links)
        verdict = gpu_pair_verdict(
            parts[a.name],
            parts[b.name],
            pcie,
            nvlink=nv is not None,
            via=via,
            host=host,
            amd_host=amd_host,
            gpu_count=gpu_count,
            same_socket=a.socket == b.socket,
        )
        if verdict.via is not None:
            gbs = min(nv_links[frozenset((a.name, verdict.via))][1], nv_links[frozenset((verdict.via, b.name))][1])
    else:
        gpu_dev, nic_dev = (a, b) if a.kind == "gpu" else (b, a)
        verdict = gpu_nic_verdict(parts[gpu_dev.name], parts[nic_dev.name], pcie, host)
    return PairPath(
        a=a.name,
        b=b.name,
        code=code,
        p2p=verdict.p2p,
        p2p_note=verdict.note,
        nccl=verdict.nccl,
        gbs=gbs,
        advice=verdict.advice,
        via=verdict.via,
        host_bridge_unknown=pcie == "NODE" and not nv and not info.board.host_bridges_known,
    )


def _nvb_peer(a: str, b: str, nv_links: dict[frozenset[str], tuple[int, float]]) -> str | None:
    """A GPU both reach over their own NVLink (NCCL's NVB path), the lowest-numbered if several."""
    peers = [name for pair in nv_links if a in pair for name in pair if name != a and frozenset((name, b)) in nv_links]
    return min(peers, key=lambda n: int(n.removeprefix("GPU"))) if peers else None
