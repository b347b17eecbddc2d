"""Bandwidth on PCIe paths: the narrowest uplink two devices share, and each switch uplink's oversubscription."""

from __future__ import annotations

from collections.abc import Sequence

from rackplanner.core.catalog.parts import (
    Board,
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
