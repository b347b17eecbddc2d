"""The rack power dock's chart: amps on every PDU input line against its derated limit."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsRectItem,
    QStyleOptionGraphicsItem,
    QWidget,
)

from rackplanner.core.rack.power import PduLoad, RackPower, ScenarioResult
from rackplanner.gui.docks.plot_scale import grid_item, nice_top, set_value_axis
from rackplanner.gui.docks.power.common import (
    BAR_WIDTH,
    DEAD_COLOUR,
    DEAD_TEXT,
    GROUP_GAP,
    LABEL_FILL,
    LABEL_TEXT,
    LIMIT_COLOUR,
    OK_COLOUR,
    load_colour,
)

pg.setConfigOptions(background="w", foreground="k", antialias=True)


class ValueLabel(QGraphicsItem):
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
class PduItems:
    """The chart items of one PDU, kept while its lines stay the same."""

    centre: float
    limit_a: float
    heading: pg.TextItem
    bars: list[tuple[float, QGraphicsRectItem, ValueLabel | None]]
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


class LineCurrentChart:
    """The bar chart of a scenario: one bar per PDU input line, its derated limit marked, figures above the bars."""

    def __init__(self) -> None:
        self._top = 0.0  # the top of the amps axis as last set
        # What is drawn, by (PDU id, line): the bar items and their value labels.
        self.bars: dict[tuple[str, str], QGraphicsRectItem] = {}
        self.value_labels: dict[tuple[str, str], ValueLabel | None] = {}
        self.limit_marks: pg.PlotDataItem | None = None
        self.dead_labels: dict[str, pg.TextItem] = {}
        self._groups: list[PduItems] = []
        self._shape: object = None
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

    def draw(self, power: RackPower | None, result: ScenarioResult | None) -> None:
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
            self._build(result)
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

    def _build(self, result: ScenarioResult) -> None:
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
            bars: list[tuple[float, QGraphicsRectItem, ValueLabel | None]] = []
            for line in pdu.lines:
                ticks.append((x, line.line))
                bar = _bar(x)
                plot.addItem(bar)
                label = None
                if pdu.alive:
                    # A light backing keeps the figure readable where it meets the limit mark.
                    label = ValueLabel(self.plot.font())
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
            group = PduItems(
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
        label: ValueLabel | None,
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
