"""Rack elevations of one row: racks side by side, front and rear, devices drawn to their height.

Scene units are millimetres: one U is 44.45 mm and a face is 19 in (482.6 mm) wide, so
devices are drawn to scale. Drag a server, switch, PDU or rack device from the catalog onto
a U position (it snaps; the drop is refused with the reason when it collides, overhangs or is
too deep), drag mounted devices within and between racks, Delete to unmount, double-click a
server to open its machine.
"""

from __future__ import annotations

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
    QKeyEvent,
    QMouseEvent,
    QPen,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QGraphicsRectItem,
    QGraphicsSceneMouseEvent,
    QInputDialog,
    QMenu,
    QWidget,
)

from rackplanner.core.analysis import analyse
from rackplanner.core.catalog.parts import NetworkSwitch, Pdu, RackDevice, Server
from rackplanner.core.catalog.parts import Rack as RackPart
from rackplanner.core.plan import edits
from rackplanner.core.plan.edits import Change
from rackplanner.core.plan.index import plan_index
from rackplanner.core.rack.duplicate import duplicate_machine
from rackplanner.core.rack.mounting import DeviceShape, placement_problem
from rackplanner.draw.rack import (
    BAD_GHOST,
    OK_GHOST,
    TITLE_MM,
    U_MM,
    DeviceBlock,
    RackGeometry,
    RowDrawing,
)
from rackplanner.gui.canvases.part_menu import add_part_entries, menu_point
from rackplanner.gui.canvases.rack_drop import DragInfo, apply_drop, move_arguments
from rackplanner.gui.canvases.zoom_view import ZoomView
from rackplanner.gui.document import ChangeSet, PlanDocument
from rackplanner.gui.mime import device_from_mime, device_mime, part_from_mime

DEVICE_MIME = "application/x-rackplanner-device"


