"""The cards of a machine as devices: the link each negotiates in its slot, its CPU affinity, and its NVLink peers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Container, Sequence
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
from rackplanner.core.plan.model import BridgeLink, Machine


def _cpu_affinity(
    cpu: Cpu | None, sockets: int, socket: int, node_index: int = 0, nodes_in_socket: int = 1, *, smt: bool = True
) -> str:
    """Logical CPUs of a NUMA node as Linux numbers them: physical cores first, then SMT siblings.

    A socket split into several NUMA nodes (NPS2/NPS4, SNC2/SNC4) gives each node an equal
    share of its cores, in order. With SMT off in the BIOS the siblings are not there.
    """
    if cpu is None:
        return "N/A"
    cores = cpu.cores
    share = cores // nodes_in_socket if nodes_in_socket > 1 and cores % nodes_in_socket == 0 else cores
    first = socket * cores + (node_index * share if share < cores else 0)
    spans = [(first, first + share - 1)]
    if smt and cpu.threads > cores:
        sibling = sockets * cores + first
        spans.append((sibling, sibling + share - 1))
    if len(spans) == 2 and spans[1][0] == spans[0][1] + 1:
        spans = [(spans[0][0], spans[1][1])]
    return ",".join(f"{a}-{b}" for a, b in spans)


_PREFIX = {"gpu": "GPU", "nic": "NIC", "nvme": "NVMe"}


def nic_driver(part: Nic) -> tuple[str | None, int]:
    """The RDMA device name prefix the driver gives a NIC and how many devices it shows.

    mlx5 (ConnectX-4 and later, BlueField) makes one PCI function and one device per port;
    mlx4 (ConnectX-3) one device for the whole card. Other NICs: no RDMA name, one device.
    """
    name = f"{part.id} {part.model}".lower()
    if "connectx-3" in name:
        return "mlx4", 1
    if "connectx" in name or "bluefield" in name:
        return "mlx5", part.ports
    return None, 1


def bus_order(info: BoardInfo, slots: Sequence[str]) -> list[str]:
    """Slots in PCI bus order: by their host bridge's first bus (or catalog order), then board order."""
    roots = info.board.root_complexes
    have_bus = all(rc.pci_bus is not None for rc in roots)
    rank = {rc.id: (rc.pci_bus if have_bus and rc.pci_bus is not None else i) for i, rc in enumerate(roots)}
    index = {slot.id: i for i, slot in enumerate(info.board.slots)}
    return sorted(slots, key=lambda s: (rank.get(info.chains[s][-1], len(roots)), index[s]))


def card_devices(
    machine: Machine, info: BoardInfo, catalog: Catalog, cpu: Cpu | None, problems: list[str], dead: Container[str]
) -> list[TopologyDevice]:
    """The devices the OS sees, numbered as CUDA and nvidia-smi number them (PCI bus order)."""
    board = info.board
    cards = {card.slot: card for card in machine.cards}
    counters: Counter[str] = Counter()
    devices = []
    affinity: dict[str, str] = {}
    host = machine.host
    numa, place = numa_layout(info, host.numa_per_socket)
    for slot_id in bus_order(info, [s for s in cards if s in info.slots and s not in dead]):
        slot, card = info.slots[slot_id], cards[slot_id]
        part = catalog.get(card.part)
        kind: Literal["gpu", "nic", "nvme"]
        functions, os_prefix = 1, None
        if isinstance(part, Gpu):
            kind, gen, lanes, functions = "gpu", part.pcie_gen, int(part.pcie_lanes), part.gpus_per_card
        elif isinstance(part, Nic):
            kind, gen, lanes = "nic", part.pcie_gen, int(part.pcie_lanes)
            os_prefix, functions = nic_driver(part)
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
        chain = list(info.chains[slot.id])
        root = chain[-1]
        if root not in info.sockets:
            problems.append(f"slot {slot.id} does not lead to a root complex")
            continue
        if kind == "gpu" and functions > 1:
            # A dual-GPU card (Tesla K80, M60) carries its own PCIe switch above both GPUs.
            chain = [f"{slot.id}-card-switch", *chain]
        socket = info.sockets[root]
        if root not in affinity:
            node_index, nodes = place[root]
            affinity[root] = _cpu_affinity(cpu, board.sockets, socket, node_index, nodes, smt=host.smt)
        for function in range(functions):
            count = counters[kind]
            counters[kind] += 1
            os_name = None
            if os_prefix is not None:
                os_name = f"{os_prefix}_{counters[os_prefix]}"
                counters[os_prefix] += 1
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
                    chain=chain,
                    root_complex=root,
                    socket=socket,
                    numa_node=numa[root],
                    cpu_affinity=affinity[root],
                    power_limit_w=card.power_limit_w,
                    function=function,
                    os_name=os_name,
                )
            )
    for card in machine.cards:
        if card.slot not in info.slots:
            problems.append(f"{card.part} is in slot {card.slot!r}, which {board.model} does not have")
    return devices


def numa_layout(info: BoardInfo, nodes_per_socket: int) -> tuple[dict[str, int], dict[str, tuple[int, int]]]:
    """NUMA node of each host bridge, and (its index in the socket, nodes in the socket).

    Split into N nodes per socket (NPS2/NPS4, SNC2/SNC4), quadrant q of socket s joins node
    s*N + q*N//4; the board's own figures hold at NPS1.
    """
    if nodes_per_socket <= 1:
        return info.numa, info.node_place
    numa: dict[str, int] = {}
    place: dict[str, tuple[int, int]] = {}
    for socket in sorted(set(info.sockets.values())):
        roots = [rc for rc in info.board.root_complexes if rc.socket == socket]
        for i, rc in enumerate(roots):
            quadrant = rc.quadrant if rc.quadrant is not None else i * 4 // len(roots)
            local = quadrant * nodes_per_socket // 4
            numa[rc.id] = socket * nodes_per_socket + local
            place[rc.id] = (local, nodes_per_socket)
    return numa, place


def nvlink_pairs(
    machine: Machine,
    info: BoardInfo,
    catalog: Catalog,
    gpus: Sequence[TopologyDevice],
    rejected: Container[BridgeLink] = (),
) -> dict[frozenset[str], tuple[int, float]]:
    """NVLink connections as {pair of GPU names: (links, GB/s per direction)}, leaving out rejected bridges."""
    board = info.board
    by_slot = {g.slot: g.name for g in gpus if g.function == 0}
    links: dict[frozenset[str], tuple[int, float]] = {}
    for bridge in machine.bridges:
        if bridge in rejected:
            continue
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
