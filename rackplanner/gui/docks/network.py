"""Network of the current rack: switch ports used and free, port needs by network, cables, row fabric."""

from __future__ import annotations

from collections import Counter
from typing import ClassVar

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QGroupBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rackplanner.core.plan.edits import Change
from rackplanner.core.plan.index import plan_index
from rackplanner.core.plan.model import Rack
from rackplanner.core.rack.fabric import NETWORK_LABELS, RackNetwork, RowFabric
from rackplanner.draw.colors import SEVERITY_COLORS
from rackplanner.gui.docks.live import LiveDock, fit_table_height, note_label, scrolling, wrapped_label
from rackplanner.gui.docks.network_fabric import PlanFabricBox
from rackplanner.gui.document import ChangeSet, PlanDocument

# Networks always listed, even with no demand, so a missing switch shows as a zero.
SHOWN_NETWORKS: tuple[str, ...] = ("compute", "in-band", "oob")
# Short names for the cable list, where the full ones crowd out the cable.
SHORT_NETWORK: dict[str, str] = {"compute": "compute", "storage": "storage", "in-band": "in-band", "oob": "OOB"}
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


def _table(headers: list[str], stretch: int = 0) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setAlternatingRowColors(True)
    table.setWordWrap(False)
    table.setShowGrid(False)
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 6)
    table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    header = table.horizontalHeader()
    for column in range(len(headers)):
        mode = QHeaderView.ResizeMode.Stretch if column == stretch else QHeaderView.ResizeMode.ResizeToContents
        header.setSectionResizeMode(column, mode)
    return table


def _fill(table: QTableWidget, rows: list[list[str]], numeric_from: int) -> bool:
    """Show ``rows``; False (and nothing redone) when the table shows them already."""
    if table.property("rows") == rows:
        return False
    table.setProperty("rows", rows)
    # Sizing columns to their contents after every cell is what makes refilling slow.
    header = table.horizontalHeader()
    modes = [header.sectionResizeMode(c) for c in range(table.columnCount())]
    for column in range(table.columnCount()):
        header.setSectionResizeMode(column, QHeaderView.ResizeMode.Fixed)
    table.setRowCount(len(rows))
    for r, cells in enumerate(rows):
        for c, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if c >= numeric_from:
                item.setTextAlignment(_RIGHT)
            table.setItem(r, c, item)
    for column, mode in enumerate(modes):
        header.setSectionResizeMode(column, mode)
    fit_table_height(table)
    return True


def speed_text(gbps: float) -> str:
    return f"{gbps:g} Gb/s"


