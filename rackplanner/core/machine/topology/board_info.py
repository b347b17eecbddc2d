"""A board's PCIe layout worked out once (bridges above each slot, sockets, NUMA, uplinks); its consistency check."""

from __future__ import annotations

from dataclasses import dataclass, field
from weakref import WeakKeyDictionary

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import (
    BifurcationGroup,
    Board,
    PcieSwitch,
    Slot,
)
from rackplanner.core.machine.topology.model import PathCode, pcie_gbs


@dataclass(frozen=True)
class BoardInfo:
    """What every derivation on a board needs, worked out once per catalog board."""

    board: Board
    slots: dict[str, Slot]
    groups: dict[str, BifurcationGroup]
    chains: dict[str, list[str]]  # slot id -> bridges up to and including its root complex
    sockets: dict[str, int]  # root complex -> socket
    numa: dict[str, int]  # root complex -> NUMA node
    node_place: dict[str, tuple[int, int]]  # root complex -> (its node's index in the socket, nodes in socket)
    uplink_gbs: dict[str, float]  # switch or chipset -> its upstream link, GB/s per direction
    problems: tuple[str, ...]
    # Filled as machines are derived: (slot, slot, NUMA nodes per socket) -> (PCIe path class,
    # narrowest uplink on that path).
    paths: dict[tuple[str, str, int], tuple[PathCode, float]] = field(default_factory=dict)


# Catalog boards are immutable once loaded, so their derived layout is kept beside the catalog.
_BOARDS: WeakKeyDictionary[Catalog, dict[str, BoardInfo]] = WeakKeyDictionary()


def board_info_of(board: Board, catalog: Catalog) -> BoardInfo:
    per_catalog = _BOARDS.setdefault(catalog, {})
    info = per_catalog.get(board.id)
    if info is not None and info.board is board:
        return info
    switches = {sw.id: sw for sw in board.switches}
    sockets = {rc.id: rc.socket for rc in board.root_complexes}
    numa = {rc.id: rc.socket if rc.numa_node is None else rc.numa_node for rc in board.root_complexes}
    nodes_of_socket: dict[int, list[int]] = {}
    for rc in board.root_complexes:
        nodes = nodes_of_socket.setdefault(rc.socket, [])
        if numa[rc.id] not in nodes:
            nodes.append(numa[rc.id])
    node_place = {
        rc.id: (sorted(nodes_of_socket[rc.socket]).index(numa[rc.id]), len(nodes_of_socket[rc.socket]))
        for rc in board.root_complexes
    }
    uplink = {sw.id: pcie_gbs(sw.upstream_gen, sw.upstream_lanes) for sw in board.switches}
    if board.chipset is not None:
        uplink[board.chipset.id] = pcie_gbs(board.chipset.uplink_gen, board.chipset.uplink_lanes)
    root_of_chipset = chipset_root(board)
    chains: dict[str, list[str]] = {}
    for slot in board.slots:
        chain: list[str] = []
        node = slot.parent
        while node in switches:
            chain.append(node)
            node = switches[node].upstream
        if board.chipset is not None and node == board.chipset.id:
            chain.append(node)
            node = root_of_chipset or node
        chain.append(node)
        chains[slot.id] = chain
    info = BoardInfo(
        board=board,
        slots={s.id: s for s in board.slots},
        groups={g.id: g for g in board.bifurcation_groups},
        chains=chains,
        sockets=sockets,
        numa=numa,
        node_place=node_place,
        uplink_gbs=uplink,
        problems=tuple(check_board(board, catalog)),
    )
    per_catalog[board.id] = info
    return info


def check_board(board: Board, catalog: Catalog) -> list[str]:
    """Lane budgets a layout must respect: a port cannot feed more lanes than it has."""
    problems: list[str] = []
    groups = {g.id: g for g in board.bifurcation_groups}
    for sw in board.switches:
        if sw.part is None:
            continue
        part = catalog.get_as(sw.part, PcieSwitch)
        if part is None:
            problems.append(f"{board.id}: switch {sw.id} names {sw.part!r}, which is not a PCIe switch in the catalog")
            continue
        below = _lanes_below(board, sw.id, groups) + sw.upstream_lanes
        below += sum(down.upstream_lanes for down in board.switches if down.upstream == sw.id)
        if below > part.lanes:
            problems.append(
                f"{board.id}: switch {sw.id} ({part.model}, {part.lanes} lanes) is wired to {below} lanes "
                f"(x{sw.upstream_lanes} up plus its slots)"
            )
    for rc in board.root_complexes:
        if rc.lanes is None:
            continue
        used = _lanes_below(board, rc.id, groups)
        used += sum(sw.upstream_lanes for sw in board.switches if sw.upstream == rc.id)
        if board.chipset is not None and chipset_root(board) == rc.id:
            used += board.chipset.uplink_lanes
        if used > rc.lanes:
            problems.append(f"{board.id}: root complex {rc.id} has {rc.lanes} lanes but {used} are wired to it")
    return problems


def _lanes_below(board: Board, node: str, groups: dict[str, BifurcationGroup]) -> int:
    """Lanes of the slots directly under a node, counting a bifurcation group once."""
    total = 0
    seen: set[str] = set()
    for slot in board.slots:
        if slot.parent != node:
            continue
        group = groups.get(slot.bifurcation_group or "")
        if group is None:
            total += slot.electrical_lanes
        elif group.id not in seen:
            seen.add(group.id)
            total += group.lanes
    return total


def chipset_root(board: Board) -> str | None:
    if board.chipset is None:
        return None
    on_socket = [rc.id for rc in board.root_complexes if rc.socket == board.chipset.socket]
    return on_socket[0] if on_socket else board.root_complexes[0].id
