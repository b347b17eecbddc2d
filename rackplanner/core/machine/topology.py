"""PCIe and NVLink topology of a machine, and what follows from it.

From a machine of the plan (its board or server and the cards in its slots) this builds
the tree of sockets, root complexes, switches, chipset and slots, negotiates each card's
link, and derives what ``nvidia-smi topo -m`` would print: the path class between every
pair of GPUs and NICs, P2P and GPUDirect RDMA availability, what NCCL will use, link and
uplink bandwidths, a ring all-reduce bottleneck, NIC locality and plain-words notes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal
from weakref import WeakKeyDictionary

from pydantic import BaseModel

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import (
    PCIE_GBS_PER_LANE,
    BifurcationGroup,
    Board,
    Cpu,
    Drive,
    Gpu,
    Nic,
    NvlinkBridge,
    PcieSwitch,
    Slot,
)
from rackplanner.core.plan.cache import ContentCache, LayeredCache, configuration_key, identity_key
from rackplanner.core.plan.model import Machine
from rackplanner.core.plan.resolve import board_of

PathCode = str  # "X", "NV4", "PIX", "PXB", "PHB", "NODE", "SYS"

# Closeness order of the PCIe path classes, nearest first.
PATH_RANK: dict[str, int] = {"X": 0, "PIX": 1, "PXB": 2, "PHB": 3, "NODE": 4, "SYS": 5}

LEGEND = """Legend:

  X    = Self
  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)
  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node
  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)
  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)
  PIX  = Connection traversing at most a single PCIe bridge
  NV#  = Connection traversing a bonded set of # NVLinks"""


def pcie_gbs(gen: int, lanes: int) -> float:
    """Bandwidth of a PCIe link per direction, GB/s (PCIe 3.0 x16 = 15.76)."""
    return PCIE_GBS_PER_LANE[gen] * lanes


class TopologyDevice(BaseModel):
    """A card in a slot, with the link it negotiates and where it hangs."""

    name: str  # GPU0, NIC0, NVMe0 in enumeration order
    kind: Literal["gpu", "nic", "nvme"]
    slot: str
    slot_label: str
    part: str
    model: str
    gen: int
    lanes: int
    gbs: float
    slot_gen: int
    slot_lanes: int
    card_gen: int
    card_lanes: int
    # Bridges from the slot up to (and including) the root complex, nearest first.
    chain: list[str]
    root_complex: str
    socket: int
    numa_node: int
    cpu_affinity: str
    power_limit_w: float | None = None


class PairPath(BaseModel):
    a: str
    b: str
    code: PathCode
    p2p: bool
    p2p_note: str
    nccl: str
    gbs: float | None


class SwitchUplink(BaseModel):
    switch: str
    part: str
    upstream: str
    upstream_lanes: int
    upstream_gen: int
    upstream_gbs: float
    device_lanes: int
    device_gbs: float
    devices: list[str]

    @property
    def ratio(self) -> float:
        """Downstream device lanes per upstream lane (8 GPUs x16 on x16 = 8.0)."""
        return self.device_lanes / self.upstream_lanes


class RingResult(BaseModel):
    gpus: list[str]
    hop_gbs: list[float | None]
    bottleneck_gbs: float | None
    bottleneck_hop: str | None


class Topology(BaseModel):
    machine: str
    board: str | None
    sockets: int
    inter_socket_link: str | None
    inter_socket_gbs: float | None
    devices: list[TopologyDevice]
    gpus: list[str]
    nics: list[str]
    matrix: dict[str, dict[str, PathCode]]
    pairs: list[PairPath]
    uplinks: list[SwitchUplink]
    nearest_nic: dict[str, tuple[str, PathCode] | None]
    ring: RingResult | None
    notes: list[str]
    problems: list[str]

    def device(self, name: str) -> TopologyDevice:
        return next(d for d in self.devices if d.name == name)

    def pair(self, a: str, b: str) -> PairPath:
        return next(p for p in self.pairs if {p.a, p.b} == {a, b})


# --- building ------------------------------------------------------------------------


# Results by machine (object, then content), so an edit to one machine never recomputes another,
# and by configuration alone (no id, name or notes), so a row of identical servers derives once.
_CACHE: LayeredCache[Topology] = LayeredCache()
_BY_CONFIGURATION: ContentCache[Topology] = ContentCache()


