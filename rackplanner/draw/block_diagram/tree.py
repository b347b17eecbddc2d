"""The boxes of a block diagram and how they hang together, from a machine's topology."""

from __future__ import annotations

from dataclasses import dataclass, field

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Board, Cpu, PcieSwitch
from rackplanner.core.machine.topology import Topology
from rackplanner.core.plan.model import Machine

DEVICE_KINDS = ("gpu", "nic", "nvme")


@dataclass
class DiagramNode:
    """One box of the tree, and the link above it."""

    id: str
    kind: str  # socket, root, switch, chipset, gpu, nic, nvme
    lines: list[str]  # the first is the title, drawn bold
    tooltip: str
    parent: str | None = None
    children: list[str] = field(default_factory=list)
    order: int = 1 << 30  # enumeration index of the first device below
    edge: list[str] = field(default_factory=list)  # label of the link above
    edge_tip: str = ""
    warning: bool = False  # the link above is oversubscribed
    empty: bool = False
    slot: str = ""
    device: str = ""
    depth: int = 0
    span: float = 0.0
    column: list[str] = field(default_factory=list)  # devices drawn in a column under this node
    column_w: float = 0.0
    spine_x: float = 0.0
    stacked: bool = False  # this device sits in its parent's column
    x: float = 0.0  # centre
    y: float = 0.0  # top


def build_tree(
    machine: Machine, board: Board, topo: Topology, catalog: Catalog
) -> tuple[dict[str, DiagramNode], list[str]]:
    """The nodes of the diagram keyed by id, and the socket ids in order."""
    cpu = catalog.get_as(machine.cpu, Cpu) if machine.cpu else None
    nodes: dict[str, DiagramNode] = {}
    alias: dict[str, str] = {}  # root complex -> the node drawn for it
    sockets: list[str] = []
    for s in range(board.sockets):
        sid = f"socket{s}"
        sockets.append(sid)
        if cpu is None:
            model = "CPU not chosen"
        elif s < machine.cpu_count:
            model = cpu.model
        else:
            model = "socket empty"
        roots = [rc for rc in board.root_complexes if rc.socket == s]
        node = DiagramNode(sid, "socket", [f"CPU {s}", model], f"Socket {s}: {model}")
        if len(roots) == 1:
            # One host bridge per socket: the socket box stands for it.
            rc = roots[0]
            alias[rc.id] = sid
            lanes = f", {rc.lanes} lanes" if rc.lanes else ""
            node.lines.append(f"root complex {rc.id}{lanes}")
            node.tooltip += f"\nRoot complex {rc.id}{lanes}"
        else:
            for rc in roots:
                numa = rc.socket if rc.numa_node is None else rc.numa_node
                lanes = f" · {rc.lanes} lanes" if rc.lanes else ""
                nodes[rc.id] = DiagramNode(
                    rc.id,
                    "root",
                    ["Root complex", rc.id, f"NUMA node {numa}{lanes}"],
                    f"PCIe root complex {rc.id} of socket {s} (NUMA node {numa})",
                    parent=sid,
                )
                alias[rc.id] = rc.id
        nodes[sid] = node
    chipset_id = board.chipset.id if board.chipset else None
    for up in topo.uplinks:
        if up.switch == chipset_id:
            kind, lines = "chipset", ["Chipset", up.part]
        else:
            chip = catalog.get_as(up.part, PcieSwitch)
            kind, lines = "switch", [f"Switch {up.switch}", chip.model if chip else "chip not named"]
        lines.append(f"{up.device_lanes} device lanes" if up.devices else "nothing below")
        link = f"Gen{up.upstream_gen} x{up.upstream_lanes} · {up.upstream_gbs:.2f} GB/s"
        node = DiagramNode(
            up.switch,
            kind,
            lines,
            f"{lines[0]} ({lines[1]}): {len(up.devices)} devices, {up.device_lanes} lanes below",
            parent=alias.get(up.upstream, up.upstream),
            edge=[link],
            edge_tip=f"Uplink of {up.switch} to {up.upstream}: PCIe {up.upstream_gen}.0 x{up.upstream_lanes}, "
            f"{up.upstream_gbs:.2f} GB/s per direction for {up.device_gbs:.2f} GB/s of device links",
        )
        if up.device_lanes > up.upstream_lanes:
            node.warning = True
            node.edge.append(f"{up.ratio:g}:1 oversubscribed")
            node.edge_tip += f" ({up.ratio:g}:1 oversubscribed)"
        nodes[up.switch] = node
    for index, dev in enumerate(topo.devices):
        title = dev.name if dev.power_limit_w is None else f"{dev.name} · {dev.power_limit_w:g} W"
        node = DiagramNode(
            f"dev:{dev.name}",
            dev.kind,
            [title, dev.model, dev.slot_label],
            f"{dev.name}: {dev.model}\n{dev.slot_label}\n"
            f"PCIe {dev.gen}.0 x{dev.lanes}, {dev.gbs:.2f} GB/s per direction"
            f"\nvia {' → '.join(dev.chain)} (socket {dev.socket}, NUMA node {dev.numa_node})",
            parent=alias.get(dev.chain[0], dev.chain[0]),
            order=index,
            edge=[f"Gen{dev.gen} x{dev.lanes} · {dev.gbs:.2f} GB/s"],
            edge_tip=f"{dev.name} link: PCIe {dev.gen}.0 x{dev.lanes}, {dev.gbs:.2f} GB/s per direction",
            slot=dev.slot,
            device=dev.name,
        )
        if dev.lanes < dev.card_lanes or dev.gen < dev.card_gen:
            node.edge.append(f"card Gen{dev.card_gen} x{dev.card_lanes}")
            node.edge_tip += f" (the card does PCIe {dev.card_gen}.0 x{dev.card_lanes})"
        nodes[node.id] = node
    for node in nodes.values():
        if node.parent is not None and node.parent in nodes:
            nodes[node.parent].children.append(node.id)

    def settle(node_id: str) -> int:
        node = nodes[node_id]
        for child in node.children:
            node.order = min(node.order, settle(child))
        node.children.sort(key=lambda c: nodes[c].order)
        if node.kind not in DEVICE_KINDS:
            node.empty = node.order == 1 << 30
        return node.order

    for sid in sockets:
        settle(sid)
    return nodes, sockets
