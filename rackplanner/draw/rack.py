"""Rack elevations of a row: racks side by side, front and rear, devices drawn to their height.

Scene units are millimetres: one U is 44.45 mm and a face is 19 in (482.6 mm) wide, so devices
are drawn to scale. A rack's frame, faces, U lines and numbers are one painted item and its
devices are children of it, so a row of hundreds of racks stays quick to build and redraw, and
a change redraws only the racks and devices it touched. No widget and no app state: the rack
canvas adds dragging and selection, the report draws it as is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QStyleOptionGraphicsItem,
    QWidget,
)

from rackplanner.core.analysis import analyse
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Rack as RackPart
from rackplanner.core.plan.model import Plan, Rack
from rackplanner.core.rack.mounting import DeviceShape, RackLayout, device_figure
from rackplanner.draw.rack_art import DeviceLook, air_room, airflow_text, detail_room, device_look, paint_device_details

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
MIN_TEXT_PX = 7.0  # smaller text cannot be read: it is not drawn
U_NUMBER_PX = 22  # as large as the rail takes: a 42 U rack fitted to a laptop screen still shows them
FACE_LABEL_PX = 22
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


@dataclass
class RackGeometry:
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


def rack_geometry(rack_id: str, layout: RackLayout, x: float) -> RackGeometry:
    """Where a rack's faces and side channels go, its left edge at ``x``."""
    height = layout.height_u * U_MM
    left_channel = QRectF(x, TITLE_MM, CHANNEL_MM, height)
    front = QRectF(x + CHANNEL_MM + RAIL_MM, TITLE_MM, FACE_MM, height)
    rear = QRectF(front.right() + FACE_GAP_MM + RAIL_MM, TITLE_MM, FACE_MM, height)
    right_channel = QRectF(rear.right(), TITLE_MM, CHANNEL_MM, height)
    return RackGeometry(rack_id, layout, front, rear, left_channel, right_channel)


class RackFrameItem(QGraphicsItem):
    """A rack's frame, title, faces with U lines and numbers, and side channels, painted as one item.

    One item instead of a few hundred (two faces of 42 U lines and numbers) keeps a 50-rack row
    quick to build and to redraw; it is cached as a pixmap, so scrolling repaints nothing.
    """

    def __init__(self, geometry: RackGeometry, title: str, *, cached: bool = True) -> None:
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

    def drawn_text_px(self, lod: float) -> list[float]:
        """The on-screen size of the text painted at this level of detail (face labels, U numbers)."""
        return [px * lod for px in (FACE_LABEL_PX, U_NUMBER_PX) if px * lod >= MIN_TEXT_PX]

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        g = self.geometry
        painter.setPen(QPen(FRAME, 6))
        painter.setBrush(QBrush(RACK_FILL))
        painter.drawRect(self._outline.adjusted(-8, -8, 8, 8))
        small = QFont()
        small.setPixelSize(U_NUMBER_PX)
        label = QFont()
        label.setPixelSize(FACE_LABEL_PX)
        # Level of detail: U lines only where a U is a few pixels tall, numbers only where they can be read.
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())
        u_px = U_MM * lod
        for face, rect in (("Front", g.front), ("Rear", g.rear)):
            painter.setPen(QPen(FACE_EDGE, 1))
            painter.setBrush(QBrush(FACE_FILL))
            painter.drawRect(rect)
            if FACE_LABEL_PX * lod >= MIN_TEXT_PX:
                painter.setPen(FRAME)
                painter.setFont(label)
                painter.drawText(
                    QRectF(rect.left(), rect.bottom() + 8, rect.width(), FACE_LABEL_PX + 6),
                    Qt.AlignmentFlag.AlignLeft,
                    face,
                )
            painter.setFont(small)
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


