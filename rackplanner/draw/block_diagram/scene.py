"""The block diagram of one machine as a graphics scene: sockets, root complexes, switches, chipset and devices.

Everything drawn comes from the machine's topology: link widths and GB/s per direction, switch
uplinks with their oversubscription, NVLink pairs and the path class between devices. The
scene can colour every device by its path class to a chosen GPU, as ``nvidia-smi topo -m``
would print it. No widget, no app state: the app's dock and the report both draw it.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from PySide6.QtCore import QPointF, QRectF, QSizeF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QPainterPath,
    QPen,
    QTransform,
)
from PySide6.QtWidgets import (
    QGraphicsPathItem,
    QGraphicsScene,
    QWidget,
)

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Board
from rackplanner.core.machine.topology import PairPath, Topology
from rackplanner.core.plan.model import Machine
from rackplanner.draw import colors
from rackplanner.draw.block_diagram.items import BASE_FILL, DiagramBox, LinkLabel, SceneText, TextPath
from rackplanner.draw.block_diagram.layout import (
    BUS_DROP,
    GAP_X,
    MAX_BOX_W,
    MIN_BOX_W,
    PAD,
    RADIUS,
    RAIL,
    Fonts,
    Geometry,
    layout_tree,
    nv_text,
    side_depth,
)
from rackplanner.draw.block_diagram.tree import DEVICE_KINDS, DiagramNode, build_tree
from rackplanner.draw.static_text import StaticTextItem


class DiagramScene(QGraphicsScene):
    """The tree of one machine's topology, laid out top-down."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # A few dozen items rebuilt on every edit: a spatial index would be rebuilt each time for nothing.
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        self.boxes: dict[str, DiagramBox] = {}
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
            if isinstance(item, TextPath | LinkLabel):
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
        fonts = Fonts(font, bold, QFontMetricsF(font), QFontMetricsF(bold))
        nodes, sockets = build_tree(machine, board, topo, catalog)

        widest = max(
            [fonts.fm_bold.horizontalAdvance(n.lines[0]) for n in nodes.values()]
            + [fonts.fm.horizontalAdvance(line) for n in nodes.values() for line in n.lines[1:]]
            + [fonts.fm.horizontalAdvance(line) + 2 * PAD for n in nodes.values() for line in n.edge]
        )
        box_w = min(MAX_BOX_W, max(MIN_BOX_W, widest + 2 * PAD + 4))
        box_h = 3 * fonts.line_h + 2 * PAD
        link = topo.inter_socket_link or ("inter-socket link" if len(sockets) > 1 else "")
        if link and topo.inter_socket_gbs:
            link += f" · {topo.inter_socket_gbs:g} GB/s"
        geo = Geometry(
            box_w=box_w,
            box_h=box_h,
            pitch=box_h + 2 * fonts.line_h + BUS_DROP + 26,  # room between rows for the link labels
            stack_pitch=box_h + 2 * fonts.line_h + 14,
            socket_gap=max(3 * GAP_X, fonts.fm.horizontalAdvance(link) + 40) if link else 3 * GAP_X,
        )
        nv_pairs = [p for p in topo.pairs if p.code.startswith("NV") and p.a in topo.gpus and p.b in topo.gpus]
        fabric = bool(board.nvswitch_gbs_per_gpu and nv_pairs)
        # Both arrangements are laid out (layout rewrites the nodes, so each gets its own tree);
        # the one that shows larger in the room is drawn.
        side_by_side, _ = build_tree(machine, board, topo, catalog)
        self.extents = {
            True: layout_tree(nodes, sockets, geo, fonts, nv_pairs, fabric, stack=True),
            False: layout_tree(side_by_side, sockets, geo, fonts, nv_pairs, fabric, stack=False),
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

    def _text(self, parent: TextPath | LinkLabel, text: str, font: QFont, color: QColor, x: float, y: float) -> None:
        """A line of text with its top left at (x, y), drawn by ``parent``."""
        parent.texts.append(SceneText(QPointF(x, y), text, font, color))

    def _add_box(self, node: DiagramNode, box_w: float, box_h: float, fonts: Fonts) -> None:
        rect = QRectF(node.x - box_w / 2, node.y, box_w, box_h)
        box = DiagramBox(node, rect)
        box.setBrush(colors.DEVICE_FILL if node.kind in DEVICE_KINDS else BASE_FILL[node.kind])
        pen = QPen(colors.EMPTY_BORDER if node.empty else colors.BOX_BORDER, 1.2)
        if node.empty:
            pen.setStyle(Qt.PenStyle.DashLine)
        box.setPen(pen)
        self.addItem(box)
        text_w = box_w - 2 * PAD
        y = rect.top() + PAD
        for i, line in enumerate(node.lines):
            font, fm = (fonts.bold, fonts.fm_bold) if i == 0 else (fonts.normal, fonts.fm)
            if node.kind in DEVICE_KINDS and i == 0:
                # Room on the right for the path-class badge.
                shown = fm.elidedText(line, Qt.TextElideMode.ElideRight, text_w - 44)
            else:
                shown = fm.elidedText(line, Qt.TextElideMode.ElideRight, text_w)
            color = colors.MUTED_TEXT if node.empty or i == 2 else colors.TEXT
            self._text(box, shown, font, color, rect.left() + PAD, y)
            y += fonts.line_h
        if node.kind in DEVICE_KINDS:
            badge = StaticTextItem("", box)
            badge.setFont(fonts.bold)
            badge.setBrush(colors.TEXT)
            badge.setPos(rect.right() - PAD, rect.top() + PAD)
            box.badge = badge
        self.boxes[node.id] = box

    def _label(
        self,
        lines: list[str],
        fonts: Fonts,
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
        back = LinkLabel(QRectF(cx - w / 2, bottom_y - h, w, h))
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

    def _add_edge(self, parent: DiagramNode, child: DiagramNode, box_w: float, box_h: float, fonts: Fonts) -> None:
        top = parent.y + box_h
        bus = top + BUS_DROP
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

    def _add_socket_links(
        self, sockets: list[DiagramNode], box_w: float, box_h: float, link: str, fonts: Fonts
    ) -> None:
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
        self,
        pairs: list[PairPath],
        nodes: dict[str, DiagramNode],
        board: Board,
        box_w: float,
        box_h: float,
        fonts: Fonts,
    ) -> None:
        if not pairs:
            return
        gpus = {n.device: n for n in nodes.values() if n.kind == "gpu"}
        nv_pen = QPen(colors.NVLINK, 2.5)
        if board.nvswitch_gbs_per_gpu:
            self._add_nvswitch(pairs, gpus, box_w, box_h, fonts, nv_pen)
            return

        def side(a: DiagramNode, b: DiagramNode) -> str:
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
            reach = (side_depth(dist)) * 4 / 3
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
            text = nv_text(p)
            self.nvlink_labels.append(text)
            apex = path.pointAtPercent(0.5)
            self._nv_label(text, fonts, apex.x(), apex.y(), tip)

    def _add_nvswitch(
        self, pairs: list[PairPath], gpus: dict[str, DiagramNode], box_w: float, box_h: float, fonts: Fonts, pen: QPen
    ) -> None:
        joined = [g for name, g in gpus.items() if any(name in (p.a, p.b) for p in pairs)]
        xs = [g.x for g in joined]
        y0 = max(b.sceneBoundingRect().bottom() for b in self.boxes.values() if b.kind in DEVICE_KINDS)
        codes = sorted({p.code for p in pairs})
        gbs = sorted({p.gbs for p in pairs if p.gbs is not None})
        text = f"NVSwitch · {'/'.join(codes)} · {'/'.join(f'{g:g}' for g in gbs)} GB/s per direction, any GPU pair"
        tip = f"Every GPU pair ({len(pairs)} pairs) reaches the other through the NVSwitches"
        top = y0 + 28
        h = fonts.line_h + 2 * PAD
        w = max(max(xs) - min(xs) + box_w, fonts.fm_bold.horizontalAdvance(text) + 4 * PAD)
        mid = (min(xs) + max(xs)) / 2
        rect = QRectF(mid - w / 2, top, w, h)
        path = QPainterPath()
        path.addRoundedRect(rect, RADIUS, RADIUS)
        fabric = TextPath(path)
        fabric.setBrush(colors.NVSWITCH_FILL)
        fabric.setPen(QPen(colors.NVLINK, 1.5))
        fabric.setToolTip(tip)
        fabric.setZValue(3)
        self.addItem(fabric)
        self._text(fabric, text, fonts.bold, colors.TEXT, mid - fonts.fm_bold.horizontalAdvance(text) / 2, top + PAD)
        self.nvlink_labels.append(text)
        for g in joined:
            drop = QGraphicsPathItem()
            if g.stacked:
                rail = g.x + box_w / 2 + RAIL
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

    def _nv_label(self, text: str, fonts: Fonts, cx: float, y: float, tip: str) -> None:
        w = fonts.fm.horizontalAdvance(text) + 8
        h = fonts.line_h + 2
        back = LinkLabel(QRectF(cx - w / 2, y - h / 2, w, h))
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
                right = box.path().boundingRect().right() - PAD
                box.badge.setX(right - box.badge.boundingRect().width())


def _path_words(topo: Topology, a: str, b: str) -> str:
    if a == b:
        return "X (itself)"
    pair = topo.pair(a, b)
    gbs = f", {pair.gbs:.2f} GB/s per direction" if pair.gbs is not None else ""
    return f"{pair.code}{gbs}; {pair.nccl} ({pair.p2p_note})"


def _nv_tip(p: PairPath) -> str:
    gbs = f"{p.gbs:g} GB/s per direction" if p.gbs is not None else "bandwidth unknown"
    return f"NVLink {p.a}–{p.b}: {p.code}, {gbs}"