class DeviceItem(DeviceBlock):
    """A device on the canvas: press and move it to drag it; double-click a server to open its machine."""

    def __init__(
        self,
        canvas: RackRowCanvas,
        rack_id: str,
        shape: DeviceShape,
        rect: QRectF,
        text: str,
        ghost: bool,
        vertical: bool = False,
    ) -> None:
        super().__init__(rack_id, shape, rect, text, ghost, vertical=vertical)
        self.canvas = canvas
        self.setCursor(Qt.CursorShape.OpenHandCursor)
        self._press: QPointF | None = None

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
        self.setup_canvas("#e9ecf1")
        self.drawing = RowDrawing(
            self.scene(),
            document.plan,
            document.catalog,
            cached=not for_print,
            device_factory=partial(DeviceItem, self),
        )
        self._ghost: QGraphicsRectItem | None = None
        self._drag: DragInfo | None = None
        self._worked_out_rack: str | None = None  # the rack a hovered move was last worked out for
        # A row whose tab is not in front is drawn when it is first shown or asked about (a plan
        # of many rows opens without drawing every rack), and a hidden one is not redrawn per edit.
        self._lazy = not for_print
        self._stale = True
        document.changed.connect(self._document_changed)
        self.rebuild()

    # --- drawing ----------------------------------------------------------------------

    def rack_ids(self) -> list[str]:
        return plan_index(self.document.plan).racks_by_row.get(self.row, [])

    def rebuild(self) -> None:
        """Redraw every rack of the row (when it is next shown, if it is hidden now)."""
        self._stale = True
        if self._lazy and not self.isVisible():
            return
        self._draw()

    def _draw(self) -> None:
        self._stale = False
        self._ghost = None
        self.drawing.draw_row(self.document.plan, self.document.catalog, self.row)
        if self.auto_fit:
            self.refit()

    def _ensure_drawn(self) -> None:
        if self._stale:
            self._draw()

    def showEvent(self, event: QShowEvent) -> None:
        self._ensure_drawn()
        super().showEvent(event)

    def refresh_racks(self, rack_ids: set[str]) -> None:
        """Redraw only these racks in place (the others keep their items)."""
        self.drawing.refresh_racks(self.document.plan, self.document.catalog, rack_ids)

    @property
    def racks(self) -> dict[str, RackGeometry]:
        self._ensure_drawn()
        return self.drawing.racks

    @property
    def items_by_device(self) -> dict[tuple[str, str], list[DeviceBlock]]:
        self._ensure_drawn()
        return self.drawing.items_by_device

    def fit_target(self) -> tuple[QRectF, float] | None:
        """Every rack of the row."""
        rect = self.scene().itemsBoundingRect()
        return (rect, 20) if not rect.isEmpty() else None

    def _document_changed(self, change: ChangeSet) -> None:
        if not change.touches(Change.RACK_LAYOUT, Change.MACHINES, Change.POWER) or self._stale:
            return
        if self._lazy and not self.isVisible():
            self._stale = True  # redrawn whole when shown again
            return
        rack_of = plan_index(self.document.plan).rack_of_machine
        same_racks = self.rack_ids() == list(self.racks)
        touched = set(change.racks) | {rack_of[m] for m in change.machines if m in rack_of}
        # A machine that was in a rack before the change (removed, or moved out) redraws that rack too.
        touched |= {rack for rack, machines in self.drawing.rack_machines.items() if machines & change.machines}
        if same_racks and (change.racks or change.machines):
            self.refresh_racks(touched & set(self.racks))
        else:
            self.rebuild()

    # --- dragging ---------------------------------------------------------------------

    def _begin(self, data: QMimeData) -> DragInfo | None:
        moved = device_from_mime(data)
        plan, catalog = self.document.plan, self.document.catalog
        if moved is not None:
            rack = plan.rack(moved[0])
            device = rack.device(moved[1]) if rack else None
            if device is None:
                return None
            layout = self.document.analysis.rack_layout(moved[0])
            shape = next(s for s in layout.devices if s.device == device.id)
            return DragInfo(None, moved[0], device.id, shape.height_u, shape.is_full_depth, shape.depth_mm)
        part_id = part_from_mime(data)
        part = catalog.get(part_id) if part_id else None
        if isinstance(part, Server):
            return DragInfo(part.id, None, None, part.height_u, part.is_full_depth, part.depth_mm)
        if isinstance(part, (NetworkSwitch, RackDevice)):
            return DragInfo(part.id, None, None, part.height_u, part.is_full_depth, part.depth_mm)
        if isinstance(part, Pdu):
            return DragInfo(part.id, None, None, part.height_u, False, None)
        return None

    def _target(self, pos: QPointF) -> tuple[RackGeometry, str, int] | None:
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

    def _problem(self, geometry: RackGeometry, face: str, u: int) -> str | None:
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

    def _show_ghost(self, geometry: RackGeometry, face: str, u: int, problem: str | None) -> None:
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
            plan = edits.move_device(self.document.plan, **move_arguments(info, rack_id, face, u)).plan  # type: ignore[arg-type]
        except edits.EditRefused:
            return
        analysis = analyse(plan, self.document.catalog)
        for touched in {info.rack, rack_id}:
            analysis.rack(touched)

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
        done = apply_drop(self.document, info, geometry.rack_id, face, u, self.selected_devices())
        event.setAccepted(done)

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
        step = {Qt.Key.Key_Up: 1, Qt.Key.Key_Down: -1}.get(Qt.Key(event.key()))
        if step is not None and self.step_device(step):
            event.accept()
            return
        super().keyPressEvent(event)

    def step_device(self, step: int) -> bool:
        """Select the device above (+1) or below (-1) the selected one in its rack, by rack unit."""
        selected = self.selected_devices()
        rack_id = selected[0][0] if selected else self.document.current_rack
        stack = sorted(
            (shape.position_u, device)
            for (rack, device), (shape, _text) in self.drawing.drawn.items()
            if rack == rack_id and shape.position_u is not None
        )
        if not stack:
            return False
        order = [device for _u, device in stack]
        if selected and selected[0][1] in order:
            index = max(0, min(len(order) - 1, order.index(selected[0][1]) + step))
        else:
            index = 0 if step > 0 else len(order) - 1
        key = (rack_id, order[index])
        self.scene().clearSelection()
        for item in self.items_by_device.get(key, []):
            item.setSelected(True)
        blocks = self.items_by_device.get(key, [])
        if blocks:
            self.ensureVisible(blocks[0], 10, 10)
            self.status_message.emit(f"U{stack[index][0]}: {blocks[0].toolTip().splitlines()[0]}")
        return True

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
        pos = menu_point(self, event, DeviceItem)
        rack_id = self._rack_at(self.mapToScene(pos))
        item = self.itemAt(pos)
        while item is not None and not isinstance(item, DeviceItem):
            item = item.parentItem()
        menu = self.device_menu(item) if isinstance(item, DeviceItem) else QMenu(self)
        if rack_id is not None:
            menu.addAction("Rename rack…", lambda: self.rename_rack(rack_id))
            menu.addAction("Remove rack", lambda: self.document.apply(edits.remove_rack, rack=rack_id))
            if self.selected_devices():
                menu.addAction("Unmount selected", self.delete_selected)
        if not menu.isEmpty():
            menu.exec(self.viewport().mapToGlobal(pos))

    def device_menu(self, item: DeviceItem) -> QMenu:
        """Open (a server), feeds (a PDU), Duplicate, Unmount, Show in catalog, Properties."""
        menu = QMenu(self)
        rack_id, device_id = item.rack_id, item.shape_info.device
        rack = self.document.plan.rack(rack_id)
        device = rack.device(device_id) if rack else None
        if device is None:
            return menu
        machine = self.document.plan.machine(device.machine) if device.machine else None
        if machine is not None:
            menu.addAction(f"Open {machine.name}", lambda: self.open_device(rack_id, device_id))
        if item.shape_info.kind == "pdu":
            self._feed_menu(menu, rack_id, device_id)
        duplicate = None
        if machine is not None:
            duplicate = partial(
                self.document.apply, duplicate_machine, machine=machine.id, catalog=self.document.catalog
            )
        remove = ("Unmount", lambda: self.document.apply(edits.unmount_device, rack=rack_id, device=device_id))
        part = device.part or (machine.server or machine.board if machine else None)
        add_part_entries(menu, self, self.document.catalog, part, duplicate=duplicate, remove=remove)
        menu.addSeparator()
        return menu

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


def rows_of(document: PlanDocument) -> list[tuple[str, str]]:
    """(row id, row name) of the plan's rows, in order: one rack tab each."""
    return [(row.id, row.name) for row in document.plan.rows]
