"""Rack elevations of one row: racks side by side, front and rear, devices drawn to their height.

Scene units are millimetres: one U is 44.45 mm and a face is 19 in (482.6 mm) wide, so
devices are drawn to scale. Drag a server, switch, PDU or rack device from the catalog onto
a U position (it snaps; the drop is refused with the reason when it collides, overhangs or is
too deep), drag mounted devices within and between racks, Delete to unmount, double-click a
server to open its machine.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import partial

from PySide6.QtCore import QMimeData, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QContextMenuEvent,
    QDrag,
    QDragEnterEvent,
    QDragLeaveEvent,
    QDragMoveEvent,
    QDropEvent,
    QFont,
    QFontMetricsF,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPen,
)
from PySide6.QtWidgets import (
    QApplication,
    QGraphicsItem,
    QGraphicsRectItem,
    QGraphicsSceneMouseEvent,
    QGraphicsSimpleTextItem,
    QInputDialog,
    QMenu,
    QStyleOptionGraphicsItem,
    QWidget,
)

from rackplanner.core.catalog.parts import NetworkSwitch, Pdu, RackDevice, Server
from rackplanner.core.catalog.parts import Rack as RackPart
from rackplanner.core.plan import edits
from rackplanner.core.plan.edits import Change
from rackplanner.core.plan.model import Rack
from rackplanner.core.rack.mounting import DeviceShape, RackLayout, device_figure, placement_problem, rack_layout
from rackplanner.core.rack.report import rack_report
from rackplanner.gui.canvases.zoom_view import ZoomView
from rackplanner.gui.document import ChangeSet, PlanDocument
from rackplanner.gui.mime import part_from_mime

DEVICE_MIME = "application/x-rackplanner-device"
U_MM = 44.45
FACE_MM = 482.6
RAIL_MM = 60.0  # U numbers on the left of each face
CHANNEL_MM = 70.0  # a 0U side channel
FACE_GAP_MM = 40.0
RACK_GAP_MM = 160.0
TITLE_MM = 70.0

FRAME = QColor("#2b2f36")
FACE_FILL = QColor("#f4f5f7")
FACE_EDGE = QColor("#9aa3ae")
RACK_FILL = QColor("#d7dbe2")
CHANNEL_FILL = QColor("#eceef2")
U_LINE = QColor("#e1e4e9")
U_TEXT = QColor("#6b7280")
MIN_U_LINE_PX = 3.0
MIN_TEXT_PX = 6.0  # smaller text cannot be read: it is not drawn
U_NUMBER_PX = 13
KIND_COLOURS = {
    "server": QColor("#4078c8"),
    "workstation": QColor("#5b8bd0"),
    "switch": QColor("#2f9e77"),
    "pdu": QColor("#c0841a"),
    "rack-device": QColor("#7d6bb3"),
    "unknown": QColor("#888888"),
}
OK_GHOST = QColor(46, 160, 67, 120)
BAD_GHOST = QColor(207, 34, 46, 120)
SELECT_EDGE = QColor("#f0b400")


def device_mime(rack_id: str, device_id: str) -> QMimeData:
    data = QMimeData()
    data.setData(DEVICE_MIME, json.dumps({"rack": rack_id, "device": device_id}).encode("utf-8"))
    return data


def device_from_mime(data: QMimeData) -> tuple[str, str] | None:
    if not data.hasFormat(DEVICE_MIME):
        return None
    try:
        payload = json.loads(bytes(data.data(DEVICE_MIME).data()).decode("utf-8"))
        return str(payload["rack"]), str(payload["device"])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None


@dataclass
class _RackGeometry:
    rack_id: str
    layout: RackLayout
    front: QRectF  # the mounting area of the front face (U1 at the bottom)
    rear: QRectF
    left_channel: QRectF
    right_channel: QRectF

    def face_rect(self, face: str) -> QRectF:
        return self.front if face == "front" else self.rear

    def u_at(self, y: float) -> int:
        """The U whose band contains scene height ``y``."""
        return int((self.front.bottom() - y) // U_MM) + 1

    def u_rect(self, face: str, u: int, height_u: int) -> QRectF:
        rect = self.face_rect(face)
        return QRectF(rect.left(), rect.bottom() - (u + height_u - 1) * U_MM, rect.width(), height_u * U_MM)


def _rack_geometry(rack_id: str, layout: RackLayout, x: float) -> _RackGeometry:
    """Where a rack's faces and side channels go, its left edge at ``x``."""
    height = layout.height_u * U_MM
    left_channel = QRectF(x, TITLE_MM, CHANNEL_MM, height)
    front = QRectF(x + CHANNEL_MM + RAIL_MM, TITLE_MM, FACE_MM, height)
    rear = QRectF(front.right() + FACE_GAP_MM + RAIL_MM, TITLE_MM, FACE_MM, height)
    right_channel = QRectF(rear.right(), TITLE_MM, CHANNEL_MM, height)
    return _RackGeometry(rack_id, layout, front, rear, left_channel, right_channel)