class DeviceBlock(QGraphicsRectItem):
    """A mounted device on one face (a full-depth device has a block on each face)."""

    def __init__(
        self,
        rack_id: str,
        shape: DeviceShape,
        rect: QRectF,
        text: str,
        ghost: bool,
        *,
        vertical: bool = False,
    ) -> None:
        super().__init__(rect)
        self.rack_id = rack_id
        self.shape_info = shape
        colour = QColor(KIND_COLOURS.get(shape.kind, KIND_COLOURS["unknown"]))
        if ghost:
            colour.setAlpha(90)
        self.setBrush(QBrush(colour))
        self.setPen(QPen(QColor("#1d2330"), 1.0))
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        self.setZValue(3)
        self._label = text
        self._label_colour = QColor("#1d2330" if ghost else "white")
        self._font = QFont()
        self._font.setPixelSize(18 if vertical else int(min(22, max(12, rect.height() * 0.42))))
        self._vertical = vertical
        self.look = DeviceLook()
        # The device's own side this block shows: a full-depth device's ghost is its rear.
        self.side = "rear" if ghost else "front"

    @property
    def label(self) -> str:
        return self._label

    def drawn_text_px(self, lod: float) -> list[float]:
        """The label's on-screen size at this level of detail; nothing when it is too small to be drawn."""
        px = self._font.pixelSize() * lod
        return [px] if self._label and px >= MIN_TEXT_PX else []

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        rect = self.rect()
        painter.setPen(QPen(SELECT_EDGE, 5) if self.isSelected() else self.pen())
        painter.setBrush(self.brush())
        painter.drawRoundedRect(rect, 4, 4)
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())
        paint_device_details(painter, rect, self.look, self.side, self._vertical, lod)
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
            # On a plate of its own, so the outlets it crosses do not break the letters.
            plate = QFontMetricsF(self._font).boundingRect(turned, Qt.AlignmentFlag.AlignCenter, self._label)
            painter.setBrush(QBrush(QColor(29, 35, 48, 225)))
            painter.setPen(Qt.PenStyle.NoPen)
            painter.drawRoundedRect(plate.adjusted(-4, -2, 4, 2), 3, 3)
            painter.setPen(self._label_colour)
            painter.drawText(turned, Qt.AlignmentFlag.AlignCenter, self._label)
            painter.restore()
        else:
            left = 8 + air_room(self.look, self.side, lod)
            inner = rect.adjusted(left, 0, -8 - detail_room(rect, self.look, False, self.side), 0)
            shown = QFontMetricsF(self._font).elidedText(self._label, Qt.TextElideMode.ElideRight, inner.width())
            painter.drawText(inner, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, shown)


# Makes the item for a device on a face: (rack id, shape, rect, label, ghost, vertical). The
# canvas makes one that can be dragged, the report a plain one.
DeviceFactory = Callable[[str, DeviceShape, QRectF, str, bool, bool], DeviceBlock]


def _plain_device(
    rack_id: str, shape: DeviceShape, rect: QRectF, text: str, ghost: bool, vertical: bool
) -> DeviceBlock:
    return DeviceBlock(rack_id, shape, rect, text, ghost, vertical=vertical)


