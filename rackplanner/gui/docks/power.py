"""Power of the current rack: amps on every PDU input line against its derated limit, per scenario.

Every figure comes from ``rackplanner.core.rack.power.rack_power``; the dock only draws it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from html import escape

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QGraphicsItem,
    QGraphicsRectItem,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QStyleOptionGraphicsItem,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rackplanner.core.catalog.parts import Pdu
from rackplanner.core.plan.edits import Change
from rackplanner.core.rack.power import SCENARIO_LABELS, SCENARIOS, PduLoad, RackPower, ScenarioResult, rack_power
from rackplanner.gui.docks.live import LiveDock, fit_table_height, scrolling
from rackplanner.gui.docks.plot_scale import grid_item, nice_top, set_value_axis
from rackplanner.gui.document import ChangeSet, PlanDocument

pg.setConfigOptions(background="w", foreground="k", antialias=True)

# Bar colours by share of the derated limit: below TIGHT_PERCENT green, up to the limit amber, over it red.
OK_COLOUR = QColor("#3a9a4a")
TIGHT_COLOUR = QColor("#e0a020")
OVER_COLOUR = QColor("#c83a32")
DEAD_COLOUR = QColor("#d5d7db")
DEAD_TEXT = QColor("#5f6670")
LIMIT_COLOUR = QColor("#8a1c1c")
LABEL_FILL = QColor(255, 255, 255, 210)
LABEL_TEXT = QColor("#1f2328")
# Where a line counts as "near" its limit: a colour threshold of the display only, not a rule of the core.
TIGHT_PERCENT = 80.0
# A PDU whose lines differ from their average by more than this is flagged as unbalanced
# (a highlighting threshold of the display; the figure itself is the core's imbalance_percent).
UNBALANCED_PERCENT = 20.0

BAR_WIDTH = 0.6
GROUP_GAP = 1.0

# What a rack's power depends on.
POWER_CHANGES = (Change.POWER, Change.OUTLETS, Change.RACK_LAYOUT)


def short_connector(connector: str) -> str:
    """'iec-60320-c13' as people write it: 'C13'."""
    return connector.removeprefix("iec-60320-").upper()


def scenario_phrase(scenario: str) -> str:
    """'in normal operation', 'with feed A failed' (for sentences)."""
    if scenario == "normal":
        return "in normal operation"
    return "with " + SCENARIO_LABELS[scenario][0].lower() + SCENARIO_LABELS[scenario][1:]


def load_colour(percent: float | None, over: bool) -> QColor:
    if over:
        return OVER_COLOUR
    if percent is not None and percent >= TIGHT_PERCENT:
        return TIGHT_COLOUR
    return OK_COLOUR


def touches_rack(document: PlanDocument, change: ChangeSet, flags: tuple[Change, ...]) -> bool:
    """Whether an edit changes what the rack docks show for the current rack."""
    if not change.touches(*flags):
        return False
    rack = document.plan.rack(document.current_rack)
    if rack is None:
        return True
    if not change.racks and not change.machines:
        # Feeds and other plan-wide edits name no rack; re-evaluate, the core's cache keeps it cheap.
        return True
    if rack.id in change.racks:
        return True
    return any(d.machine in change.machines for d in rack.devices if d.machine)


def current_rack_power(document: PlanDocument) -> RackPower | None:
    rack = document.plan.rack(document.current_rack)
    if rack is None:
        return None
    return rack_power(document.plan, rack.id, document.catalog)


@dataclass(frozen=True)
class _Cell:
    """What one table cell shows; compared as plain values, so unchanged cells are found cheaply."""

    text: str
    right: bool = False
    tooltip: str = ""
    background: QColor | None = None
    foreground: QColor | None = None

    def item(self) -> QTableWidgetItem:
        item = QTableWidgetItem(self.text)
        if self.right:
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if self.tooltip:
            item.setToolTip(self.tooltip)
        if self.background is not None:
            item.setBackground(self.background)
        if self.foreground is not None:
            item.setForeground(self.foreground)
        return item


def _tinted(cell: _Cell, colour: QColor) -> _Cell:
    """The cell on a light wash of ``colour``."""
    wash = QColor(colour)
    wash.setAlpha(70)
    return replace(cell, background=wash)


class _CellTable(QTableWidget):
    """A read-only table that remembers what its cells show."""

    def __init__(self, rows: int, columns: int) -> None:
        super().__init__(rows, columns)
        self.shown: list[list[_Cell]] = []


def _table(headers: list[str]) -> _CellTable:
    table = _CellTable(0, len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
    table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    table.setWordWrap(False)
    table.setShowGrid(False)
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 6)
    table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    return table


def fill_table(table: _CellTable, rows: list[list[_Cell]]) -> None:
    """Put rows of cells in a table; cells that did not change are left alone (resizing is what costs)."""
    if rows == table.shown:
        return
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    table.setRowCount(len(rows))
    for row, cells in enumerate(rows):
        old = table.shown[row] if row < len(table.shown) else []
        for column, cell in enumerate(cells):
            if column < len(old) and old[column] == cell:
                continue
            table.setItem(row, column, cell.item())
    table.shown = rows
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    fit_table_height(table)


def _note_label() -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    return label


class _ValueLabel(QGraphicsItem):
    """A bar's figure, centred above its top, the same size in pixels at any scale.

    Qt draws it from one cached width (pyqtgraph's text item re-lays out a text document and
    recomputes its transform on every change and paint, a good part of a frame for a chart's labels).
    """

    PAD_PX = 2

    def __init__(self, font: QFont) -> None:
        super().__init__()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self._font = font
        self._metrics = QFontMetrics(font)
        self.text = ""
        self._rect = QRectF()

    def set_text(self, text: str) -> None:
        if text == self.text:
            return
        self.prepareGeometryChange()
        self.text = text
        width = self._metrics.horizontalAdvance(text) + 2 * self.PAD_PX
        height = self._metrics.height()
        # Above the anchor point (the bar's top): y grows downwards in the label's own pixels.
        self._rect = QRectF(-width / 2, -height - self.PAD_PX, width, height)

    def boundingRect(self) -> QRectF:
        return self._rect

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.fillRect(self._rect, LABEL_FILL)
        painter.setFont(self._font)
        painter.setPen(LABEL_TEXT)
        painter.drawText(self._rect, Qt.AlignmentFlag.AlignCenter, self.text)


def _bar(x: float) -> QGraphicsRectItem:
    """One line's bar (drawn by Qt itself: resizing and recolouring it costs next to nothing)."""
    bar = QGraphicsRectItem(x - BAR_WIDTH / 2, 0.0, BAR_WIDTH, 0.0)
    _colour_bar(bar, OK_COLOUR)
    return bar


def _colour_bar(bar: QGraphicsRectItem, colour: QColor) -> None:
    bar.setBrush(colour)
    bar.setPen(QPen(colour.darker(130), 0))  # width 0: one pixel at any scale


@dataclass
class _PduItems:
    """The chart items of one PDU, kept while its lines stay the same."""

    centre: float
    limit_a: float
    heading: pg.TextItem
    bars: list[tuple[float, QGraphicsRectItem, _ValueLabel | None]]
    shade: pg.BarGraphItem | None = None
    dead_label: pg.TextItem | None = None


def _axis_top(limits_a: list[float], currents_a: list[float]) -> float:
    """The top of the amps axis: one scale for every scenario, so switching shows the load move, not the axis.

    Set by the limits (twice the highest, room for a failed feed's doubled load) unless a current
    goes beyond that, and rounded up to a round figure: racks on the same PDUs share one scale,
    and a change of load seldom changes it (redrawing the axes costs a third of a frame).
    """
    limit = max(limits_a, default=0.0)
    current = max(currents_a, default=0.0)
    # Head room above the bars for the value labels and the two-line PDU headings.
    return nice_top(max(limit * 2.0, current * 1.5, 1.0))


class PowerDock(LiveDock):
    """Line currents of every PDU in the current rack, normal and with a feed failed."""

    def __init__(self, document: PlanDocument, parent: QWidget | None = None) -> None:
        super().__init__("Rack power", parent)
        self.setObjectName("power-dock")
        self._document = document
        self.scenario = "normal"
        self.power: RackPower | None = None
        self._drawn_scenario = ""
        self._top = 0.0  # the top of the amps axis as last set
        # What is drawn, by (PDU id, line): the bar items and their value labels.
        self.bars: dict[tuple[str, str], QGraphicsRectItem] = {}
        self.value_labels: dict[tuple[str, str], _ValueLabel | None] = {}
        self.limit_marks: pg.PlotDataItem | None = None
        self.dead_labels: dict[str, pg.TextItem] = {}
        self._groups: list[_PduItems] = []
        self._shape: object = None

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

        self.plot = pg.PlotWidget()
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.setFixedHeight(230)
        self.plot.setLabel("left", "Current", units="A")
        self.plot.getAxis("left").enableAutoSIPrefix(False)
        # The grid is drawn as one item of plain lines at the ticks: the axis's own grid, redrawn
        # with every change of scale, took most of a frame.
        self.grid: pg.PlotDataItem | None = None
        self._x_span = (0.0, 1.0)
        for side in ("left", "bottom"):
            # The axes stay put while bars move: kept as pixmaps, not replayed every frame.
            self.plot.getAxis(side).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.legend = _note_label()
        self.legend.setText(
            f"Bars: amps per input line; dark red marks: the line's derated limit. Green below {TIGHT_PERCENT:.0f}% "
            "of the limit, amber up to it, red over it. Hover a bar for its limit."
        )

        self.breakers = _table(["PDU", "Group", "Line", "Current", "Breaker limit", "Load"])
        self.breaker_note = _note_label()
        breaker_box = QGroupBox("Outlet groups (breakers)")
        breaker_layout = QVBoxLayout(breaker_box)
        breaker_layout.addWidget(self.breakers)
        breaker_layout.addWidget(self.breaker_note)

        self.totals = QLabel()
        self.totals.setWordWrap(True)
        self.totals.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.pdu_table = _table(["PDU", "Feed", "Load", "Imbalance", "Neutral"])
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
        self._draw_lines(power, result)
        self._fill_breakers(result)
        self._fill_totals(power, result)

    def _show_empty(self) -> None:
        self.title.setText("No rack" if not self._document.plan.racks else "No rack selected")
        for button in self.scenario_buttons.values():
            button.setEnabled(False)
        self._draw_lines(None, None)
        fill_table(self.breakers, [])
        self.breaker_note.setText("")
        self.totals.setText("Add a rack with PDUs to see the load on each phase.")
        fill_table(self.pdu_table, [])
        self.unpowered.setText("")
        self.outlets.setText("")

    def _draw_lines(self, power: RackPower | None, result: ScenarioResult | None) -> None:
        plot = self.plot.getPlotItem()
        if power is None or result is None or not result.pdus:
            plot.clear()
            self._groups = []
            self._shape = None
            self.bars = {}
            self.value_labels = {}
            self.dead_labels = {}
            self.limit_marks = None
            self.grid = None
            self.plot.getAxis("bottom").setTicks([[]])
            self.plot.getAxis("left").setTicks(None)
            plot.setYRange(0, 1)
            self._top = 1.0
            return
        shape = tuple(
            (p.pdu, p.name, p.alive, p.limit_basis, tuple((line.line, line.limit_a) for line in p.lines))
            for p in result.pdus
        )
        if shape != self._shape:
            # Items are made again only when PDUs, lines or limits change; a load change updates them.
            self._build_plot(result)
            self._shape = shape
            self._top = 0.0  # the grid is new: draw it and the scale
        top = _axis_top(
            [line.limit_a for s in power.scenarios for p in s.pdus for line in p.lines],
            [line.current_a for s in power.scenarios for p in s.pdus for line in p.lines],
        )
        for pdu, group in zip(result.pdus, self._groups, strict=True):
            group.heading.setPos(group.centre, top)
            if group.shade is not None and group.dead_label is not None:
                group.shade.setOpts(height=[top * 0.88])
                # Below the limit marks, so the two do not cross.
                group.dead_label.setPos(group.centre, min(group.limit_a, top) / 2)
            for line, (x, bar, label) in zip(pdu.lines, group.bars, strict=True):
                self._update_bar(pdu, x, bar, label, line.line, line.current_a, line.limit_a, line.percent, line.over)
        if top != self._top and self.grid is not None:
            # Setting even the same range makes the axes draw again (a third of a frame).
            self._top = top
            set_value_axis(plot, self.grid, top, self._x_span)

    def _build_plot(self, result: ScenarioResult) -> None:
        plot = self.plot.getPlotItem()
        plot.clear()
        self._groups = []
        self.bars = {}
        self.value_labels = {}
        self.dead_labels = {}
        ticks: list[tuple[float, str]] = []
        mark_x: list[float] = []
        mark_y: list[float] = []
        x = 0.0
        for pdu in result.pdus:
            first = x
            bars: list[tuple[float, QGraphicsRectItem, _ValueLabel | None]] = []
            for line in pdu.lines:
                ticks.append((x, line.line))
                bar = _bar(x)
                plot.addItem(bar)
                label = None
                if pdu.alive:
                    # A light backing keeps the figure readable where it meets the limit mark.
                    label = _ValueLabel(self.plot.font())
                    label.setZValue(10)
                    plot.addItem(label)
                bars.append((x, bar, label))
                self.bars[(pdu.pdu, line.line)] = bar
                self.value_labels[(pdu.pdu, line.line)] = label
                mark_x += [x - 0.42, x + 0.42]
                mark_y += [line.limit_a, line.limit_a]
                x += 1
            last = x - 1
            centre = (first + last) / 2
            # The PDU's name and its line limit above its bars, clear of the value labels.
            limit = f"limit {pdu.lines[0].limit_a:.1f} A" if pdu.lines else "no lines"
            heading = pg.TextItem(
                html=f'<div style="text-align:center"><b>{escape(pdu.name)}</b><br>'
                f'<span style="color:{LIMIT_COLOUR.name()}">{limit}</span></div>',
                anchor=(0.5, 0),
            )
            metrics = QFontMetrics(heading.textItem.font())
            heading.setTextWidth(max(metrics.horizontalAdvance(t) for t in (pdu.name, limit)) * 1.2 + 8)
            heading.setToolTip(pdu.limit_basis)
            plot.addItem(heading)
            group = _PduItems(
                centre=centre, heading=heading, bars=bars, limit_a=pdu.lines[0].limit_a if pdu.lines else 0.0
            )
            if not pdu.alive:
                group.shade = pg.BarGraphItem(
                    x=[centre], height=[0.0], width=last - first + 0.9, brush=DEAD_COLOUR, pen=pg.mkPen(None)
                )
                group.shade.setZValue(-10)
                group.shade.setToolTip(f"{pdu.name}: no power" + (f", feed {pdu.side} down" if pdu.side else ""))
                plot.addItem(group.shade)
                group.dead_label = pg.TextItem("no power", color=DEAD_TEXT, anchor=(0.5, 0.5))
                plot.addItem(group.dead_label)
                self.dead_labels[pdu.pdu] = group.dead_label
            self._groups.append(group)
            x += GROUP_GAP
        self.limit_marks = None
        if mark_x:
            self.limit_marks = pg.PlotDataItem(mark_x, mark_y, connect="pairs", pen=pg.mkPen(LIMIT_COLOUR, width=2))
            self.limit_marks.setZValue(5)
            plot.addItem(self.limit_marks)
        self.grid = grid_item()
        plot.addItem(self.grid)
        self.plot.getAxis("bottom").setTicks([ticks])
        self._x_span = (-0.7, x - GROUP_GAP - 1 + 0.7)
        plot.setXRange(*self._x_span, padding=0)

    @staticmethod
    def _update_bar(
        pdu: PduLoad,
        x: float,
        bar: QGraphicsRectItem,
        label: _ValueLabel | None,
        line: str,
        amps: float,
        limit: float,
        percent: float,
        over: bool,
    ) -> None:
        colour = load_colour(percent, over) if pdu.alive else DEAD_COLOUR
        bar.setRect(x - BAR_WIDTH / 2, 0.0, BAR_WIDTH, amps)
        if bar.brush().color() != colour:
            _colour_bar(bar, colour)
        if pdu.alive:
            state = "over the limit" if over else f"{percent:.0f}% of the limit"
            bar.setToolTip(f"{pdu.name} {line}: {amps:.1f} A, {state}\nLimit {limit:.1f} A: {pdu.limit_basis}")
        else:
            bar.setToolTip(f"{pdu.name} {line}: no power, its feed is down")
        if label is not None:
            label.set_text(f"{amps:.1f} A")
            label.setPos(x, amps)

    def bar_height(self, pdu: str, line: str) -> float:
        """The drawn height of a bar in A (what the chart shows, for checks)."""
        return float(self.bars[(pdu, line)].rect().height())

    def bar_colour(self, pdu: str, line: str) -> str:
        """The colour a bar is filled with, as #rrggbb (for checks)."""
        return str(self.bars[(pdu, line)].brush().color().name())

    def value_label(self, pdu: str, line: str) -> str:
        """The figure written above a bar ("" on a dead PDU's)."""
        label = self.value_labels[(pdu, line)]
        return label.text if label is not None else ""

    def _fill_breakers(self, result: ScenarioResult) -> None:
        rows = [(pdu, b) for pdu in result.pdus for b in pdu.breakers]
        table_rows: list[list[_Cell]] = []
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
                _Cell(pdu.name),
                _Cell(b.outlet_group),
                _Cell(b.line),
                _Cell(current, right=True),
                _Cell(rating, right=True, tooltip=rating_tip),
                _Cell(load, right=True),
            ]
            if pdu.alive and b.percent is not None:
                cells[5] = _tinted(cells[5], load_colour(b.percent, b.over))
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
        table_rows: list[list[_Cell]] = []
        for pdu in result.pdus:
            feed = pdu.side or ("none" if pdu.feed is None else "?")
            if pdu.alive:
                load = f"{pdu.load_va / 1000:,.2f} of {pdu.usable_va / 1000:,.1f} kVA"
                imbalance = f"{pdu.imbalance_percent:.0f}%"
                neutral = f"{pdu.neutral_a:.1f} A" if pdu.neutral_a is not None else "–"
            else:
                load, imbalance, neutral = "no power", "–", "–"
            cells = [
                _Cell(pdu.name, tooltip=pdu.limit_basis),
                _Cell(feed, tooltip=f"feed {pdu.feed}" if pdu.feed else "not plugged into a feed"),
                _Cell(load, right=True, tooltip=f"{pdu.load_w / 1000:,.2f} kW"),
                _Cell(imbalance, right=True, tooltip="Largest deviation of a line from the lines' average"),
                _Cell(neutral, right=True, tooltip="Neutral current of a wye PDU (phasor sum of the lines)"),
            ]
            if pdu.alive and pdu.usable_va > 0:
                share = pdu.load_va / pdu.usable_va * 100
                cells[2] = _tinted(cells[2], load_colour(share, pdu.load_va > pdu.usable_va))
            if pdu.alive and pdu.imbalance_percent > UNBALANCED_PERCENT:
                cells[3] = _tinted(cells[3], TIGHT_COLOUR)
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
