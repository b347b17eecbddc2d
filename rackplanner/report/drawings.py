"""The app's own drawings, built offscreen for the report: rack elevations, boards, block diagrams.

They are drawn by ``rackplanner.draw``, the same painters as the app's canvases, into scenes
that are rendered onto the PDF painter, so the report's drawings are the app's vector drawings.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSizeF
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QGraphicsScene

from rackplanner.core.analysis import analyse
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan.model import Machine, Plan
from rackplanner.core.plan.resolve import board_of
from rackplanner.draw.block_diagram.scene import DiagramScene
from rackplanner.draw.board import BoardDrawing
from rackplanner.draw.rack import RowDrawing


class Drawings:
    """Builds scenes on demand and keeps them alive until ``close``."""

    def __init__(self, plan: Plan, catalog: Catalog) -> None:
        self.plan = plan
        self.catalog = catalog
        self._keep: list[QGraphicsScene] = []
        self._rows: dict[str, RowDrawing] = {}

    def _scene(self) -> QGraphicsScene:
        scene = QGraphicsScene()
        self._keep.append(scene)
        return scene

    def rack(self, rack_id: str) -> tuple[QGraphicsScene, QRectF] | None:
        """The scene holding the rack's elevation (front and rear) and the part of it to render."""
        rack = self.plan.rack(rack_id)
        if rack is None:
            return None
        row = self._rows.get(rack.row)
        if row is None:
            # Printed, racks paint as vectors and text, never as cached pixmaps.
            row = RowDrawing(self._scene(), self.plan, self.catalog, cached=False)
            row.draw_row(self.plan, self.catalog, rack.row)
            self._rows[rack.row] = row
        geometry = row.racks.get(rack_id)
        if geometry is None:
            return None
        left = geometry.left_channel.left() - 12
        right = geometry.right_channel.right() + 12
        # From the title above the rack to the "Front"/"Rear" captions under it.
        source = QRectF(left, 0, right - left, geometry.front.bottom() + 40)
        return row.scene, source

    def board(self, machine: Machine) -> tuple[QGraphicsScene, QRectF] | None:
        """The machine's board with its cards, as the machine tab draws it; None without a board."""
        if board_of(machine, self.catalog) is None:
            return None
        scene = self._scene()
        BoardDrawing(scene, self.catalog).draw(machine)
        return scene, scene.itemsBoundingRect().adjusted(-4, -4, 4, 4)

    def block_diagram(self, machine: Machine, room: QSizeF, base: QFont) -> tuple[QGraphicsScene, QRectF] | None:
        """The PCIe/NVLink block diagram, laid out for ``room``; None without a board."""
        board = board_of(machine, self.catalog)
        if board is None:
            return None
        scene = DiagramScene()
        self._keep.append(scene)
        topology = analyse(self.plan, self.catalog).topology(machine)
        scene.build(machine, board, topology, self.catalog, base, room)
        return scene, scene.sceneRect()

    def close(self) -> None:
        for scene in self._keep:
            scene.deleteLater()
        self._keep.clear()
        self._rows.clear()