class RackFrameItem(QGraphicsItem):
    """A rack's frame, title, faces with U lines and numbers, and side channels, painted as one item.

    One item instead of a few hundred (two faces of 42 U lines and numbers) keeps a 50-rack row
    quick to build and to redraw; it is cached as a pixmap, so scrolling repaints nothing.
    """

    def __init__(self, geometry: _RackGeometry, title: str, *, cached: bool = True) -> None:
        super().__init__()
        self.geometry = geometry
        # The title (name and U used) changes with the rack's content; as an item of its own it
        # leaves the frame's cached drawing valid.
        font = QFont()
        font.setPixelSize(26)
        font.setBold(True)
        self.title_item = QGraphicsSimpleTextItem(title, self)
        self.title_item.setFont(font)
        self.title_item.setBrush(QBrush(FRAME))
        g = geometry
        self._outline = QRectF(
            g.left_channel.left(), g.front.top(), g.right_channel.right() - g.left_channel.left(), g.front.height()
        )
        self._bounds = QRectF(self._outline.left() - 11, 0, self._outline.width() + 22, g.front.bottom() + 40)
        self.title_item.setPos(self._outline.left(), 8)
        if cached:
            self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    @property
    def title(self) -> str:
        return self.title_item.text()

    def set_title(self, title: str) -> None:
        if title != self.title_item.text():
            self.title_item.setText(title)

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        g = self.geometry
        painter.setPen(QPen(FRAME, 6))
        painter.setBrush(QBrush(RACK_FILL))
        painter.drawRect(self._outline.adjusted(-8, -8, 8, 8))
        small = QFont()
        small.setPixelSize(U_NUMBER_PX)
        painter.setFont(small)
        # Level of detail: U lines only where a U is a few pixels tall, numbers only where they can be read.
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())
        u_px = U_MM * lod
        for face, rect in (("Front", g.front), ("Rear", g.rear)):
            painter.setPen(QPen(FACE_EDGE, 1))
            painter.setBrush(QBrush(FACE_FILL))
            painter.drawRect(rect)
            painter.setPen(FRAME)
            painter.drawText(
                QRectF(rect.left(), rect.bottom() + 10, rect.width(), 20), Qt.AlignmentFlag.AlignLeft, face
            )
            if u_px >= MIN_U_LINE_PX:
                painter.setPen(QPen(U_LINE, 1))
                for u in range(1, g.layout.height_u + 1):
                    y = rect.bottom() - u * U_MM
                    painter.drawLine(QPointF(rect.left(), y), QPointF(rect.right(), y))
            if U_NUMBER_PX * lod >= MIN_TEXT_PX:
                painter.setPen(U_TEXT)
                for u in range(1, g.layout.height_u + 1):
                    y = rect.bottom() - u * U_MM
                    number = QRectF(rect.left() - RAIL_MM + 8, y, RAIL_MM - 12, U_MM)
                    painter.drawText(number, Qt.AlignmentFlag.AlignVCenter, str(u))
        painter.setPen(QPen(FACE_EDGE, 1, Qt.PenStyle.DashLine))
        painter.setBrush(QBrush(CHANNEL_FILL))
        for channel in (g.left_channel, g.right_channel):
            painter.drawRect(channel)


