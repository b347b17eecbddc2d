"""Where each box of a block diagram goes: top-down, devices side by side or in columns."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QFont, QFontMetricsF

from rackplanner.core.machine.topology import PairPath
from rackplanner.draw.block_diagram.tree import DEVICE_KINDS, DiagramNode

# Geometry in scene units (pixels at 100 % zoom).
PAD = 7.0
GAP_X = 18.0
MIN_BOX_W = 150.0
MAX_BOX_W = 210.0
RADIUS = 7.0
BUS_DROP = 12.0
INDENT = 24.0
STACK_FROM = 2
RAIL = 10.0
COLUMN = "#column"


@dataclass(frozen=True)
class Geometry:
    box_w: float
    box_h: float
    pitch: float  # from one row of boxes to the next
    stack_pitch: float  # from one device to the next in a column
    socket_gap: float


def layout_tree(
    nodes: dict[str, DiagramNode],
    sockets: list[str],
    geo: Geometry,
    fonts: Fonts,
    nv_pairs: list[PairPath],
    fabric: bool,
    *,
    stack: bool,
) -> tuple[float, float]:
    """Place every node (centre x, top y); returns the drawing's rough width and height."""
    box_w, box_h = geo.box_w, geo.box_h

    def depth(node_id: str, level: int) -> int:
        node = nodes[node_id]
        node.depth = level
        return max([level, *(depth(c, level + 1) for c in node.children if nodes[c].kind not in DEVICE_KINDS)])

    bottom = max(depth(s, 0) for s in sockets) + 1
    for node in nodes.values():
        if node.kind in DEVICE_KINDS:
            node.depth = bottom

    # Devices under one bridge may go in a column (narrow docks); not where NVLink arcs would have
    # to leave the column (DGX-1's mesh), which reads better side by side.
    def may_stack(leaves: list[str]) -> bool:
        if not stack or len(leaves) < STACK_FROM:
            return False
        names = {nodes[c].device for c in leaves}
        return fabric or all((p.a in names) == (p.b in names) for p in nv_pairs if p.a in names or p.b in names)

    for node in nodes.values():
        leaves = [c for c in node.children if nodes[c].kind in DEVICE_KINDS]
        if may_stack(leaves):
            node.column = leaves
            node.children = [c for c in node.children if c not in leaves]
            for leaf in leaves:
                nodes[leaf].stacked = True

    def column_width(node: DiagramNode) -> float:
        index = {nodes[c].device: i for i, c in enumerate(node.column)}
        inside = [p for p in nv_pairs if p.a in index and p.b in index]
        width = INDENT + box_w
        if fabric and any(nodes[c].kind == "gpu" for c in node.column):
            width += RAIL  # the line down to the NVSwitch box runs beside the column
        if inside:
            deepest = max(side_depth(abs(index[p.a] - index[p.b]) * geo.stack_pitch) for p in inside)
            label = max(fonts.fm.horizontalAdvance(nv_text(p)) for p in inside)
            width += deepest + label / 2 + 12
        return width

    def units(node: DiagramNode) -> list[str]:
        ordered = [(nodes[c].order, c) for c in node.children]
        if node.column:
            ordered.append((nodes[node.column[0]].order, COLUMN))
        return [unit for _, unit in sorted(ordered)]

    def span(node_id: str) -> float:
        node = nodes[node_id]
        if node.column:
            node.column_w = column_width(node)
        widths = [node.column_w if u == COLUMN else span(u) for u in units(node)]
        node.span = max(box_w, sum(widths) + GAP_X * max(0, len(widths) - 1))
        return node.span

    def place(node_id: str, left: float) -> None:
        node = nodes[node_id]
        node.y = node.depth * geo.pitch
        parts = units(node)
        if not parts:
            node.x = left + node.span / 2
            return
        widths = [node.column_w if u == COLUMN else nodes[u].span for u in parts]
        cursor = left + (node.span - sum(widths) - GAP_X * (len(parts) - 1)) / 2
        anchors = []
        for unit, width in zip(parts, widths, strict=True):
            if unit == COLUMN:
                node.spine_x = cursor + INDENT / 2
                for i, leaf in enumerate(node.column):
                    dev = nodes[leaf]
                    dev.x = cursor + INDENT + box_w / 2
                    dev.y = dev.depth * geo.pitch + i * geo.stack_pitch
                anchors.append(cursor + INDENT + box_w / 2)
            else:
                place(unit, cursor)
                anchors.append(nodes[unit].x)
            cursor += width + GAP_X
        node.x = (anchors[0] + anchors[-1]) / 2

    left = 0.0
    for sid in sockets:
        span(sid)
        place(sid, left)
        left += nodes[sid].span + geo.socket_gap
    width = left - geo.socket_gap
    height = max(n.y for n in nodes.values()) + box_h
    # Room below the devices for NVLink arcs or the NVSwitch box.
    if fabric:
        height += 28 + fonts.line_h + 2 * PAD
    else:
        gpus = {n.device: n for n in nodes.values() if n.kind == "gpu"}
        below = [abs(gpus[p.a].x - gpus[p.b].x) for p in nv_pairs if not gpus[p.a].stacked]
        if below:
            height += side_depth(max(below)) + fonts.line_h
    return width, height


@dataclass
class Fonts:
    normal: QFont
    bold: QFont
    fm: QFontMetricsF
    fm_bold: QFontMetricsF

    @property
    def line_h(self) -> float:
        return self.fm.height()


def side_depth(distance: float) -> float:
    """How far an NVLink arc bulges out for ends ``distance`` apart."""
    return 26 + 0.3 * distance


def nv_text(p: PairPath) -> str:
    return f"{p.code} · {p.gbs:g} GB/s" if p.gbs is not None else p.code