def derive_topology(machine: Machine, catalog: Catalog) -> Topology:
    """Everything the block diagram and ``topo`` show, for one machine (cached by content)."""
    return _CACHE.get(catalog, identity_key(machine), machine.model_dump_json, lambda: _shared_derive(machine, catalog))


def _shared_derive(machine: Machine, catalog: Catalog) -> Topology:
    if board_of(machine, catalog) is None:
        return _derive(machine, catalog)  # its message names the machine
    topo = _BY_CONFIGURATION.get(catalog, configuration_key(machine), lambda: _derive(machine, catalog))
    return topo if topo.machine == machine.id else topo.model_copy(update={"machine": machine.id})


@dataclass(frozen=True)
class _BoardInfo:
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
    # Filled as machines are derived: (slot, slot) -> (PCIe path class, narrowest uplink on that path),
    # and the P2P/RDMA verdict per combination of parts and path.
    paths: dict[tuple[str, str], tuple[PathCode, float]] = field(default_factory=dict)
    verdicts: dict[tuple[object, ...], tuple[bool, str, str]] = field(default_factory=dict)


# Catalog boards are immutable once loaded, so their derived layout is kept beside the catalog.
_BOARDS: WeakKeyDictionary[Catalog, dict[str, _BoardInfo]] = WeakKeyDictionary()