class DeviceItem(QGraphicsRectItem):
    """A mounted device on one face (a full-depth device has an item on each face)."""

    def __init__(
        self,
        canvas: RackRowCanvas,
        rack_id: str,
        shape: DeviceShape,
        rect: QRectF,
        text: str,
        ghost: bool,
        *,
        vertical: bool = False,
    ) -> None:
        super().__init__(rect)
        self.canvas = canvas
        self.rack_id = rack_id
        self.shape_info = shape
        colour = QColor(KIND_COLOURS.get(shape.kind, KIND_COLOURS["unknown"]))
        if ghost:
            colour.setAlpha(90)
        self.setBrush(QBrush(colour))
        self.setPen(QPen(QColor("#1d2330"), 1.0))
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        self.setCursor(Qt.CursorShape.OpenHandCursor)
        self.setZValue(3)
        self._label = text
        self._label_colour = QColor("#1d2330" if ghost else "white")
        self._font = QFont()
        self._font.setPixelSize(18 if vertical else int(min(22, max(12, rect.height() * 0.42))))
        self._vertical = vertical
        self._press: QPointF | None = None

    @property
    def label(self) -> str:
        return self._label

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        rect = self.rect()
        painter.setPen(QPen(SELECT_EDGE, 5) if self.isSelected() else self.pen())
        painter.setBrush(self.brush())
        painter.drawRoundedRect(rect, 4, 4)
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())
        if not self._label or self._font.pixelSize() * lod < MIN_TEXT_PX:
            return  # too small to read at this zoom: the tooltip still names it
        painter.setFont(self._font)
        painter.setPen(self._label_colour)
        if self._vertical:
            # A 0U PDU's name reads bottom to top along its channel.
            painter.save()
            painter.translate(rect.center())
            painter.rotate(-90)
            turned = QRectF(-rect.height() / 2 + 8, -rect.width() / 2, rect.height() - 16, rect.width())
            painter.drawText(turned, Qt.AlignmentFlag.AlignCenter, self._label)
            painter.restore()
        else:
            inner = rect.adjusted(8, 0, -8, 0)
            shown = QFontMetricsF(self._font).elidedText(self._label, Qt.TextElideMode.ElideRight, inner.width())
            painter.drawText(inner, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, shown)

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        super().mousePressEvent(event)
        self._press = QPointF(event.screenPos())
        self.canvas.document.set_current_rack(self.rack_id)

    def mouseMoveEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if self._press is None:
            return
        if (QPointF(event.screenPos()) - self._press).manhattanLength() >= QApplication.startDragDistance():
            self._press = None
            drag = QDrag(self.canvas)
            drag.setMimeData(device_mime(self.rack_id, self.shape_info.device))
            drag.exec(Qt.DropAction.MoveAction)

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        self._press = None
        super().mouseReleaseEvent(event)

    def mouseDoubleClickEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        self.canvas.open_device(self.rack_id, self.shape_info.device)


def _move_arguments(info: _DragInfo, rack_id: str, face: str, u: int) -> dict[str, object]:
    """``edits.move_device`` arguments for a mounted device dropped on ``face`` at U ``u`` of ``rack_id``."""
    arguments: dict[str, object] = {"rack": info.rack, "device": info.device}
    if face in ("left", "right"):
        arguments["side"] = face  # a side channel: a 0U PDU
    else:
        arguments.update(position_u=u, face=face)
    if rack_id != info.rack:
        arguments["to_rack"] = rack_id
    return arguments


