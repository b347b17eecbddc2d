"""Bandwidth on PCIe paths: the narrowest uplink two devices share, and each switch uplink's oversubscription."""

from __future__ import annotations

from collections.abc import Sequence

from rackplanner.core.catalog.parts import (
    Board,
    Cpu,
)
from rackplanner.core.machine.topology.board_info import BoardInfo, chipset_root
from rackplanner.core.machine.topology.model import PathCode, SwitchUplink, TopologyDevice, pcie_gbs

# --- bandwidth -----------------------------------------------------------------------


Edge = tuple[str, str]  # (node, "up"|"down"): the link above a node, in one direction


def path_edges(dev: TopologyDevice, until: str | None, direction: str) -> list[Edge]:
    """Links crossed going from a device up to (not above) bridge ``until``, or to the root."""
    edges: list[Edge] = [(f"dev:{dev.name}", direction)]
    for node in dev.chain[:-1]:
        if node == until:
            break
        edges.append((node, direction))
    return edges


def uplink_floor(a: TopologyDevice, b: TopologyDevice, pcie: PathCode, info: BoardInfo) -> float:
    """Narrowest switch or chipset uplink on the PCIe path between two slots (inf if none)."""
    narrowest = float("inf")
    lowest = lowest_shared(a, b) if pcie in ("PIX", "PXB") else None
    for dev in (a, b):
        for node in dev.chain[:-1]:
            if node == lowest:
                break
            gbs = info.uplink_gbs.get(node, 0.0)
            if 0 < gbs < narrowest:
                narrowest = gbs
    return narrowest


def lowest_shared(a: TopologyDevice, b: TopologyDevice) -> str | None:
    above_b = b.chain[:-1]
    for node in a.chain[:-1]:
        if node in above_b:
            return node
    return None


def switch_uplinks(board: Board, devices: Sequence[TopologyDevice]) -> list[SwitchUplink]:
    result = []
    nodes = [(sw.id, sw.part or "unknown", sw.upstream, sw.upstream_lanes, sw.upstream_gen) for sw in board.switches]
    if board.chipset is not None:
        chip = board.chipset
        nodes.append((chip.id, chip.name, chipset_root(board) or "", chip.uplink_lanes, chip.uplink_gen))
    for node, part, upstream, lanes, gen in nodes:
        below = [d for d in devices if node in d.chain[:-1]]
        result.append(
            SwitchUplink(
                switch=node,
                part=part,
                upstream=upstream,
                upstream_lanes=int(lanes),
                upstream_gen=gen,
                upstream_gbs=round(pcie_gbs(gen, lanes), 2),
                device_lanes=sum(d.lanes for d in below),
                device_gbs=round(sum(d.gbs for d in below), 2),
                devices=[d.name for d in below],
            )
        )
    return result


# Bytes a socket link moves per transfer and direction. UPI and QPI carry 16 data bits of 20
# lanes (Intel Xeon Scalable platform brief: "up to 3 UPI links at 10.4 GT/s", 20.8 GB/s per
# link per direction); an xGMI link is x16 (Lenovo Press LP1852: four EPYC 9004 links at
# 32 Gbps give 512 GB/s both ways, 64 GB/s per link per direction). Two bytes for all three.
SOCKET_LINK_BYTES_PER_TRANSFER = 2


def inter_socket_gbs(board: Board, cpu: Cpu | None) -> float | None:
    """Socket-to-socket bandwidth per direction, GB/s: the board's figure, else the CPU's links x rate.

    None where neither is known (parts whose link rate no source gave).
    """
    if board.sockets < 2:
        return None
    if board.inter_socket_gbs is not None:
        return board.inter_socket_gbs
    if cpu is None or not cpu.inter_socket_links or not cpu.inter_socket_gts:
        return None
    return round(cpu.inter_socket_links * cpu.inter_socket_gts * SOCKET_LINK_BYTES_PER_TRANSFER, 2)
