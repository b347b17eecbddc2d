"""The live block diagram of the current machine: sockets, root complexes, switches, chipset and devices.

Everything drawn comes from ``derive_topology``: link widths and GB/s per direction, switch
uplinks with their oversubscription, NVLink pairs and the path class between devices.
Clicking a GPU selects its slot; the selected GPU colours every other device by its path
class to it, as ``nvidia-smi topo -m`` would print it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from PySide6.QtCore import QPointF, QRectF, QSize, QSizeF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QBrush,
    QColor,
    QFont,
    QFontDatabase,
    QFontMetricsF,
    QGuiApplication,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPaintEvent,
    QPen,
    QResizeEvent,
    QStaticText,
    QTransform,
)
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGraphicsPathItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QStyleOptionGraphicsItem,
    QTextBrowser,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Board, Cpu, PcieSwitch
from rackplanner.core.machine.topology import LEGEND, PairPath, Topology, derive_topology, format_topo_matrix
from rackplanner.core.plan.edits import Change
from rackplanner.core.plan.model import Machine
from rackplanner.core.plan.resolve import board_of
from rackplanner.draw import colors
from rackplanner.draw.static_text import StaticTextItem, static_text
from rackplanner.gui.canvases.zoom_view import ZoomView
from rackplanner.gui.docks.live import LiveDock
from rackplanner.gui.document import ChangeSet, PlanDocument

DEVICE_KINDS = ("gpu", "nic", "nvme")

# Geometry in scene units (pixels at 100 % zoom).
_PAD = 7.0
_GAP_X = 18.0
_MIN_BOX_W = 150.0
_MAX_BOX_W = 210.0
_RADIUS = 7.0
_BUS_DROP = 12.0
_INDENT = 24.0
_STACK_FROM = 2
_RAIL = 10.0
_COLUMN = "#column"


@dataclass
class _Node:
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


def _build_tree(machine: Machine, board: Board, topo: Topology, catalog: Catalog) -> tuple[dict[str, _Node], list[str]]:
    """The nodes of the diagram keyed by id, and the socket ids in order."""
    cpu = catalog.get_as(machine.cpu, Cpu) if machine.cpu else None
    nodes: dict[str, _Node] = {}
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
        node = _Node(sid, "socket", [f"CPU {s}", model], f"Socket {s}: {model}")
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
                nodes[rc.id] = _Node(
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
        node = _Node(
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
        node = _Node(
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


@dataclass(frozen=True)
class _Geometry:
    box_w: float
    box_h: float
    pitch: float  # from one row of boxes to the next
    stack_pitch: float  # from one device to the next in a column
    socket_gap: float


def _layout(
    nodes: dict[str, _Node],
    sockets: list[str],
    geo: _Geometry,
    fonts: _Fonts,
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
        if not stack or len(leaves) < _STACK_FROM:
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

    def column_width(node: _Node) -> float:
        index = {nodes[c].device: i for i, c in enumerate(node.column)}
        inside = [p for p in nv_pairs if p.a in index and p.b in index]
        width = _INDENT + box_w
        if fabric and any(nodes[c].kind == "gpu" for c in node.column):
            width += _RAIL  # the line down to the NVSwitch box runs beside the column
        if inside:
            deepest = max(_side_depth(abs(index[p.a] - index[p.b]) * geo.stack_pitch) for p in inside)
            label = max(fonts.fm.horizontalAdvance(_nv_text(p)) for p in inside)
            width += deepest + label / 2 + 12
        return width

    def units(node: _Node) -> list[str]:
        ordered = [(nodes[c].order, c) for c in node.children]
        if node.column:
            ordered.append((nodes[node.column[0]].order, _COLUMN))
        return [unit for _, unit in sorted(ordered)]

    def span(node_id: str) -> float:
        node = nodes[node_id]
        if node.column:
            node.column_w = column_width(node)
        widths = [node.column_w if u == _COLUMN else span(u) for u in units(node)]
        node.span = max(box_w, sum(widths) + _GAP_X * max(0, len(widths) - 1))
        return node.span

    def place(node_id: str, left: float) -> None:
        node = nodes[node_id]
        node.y = node.depth * geo.pitch
        parts = units(node)
        if not parts:
            node.x = left + node.span / 2
            return
        widths = [node.column_w if u == _COLUMN else nodes[u].span for u in parts]
        cursor = left + (node.span - sum(widths) - _GAP_X * (len(parts) - 1)) / 2
        anchors = []
        for unit, width in zip(parts, widths, strict=True):
            if unit == _COLUMN:
                node.spine_x = cursor + _INDENT / 2
                for i, leaf in enumerate(node.column):
                    dev = nodes[leaf]
                    dev.x = cursor + _INDENT + box_w / 2
                    dev.y = dev.depth * geo.pitch + i * geo.stack_pitch
                anchors.append(cursor + _INDENT + box_w / 2)
            else:
                place(unit, cursor)
                anchors.append(nodes[unit].x)
            cursor += width + _GAP_X
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
        height += 28 + fonts.line_h + 2 * _PAD
    else:
        gpus = {n.device: n for n in nodes.values() if n.kind == "gpu"}
        below = [abs(gpus[p.a].x - gpus[p.b].x) for p in nv_pairs if not gpus[p.a].stacked]
        if below:
            height += _side_depth(max(below)) + fonts.line_h
    return width, height


@dataclass(frozen=True)
class _Text:
    top_left: QPointF
    text: str
    font: QFont
    color: QColor
    # Shaped once and kept: drawing it again costs no text layout.
    static: QStaticText = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "static", static_text(self.text))


def _draw_texts(painter: QPainter, texts: list[_Text]) -> None:
    for line in texts:
        painter.setFont(line.font)
        painter.setPen(line.color)
        painter.drawStaticText(line.top_left, line.static)


class _TextPath(QGraphicsPathItem):
    """A shape that draws its own lines of text: one item per box rather than one per line keeps a rebuild quick."""

    def __init__(self, path: QPainterPath | None = None) -> None:
        super().__init__(path) if path is not None else super().__init__()
        self.texts: list[_Text] = []

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        super().paint(painter, option, widget)
        _draw_texts(painter, self.texts)


class _Label(QGraphicsRectItem):
    """A link label: a plain background with its lines of text."""

    def __init__(self, rect: QRectF) -> None:
        super().__init__(rect)
        self.texts: list[_Text] = []

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        super().paint(painter, option, widget)
        _draw_texts(painter, self.texts)


class _Box(_TextPath):
    """A rounded box of the diagram; devices carry their slot and name."""

    def __init__(self, node: _Node, rect: QRectF) -> None:
        path = QPainterPath()
        path.addRoundedRect(rect, _RADIUS, _RADIUS)
        super().__init__(path)
        self.node = node
        self.badge: StaticTextItem | None = None
        self.setToolTip(node.tooltip)
        self.setZValue(3)
        if node.kind in DEVICE_KINDS:
            self.setCursor(Qt.CursorShape.PointingHandCursor)

    @property
    def kind(self) -> str:
        return self.node.kind

    def fill(self) -> QColor:
        return self.brush().color()


@dataclass
class _Fonts:
    normal: QFont
    bold: QFont
    fm: QFontMetricsF
    fm_bold: QFontMetricsF

    @property
    def line_h(self) -> float:
        return self.fm.height()


_BASE_FILL = {
    "socket": colors.SOCKET_FILL,
    "root": colors.ROOT_FILL,
    "switch": colors.SWITCH_FILL,
    "chipset": colors.CHIPSET_FILL,
}


class DiagramScene(QGraphicsScene):
    """The tree of one machine's topology, laid out top-down."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # A few dozen items rebuilt on every edit: a spatial index would be rebuilt each time for nothing.
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        self.boxes: dict[str, _Box] = {}
        self.edge_labels: dict[str, str] = {}
        self.edges: dict[str, QGraphicsPathItem] = {}  # the link above each node
        self.nvlink_labels: list[str] = []
        self.inter_socket_label = ""
        self.topology: Topology | None = None
        # Rough (width, height) of the drawing with devices in columns (True) and side by side (False).
        self.extents: dict[bool, tuple[float, float]] = {}
        self.stacked = True

    def prepare_texts(self, transform: QTransform) -> None:
        """Lay out every text for a view of this scale now, so the first paint of the scene has less to do."""
        for item in self.items():
            if isinstance(item, _TextPath | _Label):
                for line in item.texts:
                    line.static.prepare(transform, line.font)
            elif isinstance(item, StaticTextItem):
                item.prepare(transform)

    def reset(self) -> None:
        """Nothing drawn."""
        self.clear()
        self.boxes.clear()
        self.edge_labels.clear()
        self.edges.clear()
        self.nvlink_labels = []
        self.inter_socket_label = ""
        self.topology = None

    def build(
        self,
        machine: Machine,
        board: Board,
        topo: Topology,
        catalog: Catalog,
        font: QFont,
        room: QSizeF | None = None,
    ) -> None:
        """Draw the machine; with ``room`` (the view's size), in whichever arrangement shows it larger."""
        self.reset()
        self.topology = topo
        bold = QFont(font)
        bold.setBold(True)
        fonts = _Fonts(font, bold, QFontMetricsF(font), QFontMetricsF(bold))
        nodes, sockets = _build_tree(machine, board, topo, catalog)

        widest = max(
            [fonts.fm_bold.horizontalAdvance(n.lines[0]) for n in nodes.values()]
            + [fonts.fm.horizontalAdvance(line) for n in nodes.values() for line in n.lines[1:]]
            + [fonts.fm.horizontalAdvance(line) + 2 * _PAD for n in nodes.values() for line in n.edge]
        )
        box_w = min(_MAX_BOX_W, max(_MIN_BOX_W, widest + 2 * _PAD + 4))
        box_h = 3 * fonts.line_h + 2 * _PAD
        link = topo.inter_socket_link or ("inter-socket link" if len(sockets) > 1 else "")
        if link and topo.inter_socket_gbs:
            link += f" · {topo.inter_socket_gbs:g} GB/s"
        geo = _Geometry(
            box_w=box_w,
            box_h=box_h,
            pitch=box_h + 2 * fonts.line_h + _BUS_DROP + 26,  # room between rows for the link labels
            stack_pitch=box_h + 2 * fonts.line_h + 14,
            socket_gap=max(3 * _GAP_X, fonts.fm.horizontalAdvance(link) + 40) if link else 3 * _GAP_X,
        )
        nv_pairs = [p for p in topo.pairs if p.code.startswith("NV") and p.a in topo.gpus and p.b in topo.gpus]
        fabric = bool(board.nvswitch_gbs_per_gpu and nv_pairs)
        # Both arrangements are laid out (layout rewrites the nodes, so each gets its own tree);
        # the one that shows larger in the room is drawn.
        side_by_side, _ = _build_tree(machine, board, topo, catalog)
        self.extents = {
            True: _layout(nodes, sockets, geo, fonts, nv_pairs, fabric, stack=True),
            False: _layout(side_by_side, sockets, geo, fonts, nv_pairs, fabric, stack=False),
        }
        self.stacked = self.prefers_stacking(room)
        if not self.stacked:
            nodes = side_by_side

        for node in nodes.values():
            self._add_box(node, box_w, box_h, fonts)
        for node in nodes.values():
            if node.parent is not None and node.parent in nodes:
                self._add_edge(nodes[node.parent], node, box_w, box_h, fonts)
        if link and len(sockets) > 1:
            self._add_socket_links([nodes[s] for s in sockets], box_w, box_h, link, fonts)
        self._add_nvlink(nv_pairs, nodes, board, box_w, box_h, fonts)
        rect = self.itemsBoundingRect().adjusted(-16, -16, 16, 16)
        self.setSceneRect(rect)

    def prefers_stacking(self, room: QSizeF | None) -> bool:
        """Devices in columns (tall) or side by side (wide): whichever the room shows at the larger scale."""
        if room is None or room.isEmpty() or not self.extents:
            return True

        def scale(stack: bool) -> float:
            w, h = self.extents[stack]
            return min(room.width() / w, room.height() / h)

        # Columns unless side by side is clearly larger, so a small resize does not flip the layout.
        return scale(False) <= scale(True) * 1.1

    # --- items ---------------------------------------------------------------------

    def _text(self, parent: _TextPath | _Label, text: str, font: QFont, color: QColor, x: float, y: float) -> None:
        """A line of text with its top left at (x, y), drawn by ``parent``."""
        parent.texts.append(_Text(QPointF(x, y), text, font, color))

    def _add_box(self, node: _Node, box_w: float, box_h: float, fonts: _Fonts) -> None:
        rect = QRectF(node.x - box_w / 2, node.y, box_w, box_h)
        box = _Box(node, rect)
        box.setBrush(colors.DEVICE_FILL if node.kind in DEVICE_KINDS else _BASE_FILL[node.kind])
        pen = QPen(colors.EMPTY_BORDER if node.empty else colors.BOX_BORDER, 1.2)
        if node.empty:
            pen.setStyle(Qt.PenStyle.DashLine)
        box.setPen(pen)
        self.addItem(box)
        text_w = box_w - 2 * _PAD
        y = rect.top() + _PAD
        for i, line in enumerate(node.lines):
            font, fm = (fonts.bold, fonts.fm_bold) if i == 0 else (fonts.normal, fonts.fm)
            if node.kind in DEVICE_KINDS and i == 0:
                # Room on the right for the path-class badge.
                shown = fm.elidedText(line, Qt.TextElideMode.ElideRight, text_w - 44)
            else:
                shown = fm.elidedText(line, Qt.TextElideMode.ElideRight, text_w)
            color = colors.MUTED_TEXT if node.empty or i == 2 else colors.TEXT
            self._text(box, shown, font, color, rect.left() + _PAD, y)
            y += fonts.line_h
        if node.kind in DEVICE_KINDS:
            badge = StaticTextItem("", box)
            badge.setFont(fonts.bold)
            badge.setBrush(colors.TEXT)
            badge.setPos(rect.right() - _PAD, rect.top() + _PAD)
            box.badge = badge
        self.boxes[node.id] = box

    def _label(
        self,
        lines: list[str],
        fonts: _Fonts,
        cx: float,
        bottom_y: float,
        warning: bool,
        tip: str,
        left: float | None = None,
    ) -> None:
        """Link label centred on ``cx`` (or starting at ``left``), its bottom at ``bottom_y``."""
        widths = [fonts.fm.horizontalAdvance(line) for line in lines]
        w = max(widths) + 8
        h = fonts.line_h * len(lines) + 2
        if left is not None:
            cx = left + w / 2
        back = _Label(QRectF(cx - w / 2, bottom_y - h, w, h))
        back.setBrush(colors.LABEL_BACKGROUND)
        back.setPen(QPen(Qt.PenStyle.NoPen))
        back.setZValue(2)
        back.setToolTip(tip)
        self.addItem(back)
        for i, (line, lw) in enumerate(zip(lines, widths, strict=True)):
            color = colors.WARNING if warning and i == 1 else colors.MUTED_TEXT if i else colors.TEXT
            font = fonts.bold if warning and i == 1 else fonts.normal
            x = cx - w / 2 + 4 if left is not None else cx - lw / 2
            self._text(back, line, font, color, x, bottom_y - h + 1 + i * fonts.line_h)

    def _add_edge(self, parent: _Node, child: _Node, box_w: float, box_h: float, fonts: _Fonts) -> None:
        top = parent.y + box_h
        bus = top + _BUS_DROP
        path = QPainterPath(QPointF(parent.x, top))
        path.lineTo(parent.x, bus)
        if child.stacked:
            mid = child.y + box_h / 2
            path.lineTo(parent.spine_x, bus)
            path.lineTo(parent.spine_x, mid)
            path.lineTo(child.x - box_w / 2, mid)
        else:
            path.lineTo(child.x, bus)
            path.lineTo(child.x, child.y)
        item = QGraphicsPathItem(path)
        if child.warning:
            item.setPen(QPen(colors.WARNING, 3.0))
            item.setZValue(1.5)
        else:
            item.setPen(QPen(colors.EMPTY_BORDER if child.empty else colors.LINK, 1.5))
            item.setZValue(1)
        item.setToolTip(child.edge_tip)
        self.addItem(item)
        self.edges[child.id] = item
        if child.edge:
            left = child.x - box_w / 2 if child.stacked else None
            self._label(child.edge, fonts, child.x, child.y - 4, child.warning, child.edge_tip, left=left)
            self.edge_labels[child.id] = " ".join(child.edge)

    def _add_socket_links(self, sockets: list[_Node], box_w: float, box_h: float, link: str, fonts: _Fonts) -> None:
        self.inter_socket_label = link
        for a, b in pairwise(sockets):
            y = a.y + box_h / 2
            x0, x1 = a.x + box_w / 2, b.x - box_w / 2
            line = QGraphicsPathItem()
            path = QPainterPath(QPointF(x0, y))
            path.lineTo(x1, y)
            line.setPath(path)
            line.setPen(QPen(colors.LINK, 3.0))
            line.setToolTip(f"{link} between socket {a.id[-1]} and socket {b.id[-1]}")
            self.addItem(line)
            w = fonts.fm.horizontalAdvance(link)
            text = StaticTextItem(link)
            text.setFont(fonts.normal)
            text.setBrush(colors.TEXT)
            text.setPos((x0 + x1) / 2 - w / 2, y - fonts.line_h - 4)
            self.addItem(text)

    def _add_nvlink(
        self, pairs: list[PairPath], nodes: dict[str, _Node], board: Board, box_w: float, box_h: float, fonts: _Fonts
    ) -> None:
        if not pairs:
            return
        gpus = {n.device: n for n in nodes.values() if n.kind == "gpu"}
        nv_pen = QPen(colors.NVLINK, 2.5)
        if board.nvswitch_gbs_per_gpu:
            self._add_nvswitch(pairs, gpus, box_w, box_h, fonts, nv_pen)
            return

        def side(a: _Node, b: _Node) -> str:
            """Where a link leaves ``a``: the right side within a column (both ends are in it), else the bottom."""
            return "right" if a.stacked else "bottom"

        # Fan the ends of several links out along each GPU's edge, nearest peer first.
        ends: dict[tuple[str, str], QPointF] = {}
        for name, node in gpus.items():
            mine = [p for p in pairs if name in (p.a, p.b)]
            by_side: dict[str, list[tuple[float, PairPath]]] = {}
            for p in mine:
                peer = gpus[p.b if p.a == name else p.a]
                where = side(node, peer)
                key = peer.y if where == "right" else peer.x
                by_side.setdefault(where, []).append((key, p))
            for where, entries in by_side.items():
                entries.sort(key=lambda t: t[0])
                room = (box_h if where == "right" else box_w) * 0.6
                step = min(18.0, room / max(1, len(entries)))
                for i, (_, p) in enumerate(entries):
                    offset = (i - (len(entries) - 1) / 2) * step
                    if where == "right":
                        point = QPointF(node.x + box_w / 2, node.y + box_h / 2 + offset)
                    else:
                        point = QPointF(node.x + offset, node.y + box_h)
                    ends[(name, p.a + p.b)] = point
        for p in sorted(pairs, key=lambda p: abs(gpus[p.a].x - gpus[p.b].x) + abs(gpus[p.a].y - gpus[p.b].y)):
            a, b = gpus[p.a], gpus[p.b]
            pa, pb = ends[(p.a, p.a + p.b)], ends[(p.b, p.a + p.b)]
            dist = abs(pb.x() - pa.x()) + abs(pb.y() - pa.y())
            reach = (_side_depth(dist)) * 4 / 3
            ca = pa + (QPointF(reach, 0) if side(a, b) == "right" else QPointF(0, reach))
            cb = pb + (QPointF(reach, 0) if side(b, a) == "right" else QPointF(0, reach))
            path = QPainterPath(pa)
            path.cubicTo(ca, cb, pb)
            arc = QGraphicsPathItem(path)
            arc.setPen(nv_pen)
            arc.setZValue(1)
            tip = _nv_tip(p)
            arc.setToolTip(tip)
            self.addItem(arc)
            text = _nv_text(p)
            self.nvlink_labels.append(text)
            apex = path.pointAtPercent(0.5)
            self._nv_label(text, fonts, apex.x(), apex.y(), tip)

    def _add_nvswitch(
        self, pairs: list[PairPath], gpus: dict[str, _Node], box_w: float, box_h: float, fonts: _Fonts, pen: QPen
    ) -> None:
        joined = [g for name, g in gpus.items() if any(name in (p.a, p.b) for p in pairs)]
        xs = [g.x for g in joined]
        y0 = max(b.sceneBoundingRect().bottom() for b in self.boxes.values() if b.kind in DEVICE_KINDS)
        codes = sorted({p.code for p in pairs})
        gbs = sorted({p.gbs for p in pairs if p.gbs is not None})
        text = f"NVSwitch · {'/'.join(codes)} · {'/'.join(f'{g:g}' for g in gbs)} GB/s per direction, any GPU pair"
        tip = f"Every GPU pair ({len(pairs)} pairs) reaches the other through the NVSwitches"
        top = y0 + 28
        h = fonts.line_h + 2 * _PAD
        w = max(max(xs) - min(xs) + box_w, fonts.fm_bold.horizontalAdvance(text) + 4 * _PAD)
        mid = (min(xs) + max(xs)) / 2
        rect = QRectF(mid - w / 2, top, w, h)
        path = QPainterPath()
        path.addRoundedRect(rect, _RADIUS, _RADIUS)
        fabric = _TextPath(path)
        fabric.setBrush(colors.NVSWITCH_FILL)
        fabric.setPen(QPen(colors.NVLINK, 1.5))
        fabric.setToolTip(tip)
        fabric.setZValue(3)
        self.addItem(fabric)
        self._text(fabric, text, fonts.bold, colors.TEXT, mid - fonts.fm_bold.horizontalAdvance(text) / 2, top + _PAD)
        self.nvlink_labels.append(text)
        for g in joined:
            drop = QGraphicsPathItem()
            if g.stacked:
                rail = g.x + box_w / 2 + _RAIL
                path = QPainterPath(QPointF(g.x + box_w / 2, g.y + box_h / 2))
                path.lineTo(rail, g.y + box_h / 2)
                path.lineTo(rail, top)
            else:
                path = QPainterPath(QPointF(g.x, g.y + box_h))
                path.lineTo(g.x, top)
            drop.setPath(path)
            drop.setPen(pen)
            drop.setToolTip(tip)
            self.addItem(drop)

    def _nv_label(self, text: str, fonts: _Fonts, cx: float, y: float, tip: str) -> None:
        w = fonts.fm.horizontalAdvance(text) + 8
        h = fonts.line_h + 2
        back = _Label(QRectF(cx - w / 2, y - h / 2, w, h))
        back.setBrush(colors.LABEL_BACKGROUND)
        back.setPen(QPen(colors.NVLINK, 1.0))
        back.setZValue(2)
        back.setToolTip(tip)
        self.addItem(back)
        self._text(back, text, fonts.normal, colors.NVLINK.darker(130), cx - w / 2 + 4, y - h / 2 + 1)

    # --- path colouring ------------------------------------------------------------

    def colour_by_path(self, source: str | None, selected_slots: Sequence[str] = ()) -> None:
        """Fill every device by its path class to ``source`` (a GPU or NIC name; None clears) and outline
        the devices in ``selected_slots``."""
        topo = self.topology
        if topo is None:
            return
        row = topo.matrix.get(source or "")
        for box in self.boxes.values():
            node = box.node
            if node.kind not in DEVICE_KINDS:
                continue
            code = row.get(node.device) if row is not None else None
            pen = box.pen()
            if code is None:
                box.setBrush(colors.DEVICE_FILL)
                box.setToolTip(node.tooltip)
                label = ""
            else:
                box.setBrush(colors.path_color(code))
                label = "" if code == "X" else code
                box.setToolTip(node.tooltip + (f"\n\nPath to {source}: {_path_words(topo, source or '', node.device)}"))
            selected = code == "X" or node.slot in selected_slots
            pen.setColor(colors.SELECTED_BORDER if selected else colors.BOX_BORDER)
            pen.setWidthF(2.6 if selected else 1.2)
            box.setPen(pen)
            if box.badge is not None:
                box.badge.setText(label)
                right = box.path().boundingRect().right() - _PAD
                box.badge.setX(right - box.badge.boundingRect().width())