class RackRowCanvas(ZoomView):
    """The racks of one row; edits go through the document."""

    status_message = Signal(str)
    # A machine to show in its own tab (double-click on a server).
    open_machine = Signal(str)

    def __init__(
        self, document: PlanDocument, row: str, parent: QWidget | None = None, *, for_print: bool = False
    ) -> None:
        super().__init__(parent)
        self.document = document
        self.row = row
        # Printed to a PDF, the racks paint as vectors and text, never as cached pixmaps.
        self._cache_frames = not for_print
        self.setup_canvas("#e9ecf1")
        self.racks: dict[str, _RackGeometry] = {}
        self.items_by_device: dict[tuple[str, str], list[DeviceItem]] = {}
        self._ghost: QGraphicsRectItem | None = None
        self._drag: _DragInfo | None = None
        self._worked_out_rack: str | None = None  # the rack a hovered move was last worked out for
        self._frames: dict[str, RackFrameItem] = {}
        self._drawn: dict[tuple[str, str], tuple[DeviceShape, str]] = {}  # what each device's items show
        self._rack_machines: dict[str, set[str]] = {}
        self._fitted = False
        document.changed.connect(self._document_changed)
        self.rebuild()

    # --- drawing ----------------------------------------------------------------------

    def rack_ids(self) -> list[str]:
        return [r.id for r in self.document.plan.racks if r.row == self.row]

    def rebuild(self) -> None:
        """Redraw every rack of the row."""
        scene = self.scene()
        scene.clear()
        self._ghost = None
        self.racks.clear()
        self.items_by_device.clear()
        self._frames.clear()
        self._drawn.clear()
        self._rack_machines.clear()
        x = 0.0
        for rack_id in self.rack_ids():
            if self._draw_whole_rack(rack_id, x):
                x = self.racks[rack_id].right_channel.right() + RACK_GAP_MM
        if not self.racks:
            text = scene.addSimpleText("No racks in this row yet: add one from the Rack menu.")
            font = QFont()
            font.setPixelSize(20)
            text.setFont(font)
        scene.setSceneRect(scene.itemsBoundingRect().adjusted(-40, -40, 40, 40))
        if not self._fitted:
            self.fit()

    def refresh_racks(self, rack_ids: set[str]) -> None:
        """Redraw only these racks in place (the others keep their items)."""
        for rack_id in rack_ids:
            geometry = self.racks.get(rack_id)
            if geometry is None:
                continue
            frame = self._frames.get(rack_id)
            rack = self.document.plan.rack(rack_id)
            if frame is not None and rack is not None and self._same_frame(frame, rack):
                # Same frame: only the title and the devices that changed are drawn again.
                self._draw_whole_rack(rack_id, geometry.left_channel.left(), frame)
                continue
            for key in [k for k in self.items_by_device if k[0] == rack_id]:
                self._remove_device(key)
            if frame is not None:
                self.scene().removeItem(self._frames.pop(rack_id))
            self._draw_whole_rack(rack_id, geometry.left_channel.left())

    def _remove_device(self, key: tuple[str, str]) -> None:
        for item in self.items_by_device.pop(key, []):
            self.scene().removeItem(item)
        self._drawn.pop(key, None)

    def _same_frame(self, frame: RackFrameItem, rack: Rack) -> bool:
        """Whether the rack's frame drawing still holds (same model, same height): then it is kept."""
        layout = rack_layout(self.document.plan, rack.id, self.document.catalog)
        return layout.part == frame.geometry.layout.part and layout.height_u == frame.geometry.layout.height_u

    def _draw_whole_rack(self, rack_id: str, x: float, frame: RackFrameItem | None = None) -> bool:
        plan, catalog = self.document.plan, self.document.catalog
        rack = plan.rack(rack_id)
        if rack is None:
            return False
        layout = rack_layout(plan, rack_id, catalog)
        part = catalog.get_as(rack.part, RackPart)
        geometry = _rack_geometry(rack_id, layout, x)
        title = f"{rack.name}  ·  {part.model if part else layout.part}  ·  {layout.used_u}/{layout.height_u} U"
        if frame is None:
            # The frame, faces, U lines and numbers are one painted item; devices are its children,
            # so removing the frame removes the rack.
            frame = RackFrameItem(geometry, title, cached=self._cache_frames)
            self.scene().addItem(frame)
            self._frames[rack_id] = frame
        else:
            frame.geometry = geometry  # same outline; the layout inside is new
            frame.set_title(title)
        self._rack_machines[rack_id] = {d.machine for d in rack.devices if d.machine}
        self.racks[rack_id] = geometry
        present = {(rack_id, shape.device) for shape in layout.devices}
        for key in [k for k in self.items_by_device if k[0] == rack_id and k not in present]:
            self._remove_device(key)
        for shape in layout.devices:
            key = (rack_id, shape.device)
            text = self._device_text(rack_id, shape)
            if self._drawn.get(key) == (shape, text):
                continue  # unchanged: its items (and their cached drawing) stay
            self._remove_device(key)
            self._draw_device(frame, geometry, shape, text)
        return True

    def _draw_device(self, frame: RackFrameItem, geometry: _RackGeometry, shape: DeviceShape, text: str) -> None:
        key = (geometry.rack_id, shape.device)
        self._drawn[key] = (shape, text)
        open_hint = "\nDouble-click to open its machine." if shape.kind in ("server", "workstation") else ""
        items: list[DeviceItem] = []
        if shape.position_u is None:
            channel = geometry.left_channel if (shape.side or "left") == "left" else geometry.right_channel
            rect = channel.adjusted(8, 20, -8, -20)
            item = DeviceItem(self, geometry.rack_id, shape, rect, shape.name, ghost=False, vertical=True)
            item.setToolTip(text)
            items.append(item)
        else:
            faces = ("front", "rear") if shape.is_full_depth else (shape.face,)
            for face in faces:
                rect = geometry.u_rect(face, shape.position_u, max(1, shape.height_u)).adjusted(2, 2, -2, -2)
                ghost = shape.is_full_depth and face != shape.face
                item = DeviceItem(self, geometry.rack_id, shape, rect, text.split("\n")[0], ghost)
                item.setToolTip(text + ("\n(full depth: seen from the other face)" if ghost else "") + open_hint)
                items.append(item)
        for item in items:
            if self._cache_frames:
                item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
            item.setParentItem(frame)
        self.items_by_device[key] = items

    def _device_text(self, rack_id: str, shape: DeviceShape) -> str:
        """The device's name and key figure (GPUs and kW for a server), then its part."""
        rack = self.document.plan.rack(rack_id)
        device = rack.device(shape.device) if rack else None
        if device is None:
            figure = f"{shape.height_u}U" if shape.height_u else "0U"
        else:
            figure = device_figure(self.document.plan, device, self.document.catalog, shape.height_u)
        return f"{shape.name}  ·  {figure}\n{shape.part or ''}"

    def fit(self) -> None:
        if self.fit_rect(self.scene().itemsBoundingRect(), 20):
            self._fitted = True

    def _document_changed(self, change: ChangeSet) -> None:
        if not change.touches(Change.RACK_LAYOUT, Change.MACHINES, Change.POWER):
            return
        plan = self.document.plan
        same_racks = self.rack_ids() == list(self.racks)
        touched = set(change.racks) | {
            r.id for r in plan.racks if any(d.machine in change.machines for d in r.devices if d.machine)
        }
        # A machine that was in a rack before the change (removed, or moved out) redraws that rack too.
        touched |= {rack for rack, machines in self._rack_machines.items() if machines & change.machines}
        if same_racks and (change.racks or change.machines):
            self.refresh_racks(touched & set(self.racks))
        else:
            self.rebuild()

    # --- dragging ---------------------------------------------------------------------

    def _begin(self, data: QMimeData) -> _DragInfo | None:
        moved = device_from_mime(data)
        plan, catalog = self.document.plan, self.document.catalog
        if moved is not None:
            rack = plan.rack(moved[0])
            device = rack.device(moved[1]) if rack else None
            if device is None:
                return None
            layout = rack_layout(plan, moved[0], catalog)
            shape = next(s for s in layout.devices if s.device == device.id)
            return _DragInfo(None, moved[0], device.id, shape.height_u, shape.is_full_depth, shape.depth_mm)
        part_id = part_from_mime(data)
        part = catalog.get(part_id) if part_id else None
        if isinstance(part, Server):
            return _DragInfo(part.id, None, None, part.height_u, part.is_full_depth, part.depth_mm)
        if isinstance(part, (NetworkSwitch, RackDevice)):
            return _DragInfo(part.id, None, None, part.height_u, part.is_full_depth, part.depth_mm)
        if isinstance(part, Pdu):
            return _DragInfo(part.id, None, None, part.height_u, False, None)
        return None

    def _target(self, pos: QPointF) -> tuple[_RackGeometry, str, int] | None:
        """The rack, face and bottom U a drop at ``pos`` lands on ("left"/"right" faces are side channels)."""
        point = self.mapToScene(pos.toPoint())
        for geometry in self.racks.values():
            for face, rect in (
                ("front", geometry.front),
                ("rear", geometry.rear),
                ("left", geometry.left_channel),
                ("right", geometry.right_channel),
            ):
                if rect.adjusted(-4, -4, 4, 4).contains(point):
                    info = self._drag
                    height = max(1, info.height_u) if info else 1
                    # Grab the device by its middle: the bottom U is below the cursor by half its height.
                    u = geometry.u_at(point.y() + (height - 1) * U_MM / 2)
                    u = max(1, min(u, geometry.layout.height_u))
                    return geometry, face, u
        return None

    def _problem(self, geometry: _RackGeometry, face: str, u: int) -> str | None:
        info = self._drag
        if info is None:
            return "nothing to drop"
        if info.height_u == 0:
            return None if face in ("left", "right") else "a 0U PDU goes in a side channel"
        if face in ("left", "right"):
            return "side channels take 0U PDUs only"
        rack_part = self.document.catalog.get_as(geometry.layout.part, RackPart)
        depth_limit = (rack_part.max_mounting_depth_mm or rack_part.depth_mm) if rack_part else None
        ignore = info.device if info.rack == geometry.rack_id else None
        return placement_problem(
            geometry.layout,
            height_u=info.height_u,
            is_full_depth=info.full_depth,
            position_u=u,
            face=face,  # type: ignore[arg-type]
            depth_mm=info.depth_mm,
            rack_depth_mm=depth_limit,
            ignore_device=ignore,
        )

    def _show_ghost(self, geometry: _RackGeometry, face: str, u: int, problem: str | None) -> None:
        info = self._drag
        if info is None:
            return
        if face in ("left", "right"):
            channel = geometry.left_channel if face == "left" else geometry.right_channel
            rect = channel.adjusted(4, 4, -4, -4)
        else:
            rect = geometry.u_rect(face, u, max(1, info.height_u))
        if self._ghost is None:
            self._ghost = self.scene().addRect(rect)
            self._ghost.setZValue(10)
        self._ghost.setRect(rect)
        self._ghost.setBrush(QBrush(OK_GHOST if problem is None else BAD_GHOST))
        self._ghost.setPen(QPen(QColor("#1d2330"), 2, Qt.PenStyle.DashLine))

    def _clear_ghost(self) -> None:
        if self._ghost is not None:
            self.scene().removeItem(self._ghost)
            self._ghost = None

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        self._drag = self._begin(event.mimeData())
        self._worked_out_rack = None
        event.setAccepted(self._drag is not None)

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        target = self._target(event.position()) if self._drag else None
        if target is None:
            self._clear_ghost()
            event.ignore()
            return
        geometry, face, u = target
        problem = self._problem(geometry, face, u)
        self._show_ghost(geometry, face, u, problem)
        where = f"{face} side channel" if face in ("left", "right") else f"U{u} ({face})"
        self.status_message.emit(f"Drop at {where}" if problem is None else f"Cannot mount at {where}: {problem}")
        if problem is None:
            self._work_out_ahead(geometry.rack_id, face, u)
        event.setAccepted(problem is None)

    def _work_out_ahead(self, rack_id: str, face: str, u: int) -> None:
        """While a mounted device hovers over another rack, work out both racks' power and network as the
        drop would leave them (once per rack hovered): they do not depend on the U, and the drop finds them
        cached."""
        info = self._drag
        if info is None or info.device is None or info.rack is None or rack_id == self._worked_out_rack:
            return
        self._worked_out_rack = rack_id
        try:
            plan = edits.move_device(self.document.plan, **_move_arguments(info, rack_id, face, u)).plan  # type: ignore[arg-type]
        except edits.EditRefused:
            return
        for touched in {info.rack, rack_id}:
            rack_report(plan, touched, self.document.catalog)

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self._clear_ghost()
        self._drag = None
        self._worked_out_rack = None
        event.accept()

    def dropEvent(self, event: QDropEvent) -> None:
        target = self._target(event.position()) if self._drag else None
        info = self._drag
        self._clear_ghost()
        self._drag = None
        if target is None or info is None:
            event.ignore()
            return
        geometry, face, u = target
        self._drag = info
        problem = self._problem(geometry, face, u)
        self._drag = None
        if problem is not None:
            self.status_message.emit(f"Not mounted: {problem}")
            event.ignore()
            return
        done = self._apply_drop(info, geometry.rack_id, face, u)
        event.setAccepted(done)

    def _apply_drop(self, info: _DragInfo, rack_id: str, face: str, u: int) -> bool:
        doc = self.document
        catalog = doc.catalog
        side = face if face in ("left", "right") else None
        position = None if side else u
        mount_face = "rear" if side else face
        if info.device is not None and info.rack is not None:
            group = [d for r, d in self.selected_devices() if r == info.rack]
            if info.device in group and len(group) > 1 and not side and rack_id == info.rack:
                return self._move_group(info.rack, info.device, group, u)
            return doc.apply(edits.move_device, **_move_arguments(info, rack_id, face, u)) is not None
        part = catalog.get(info.part or "")
        if part is None:
            return False
        if isinstance(part, Server):
            stack = doc.undo_stack
            stack.beginMacro(f"Mount a new {part.model}")
            added = doc.apply(edits.add_machine, name=part.model, server=part.id, catalog=catalog)
            mounted = None
            if added is not None and added.machines:
                machine_id = next(iter(added.machines))
                name = doc.plan.machine(machine_id).name if doc.plan.machine(machine_id) else part.model  # type: ignore[union-attr]
                mounted = doc.apply(
                    edits.mount_device,
                    rack=rack_id,
                    name=name,
                    machine=machine_id,
                    position_u=position,
                    face=mount_face,
                    catalog=catalog,
                )
            stack.endMacro()
            if mounted is None:
                stack.undo()
            return mounted is not None
        feed = None
        if isinstance(part, Pdu):
            wanted = "A" if side == "left" else "B"
            feed = next((f.id for f in doc.plan.feeds if f.side == wanted), None)
        result = doc.apply(
            edits.mount_device,
            rack=rack_id,
            name=part.model,
            part=part.id,
            position_u=position,
            face=mount_face,
            side=side,
            feed=feed,
            catalog=catalog,
        )
        return result is not None

    def _move_group(self, rack_id: str, dragged: str, group: list[str], u: int) -> bool:
        """Move selected devices together: each keeps its offset from the dragged one."""
        rack = self.document.plan.rack(rack_id)
        anchor = rack.device(dragged) if rack else None
        if rack is None or anchor is None or anchor.position_u is None:
            return False
        delta = u - anchor.position_u
        devices = [d for d in (rack.device(i) for i in group) if d is not None and d.position_u is not None]
        # Move the ones furthest along the direction of travel first, so none lands on another.
        devices.sort(key=lambda d: d.position_u or 0, reverse=delta > 0)
        stack = self.document.undo_stack
        stack.beginMacro(f"Move {len(devices)} devices by {delta:+d} U")
        done = all(
            self.document.apply(edits.move_device, rack=rack_id, device=d.id, position_u=(d.position_u or 0) + delta)
            is not None
            for d in devices
        )
        stack.endMacro()
        if not done:
            stack.undo()
        return done

    # --- keyboard, mouse, menus ---------------------------------------------------------

    def selected_devices(self) -> list[tuple[str, str]]:
        found: list[tuple[str, str]] = []
        for item in self.scene().selectedItems():
            if isinstance(item, DeviceItem):
                key = (item.rack_id, item.shape_info.device)
                if key not in found:
                    found.append(key)
        return found

    def delete_selected(self) -> None:
        selected = self.selected_devices()
        if not selected:
            return
        stack = self.document.undo_stack
        stack.beginMacro(f"Unmount {len(selected)} devices" if len(selected) > 1 else "Unmount device")
        for rack_id, device_id in selected:
            self.document.apply(edits.unmount_device, rack=rack_id, device=device_id)
        stack.endMacro()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            self.delete_selected()
            event.accept()
            return
        super().keyPressEvent(event)

    def _rack_at(self, point: QPointF) -> str | None:
        """The rack whose frame (title included) contains scene point ``point``."""
        for rack_id, geometry in self.racks.items():
            span = QRectF(geometry.left_channel.topLeft(), geometry.right_channel.bottomRight())
            if span.adjusted(-10, -TITLE_MM, 10, 10).contains(point):
                return rack_id
        return None

    def mousePressEvent(self, event: QMouseEvent) -> None:
        rack_id = self._rack_at(self.mapToScene(event.position().toPoint()))
        if rack_id is not None:
            self.document.set_current_rack(rack_id)
        super().mousePressEvent(event)

    def open_device(self, rack_id: str, device_id: str) -> None:
        rack = self.document.plan.rack(rack_id)
        device = rack.device(device_id) if rack else None
        if device is not None and device.machine is not None:
            self.document.set_current_machine(device.machine)
            self.open_machine.emit(device.machine)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        point = self.mapToScene(event.pos())
        rack_id = self._rack_at(point)
        menu = QMenu(self)
        item = self.itemAt(event.pos())
        while item is not None and not isinstance(item, DeviceItem):
            item = item.parentItem()
        if isinstance(item, DeviceItem) and item.shape_info.kind == "pdu":
            self._feed_menu(menu, item.rack_id, item.shape_info.device)
        if rack_id is not None:
            menu.addAction("Rename rack…", lambda: self.rename_rack(rack_id))
            menu.addAction("Remove rack", lambda: self.document.apply(edits.remove_rack, rack=rack_id))
            if self.selected_devices():
                menu.addAction("Unmount selected", self.delete_selected)
        if not menu.isEmpty():
            menu.exec(event.globalPos())

    def _feed_menu(self, menu: QMenu, rack_id: str, device_id: str) -> None:
        """ "Plug into" entries for a PDU: each feed of the plan, or none."""
        plug = menu.addMenu("Plug into feed")
        rack = self.document.plan.rack(rack_id)
        device = rack.device(device_id) if rack else None
        for feed in self.document.plan.feeds:
            action = plug.addAction(f"{feed.name} (side {feed.side}, {feed.voltage_v:g} V {feed.breaker_a:g} A)")
            action.setCheckable(True)
            action.setChecked(device is not None and device.feed == feed.id)
            action.triggered.connect(partial(self._plug, rack_id, device_id, feed.id))
        unplug = plug.addAction("No feed")
        unplug.triggered.connect(partial(self._plug, rack_id, device_id, None))
        menu.addSeparator()

    def _plug(self, rack_id: str, device_id: str, feed_id: str | None) -> None:
        self.document.apply(edits.set_device_feed, rack=rack_id, device=device_id, feed=feed_id)

    def rename_rack(self, rack_id: str) -> None:
        rack = self.document.plan.rack(rack_id)
        if rack is None:
            return
        name, ok = QInputDialog.getText(self, "Rename rack", "Rack name:", text=rack.name)
        if ok and name.strip():
            self.document.apply(edits.rename_rack, rack=rack_id, name=name.strip())

    def device_point(self, rack_id: str, u: int, face: str = "front", height_u: int = 1) -> QPointF:
        """Viewport position of the middle of a device ``height_u`` tall at U ``u`` (for tests and tools)."""
        geometry = self.racks[rack_id]
        return QPointF(self.mapFromScene(geometry.u_rect(face, u, height_u).center()))

    def channel_point(self, rack_id: str, side: str) -> QPointF:
        geometry = self.racks[rack_id]
        channel = geometry.left_channel if side == "left" else geometry.right_channel
        return QPointF(self.mapFromScene(channel.center()))


@dataclass
class _DragInfo:
    part: str | None
    rack: str | None
    device: str | None
    height_u: int
    full_depth: bool
    depth_mm: float | None


def rows_of(document: PlanDocument) -> list[tuple[str, str]]:
    """(row id, row name) of the plan's rows, in order: one rack tab each."""
    return [(row.id, row.name) for row in document.plan.rows]