class RowDrawing:
    """Draws one row's racks into ``scene`` and keeps track of what each item shows."""

    def __init__(
        self,
        scene: QGraphicsScene,
        plan: Plan,
        catalog: Catalog,
        *,
        cached: bool = True,
        device_factory: DeviceFactory = _plain_device,
    ) -> None:
        self.scene = scene
        # Printed to a PDF, racks paint as vectors and text, never as cached pixmaps.
        self.cached = cached
        self.device_factory = device_factory
        self.plan = plan
        self.catalog = catalog
        self.racks: dict[str, RackGeometry] = {}
        self.items_by_device: dict[tuple[str, str], list[DeviceBlock]] = {}
        self.frames: dict[str, RackFrameItem] = {}
        self.drawn: dict[tuple[str, str], tuple[DeviceShape, str]] = {}  # what each device's items show
        self.rack_machines: dict[str, set[str]] = {}

    def draw_row(self, plan: Plan, catalog: Catalog, row: str) -> None:
        """Clear the scene and draw every rack of ``row``."""
        self.plan, self.catalog = plan, catalog
        scene = self.scene
        scene.clear()
        self.racks.clear()
        self.items_by_device.clear()
        self.frames.clear()
        self.drawn.clear()
        self.rack_machines.clear()
        x = 0.0
        for rack_id in [r.id for r in plan.racks if r.row == row]:
            if self.draw_whole_rack(rack_id, x):
                x = self.racks[rack_id].right_channel.right() + RACK_GAP_MM
        if not self.racks:
            text = scene.addSimpleText("No racks in this row yet: add one from the Rack menu.")
            font = QFont()
            font.setPixelSize(20)
            text.setFont(font)
        scene.setSceneRect(scene.itemsBoundingRect().adjusted(-40, -40, 40, 40))

    def refresh_racks(self, plan: Plan, catalog: Catalog, rack_ids: set[str]) -> None:
        """Redraw only these racks in place (the others keep their items)."""
        self.plan, self.catalog = plan, catalog
        for rack_id in rack_ids:
            geometry = self.racks.get(rack_id)
            if geometry is None:
                continue
            frame = self.frames.get(rack_id)
            rack = self.plan.rack(rack_id)
            if frame is not None and rack is not None and self.same_frame(frame, rack):
                # Same frame: only the title and the devices that changed are drawn again.
                self.draw_whole_rack(rack_id, geometry.left_channel.left(), frame)
                continue
            for key in [k for k in self.items_by_device if k[0] == rack_id]:
                self.remove_device(key)
            if frame is not None:
                self.scene.removeItem(self.frames.pop(rack_id))
            self.draw_whole_rack(rack_id, geometry.left_channel.left())

    def remove_device(self, key: tuple[str, str]) -> None:
        for item in self.items_by_device.pop(key, []):
            self.scene.removeItem(item)
        self.drawn.pop(key, None)

    def same_frame(self, frame: RackFrameItem, rack: Rack) -> bool:
        """Whether the rack's frame drawing still holds (same model, same height): then it is kept."""
        layout = analyse(self.plan, self.catalog).rack_layout(rack.id)
        return layout.part == frame.geometry.layout.part and layout.height_u == frame.geometry.layout.height_u

    def draw_whole_rack(self, rack_id: str, x: float, frame: RackFrameItem | None = None) -> bool:
        plan, catalog = self.plan, self.catalog
        rack = plan.rack(rack_id)
        if rack is None:
            return False
        layout = analyse(plan, catalog).rack_layout(rack_id)
        part = catalog.get_as(rack.part, RackPart)
        geometry = rack_geometry(rack_id, layout, x)
        title = f"{rack.name}  ·  {part.model if part else layout.part}  ·  {layout.used_u}/{layout.height_u} U"
        if frame is None:
            # The frame, faces, U lines and numbers are one painted item; devices are its children,
            # so removing the frame removes the rack.
            frame = RackFrameItem(geometry, title, cached=self.cached)
            self.scene.addItem(frame)
            self.frames[rack_id] = frame
        else:
            frame.geometry = geometry  # same outline; the layout inside is new
            frame.set_title(title)
        self.rack_machines[rack_id] = {d.machine for d in rack.devices if d.machine}
        self.racks[rack_id] = geometry
        present = {(rack_id, shape.device) for shape in layout.devices}
        for key in [k for k in self.items_by_device if k[0] == rack_id and k not in present]:
            self.remove_device(key)
        for shape in layout.devices:
            key = (rack_id, shape.device)
            text = self.device_text(rack_id, shape)
            if self.drawn.get(key) == (shape, text):
                continue  # unchanged: its items (and their cached drawing) stay
            self.remove_device(key)
            self.draw_device(frame, geometry, shape, text)
        return True

    def draw_device(self, frame: RackFrameItem, geometry: RackGeometry, shape: DeviceShape, text: str) -> None:
        key = (geometry.rack_id, shape.device)
        self.drawn[key] = (shape, text)
        open_hint = "\nDouble-click to open its machine." if shape.kind in ("server", "workstation") else ""
        items: list[DeviceBlock] = []
        rack = self.plan.rack(geometry.rack_id)
        device = rack.device(shape.device) if rack else None
        look = device_look(shape, self.plan, self.catalog, device.machine if device else None)
        if shape.position_u is None:
            channel = geometry.left_channel if (shape.side or "left") == "left" else geometry.right_channel
            rect = channel.adjusted(8, 20, -8, -20)
            item = self.device_factory(geometry.rack_id, shape, rect, shape.name, False, True)
            item.look = look
            item.setToolTip(text)
            items.append(item)
        else:
            faces = ("front", "rear") if shape.is_full_depth else (shape.face,)
            for face in faces:
                rect = geometry.u_rect(face, shape.position_u, max(1, shape.height_u)).adjusted(2, 2, -2, -2)
                ghost = shape.is_full_depth and face != shape.face
                item = self.device_factory(geometry.rack_id, shape, rect, text.split("\n")[0], ghost, False)
                item.look = look
                air = airflow_text(look, shape.face)
                tip = text + ("\n(full depth: seen from the other face)" if ghost else "") + (f"\n{air}" if air else "")
                item.setToolTip(tip + open_hint)
                items.append(item)
        for item in items:
            if self.cached:
                item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
            item.setParentItem(frame)
        self.items_by_device[key] = items

    def device_text(self, rack_id: str, shape: DeviceShape) -> str:
        """The device's name and key figure (GPUs and kW for a server), then its part."""
        rack = self.plan.rack(rack_id)
        device = rack.device(shape.device) if rack else None
        if device is None:
            figure = f"{shape.height_u}U" if shape.height_u else "0U"
        else:
            figure = device_figure(self.plan, device, self.catalog, shape.height_u)
        return f"{shape.name}  ·  {figure}\n{shape.part or ''}"