def _path_words(topo: Topology, a: str, b: str) -> str:
    if a == b:
        return "X (itself)"
    pair = topo.pair(a, b)
    gbs = f", {pair.gbs:.2f} GB/s per direction" if pair.gbs is not None else ""
    return f"{pair.code}{gbs}; {pair.nccl} ({pair.p2p_note})"


def _side_depth(distance: float) -> float:
    """How far an NVLink arc bulges out for ends ``distance`` apart."""
    return 26 + 0.3 * distance


def _nv_text(p: PairPath) -> str:
    return f"{p.code} · {p.gbs:g} GB/s" if p.gbs is not None else p.code


def _nv_tip(p: PairPath) -> str:
    gbs = f"{p.gbs:g} GB/s per direction" if p.gbs is not None else "bandwidth unknown"
    return f"NVLink {p.a}–{p.b}: {p.code}, {gbs}"


class DiagramView(ZoomView):
    """Shows the scene fitted to the dock until the user zooms; clicking a device reports its slot."""

    device_clicked = Signal(str)
    resized = Signal()
    min_scale = 0.05
    max_scale = 4.0

    def __init__(self, scene: DiagramScene, parent: QWidget | None = None) -> None:
        super().__init__(scene, parent)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setBackgroundBrush(QBrush(self.palette().base()))
        self.auto_fit = True

    def fit(self) -> None:
        self.auto_fit = True
        rect = self.sceneRect()
        if rect.isEmpty():
            return
        self.resetTransform()
        scale = self.scale_for(rect)
        self.scale(scale, scale)
        self.centerOn(rect.center())

    def scale_for(self, rect: QRectF) -> float:
        """The scale the view shows a scene of this size at: fitted, or as the user zoomed it."""
        if not self.auto_fit:
            return self.transform().m11()
        view = self.viewport().rect()
        return min(view.width() / rect.width(), view.height() / rect.height(), 1.0) * 0.98

    def zoom(self, factor: float) -> None:
        self.auto_fit = False
        super().zoom(factor)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.auto_fit:
            self.fit()
            self.resized.emit()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            item = self.itemAt(event.position().toPoint())
            while item is not None and not isinstance(item, _Box):
                item = item.parentItem()
            if isinstance(item, _Box) and item.node.slot:
                self.device_clicked.emit(item.node.slot)
                event.accept()
                return
        super().mousePressEvent(event)


