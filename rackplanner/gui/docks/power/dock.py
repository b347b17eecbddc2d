"""Power of the current rack: amps on every PDU input line against its derated limit, per scenario.

Every figure comes from the core's rack power; the dock only draws it.
"""

from __future__ import annotations

from dataclasses import replace

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QGraphicsRectItem,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from rackplanner.core.catalog.parts import Pdu
from rackplanner.core.rack.power import SCENARIO_LABELS, SCENARIOS, PduLoad, RackPower, ScenarioResult
from rackplanner.gui.docks.live import LiveDock, note_label, scrolling
from rackplanner.gui.docks.power.cells import Cell, cell_table, fill_table, tinted
from rackplanner.gui.docks.power.common import (
    DEAD_TEXT,
    OVER_COLOUR,
    POWER_CHANGES,
    TIGHT_COLOUR,
    TIGHT_PERCENT,
    UNBALANCED_PERCENT,
    current_rack_power,
    load_colour,
    scenario_phrase,
    short_connector,
    touches_rack,
)
from rackplanner.gui.docks.power.line_chart import LineCurrentChart
from rackplanner.gui.document import ChangeSet, PlanDocument


class PowerDock(LiveDock):
    """Line currents of every PDU in the current rack, normal and with a feed failed."""

    def __init__(self, document: PlanDocument, parent: QWidget | None = None) -> None:
        super().__init__("Rack power", parent)
        self.setObjectName("power-dock")
        self._document = document
        self.scenario = "normal"
        self.power: RackPower | None = None
        self._drawn_scenario = ""

        self.title = QLabel()
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.title.setWordWrap(True)

        self.scenario_group = QButtonGroup(self)
        self.scenario_group.setExclusive(True)
        self.scenario_buttons: dict[str, QPushButton] = {}
        switch = QHBoxLayout()
        switch.setSpacing(0)
        for name in SCENARIOS:
            button = QPushButton(SCENARIO_LABELS[name])
            button.setCheckable(True)
            button.setChecked(name == self.scenario)
            button.setToolTip(
                "Each device's load shared by all its cords"
                if name == "normal"
                else f"{SCENARIO_LABELS[name]}: the PDUs on the other feed carry every device"
            )
            button.clicked.connect(lambda _checked=False, n=name: self.set_scenario(n))
            self.scenario_group.addButton(button)
            self.scenario_buttons[name] = button
            switch.addWidget(button)
        switch.addStretch(1)

        self.chart = LineCurrentChart()
        self.plot = self.chart.plot
        self.legend = note_label()
        self.legend.setText(
            f"Bars: amps per input line; dark red marks: the line's derated limit. Green below {TIGHT_PERCENT:.0f}% "
            "of the limit, amber up to it, red over it. Hover a bar for its limit."
        )

        self.breakers = cell_table(["PDU", "Group", "Line", "Current", "Breaker limit", "Load"])
        self.breaker_note = note_label()
        breaker_box = QGroupBox("Outlet groups (breakers)")
        breaker_layout = QVBoxLayout(breaker_box)
        breaker_layout.addWidget(self.breakers)
        breaker_layout.addWidget(self.breaker_note)

        self.totals = QLabel()
        self.totals.setWordWrap(True)
        self.totals.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.pdu_table = cell_table(["PDU", "Feed", "Load", "Imbalance", "Neutral"])
        self.outlets = QLabel()
        self.outlets.setWordWrap(True)
        self.unpowered = QLabel()
        self.unpowered.setWordWrap(True)
        totals_box = QGroupBox("Totals")
        totals_layout = QVBoxLayout(totals_box)
        totals_layout.addWidget(self.totals)
        totals_layout.addWidget(self.pdu_table)
        totals_layout.addWidget(self.outlets)
        totals_layout.addWidget(self.unpowered)

        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.title)
        layout.addLayout(switch)
        layout.addWidget(self.plot)
        layout.addWidget(self.legend)
        layout.addWidget(breaker_box)
        layout.addWidget(totals_box)
        layout.addStretch(1)
        self.setWidget(scrolling(body))

        document.changed.connect(self._on_changed)
        document.current_rack_changed.connect(self._on_rack_changed)
        document.reset.connect(self._on_rack_changed)
        self.refresh()

    # --- handlers --------------------------------------------------------------------

    def _on_changed(self, change: ChangeSet) -> None:
        if touches_rack(self._document, change, POWER_CHANGES):
            self.refresh_when_visible()

    def _on_rack_changed(self, *_args: object) -> None:
        self.refresh_when_visible()

    def set_scenario(self, scenario: str) -> None:
        """Show another scenario ("normal", "feed-a-failed", "feed-b-failed")."""
        self.scenario = scenario
        self.scenario_buttons[scenario].setChecked(True)
        self.refresh()

    # --- content ---------------------------------------------------------------------

    def refresh(self) -> None:
        self._dirty = False
        power = current_rack_power(self._document)
        if power is not None and self._drawn_scenario == self.scenario and (power is self.power or power == self.power):
            return  # the same figures (a device moved, a GPU changed slots): nothing to redraw
        self.power = power
        self._drawn_scenario = self.scenario
        if power is None:
            self._show_empty()
            return
        available = {s.scenario for s in power.scenarios}
        for name, button in self.scenario_buttons.items():
            button.setEnabled(name in available)
        if self.scenario not in available:
            self.scenario = "normal"
            self.scenario_buttons["normal"].setChecked(True)
        result = power.scenario(self.scenario)
        self.title.setText(
            f"{power.name}: {power.load_w / 1000:,.2f} kW at the wall, {scenario_phrase(result.scenario)}"
            if result.pdus
            else f"{power.name}: no PDU in this rack"
        )
        self.chart.draw(power, result)
        self._fill_breakers(result)
        self._fill_totals(power, result)

    def _show_empty(self) -> None:
        self.title.setText("No rack" if not self._document.plan.racks else "No rack selected")
        for button in self.scenario_buttons.values():
            button.setEnabled(False)
        self.chart.draw(None, None)
        fill_table(self.breakers, [])
        self.breaker_note.setText("")
        self.totals.setText("Add a rack with PDUs to see the load on each phase.")
        fill_table(self.pdu_table, [])
        self.unpowered.setText("")
        self.outlets.setText("")

    # --- the chart's items, by the names checks use ----------------------------------------

    @property
    def bars(self) -> dict[tuple[str, str], QGraphicsRectItem]:
        return self.chart.bars

    @property
    def limit_marks(self) -> pg.PlotDataItem | None:
        return self.chart.limit_marks

    @property
    def dead_labels(self) -> dict[str, pg.TextItem]:
        return self.chart.dead_labels

    @property
    def grid(self) -> pg.PlotDataItem | None:
        return self.chart.grid

    def bar_height(self, pdu: str, line: str) -> float:
        return self.chart.bar_height(pdu, line)

    def bar_colour(self, pdu: str, line: str) -> str:
        return self.chart.bar_colour(pdu, line)

    def value_label(self, pdu: str, line: str) -> str:
        return self.chart.value_label(pdu, line)

    def _fill_breakers(self, result: ScenarioResult) -> None:
        rows = [(pdu, b) for pdu in result.pdus for b in pdu.breakers]
        table_rows: list[list[Cell]] = []
        unknown = 0
        for pdu, b in rows:
            if b.breaker_a is None:
                unknown += 1
                rating = "unknown"
                rating_tip = "The catalog does not say which breaker protects this outlet group."
            else:
                rating = f"{b.limit_a:.1f} A"
                part = self._document.catalog.get_as(pdu.part, Pdu)
                derating = f" x {part.derating:g} derating" if part else ""
                rating_tip = f"{b.breaker_a:g} A breaker{derating} = {b.limit_a or 0:.1f} A"
            current = f"{b.current_a:.1f} A" if pdu.alive else "no power"
            load = "–" if b.percent is None or not pdu.alive else f"{b.percent:.0f}%"
            cells = [
                Cell(pdu.name),
                Cell(b.outlet_group),
                Cell(b.line),
                Cell(current, right=True),
                Cell(rating, right=True, tooltip=rating_tip),
                Cell(load, right=True),
            ]
            if pdu.alive and b.percent is not None:
                cells[5] = tinted(cells[5], load_colour(b.percent, b.over))
            if not pdu.alive:
                cells = [replace(cell, foreground=DEAD_TEXT) for cell in cells]
            table_rows.append(cells)
        fill_table(self.breakers, table_rows)
        self.breaker_note.setVisible(unknown > 0 or not rows)
        if not rows:
            self.breaker_note.setText("No outlet groups known for these PDUs.")
        elif unknown == len(rows):
            self.breaker_note.setText(
                "Breaker ratings are not in the catalog for these PDUs, so only the current per group is shown."
            )
        elif unknown:
            self.breaker_note.setText(f"{unknown} group(s) have no breaker rating in the catalog.")
        else:
            self.breaker_note.setText("")

    @staticmethod
    def outlets_used(power: RackPower, pdu: PduLoad) -> str:
        """'PDU A: C13 10/30, C19 0/12' (used of all outlets by type, from the core's outlet use)."""
        used = [f"{short_connector(o.outlet_type)} {o.used}/{o.total}" for o in power.outlets if o.pdu == pdu.pdu]
        return f"{pdu.name}: " + (", ".join(used) if used else "outlets unknown")

    def _fill_totals(self, power: RackPower, result: ScenarioResult) -> None:
        self.totals.setText(
            f"{power.load_w / 1000:,.2f} kW, {power.load_va / 1000:,.2f} kVA at power factor "
            f"{power.power_factor:g}, {power.heat_btu_hr:,.0f} BTU/hr (maximum draw of everything in the rack)"
        )
        table_rows: list[list[Cell]] = []
        for pdu in result.pdus:
            feed = pdu.side or ("none" if pdu.feed is None else "?")
            if pdu.alive:
                load = f"{pdu.load_va / 1000:,.2f} of {pdu.usable_va / 1000:,.1f} kVA"
                imbalance = f"{pdu.imbalance_percent:.0f}%"
                neutral = f"{pdu.neutral_a:.1f} A" if pdu.neutral_a is not None else "–"
            else:
                load, imbalance, neutral = "no power", "–", "–"
            cells = [
                Cell(pdu.name, tooltip=pdu.limit_basis),
                Cell(feed, tooltip=f"feed {pdu.feed}" if pdu.feed else "not plugged into a feed"),
                Cell(load, right=True, tooltip=f"{pdu.load_w / 1000:,.2f} kW"),
                Cell(imbalance, right=True, tooltip="Largest deviation of a line from the lines' average"),
                Cell(neutral, right=True, tooltip="Neutral current of a wye PDU (phasor sum of the lines)"),
            ]
            if pdu.alive and pdu.usable_va > 0:
                share = pdu.load_va / pdu.usable_va * 100
                cells[2] = tinted(cells[2], load_colour(share, pdu.load_va > pdu.usable_va))
            if pdu.alive and pdu.imbalance_percent > UNBALANCED_PERCENT:
                cells[3] = tinted(cells[3], TIGHT_COLOUR)
            if not pdu.alive:
                cells = [replace(cell, foreground=DEAD_TEXT) for cell in cells]
            table_rows.append(cells)
        fill_table(self.pdu_table, table_rows)
        self.outlets.setText("Outlets used: " + "; ".join(self.outlets_used(power, p) for p in result.pdus))
        names = {c.device: c.name for c in power.consumers}
        self.unpowered.setVisible(bool(result.unpowered))
        if result.unpowered:
            self.unpowered.setText(
                f"Without power {scenario_phrase(result.scenario)}: "
                + ", ".join(names.get(d, d) for d in result.unpowered)
            )
            self.unpowered.setStyleSheet(f"color: {OVER_COLOUR.name()}")
        else:
            self.unpowered.setText("")