def _board_info(board: Board, catalog: Catalog) -> _BoardInfo:
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
    chipset_root = _chipset_root(board)
    chains: dict[str, list[str]] = {}
    for slot in board.slots:
        chain: list[str] = []
        node = slot.parent
        while node in switches:
            chain.append(node)
            node = switches[node].upstream
        if board.chipset is not None and node == board.chipset.id:
            chain.append(node)
            node = chipset_root or node
        chain.append(node)
        chains[slot.id] = chain
    info = _BoardInfo(
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


def _derive(machine: Machine, catalog: Catalog) -> Topology:
    board = board_of(machine, catalog)
    if board is None:
        return Topology(
            machine=machine.id,
            board=None,
            sockets=0,
            inter_socket_link=None,
            inter_socket_gbs=None,
            devices=[],
            gpus=[],
            nics=[],
            matrix={},
            pairs=[],
            uplinks=[],
            nearest_nic={},
            ring=None,
            notes=[],
            problems=[f"{machine.name} has no board: choose a board or server"],
        )
    info = _board_info(board, catalog)
    problems = list(info.problems)
    cpu = catalog.get_as(machine.cpu, Cpu) if machine.cpu else None
    devices = _devices(machine, info, catalog, cpu, problems)
    gpus = [d for d in devices if d.kind == "gpu"]
    nics = [d for d in devices if d.kind == "nic"]
    nv_links = _nvlink_pairs(machine, info, catalog, gpus)
    amd_host = cpu is not None and cpu.vendor.upper() == "AMD"
    parts = {d.name: catalog.get(d.part) for d in devices}
    pairs: list[PairPath] = []
    ordered = [*gpus, *nics]
    matrix: dict[str, dict[str, PathCode]] = {d.name: {} for d in ordered}
    for i, a in enumerate(ordered):
        matrix[a.name][a.name] = "X"
        for b in ordered[i + 1 :]:
            pair = _pair(a, b, nv_links, parts, amd_host=amd_host, gpu_count=len(gpus), info=info)
            pairs.append(pair)
            matrix[a.name][b.name] = matrix[b.name][a.name] = pair.code
    uplinks = _uplinks(board, devices)
    nearest: dict[str, tuple[str, PathCode] | None] = {}
    for gpu in gpus:
        row = matrix[gpu.name]
        options = [(PATH_RANK[row[nic.name]], nic.name) for nic in nics]
        best = min(options)[1] if options else None
        nearest[gpu.name] = (best, row[best]) if best is not None else None
    topo = Topology(
        machine=machine.id,
        board=board.id,
        sockets=board.sockets,
        inter_socket_link=board.inter_socket_link,
        inter_socket_gbs=board.inter_socket_gbs,
        devices=devices,
        gpus=[g.name for g in gpus],
        nics=[n.name for n in nics],
        matrix=matrix,
        pairs=pairs,
        uplinks=uplinks,
        nearest_nic=nearest,
        ring=None,
        notes=[],
        problems=problems,
    )
    if len(gpus) >= 2:
        topo.ring = ring_allreduce(topo, ring_order(topo))
    topo.notes = explain(topo, machine, board, catalog)
    return topo


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
        if board.chipset is not None and _chipset_root(board) == rc.id:
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


def _chipset_root(board: Board) -> str | None:
    if board.chipset is None:
        return None
    on_socket = [rc.id for rc in board.root_complexes if rc.socket == board.chipset.socket]
    return on_socket[0] if on_socket else board.root_complexes[0].id


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


def _devices(
    machine: Machine, info: _BoardInfo, catalog: Catalog, cpu: Cpu | None, problems: list[str]
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


def _nvlink_pairs(
    machine: Machine, info: _BoardInfo, catalog: Catalog, gpus: Sequence[TopologyDevice]
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


def _pcie_code(a: TopologyDevice, b: TopologyDevice) -> PathCode:
    # nvidia-smi prints SYS for any path between NUMA nodes, also two nodes of one socket.
    if a.socket != b.socket or a.numa_node != b.numa_node:
        return "SYS"
    if a.root_complex != b.root_complex:
        return "NODE"
    lowest = _lowest_shared(a, b)
    if lowest is None:
        return "PHB"
    hops = a.chain.index(lowest) + b.chain.index(lowest) + 1
    return "PIX" if hops == 1 else "PXB"


def _pair(
    a: TopologyDevice,
    b: TopologyDevice,
    nv_links: dict[frozenset[str], tuple[int, float]],
    parts: Mapping[str, object],
    *,
    amd_host: bool,
    gpu_count: int,
    info: _BoardInfo,
) -> PairPath:
    path = info.paths.get((a.slot, b.slot))
    if path is None:
        pcie = _pcie_code(a, b)
        path = info.paths[(a.slot, b.slot)] = (pcie, _uplink_floor(a, b, pcie, info))
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


# --- bandwidth -----------------------------------------------------------------------


Edge = tuple[str, str]  # (node, "up"|"down"): the link above a node, in one direction


def _edges(dev: TopologyDevice, until: str | None, direction: str) -> list[Edge]:
    """Links crossed going from a device up to (not above) bridge ``until``, or to the root."""
    edges: list[Edge] = [(f"dev:{dev.name}", direction)]
    for node in dev.chain[:-1]:
        if node == until:
            break
        edges.append((node, direction))
    return edges


def _uplink_floor(a: TopologyDevice, b: TopologyDevice, pcie: PathCode, info: _BoardInfo) -> float:
    """Narrowest switch or chipset uplink on the PCIe path between two slots (inf if none)."""
    narrowest = float("inf")
    lowest = _lowest_shared(a, b) if pcie in ("PIX", "PXB") else None
    for dev in (a, b):
        for node in dev.chain[:-1]:
            if node == lowest:
                break
            gbs = info.uplink_gbs.get(node, 0.0)
            if 0 < gbs < narrowest:
                narrowest = gbs
    return narrowest


def _lowest_shared(a: TopologyDevice, b: TopologyDevice) -> str | None:
    above_b = b.chain[:-1]
    for node in a.chain[:-1]:
        if node in above_b:
            return node
    return None


def _uplinks(board: Board, devices: Sequence[TopologyDevice]) -> list[SwitchUplink]:
    result = []
    nodes = [(sw.id, sw.part or "unknown", sw.upstream, sw.upstream_lanes, sw.upstream_gen) for sw in board.switches]
    if board.chipset is not None:
        chip = board.chipset
        nodes.append((chip.id, chip.name, _chipset_root(board) or "", chip.uplink_lanes, chip.uplink_gen))
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


def ring_order(topo: Topology) -> list[str]:
    """All GPUs in the order a ring over them would take.

    Where NVLink joins some pairs but not all (DGX-1's hybrid cube mesh), NCCL builds its
    rings on NVLink; this finds the NVLink-only ring whose narrowest hop is widest. Otherwise,
    and when no such ring exists, the GPUs' enumeration order.
    """
    names = list(topo.gpus)
    count = len(names)
    nv = {frozenset((p.a, p.b)): p.gbs or 0.0 for p in topo.pairs if p.code.startswith("NV")}
    if count < 3 or not nv or len(nv) == count * (count - 1) // 2:
        return names
    neighbours = {g: [h for h in names if frozenset((g, h)) in nv] for g in names}
    if any(len(peers) < 2 for peers in neighbours.values()):
        return names
    best: tuple[float, list[str]] | None = None
    steps = 0

    def walk(path: list[str], floor: float) -> None:
        nonlocal best, steps
        steps += 1
        if steps > _RING_SEARCH_STEPS or (best is not None and floor <= best[0]):
            return
        last = path[-1]
        if len(path) == count:
            closing = nv.get(frozenset((last, path[0])))
            if closing is not None and (best is None or min(floor, closing) > best[0]):
                best = (min(floor, closing), list(path))
            return
        for nxt in neighbours[last]:
            if nxt not in path:
                path.append(nxt)
                walk(path, min(floor, nv[frozenset((last, nxt))]))
                path.pop()

    walk([names[0]], float("inf"))
    return best[1] if best is not None else names


# Bound on the ring search, far above what an 8- or 16-GPU NVLink mesh needs.
_RING_SEARCH_STEPS = 50_000


def ring_allreduce(topo: Topology, gpus: Sequence[str]) -> RingResult:
    """Per-hop and bottleneck bandwidth of a ring over ``gpus`` in that order.

    Every hop sends at once, so hops that cross the same link in the same direction share
    it; a hop without P2P is staged through host memory and climbs to the root complex.
    """
    devices = {d.name: d for d in topo.devices}
    uplink_gbs = {u.switch: u.upstream_gbs for u in topo.uplinks}
    pair_of = {frozenset((p.a, p.b)): p for p in topo.pairs}
    hops: list[tuple[str, str, list[Edge] | None, float | None]] = []
    usage: Counter[Edge] = Counter()
    for i, name in enumerate(gpus):
        nxt = gpus[(i + 1) % len(gpus)]
        pair = pair_of[frozenset((name, nxt))]
        if pair.code.startswith("NV"):
            hops.append((name, nxt, None, pair.gbs))
            continue
        a, b = devices[name], devices[nxt]
        lowest = _lowest_shared(a, b) if pair.p2p and pair.code in ("PIX", "PXB") else None
        edges = _edges(a, lowest, "up") + _edges(b, lowest, "down")
        if a.socket != b.socket and topo.inter_socket_gbs:
            edges.append((f"socket:{a.socket}->{b.socket}", "up"))
        usage.update(edges)
        hops.append((name, nxt, edges, None))
    hop_gbs: list[float | None] = []
    for _name, _nxt, hop_edges, fixed in hops:
        if hop_edges is None:
            hop_gbs.append(fixed)
            continue
        shares = []
        for edge in hop_edges:
            node = edge[0]
            if node.startswith("dev:"):
                full = devices[node[4:]].gbs
            elif node.startswith("socket:"):
                full = topo.inter_socket_gbs or 0.0
            else:
                full = uplink_gbs.get(node, 0.0)
            if full > 0:
                shares.append(full / usage[edge])
        hop_gbs.append(round(min(shares), 2) if shares else None)
    known = [(g, f"{h[0]}->{h[1]}") for g, h in zip(hop_gbs, hops, strict=True) if g is not None]
    worst = min(known) if known else None
    return RingResult(
        gpus=list(gpus),
        hop_gbs=hop_gbs,
        bottleneck_gbs=worst[0] if worst else None,
        bottleneck_hop=worst[1] if worst else None,
    )


# --- words ---------------------------------------------------------------------------


def _span(names: Sequence[str]) -> str:
    """GPU0, GPU1, GPU2, GPU5 -> 'GPUs 0-2 and 5'."""
    numbers = sorted(int(n.removeprefix("GPU")) for n in names)
    parts: list[str] = []
    start = prev = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        parts.append(f"{start}-{prev}" if prev > start else str(start))
        if n is not None:
            start = prev = n
    joined = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"GPU {joined}" if len(numbers) == 1 else f"GPUs {joined}"


def explain(topo: Topology, machine: Machine, board: Board, catalog: Catalog) -> list[str]:
    """The notable facts of a topology, one plain sentence each, with the numbers."""
    notes: list[str] = []
    gpus = [topo.device(g) for g in topo.gpus]
    for dev in topo.devices:
        if dev.lanes < dev.card_lanes or dev.gen < dev.card_gen:
            notes.append(
                f"{dev.name} ({dev.model}, PCIe {dev.card_gen}.0 x{dev.card_lanes}) runs at PCIe "
                f"{dev.gen}.0 x{dev.lanes} in {dev.slot_label}: {dev.gbs:.2f} GB/s per direction."
            )
    for group in board.bifurcation_groups:
        used = [s for s in group.slots if machine.card_in(s)]
        if len(used) > 1:
            labels = " and ".join(board.slot_label(s) for s in used)
            notes.append(f"{labels} share {group.lanes} lanes: with both filled each gets x{group.split_lanes}.")
    nv_pairs = [p for p in topo.pairs if p.code.startswith("NV")]
    nv_joined = {frozenset((p.a, p.b)) for p in nv_pairs}
    by_socket: dict[int, list[str]] = {}
    for g in gpus:
        by_socket.setdefault(g.socket, []).append(g.name)
    if len(by_socket) > 1:
        spans = [_span(names) for _, names in sorted(by_socket.items())]
        link = topo.inter_socket_link or "inter-socket link"
        across = [frozenset((a.name, b.name)) for a in gpus for b in gpus if a.socket < b.socket]
        if not any(pair in nv_joined for pair in across):
            notes.append(f"{' and '.join(spans)} reach each other only across the {link} (SYS).")
        elif not all(pair in nv_joined for pair in across):
            notes.append(
                f"{' and '.join(spans)} sit on different sockets: pairs between them without NVLink "
                f"cross the {link} (SYS)."
            )
    elif len(gpus) > 1:
        roots = {g.root_complex for g in gpus}
        if len(roots) == 1:
            notes.append(f"All {len(gpus)} GPUs hang off one root complex: no pair crosses a socket.")
        else:
            notes.append(
                f"The {len(gpus)} GPUs spread over {len(roots)} root complexes of one socket (NODE between them)."
            )
    by_switch: dict[str, list[str]] = {}
    for g in gpus:
        if len(g.chain) > 1:
            by_switch.setdefault(g.chain[0], []).append(g.name)
    for switch, names in by_switch.items():
        if len(names) > 1 and not all(frozenset((a, b)) in nv_joined for a in names for b in names if a < b):
            notes.append(f"{_span(names)} share switch {switch} (PIX): P2P stays below the CPU.")
    for uplink in topo.uplinks:
        if uplink.device_lanes > uplink.upstream_lanes:
            notes.append(
                f"{uplink.switch} carries {uplink.device_lanes} device lanes on a x{uplink.upstream_lanes} "
                f"Gen{uplink.upstream_gen} uplink ({uplink.upstream_gbs:.2f} GB/s): "
                f"{uplink.ratio:g}:1 oversubscribed."
            )
    gpu_pairs = len(gpus) * (len(gpus) - 1) // 2
    if nv_pairs and len(nv_pairs) == gpu_pairs and len({(p.code, p.gbs) for p in nv_pairs}) == 1 and len(gpus) > 2:
        first = nv_pairs[0]
        via = " through NVSwitch" if board.nvswitch_gbs_per_gpu else ""
        notes.append(
            f"All {len(gpus)} GPUs reach each other over NVLink{via} ({first.code}, {first.gbs:g} GB/s per "
            "direction between any pair)."
        )
    elif len(nv_pairs) <= 3:
        for pair in nv_pairs:
            notes.append(f"{pair.a} and {pair.b} are joined by NVLink ({pair.code}, {pair.gbs:g} GB/s per direction).")
    else:
        by_code: dict[tuple[str, float | None], list[str]] = {}
        for pair in nv_pairs:
            by_code.setdefault((pair.code, pair.gbs), []).append(f"{pair.a}-{pair.b}")
        for (code, gbs), names in sorted(by_code.items(), key=lambda item: item[0][0], reverse=True):
            notes.append(f"NVLink {code} ({gbs:g} GB/s per direction) joins {', '.join(names)}.")
        fallback: dict[str, list[str]] = {}
        for i, a in enumerate(gpus):
            for b in gpus[i + 1 :]:
                if frozenset((a.name, b.name)) not in nv_joined:
                    fallback.setdefault(topo.matrix[a.name][b.name], []).append(f"{a.name}-{b.name}")
        for code, names in fallback.items():
            notes.append(f"{', '.join(names)} have no NVLink and fall back to PCIe ({code}).")
    geforce = [g for g in gpus if (p := catalog.get_as(g.part, Gpu)) and not p.p2p_pcie]
    if len(gpus) > 1 and geforce:
        without_nv = [p for p in topo.pairs if p.a in topo.gpus and p.b in topo.gpus and not p.code.startswith("NV")]
        if without_nv:
            notes.append(
                f"{geforce[0].model} does not enable PCIe P2P: GPU pairs without an NVLink bridge "
                "exchange data through host memory."
            )
    for gpu_name, nearest in topo.nearest_nic.items():
        if nearest is not None and PATH_RANK.get(nearest[1], 9) > PATH_RANK["PXB"]:
            notes.append(f"{gpu_name}'s nearest NIC, {nearest[0]}, is {nearest[1]}: no GPUDirect RDMA under NCCL.")
            break
    if topo.ring is not None and topo.ring.bottleneck_gbs is not None:
        order = "" if topo.ring.gpus == topo.gpus else f" (in the order {', '.join(topo.ring.gpus)})"
        notes.append(
            f"A ring all-reduce over all {len(gpus)} GPUs{order} is limited to {topo.ring.bottleneck_gbs:.2f} GB/s "
            f"per direction at hop {topo.ring.bottleneck_hop}."
        )
    return notes


def format_topo_matrix(topo: Topology) -> str:
    """The matrix in ``nvidia-smi topo -m`` layout (tab-separated), with both legends."""
    names = [*topo.gpus, *topo.nics]
    header = "\t" + "\t".join(names) + ("\tCPU Affinity\tNUMA Affinity" if topo.gpus else "")
    lines = [header]
    for name in names:
        row = [name, *(topo.matrix[name][other] for other in names)]
        dev = topo.device(name)
        if dev.kind == "gpu":
            row += [dev.cpu_affinity, str(dev.numa_node)]
        lines.append("\t".join(f" {cell}" if i else cell for i, cell in enumerate(row)))
    lines += ["", LEGEND]
    if topo.nics:
        lines += ["", "NIC Legend:", ""]
        mlx = 0
        for nic in topo.nics:
            dev = topo.device(nic)
            label = f"mlx5_{mlx}" if "connectx" in dev.part else dev.model
            mlx += "connectx" in dev.part
            lines.append(f"  {nic}: {label}")
    return "\n".join(lines) + "\n"


def format_topology(topo: Topology) -> str:
    """Matrix, links, uplinks and notes as a person reads them in a terminal."""
    out = [f"Machine {topo.machine} on {topo.board}", ""]
    if topo.problems:
        out += [f"problem: {p}" for p in topo.problems] + [""]
    if topo.gpus or topo.nics:
        out.append(format_topo_matrix(topo))
    out.append("Links (per direction):")
    for dev in topo.devices:
        via = " -> ".join(dev.chain)
        out.append(
            f"  {dev.name:<6} {dev.model:<34} {dev.slot_label:<22} PCIe {dev.gen}.0 x{dev.lanes:<2} "
            f"{dev.gbs:6.2f} GB/s  via {via}  (socket {dev.socket})"
        )
    shown = [u for u in topo.uplinks if u.devices]
    if shown:
        out += ["", "Uplinks:"]
        for u in shown:
            out.append(
                f"  {u.switch:<8} x{u.upstream_lanes} Gen{u.upstream_gen} to {u.upstream} "
                f"{u.upstream_gbs:6.2f} GB/s, devices {u.device_lanes} lanes ({u.ratio:g}:1)"
            )
    if topo.pairs:
        out += ["", "GPU pairs (P2P, what NCCL uses):"]
        for p in topo.pairs:
            if p.a in topo.gpus and p.b in topo.gpus:
                gbs = f"{p.gbs:.2f} GB/s" if p.gbs is not None else "unknown"
                out.append(
                    f"  {p.a}-{p.b}  {p.code:<4} {'P2P' if p.p2p else 'no P2P':<6} {p.nccl:<24} {gbs}  {p.p2p_note}"
                )
    if topo.notes:
        out += ["", "Notes:"] + [f"  - {n}" for n in topo.notes]
    return "\n".join(out) + "\n"