class _Swatch(QWidget):
    """A legend entry: the colour of a path class and its code."""

    def __init__(self, code: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.code = code
        self.color = colors.path_color(code) if code != "NV#" else colors.path_color("NV1")
        self.setToolTip(f"{code}: {colors.PATH_MEANING[code]}")
        fm = self.fontMetrics()
        self.setFixedSize(fm.horizontalAdvance(code) + fm.height() + 14, fm.height() + 6)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        h = self.height() - 6
        painter.setBrush(self.color)
        painter.setPen(QPen(colors.BOX_BORDER, 1))
        painter.drawRoundedRect(QRectF(1.5, 3.5, h, h), 3, 3)
        painter.setPen(self.palette().windowText().color())
        text_rect = QRectF(h + 6, 0, self.width() - h - 6, self.height())
        painter.drawText(text_rect, Qt.AlignmentFlag.AlignVCenter, self.code)


class _ElidedLabel(QWidget):
    """One line of text, cut with an ellipsis when the dock is narrow (the tooltip has it all)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._text = ""
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(40)

    def text(self) -> str:
        return self._text

    def setText(self, text: str) -> None:
        self._text = text
        self.update()

    def sizeHint(self) -> QSize:
        # Never ask for the whole text: a long board name must not widen the dock.
        return QSize(120, self.fontMetrics().height() + 4)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().windowText().color())
        shown = self.fontMetrics().elidedText(self._text, Qt.TextElideMode.ElideRight, self.width() - 12)
        painter.drawText(self.rect().adjusted(8, 0, -4, 0), Qt.AlignmentFlag.AlignVCenter, shown)


class TopologyMatrixDialog(QDialog):
    """The ``nvidia-smi topo -m`` style matrix as text, with a button to copy it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("topologyMatrixDialog")
        self.setWindowTitle("Topology matrix")
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.text.setFont(mono)
        self.text.setTabStopDistance(QFontMetricsF(mono).horizontalAdvance(" ") * 8)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.copy_button = buttons.addButton("Copy", QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.setToolTip("Copy the matrix to the clipboard as text")
        self.copy_button.clicked.connect(self.copy)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        layout.addWidget(buttons)
        self.resize(760, 460)

    def set_text(self, text: str) -> None:
        self.text.setPlainText(text)

    def fit_width(self) -> None:
        """As wide as the longest line (tabs at eight columns), within reason."""
        metrics = QFontMetricsF(self.text.font())
        cell = metrics.horizontalAdvance(" ")
        longest = max((len(line.expandtabs(8)) for line in self.text.toPlainText().splitlines()), default=60)
        self.resize(int(min(1100, max(560, longest * cell + 60))), self.height())

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.text.toPlainText())


@dataclass
class _Prepared:
    """A diagram drawn ahead for a drop being hovered: its topology (by identity) and the room it was laid out for."""

    topology: Topology
    room: QSizeF | None
    scene: DiagramScene

    def matches(self, topology: Topology, room: QSizeF | None) -> bool:
        return topology is self.topology and room == self.room


class BlockDiagramDock(LiveDock):
    """Right dock: the current machine's PCIe/NVLink tree, the path legend and the notes.

    Tabbed away (behind a rack's power, say), it only notes that it is stale and redraws when shown.
    """

    def __init__(self, document: PlanDocument, parent: QWidget | None = None) -> None:
        super().__init__("Block diagram", parent)
        self.setObjectName("blockDiagramDock")
        self.document = document
        self.topology: Topology | None = None
        self.matrix_dialog: TopologyMatrixDialog | None = None

        body = QWidget(self)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 2, 4, 4)
        layout.setSpacing(4)

        toolbar = QToolBar(body)
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.matrix_action = QAction("Topology matrix…", self)
        self.matrix_action.setIconText("Topology matrix…")  # keep the ellipsis on the tool button
        self.matrix_action.setToolTip("Path class between every pair of GPUs and NICs, as nvidia-smi topo -m prints it")
        self.matrix_action.triggered.connect(self.show_matrix)
        self.fit_action = QAction("Fit", self)
        self.fit_action.setToolTip("Fit the diagram to the dock (the mouse wheel zooms)")
        self.fit_action.triggered.connect(self._fit)
        toolbar.addAction(self.matrix_action)
        toolbar.addAction(self.fit_action)
        self.header = _ElidedLabel(toolbar)
        toolbar.addWidget(self.header)
        layout.addWidget(toolbar)

        legend = QWidget(body)
        column = QVBoxLayout(legend)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        self.legend_title = QLabel(legend)
        self.legend_title.setWordWrap(True)
        column.addWidget(self.legend_title)
        row = QHBoxLayout()
        row.setSpacing(2)
        column.addLayout(row)
        self.swatches: dict[str, _Swatch] = {}
        for code in colors.PATH_CLASSES:
            swatch = _Swatch(code, legend)
            self.swatches[code] = swatch
            row.addWidget(swatch)
        row.addStretch(1)
        legend.setToolTip(LEGEND)
        self.legend = legend
        layout.addWidget(legend)

        self.scene = DiagramScene(self)
        self.view = DiagramView(self.scene, body)
        self.view.device_clicked.connect(self._device_clicked)
        self.view.resized.connect(self._view_resized)
        self.view.setMinimumHeight(160)
        self.message = QLabel(body)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.message.setMargin(16)
        self.stack = QStackedWidget(body)
        self.stack.addWidget(self.message)
        self.stack.addWidget(self.view)

        self.notes = QTextBrowser(body)
        # A scroll bar that came and went with the notes' length would reflow the text on every edit.
        self.notes.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self._notes_html = ""
        self.notes.setOpenLinks(False)
        splitter = QSplitter(Qt.Orientation.Vertical, body)
        splitter.addWidget(self.stack)
        splitter.addWidget(self.notes)
        splitter.setStretchFactor(0, 4)
        splitter.setStretchFactor(1, 1)
        splitter.setChildrenCollapsible(False)
        splitter.setSizes([3000, 800])
        layout.addWidget(splitter, 1)
        self.setWidget(body)

        document.changed.connect(self._on_changed)
        document.current_machine_changed.connect(lambda _machine: self.refresh_when_visible())
        document.reset.connect(self.refresh_when_visible)
        document.selection_changed.connect(lambda _slots: self._apply_selection())
        document.previewed.connect(self._prepare)
        self._prepared: _Prepared | None = None
        self.refresh()

    def sizeHint(self) -> QSize:
        # Ask for room: an 8-GPU tree is unreadable squeezed under other docks.
        return QSize(460, 620)

    # --- what tests and the main window read ------------------------------------------

    def legend_colors(self) -> dict[str, QColor]:
        return {code: swatch.color for code, swatch in self.swatches.items()}

    def device_boxes(self, kind: str | None = None) -> list[_Box]:
        return [b for b in self.scene.boxes.values() if b.kind in DEVICE_KINDS and (kind is None or b.kind == kind)]

    def node_boxes(self, kind: str) -> list[_Box]:
        return [b for b in self.scene.boxes.values() if b.kind == kind]

    def notes_text(self) -> str:
        return self.notes.toPlainText()

    # --- refreshing --------------------------------------------------------------------

    def _on_changed(self, change: ChangeSet) -> None:
        current = self.document.current_machine
        if not change.touches(Change.TOPOLOGY, Change.MACHINES):
            return
        if not current or not change.machines or current in change.machines:
            self.refresh_when_visible()

    def refresh(self) -> None:
        """Rebuild the diagram of the current machine."""
        self._dirty = False
        doc = self.document
        machine = doc.plan.machine(doc.current_machine) if doc.current_machine else None
        board = board_of(machine, doc.catalog) if machine is not None else None
        if machine is None or board is None:
            self.topology = None
            self.scene.reset()
            if machine is None:
                text = "No machine to show. Add a machine to see its PCIe and NVLink topology."
            else:
                text = f"{machine.name} has no board yet. Choose a board or server to see its PCIe topology."
            self.message.setText(text)
            self.header.setText(machine.name if machine is not None else "")
            self.header.setToolTip("")
            self.stack.setCurrentWidget(self.message)
            self.notes.clear()
            self._notes_html = ""
            self.legend.setVisible(False)
            self.matrix_action.setEnabled(False)
            self.fit_action.setEnabled(False)
            if self.matrix_dialog is not None:
                self.matrix_dialog.close()
            return
        topo = derive_topology(machine, doc.catalog)
        self.topology = topo
        room = self._room()
        prepared = self._prepared
        self._prepared = None
        if prepared is not None and prepared.matches(topo, room):
            # Drawn while the card was hovering over this slot: shown now at no cost.
            old, self.scene = self.scene, prepared.scene
            self.view.setScene(self.scene)
            # Taking a scene apart costs as much as painting one: done once the drop is on screen.
            QTimer.singleShot(500, old, old.deleteLater)
        else:
            if prepared is not None:
                prepared.scene.deleteLater()
            self.scene.build(machine, board, topo, doc.catalog, self.font(), room)
        self.header.setText(f"{machine.name} · {board.model}")
        self.header.setToolTip(f"{machine.name} on {board.model}")
        self.stack.setCurrentWidget(self.view)
        self.legend.setVisible(True)
        self.fit_action.setEnabled(True)
        self.matrix_action.setEnabled(bool(topo.gpus or topo.nics))
        self._show_notes(topo)
        if self.view.auto_fit:
            self.view.fit()
        self._apply_selection()
        if self.matrix_dialog is not None and self.matrix_dialog.isVisible():
            self.matrix_dialog.setWindowTitle(f"Topology matrix · {machine.name}")
            self.matrix_dialog.set_text(format_topo_matrix(topo))

    def _prepare(self, machine: Machine) -> None:
        """Draw the diagram a hovered drop would give, so the drop itself only has to show it."""
        if not self.is_showing() or machine.id != self.document.current_machine:
            return
        catalog = self.document.catalog
        board = board_of(machine, catalog)
        if board is None:
            return
        topo = derive_topology(machine, catalog)
        room = self._room()
        if self._prepared is not None:
            if self._prepared.matches(topo, room):
                return
            self._prepared.scene.deleteLater()
        scene = DiagramScene(self)
        scene.build(machine, board, topo, catalog, self.font(), room)
        if not scene.sceneRect().isEmpty():
            scale = self.view.scale_for(scene.sceneRect())
            scene.prepare_texts(QTransform.fromScale(scale, scale))
        self._prepared = _Prepared(topo, room, scene)

    def _show_notes(self, topo: Topology) -> None:
        items = [f'<li style="color:{colors.SEVERITY_COLORS["error"].name()}">{_escape(p)}</li>' for p in topo.problems]
        items += [f"<li>{_escape(n)}</li>" for n in topo.notes]
        if not items:
            items = ["<li>No PCIe or NVLink devices in this machine yet.</li>"]
        html = f'<ul style="margin-left:-24px">{"".join(items)}</ul>'
        if html != self._notes_html:  # laying out rich text is slow; most edits keep the notes
            self._notes_html = html
            self.notes.setHtml(html)

    def _fit(self) -> None:
        self.view.fit()
        self._view_resized()

    def _room(self) -> QSizeF | None:
        size = self.view.viewport().size()
        return QSizeF(size) if self.view.isVisible() and not size.isEmpty() else None

    def _view_resized(self) -> None:
        """Rearrange when the dock's shape makes the other arrangement clearly larger."""
        room = self._room()
        if self.topology is not None and room is not None and self.scene.prefers_stacking(room) != self.scene.stacked:
            self.refresh()

    # --- selection ---------------------------------------------------------------------

    def selected_device(self) -> str | None:
        """The GPU (or NIC) whose paths colour the diagram: the first selected slot in the matrix."""
        topo = self.topology
        if topo is None:
            return None
        for slot in self.document.selected_slots:
            for dev in topo.devices:
                if dev.slot == slot and dev.name in topo.matrix:
                    return dev.name
        return None

    def _apply_selection(self) -> None:
        source = self.selected_device()
        self.scene.colour_by_path(source, self.document.selected_slots)
        if source is None:
            self.legend_title.setText("Click a GPU to colour the others by path class")
        else:
            self.legend_title.setText(f"Path class to <b>{source}</b>:")

    def _device_clicked(self, slot: str) -> None:
        self.document.select_slots([slot])

    # --- matrix ------------------------------------------------------------------------

    def show_matrix(self) -> TopologyMatrixDialog | None:
        """Open (or raise) the topology matrix dialog for the current machine."""
        if self.topology is None:
            return None
        if self.matrix_dialog is None:
            self.matrix_dialog = TopologyMatrixDialog(self)
        machine = self.document.plan.machine(self.topology.machine)
        name = machine.name if machine is not None else self.topology.machine
        self.matrix_dialog.setWindowTitle(f"Topology matrix · {name}")
        self.matrix_dialog.set_text(format_topo_matrix(self.topology))
        if not self.matrix_dialog.isVisible():
            self.matrix_dialog.fit_width()
        self.matrix_dialog.show()
        self.matrix_dialog.raise_()
        return self.matrix_dialog


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
