"""The cards of a machine as devices: the link each negotiates in its slot, its CPU affinity, and its NVLink peers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Literal

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import (
    Cpu,
    Drive,
    Gpu,
    Nic,
    NvlinkBridge,
)
from rackplanner.core.machine.topology.board_info import BoardInfo
from rackplanner.core.machine.topology.model import TopologyDevice, pcie_gbs
from rackplanner.core.plan.model import Machine


def _cpu_affinity(cpu: Cpu | None, sockets: int, socket: int, node_index: int = 0, nodes_in_socket: int = 1) -> str:
    """Logical CPUs of a NUMA node as Linux numbers them: physical cores first, then SMT siblings.

    A socket split into several NUMA nodes (NPS2/NPS4) gives each node an equal share of
    its cores, in order.
    """
    if cpu is None:
        return "N/A"
    cores = cpu.cores
    share = cores // nodes_in_socket if nodes_in_socket > 1 and cores % nodes_in_socket == 0 else cores
    first = socket * cores + (node_index * share if share < cores else 0)
    spans = [(first, first + share - 1)]
    if cpu.threads > cores:
        sibling = sockets * cores + first
        spans.append((sibling, sibling + share - 1))
    if len(spans) == 2 and spans[1][0] == spans[0][1] + 1:
        spans = [(spans[0][0], spans[1][1])]
    return ",".join(f"{a}-{b}" for a, b in spans)


_PREFIX = {"gpu": "GPU", "nic": "NIC", "nvme": "NVMe"}


def card_devices(
    machine: Machine, info: BoardInfo, catalog: Catalog, cpu: Cpu | None, problems: list[str]
) -> list[TopologyDevice]:
    board = info.board
    cards = {card.slot: card for card in machine.cards}
    counters: Counter[str] = Counter()
    devices = []
    affinity: dict[str, str] = {}
    # Enumerate in the board's slot order, as the BIOS walks the buses.
    for slot in board.slots:
        card = cards.get(slot.id)
        if card is None:
            continue
        part = catalog.get(card.part)
        kind: Literal["gpu", "nic", "nvme"]
        if isinstance(part, Gpu):
            kind, gen, lanes = "gpu", part.pcie_gen, int(part.pcie_lanes)
        elif isinstance(part, Nic):
            kind, gen, lanes = "nic", part.pcie_gen, int(part.pcie_lanes)
        elif isinstance(part, Drive) and part.interface == "nvme":
            kind, gen, lanes = "nvme", part.pcie_gen or slot.gen, int(part.pcie_lanes or 4)
        else:
            continue
        slot_lanes = int(slot.electrical_lanes)
        group = info.groups.get(slot.bifurcation_group or "")
        if group is not None:
            shared = sum(1 for s in group.slots if s in cards) > 1
            slot_lanes = min(slot_lanes, int(group.split_lanes if shared else group.lanes))
        link_lanes, link_gen = min(slot_lanes, lanes), min(slot.gen, gen)
        chain = info.chains[slot.id]
        root = chain[-1]
        if root not in info.sockets:
            problems.append(f"slot {slot.id} does not lead to a root complex")
            continue
        count = counters[kind]
        counters[kind] += 1
        socket = info.sockets[root]
        if root not in affinity:
            affinity[root] = _cpu_affinity(cpu, board.sockets, socket, *info.node_place[root])
        devices.append(
            TopologyDevice(
                name=_PREFIX[kind] + str(count),
                kind=kind,
                slot=slot.id,
                slot_label=slot.label,
                part=part.id,
                model=part.model,
                gen=link_gen,
                lanes=link_lanes,
                gbs=round(pcie_gbs(link_gen, link_lanes), 2),
                slot_gen=slot.gen,
                slot_lanes=slot_lanes,
                card_gen=gen,
                card_lanes=lanes,
                chain=list(chain),
                root_complex=root,
                socket=socket,
                numa_node=info.numa[root],
                cpu_affinity=affinity[root],
                power_limit_w=card.power_limit_w,
            )
        )
    for card in machine.cards:
        if card.slot not in info.slots:
            problems.append(f"{card.part} is in slot {card.slot!r}, which {board.model} does not have")
    return devices


def nvlink_pairs(
    machine: Machine, info: BoardInfo, catalog: Catalog, gpus: Sequence[TopologyDevice]
) -> dict[frozenset[str], tuple[int, float]]:
    """NVLink connections as {pair of GPU names: (links, GB/s per direction)}."""
    board = info.board
    by_slot = {g.slot: g.name for g in gpus}
    links: dict[frozenset[str], tuple[int, float]] = {}
    for bridge in machine.bridges:
        part = catalog.get_as(bridge.part, NvlinkBridge)
        a, b = (by_slot.get(s) for s in bridge.slots)
        if part is not None and a and b:
            links[frozenset((a, b))] = (part.links, part.gbs_per_direction)
    if board.nvlink_wiring:
        cards = {card.slot: card for card in machine.cards}
        for wire in board.nvlink_wiring:
            a, b = by_slot.get(wire.a), by_slot.get(wire.b)
            card = cards.get(wire.a)
            gpu = catalog.get_as(card.part, Gpu) if card is not None else None
            if a and b:
                per_link = (gpu.nvlink_gbs / gpu.nvlink_links) if gpu and gpu.nvlink_gbs and gpu.nvlink_links else 0.0
                links[frozenset((a, b))] = (wire.links, round(per_link * wire.links, 2))
    if board.nvswitch_gbs_per_gpu:
        sxm = [g for g in gpus if info.slots[g.slot].kind == "sxm"]
        for i, a_dev in enumerate(sxm):
            gpu = catalog.get_as(a_dev.part, Gpu)
            count = gpu.nvlink_links if gpu and gpu.nvlink_links else 0
            for b_dev in sxm[i + 1 :]:
                links[frozenset((a_dev.name, b_dev.name))] = (count, board.nvswitch_gbs_per_gpu)
    return links
