"""The network dock's box for the plan's compute fabric: a rail-optimized fat tree over every rack."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QGroupBox, QVBoxLayout, QWidget

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan.model import Plan
from rackplanner.core.rack.cluster_fabric import ClusterFabric, cluster_fabric
from rackplanner.core.rack.fat_tree import describe_fat_tree
from rackplanner.core.rack.side_networks import describe_side_network
from rackplanner.gui.docks.live import note_label, wrapped_label

SIZE_DELAY_MS = 150


class PlanFabricBox(QGroupBox):
    """Tiers, port use and the switches the plan holds, for plans whose compute nodes span racks."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Compute fabric of the plan", parent)
        self.summary = wrapped_label()
        self.note = note_label()
        self.note.setText(
            "A rail-optimized fat tree over every rack (see `rackplanner fabric`); "
            "`rackplanner fabric PLAN --cables FILE.csv` writes the cable schedule with lengths."
        )
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.note)
        self.fabric: ClusterFabric | None = None
        self._plan: Plan | None = None
        self._pending: tuple[Plan, Catalog] | None = None
        # Sized once edits pause, not inside the frame of each edit.
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SIZE_DELAY_MS)
        self._timer.timeout.connect(self._size_pending)
        self.setVisible(False)

    def show_plan(self, plan: Plan, catalog: Catalog) -> None:
        """Size the plan's fabric a moment after the last edit (a cluster's takes a few frames) and show it."""
        if plan is self._plan:
            return
        self._plan = plan
        self._pending = (plan, catalog)
        self._timer.start()

    def clear(self) -> None:
        """Nothing to show (no rack): hidden until a plan is shown again."""
        self._plan = self._pending = None
        self._timer.stop()
        self.setVisible(False)

    def _size_pending(self) -> None:
        if self._pending is None:
            return
        plan, catalog = self._pending
        self._pending = None
        racks_with_nodes = {r.id for r in plan.racks for d in r.devices if d.machine}
        if len(racks_with_nodes) < 2:
            self.fabric = None
            self.setVisible(False)
            return
        try:
            self.fabric = cluster_fabric(plan, catalog, wire=False)
        except ValueError as exc:
            self.fabric = None
            self.summary.setText(f"Not sized: {exc}")
            self.setVisible(True)
            return
        self.setVisible(True)
        self.summary.setText("\n".join(_lines(self.fabric)))


def _lines(fabric: ClusterFabric) -> list[str]:
    if fabric.tree is None or fabric.switch_model is None:
        lines = list(fabric.notes)
    else:
        lines = [line.strip() for line in describe_fat_tree(fabric.tree, fabric.switch_model)]
        lines.append(
            "In the plan: " + ", ".join(f"{fabric.in_plan[t]:,} of {n:,} {t}" for t, n in fabric.needed.items())
        )
        lines += fabric.notes
    for side in fabric.side_networks:
        lines += [line.strip() for line in describe_side_network(side)]
    return lines