class NetworkDock(LiveDock):
    """Switch ports, port needs by network, cables and the row's leaf/spine sizing, from the fabric core."""

    SWITCH_COLUMNS: ClassVar[list[str]] = ["Switch", "Speed", "Port", "Used", "Free", "Total"]
    NEED_COLUMNS: ClassVar[list[str]] = ["Network", "Needed", "Connected", "Short"]
    CABLE_COLUMNS: ClassVar[list[str]] = ["From", "To", "Network", "Cable", "Count"]

    def __init__(self, document: PlanDocument, parent: QWidget | None = None) -> None:
        super().__init__("Network", parent)
        self.setObjectName("network-dock")
        self._document = document
        self.network: RackNetwork | None = None
        self.fabric: RowFabric | None = None
        # (network, needed, connected) as shown, for each row of the needs table.
        self.needs: list[tuple[str, int, int]] = []

        self.title = QLabel()
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.title.setWordWrap(True)

        self.switches = _table(self.SWITCH_COLUMNS)
        self.switch_note = note_label()
        switch_box = QGroupBox("Switch ports")
        switch_layout = QVBoxLayout(switch_box)
        switch_layout.addWidget(self.switches)
        switch_layout.addWidget(self.switch_note)

        self.needs_table = _table(self.NEED_COLUMNS)
        self.findings = wrapped_label()
        needs_box = QGroupBox("Ports needed by network")
        needs_layout = QVBoxLayout(needs_box)
        needs_layout.addWidget(self.needs_table)
        needs_layout.addWidget(self.findings)

        self.cables = _table(self.CABLE_COLUMNS, stretch=1)
        self.cable_totals = wrapped_label()
        cable_box = QGroupBox("Cables")
        cable_layout = QVBoxLayout(cable_box)
        cable_layout.addWidget(self.cables)
        cable_layout.addWidget(self.cable_totals)

        self.fabric_box = QGroupBox("Compute fabric of the row")
        fabric_form = QFormLayout(self.fabric_box)
        fabric_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.endpoints = wrapped_label()
        self.leaf_switch = wrapped_label()
        self.leaves = wrapped_label()
        self.spines = wrapped_label()
        self.fabric_cables = wrapped_label()
        self.fabric_notes = note_label()
        fabric_form.addRow("Endpoints", self.endpoints)
        fabric_form.addRow("Switch", self.leaf_switch)
        fabric_form.addRow("Leaves", self.leaves)
        fabric_form.addRow("Spines", self.spines)
        fabric_form.addRow("Cables", self.fabric_cables)
        fabric_form.addRow(self.fabric_notes)

        self.plan_fabric = PlanFabricBox()

        self.empty = note_label()
        self._boxes: list[QWidget] = [switch_box, needs_box, cable_box, self.fabric_box]

        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.title)
        layout.addWidget(self.empty)
        for box in self._boxes:
            layout.addWidget(box)
        layout.addWidget(self.plan_fabric)
        layout.addStretch(1)
        self.setWidget(scrolling(body))

        document.changed.connect(self._on_changed)
        document.current_rack_changed.connect(lambda _rack: self.refresh_when_visible())
        document.reset.connect(self.refresh_when_visible)
        self.refresh_when_visible()

    # --- handlers --------------------------------------------------------------------

    def _on_changed(self, change: ChangeSet) -> None:
        if not change.touches(Change.NETWORK, Change.RACK_LAYOUT, Change.MACHINES):
            return
        plan = self._document.plan
        if self.isVisible() and plan.rack(self._document.current_rack) is not None:
            self.plan_fabric.show_plan(plan, self._document.catalog)  # any rack's switches count; sized later
        rack = plan.rack(self._document.current_rack)
        if rack is None:
            self.refresh_when_visible()
            return
        # The row's fabric counts every rack of the row, so an edit in a neighbour counts too.
        row_racks = [r for r in plan.racks if r.row == rack.row]
        machines = {d.machine for r in row_racks for d in r.devices if d.machine}
        if change.racks & {r.id for r in row_racks} or change.machines & machines:
            self.refresh_when_visible()

    # --- content ---------------------------------------------------------------------

    def refresh(self) -> None:
        self._dirty = False
        plan = self._document.plan
        rack = plan.rack(self._document.current_rack)
        if rack is None:
            self._show_empty("No rack" if not plan.racks else "No rack selected")
            return
        analysis = self._document.analysis
        self.network = analysis.rack_network(rack.id)
        self.fabric = analysis.row_fabric(rack.row)
        self.title.setText(f"{rack.name}: {len(rack.devices)} device(s)")
        self.empty.setVisible(False)
        for box in self._boxes:
            box.setVisible(True)
        self._show_switches(self.network)
        self._show_needs(self.network)
        self._show_cables(rack, self.network)
        self._show_fabric(self.fabric)
        # Compute nodes in several rows: the plan's fabric (below) is the one to read, not a row's.
        index = plan_index(plan)
        node_rows = {rack_row for m, r in index.rack_of_machine.items() if (rack_row := index.row_of_rack.get(r))}
        self.fabric_box.setVisible(len(node_rows) < 2)
        self.plan_fabric.show_plan(plan, self._document.catalog)

    def _show_empty(self, title: str) -> None:
        self.network = None
        self.fabric = None
        self.needs = []
        self.title.setText(title)
        self.plan_fabric.clear()
        self.empty.setText("Mount servers and switches in a rack to see its ports and cables.")
        self.empty.setVisible(True)
        for box in self._boxes:
            box.setVisible(False)

    def _show_switches(self, net: RackNetwork) -> None:
        rows = [
            [p.name, speed_text(p.speed_gbps), p.connector.upper(), str(p.used), str(p.free), str(p.total)]
            for p in net.switch_ports
        ]
        if not _fill(self.switches, rows, numeric_from=3):
            return
        for r, port in enumerate(net.switch_ports):
            for c in range(len(self.SWITCH_COLUMNS)):
                item = self.switches.item(r, c)
                if item is not None:
                    item.setToolTip(f"{port.name} ({port.part}, {port.fabric})")
            free = self.switches.item(r, 4)
            if free is not None and port.free == 0:
                free.setForeground(SEVERITY_COLORS["warning"])
        self.switches.setVisible(bool(rows))
        self.switch_note.setText("" if rows else "No network switch in this rack: every port need below is short.")
        self.switch_note.setVisible(not rows)

    def _show_needs(self, net: RackNetwork) -> None:
        shown = list(SHOWN_NETWORKS)
        shown += sorted({d.network for d in net.demands} - set(shown))
        connected: Counter[str] = Counter()
        for cable in net.cables:
            connected[cable.network] += cable.count
        elsewhere = net.outside_ports
        # Connected: to a switch in this rack, or cabled to one in another rack of the plan.
        self.needs = [(n, net.ports_needed(n), connected[n] + elsewhere.get(n, 0)) for n in shown]
        rows = [
            [
                NETWORK_LABELS.get(n, n),
                str(needed),
                f"{done} ({elsewhere[n]} in other racks)" if elsewhere.get(n) else str(done),
                str(needed - done) if needed > done else "–",
            ]
            for n, needed, done in self.needs
        ]
        if _fill(self.needs_table, rows, numeric_from=1):
            self._mark_needs(net)
        lines = []
        for finding in net.findings:
            colour = SEVERITY_COLORS.get(finding.severity, SEVERITY_COLORS["info"]).name()
            lines.append(f'<span style="color:{colour}">●</span> {_escape(finding.message)}')
        self.findings.setText("<br>".join(lines) if lines else "Every port need is served by a switch in this rack.")

    def _mark_needs(self, net: RackNetwork) -> None:
        bold = QFont(self.needs_table.font())
        bold.setBold(True)
        for r, (network, needed, done) in enumerate(self.needs):
            speeds = sorted({d.speed_gbps for d in net.demands if d.network == network})
            tip = ", ".join(speed_text(s) for s in speeds) or "no device needs this network"
            for c in range(len(self.NEED_COLUMNS)):
                item = self.needs_table.item(r, c)
                if item is not None:
                    item.setToolTip(tip)
            short = self.needs_table.item(r, 3)
            if short is not None and needed > done:
                short.setForeground(SEVERITY_COLORS["error"])
                short.setFont(bold)

    def _show_cables(self, rack: Rack, net: RackNetwork) -> None:
        names = {d.id: d.name for d in rack.devices}
        rows = [
            [
                names.get(c.device, c.device),
                names.get(c.switch, c.switch),
                SHORT_NETWORK[c.network],
                c.cable,
                str(c.count),
            ]
            for c in net.cables
        ]
        if _fill(self.cables, rows, numeric_from=4):
            for r, cable in enumerate(net.cables):
                item = self.cables.item(r, 2)
                if item is not None:
                    item.setToolTip(NETWORK_LABELS[cable.network])
        self.cables.setVisible(bool(rows))
        totals: Counter[str] = Counter()
        for cable in net.cables:
            totals[cable.cable] += cable.count
        if totals:
            self.cable_totals.setText(
                "In all: " + ", ".join(f"{count} × {cable}" for cable, count in sorted(totals.items()))
            )
        else:
            self.cable_totals.setText("No cables: nothing connects to a switch in this rack.")

    def _show_fabric(self, fabric: RowFabric) -> None:
        row_name = fabric.row_name or fabric.row
        racks = len(fabric.racks)
        self.fabric_box.setTitle(f"Compute fabric of row {row_name} ({racks} rack{'s' if racks != 1 else ''})")
        speed = f" at {speed_text(fabric.speed_gbps)}" if fabric.speed_gbps else ""
        self.endpoints.setText(f"{fabric.endpoints} compute port(s){speed}")
        size = fabric.size
        part = self._document.catalog.get(fabric.switch_part or "")
        if size is None or part is None:
            self.leaf_switch.setText("none")
            self.leaves.setText("–")
            self.spines.setText("–")
            self.fabric_cables.setText("–")
        else:
            self.leaf_switch.setText(f"{part.label}, {size.switch_ports} ports")
            per_leaf = (
                f" ({size.downlinks_per_leaf} down, {size.uplinks_per_leaf} up each)" if size.uplinks_per_leaf else ""
            )
            present = fabric.leaves_present
            missing = size.leaves + size.spines + size.cores - present
            self.leaves.setText(
                f"{size.leaves} needed{per_leaf}; {present} InfiniBand switch(es) in the row"
                + (f", {missing} short" if missing > 0 else "")
            )
            spines = f"{size.spines}" + (f", and {size.cores} cores above them" if size.cores else "")
            self.spines.setText(spines if size.spines else "none (one switch serves every endpoint)")
            self.fabric_cables.setText(
                "\n".join(f"{count} × {name}" for name, count in fabric.cables.items()) or "none"
            )
        self.fabric_notes.setText("\n".join(fabric.notes))
        self.fabric_notes.setVisible(bool(fabric.notes))


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
