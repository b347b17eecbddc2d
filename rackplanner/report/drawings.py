"""The app's own drawings, built offscreen for the report: rack elevations, boards, block diagrams.

The canvases are the app's widgets, never shown: their scenes are rendered onto the PDF
painter, so the report's drawings are the app's vector drawings.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSizeF
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QGraphicsScene, QWidget

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.machine.topology import derive_topology
from rackplanner.core.plan.model import Machine, Plan
from rackplanner.core.plan.resolve import board_of
from rackplanner.draw.block_diagram.scene import DiagramScene
from rackplanner.gui.canvases.machine import MachineCanvas
from rackplanner.gui.canvases.rack_row import RackRowCanvas
from rackplanner.gui.document import PlanDocument


class Drawings:
    """Builds scenes on demand and keeps their owners alive until ``close``."""

    def __init__(self, plan: Plan, catalog: Catalog) -> None:
        self.document = PlanDocument(plan, catalog)
        self._keep: list[QWidget | QGraphicsScene] = []
        self._rows: dict[str, RackRowCanvas] = {}

    def rack(self, rack_id: str) -> tuple[QGraphicsScene, QRectF] | None:
        """The scene holding the rack's elevation (front and rear) and the part of it to render."""
        rack = self.document.plan.rack(rack_id)
        if rack is None:
            return None
        canvas = self._rows.get(rack.row)
        if canvas is None:
            canvas = RackRowCanvas(self.document, rack.row, for_print=True)
            self._rows[rack.row] = canvas
            self._keep.append(canvas)
        geometry = canvas.racks.get(rack_id)
        if geometry is None:
            return None
        left = geometry.left_channel.left() - 12
        right = geometry.right_channel.right() + 12
        # From the title above the rack to the "Front"/"Rear" captions under it.
        source = QRectF(left, 0, right - left, geometry.front.bottom() + 40)
        return canvas.scene(), source

    def board(self, machine: Machine) -> tuple[QGraphicsScene, QRectF] | None:
        """The machine's board with its cards, as the machine tab draws it; None without a board."""
        if board_of(machine, self.document.catalog) is None:
            return None
        canvas = MachineCanvas(self.document, machine.id)
        self._keep.append(canvas)
        canvas.ensure_built()
        scene = canvas.scene()
        return scene, scene.itemsBoundingRect().adjusted(-4, -4, 4, 4)

    def block_diagram(self, machine: Machine, room: QSizeF, base: QFont) -> tuple[QGraphicsScene, QRectF] | None:
        """The PCIe/NVLink block diagram, laid out for ``room``; None without a board."""
        catalog = self.document.catalog
        board = board_of(machine, catalog)
        if board is None:
            return None
        scene = DiagramScene()
        self._keep.append(scene)
        scene.build(machine, board, derive_topology(machine, catalog), catalog, base, room)
        return scene, scene.sceneRect()

    def close(self) -> None:
        for owner in self._keep:
            owner.deleteLater()
        self._keep.clear()
        self._rows.clear()
