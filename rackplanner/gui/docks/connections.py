"""Power cords of the current rack: which PDU outlet group each PSU uses, and a combo to pin another.

The core assigns cords automatically; choosing an outlet group pins the cord there
(``edits.set_outlet_assignment``), choosing "Auto" removes the pin. Every figure comes
from ``rackplanner.core.rack.power.rack_power``.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QKeyEvent, QResizeEvent, QStandardItemModel, QWheelEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rackplanner.core.plan import edits
from rackplanner.core.plan.edits import Change
from rackplanner.core.rack.power import CordAssignment, RackPower
from rackplanner.draw.colors import SEVERITY_COLORS
from rackplanner.gui.docks.live import LiveDock
from rackplanner.gui.docks.power.common import (
    OVER_COLOUR,
    TIGHT_COLOUR,
    UNBALANCED_PERCENT,
    current_rack_power,
    short_connector,
    touches_rack,
)
from rackplanner.gui.document import ChangeSet, PlanDocument

# The outlet combo comes last, so in a narrow dock the line and how it was set stay in view.
COLUMNS = ["Device", "PSU", "Line", "Outlet", "Set", "PDU outlet group"]
DEVICE, PSU, LINE, OUTLET, HOW, OUTLET_GROUP = range(len(COLUMNS))

CORD_CHANGES = (Change.POWER, Change.OUTLETS, Change.RACK_LAYOUT)
# Findings about cords and outlets (the line and breaker loads are the power dock's).
CORD_FINDINGS = frozenset(
    {
        "no-free-outlet",
        "outlet-unavailable",
        "stale-assignment",
        "not-redundant",
        "psus-cannot-carry",
        "unpowered",
        "inlet-unknown",
        "pdu-no-feed",
        "pdu-outlets-unknown",
        "single-feed",
    }
)
# Lines within this of the heaviest line count as the heaviest too (equal loads print alike).
SAME_LOAD_A = 0.05


@dataclass(frozen=True)
class Cord:
    """One row: a PSU cord of a device, where the core plugged it (None: no outlet found)."""

    device: str
    device_name: str
    psu_index: int
    outlet_type: str
    assignment: CordAssignment | None


@dataclass(frozen=True)
class Choice:
    """An entry of the outlet combo: a PDU outlet group, or "Auto" (pdu None)."""

    pdu: str | None
    outlet_group: str | None
    text: str
    enabled: bool = True


_NAVIGATION_KEYS = frozenset(
    {Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown, Qt.Key.Key_Home, Qt.Key.Key_End}
)


class OutletCombo(QComboBox):
    """The outlet choice of one cord; the mouse wheel scrolls the table instead of re-plugging cords."""

    def wheelEvent(self, event: QWheelEvent) -> None:
        event.ignore()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        # A closed combo would re-plug the cord at every arrow key (one undo step each); open the list
        # instead, where the arrows move and Enter plugs it once.
        if event.key() in _NAVIGATION_KEYS or event.text().strip():
            self.showPopup()
            event.accept()
            return
        super().keyPressEvent(event)


def same_cell(old: QTableWidgetItem, new: QTableWidgetItem) -> bool:
    """Whether a table cell would look the same: only changed cells are set again."""
    return (
        old.text() == new.text()
        and old.toolTip() == new.toolTip()
        and old.background() == new.background()
        and old.foreground() == new.foreground()
        and old.font() == new.font()
        and old.textAlignment() == new.textAlignment()
    )


class ConnectionsDock(LiveDock):
    """Every power cord in the current rack and the outlet group it uses; a combo pins another."""

    def __init__(self, document: PlanDocument, parent: QWidget | None = None) -> None:
        super().__init__("Outlets", parent)
        self.setObjectName("connections-dock")
        self._document = document
        self.power: RackPower | None = None
        self.cords: list[Cord] = []
        self.choices: list[list[Choice]] = []
        self.combos: list[OutletCombo] = []
        self._finding_texts: list[tuple[str, str, str]] | None = None
        # What each row was last filled from, so unchanged rows are left alone.
        self._row_keys: list[object] = []

        self.balance = QLabel()
        self.balance.setWordWrap(True)
        self.balance.setTextFormat(Qt.TextFormat.RichText)

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setWordWrap(False)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.setShowGrid(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 12)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # Long device names are elided (the full name is the cell's tooltip), so the combo keeps its room.
        header.setSectionResizeMode(DEVICE, QHeaderView.ResizeMode.Interactive)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        header.setStretchLastSection(True)

        self.findings_title = QLabel("Findings about cords")
        self.findings = QListWidget()
        self.findings.setWordWrap(True)
        self.findings.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.findings.setFocusPolicy(Qt.FocusPolicy.NoFocus)

        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.balance)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.findings_title)
        layout.addWidget(self.findings)
        self.setWidget(body)

        document.changed.connect(self._on_changed)
        document.current_rack_changed.connect(self._on_rack_changed)
        document.reset.connect(self._on_rack_changed)
        self.refresh()

    # --- handlers --------------------------------------------------------------------

    def _on_changed(self, change: ChangeSet) -> None:
        if touches_rack(self._document, change, CORD_CHANGES):
            self.refresh_when_visible()

    def _on_rack_changed(self, *_args: object) -> None:
        self.refresh_when_visible()

    def _on_activated(self, row: int, index: int) -> None:
        if row >= len(self.cords) or index >= len(self.choices[row]):
            return
        cord, choice = self.cords[row], self.choices[row][index]
        current = cord.assignment
        pinned = current is not None and current.manual
        if choice.pdu is None:
            if not pinned:
                return
        elif (
            pinned and current is not None and (current.pdu, current.outlet_group) == (choice.pdu, choice.outlet_group)
        ):
            return
        self._document.apply(
            edits.set_outlet_assignment,
            rack=self._document.current_rack,
            device=cord.device,
            psu_index=cord.psu_index,
            pdu=choice.pdu,
            outlet_group=choice.outlet_group,
            catalog=self._document.catalog,
        )

    # --- content ---------------------------------------------------------------------

    def refresh(self) -> None:
        self._dirty = False
        power = current_rack_power(self._document)
        self.power = power
        if power is None:
            self.cords, self.choices = [], []
            self._fill_table()
            self.balance.setText("No rack" if not self._document.plan.racks else "No rack selected")
            self.findings.clear()
            return
        by_key = {(c.device, c.psu_index): c for c in power.cords}
        self.cords = [
            Cord(
                device=consumer.device,
                device_name=consumer.name,
                psu_index=index,
                outlet_type=outlet,
                assignment=by_key.get((consumer.device, index)),
            )
            for consumer in power.consumers
            for index, outlet in enumerate(consumer.outlet_types)
        ]
        self.choices = [self._choices_for(power, cord) for cord in self.cords]
        # Only cords that carry load are worth moving to even the lines.
        loaded = {c.device for c in power.consumers if c.wall_va > 0}
        self._fill_table(self._heaviest_lines(power), loaded)
        self._show_balance(power)
        self._show_findings(power)

    @staticmethod
    def _choices_for(power: RackPower, cord: Cord) -> list[Choice]:
        """The choices: "Auto", then every outlet group with this cord's outlet type and how many are free."""
        groups = [g for g in power.group_outlets if g.outlet_type == cord.outlet_type]
        texts = {(g.pdu, g.outlet_group): f"{g.pdu_name} {g.outlet_group} ({g.line})" for g in power.group_outlets}
        current = cord.assignment
        auto = "Auto"
        if current is not None and not current.manual:
            auto = "Auto: " + texts.get((current.pdu, current.outlet_group), f"{current.pdu} {current.outlet_group}")
        elif current is None:
            auto = "Auto: no free outlet"
        choices = [Choice(None, None, auto)]
        for group in groups:
            here = current is not None and (current.pdu, current.outlet_group) == (group.pdu, group.outlet_group)
            text = f"{texts[(group.pdu, group.outlet_group)]}: {group.free} {short_connector(cord.outlet_type)} free"
            choices.append(Choice(group.pdu, group.outlet_group, text, enabled=group.free > 0 or here))
        return choices

    @staticmethod
    def _pdu_name(power: RackPower, pdu_id: str) -> str:
        if not power.scenarios:
            return pdu_id
        return next((p.name for p in power.scenarios[0].pdus if p.pdu == pdu_id), pdu_id)

    @staticmethod
    def unbalanced(power: RackPower) -> list[str]:
        """PDU ids whose lines are unbalanced in normal operation (over UNBALANCED_PERCENT)."""
        if not power.scenarios:
            return []
        return [p.pdu for p in power.scenario("normal").pdus if p.imbalance_percent > UNBALANCED_PERCENT]

    def _heaviest_lines(self, power: RackPower) -> set[tuple[str, str]]:
        """(PDU, line) pairs carrying the most current on an unbalanced PDU: where a cord should move from."""
        heavy: set[tuple[str, str]] = set()
        if not power.scenarios:
            return heavy
        flagged = set(self.unbalanced(power))
        for pdu in power.scenario("normal").pdus:
            if pdu.pdu not in flagged or not pdu.lines:
                continue
            top = max(line.current_a for line in pdu.lines)
            heavy |= {(pdu.pdu, line.line) for line in pdu.lines if line.current_a >= top - SAME_LOAD_A}
        return heavy

    def _fill_table(self, heavy: set[tuple[str, str]] | None = None, loaded: set[str] | None = None) -> None:
        heavy = heavy or set()
        loaded = loaded or set()
        table = self.table
        if len(self.combos) != len(self.cords):
            # Rows are rebuilt only when the number of cords changes; otherwise the combos are reused,
            # so a combo is never deleted while its own signal is being handled.
            table.setRowCount(0)
            table.setRowCount(len(self.cords))
            self.combos = []
            self._row_keys = [None] * len(self.cords)
            for row in range(len(self.cords)):
                combo = OutletCombo()
                combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
                combo.activated.connect(lambda index, r=row: self._on_activated(r, index))
                table.setCellWidget(row, OUTLET_GROUP, combo)
                self.combos.append(combo)
        highlight = QColor(TIGHT_COLOUR)
        highlight.setAlpha(70)
        changed = False
        if len(self._row_keys) != len(self.cords):
            self._row_keys = [None] * len(self.cords)
        for row, cord in enumerate(self.cords):
            current = cord.assignment
            # A delta branch "L1-L2" loads both of its lines.
            marked = (
                current is not None
                and cord.device in loaded
                and any((current.pdu, line) in heavy for line in current.line.split("-"))
            )
            key = (cord, marked, self.choices[row])
            if self._row_keys[row] == key:
                # Nothing this row shows changed (most rows after a load change elsewhere).
                continue
            self._row_keys[row] = key
            changed = True
            cells = [QTableWidgetItem() for _ in COLUMNS]
            cells[DEVICE].setText(cord.device_name)
            cells[DEVICE].setToolTip(cord.device_name)
            cells[PSU].setText(str(cord.psu_index + 1))
            cells[LINE].setText(current.line if current else "–")
            cells[OUTLET].setText(short_connector(cord.outlet_type))
            cells[HOW].setText(("pinned" if current.manual else "auto") if current else "no outlet")
            cells[PSU].setTextAlignment(Qt.AlignmentFlag.AlignCenter)
            if current is not None and current.manual:
                font = QFont(cells[HOW].font())
                font.setBold(True)
                cells[HOW].setFont(font)
                cells[HOW].setToolTip("Set by hand; choose Auto in the combo to let the planner choose again")
            if current is None:
                cells[HOW].setForeground(OVER_COLOUR)
                cells[HOW].setToolTip("No free outlet of this type on a PDU in this rack")
            if marked and current is not None:
                cells[LINE].setBackground(highlight)
                cells[LINE].setToolTip(
                    f"The most loaded line of {self._pdu_name(self.power, current.pdu) if self.power else ''}, "
                    "whose phases are unbalanced; a cord moved to its lightest line evens them"
                )
            for column, cell in enumerate(cells):
                old = table.item(row, column)
                if old is None or not same_cell(old, cell):
                    table.setItem(row, column, cell)
            self._fill_combo(self.combos[row], self.choices[row], current)
        if changed:
            self._fit_device_column()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_device_column()

    def _fit_device_column(self) -> None:
        # Up to a quarter of the dock, never below eight characters; the rest is the combo's.
        limit = max(self.fontMetrics().averageCharWidth() * 8, self.width() * 25 // 100)
        self.table.setColumnWidth(DEVICE, min(self.table.sizeHintForColumn(DEVICE), limit))

    @staticmethod
    def _fill_combo(combo: QComboBox, choices: list[Choice], current: CordAssignment | None) -> None:
        combo.blockSignals(True)
        combo.clear()
        selected = 0
        for index, choice in enumerate(choices):
            combo.addItem(choice.text)
            if not choice.enabled:
                model = combo.model()
                assert isinstance(model, QStandardItemModel)
                item = model.item(index)
                item.setEnabled(False)
                item.setToolTip("No free outlet of this type in this group")
            if (
                current is not None
                and current.manual
                and (choice.pdu, choice.outlet_group) == (current.pdu, current.outlet_group)
            ):
                selected = index
        combo.setCurrentIndex(selected)
        combo.setToolTip("Auto lets the planner choose; an outlet group pins the cord there")
        combo.blockSignals(False)

    def _show_balance(self, power: RackPower) -> None:
        if not power.scenarios or not power.scenarios[0].pdus:
            self.balance.setText(f"<b>{power.name}</b>: no PDU in this rack, so no cord can be plugged in.")
            return
        parts = [f"<b>{power.name}</b>, normal operation:"]
        flagged = set(self.unbalanced(power))
        for pdu in power.scenario("normal").pdus:
            lines = ", ".join(f"{line.line} {line.current_a:.1f} A" for line in pdu.lines)
            text = f"{pdu.name}: {lines}, imbalance {pdu.imbalance_percent:.0f}%"
            if pdu.pdu in flagged:
                text = (
                    f'<span style="color:{SEVERITY_COLORS["warning"].name()}">{text}: unbalanced '
                    f"(over {UNBALANCED_PERCENT:.0f}%)</span>"
                )
            parts.append(text)
        if flagged:
            parts.append(
                "Marked lines: the most loaded line of an unbalanced PDU; "
                "plug a loaded cord into the lightest line to even them."
            )
        self.balance.setText("<br>".join(parts))

    def _show_findings(self, power: RackPower) -> None:
        texts = [(f.message, str(f.severity), f.code) for f in power.findings if f.code in CORD_FINDINGS]
        if texts == self._finding_texts:
            return
        self._finding_texts = texts
        self.findings.clear()
        for finding in power.findings:
            if finding.code not in CORD_FINDINGS:
                continue
            item = QListWidgetItem(finding.message)
            item.setForeground(SEVERITY_COLORS.get(finding.severity, QColor("#1f2328")))
            item.setToolTip(f"{finding.severity}: {finding.code}")
            self.findings.addItem(item)
        if self.findings.count() == 0:
            self.findings.addItem(QListWidgetItem("No findings about cords."))
        # As tall as its first few entries, so an empty list does not take the dock's space.
        shown = range(min(self.findings.count(), 6))
        height = sum(max(self.findings.sizeHintForRow(i), self.fontMetrics().height()) for i in shown)
        height += 2 * self.findings.frameWidth() + 4
        if self.findings.height() != height:
            self.findings.setFixedHeight(height)
