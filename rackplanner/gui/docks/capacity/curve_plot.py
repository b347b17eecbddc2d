"""The capacity dock's plot: decode speed against batch size, with its roofline knee and limits."""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import (
    Qt,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QLabel,
    QVBoxLayout,
    QWidget,
)

from rackplanner.core.capacity.curves import (
    CURVE_MAX_BATCH,
    BatchCurve,
)
from rackplanner.core.catalog.parts import LlmModel
from rackplanner.gui.docks.capacity.table_model import format_label
from rackplanner.gui.docks.live import note_label
from rackplanner.gui.docks.plot_scale import grid_item, nice_top, set_value_axis

pg.setConfigOptions(background="w", foreground="k", antialias=True)

# Batch ticks at powers of two (the x axis is log10 of the batch): pyqtgraph's own log ticks
# crowd into each other at dock width.
BATCH_TICKS = [(math.log10(2**i), str(2**i)) for i in range(int(math.log2(CURVE_MAX_BATCH)) + 1)]

CURVE_COLOUR = QColor("#1f5fbf")
KNEE_COLOUR = QColor("#b8690f")
CEILING_COLOUR = QColor("#6b7280")
NO_ROOM_BRUSH = QColor(200, 60, 50, 28)


class DecodeCurvePlot(QWidget):
    """Decode tokens/s against batch for one model, with the roofline knee, the peak ridge and the compute ceiling."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot_title = QLabel()
        self.plot_title.setWordWrap(True)
        self.plot = pg.PlotWidget()
        # A set height: notes of another length below it then move, rather than resize (and
        # redraw whole) the plot; a short pane scrolls.
        self.plot.setFixedHeight(180)
        item = self.plot.getPlotItem()
        item.setLogMode(x=True, y=False)
        # Own grid lines (plot_scale): the axes' grid took most of a frame to redraw on each new curve.
        self.grid = grid_item()
        item.addItem(self.grid, ignoreBounds=True)
        self._y_top = 0.0  # the top of the tokens/s axis as last set
        item.setLabel("bottom", "batch (sequences decoded together)")
        item.setLabel("left", "decode tokens/s")
        item.getAxis("bottom").setTicks([BATCH_TICKS, []])
        item.setMouseEnabled(x=False, y=False)
        item.hideButtons()
        item.setMenuEnabled(False)
        self.curve_item = item.plot([], [], pen=pg.mkPen(CURVE_COLOUR, width=2))
        self.knee_line = pg.InfiniteLine(
            angle=90,
            pen=pg.mkPen(KNEE_COLOUR, width=1.5, style=Qt.PenStyle.DashLine),
            label="",
            labelOpts={"position": 0.12, "color": KNEE_COLOUR, "anchors": [(0, 1), (0, 1)]},
        )
        self.peak_line = pg.InfiniteLine(
            angle=90,
            pen=pg.mkPen(CEILING_COLOUR, width=1, style=Qt.PenStyle.DashDotLine),
            label="",
            labelOpts={"position": 0.3, "color": CEILING_COLOUR, "anchors": [(0, 1), (0, 1)]},
        )
        self.ceiling_line = pg.InfiniteLine(
            angle=0,
            pen=pg.mkPen(CEILING_COLOUR, width=1, style=Qt.PenStyle.DotLine),
            label="",
            labelOpts={"position": 0.04, "color": CEILING_COLOUR, "anchors": [(0, 1), (0, 1)]},
        )
        self.no_room = pg.LinearRegionItem(movable=False, brush=pg.mkBrush(NO_ROOM_BRUSH), pen=pg.mkPen(None))
        for extra in (self.no_room, self.peak_line, self.knee_line, self.ceiling_line):
            item.addItem(extra, ignoreBounds=True)
        self.plot_note = note_label()
        # Room for the usual notes from the start, so a longer or shorter one does not resize the
        # plot above it (a resized plot redraws whole).
        line = self.plot_note.fontMetrics().lineSpacing()
        self.plot_note.setMinimumHeight(4 * line + 4)
        self.plot_title.setMinimumHeight(2 * self.plot_title.fontMetrics().lineSpacing() + 2)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot_title)
        layout.addWidget(self.plot)
        layout.addWidget(self.plot_note)
        layout.addStretch(1)

    def show_curve(self, curve: BatchCurve | None, model: LlmModel | None, *, whole_rack: bool) -> None:
        """Draw ``curve`` (None: nothing selected)."""
        if curve is None or model is None:
            self.curve_item.setData([], [])
            for extra in (self.knee_line, self.peak_line, self.ceiling_line, self.no_room):
                extra.setVisible(False)
            self.plot_title.setText("Select a model to see its decode speed against batch size.")
            self.plot_note.setText("")
            return
        self.curve_item.setData(curve.batches, curve.tokens_per_s)
        where = f" on one machine ({curve.hardware})" if whole_rack else ""
        self.plot_title.setText(
            f"<b>{model.model}</b> {format_label(curve.format)}{where}: decode tokens/s, "
            f"each sequence at {curve.context:,} tokens"
        )
        notes: list[str] = []
        knee = curve.knee_batch
        if not _place_batch_line(self.knee_line, knee, f"knee ≈ batch {knee or 0:,.0f}"):
            notes.append(
                "Bandwidth-bound at every batch (the KV cache read grows with the batch)."
                if knee is None
                else f"Bandwidth-bound up to batch {knee:,.0f}, beyond the plot."
            )
        peak = curve.device_flop_per_byte
        if peak is not None and curve.effective_flop_per_byte is not None:
            notes.insert(
                0,
                f"Roofline: the device's peak TFLOP/s over its bandwidth is {peak:,.0f} FLOP/byte; at the "
                f"achieved shares the estimate uses, {curve.effective_flop_per_byte:,.0f}. Left of the knee a "
                "step waits on memory, right of it on compute.",
            )
            ridge = curve.peak_knee_batch
            if not _place_batch_line(self.peak_line, ridge, f"peak ridge ≈ batch {ridge or 0:,.0f}"):
                notes.append(
                    "At peak figures it would stay bandwidth-bound at every batch."
                    if ridge is None
                    else f"At peak figures the ridge is at batch {ridge:,.0f}."
                )
        else:
            self.peak_line.setVisible(False)
        ceiling = curve.compute_ceiling_tokens_per_s
        top = max(curve.tokens_per_s)
        if ceiling is not None and ceiling <= top * 1.5:
            self.ceiling_line.setVisible(True)
            self.ceiling_line.setPos(ceiling)
            self.ceiling_line.label.setFormat(f"compute ceiling {ceiling:,.0f} t/s")
            top = max(top, ceiling)
        else:
            self.ceiling_line.setVisible(False)
        if curve.max_batch < CURVE_MAX_BATCH:
            low = math.log10(max(curve.max_batch, 1) + 0.5) if curve.max_batch else 0.0
            self.no_room.setRegion((low, math.log10(CURVE_MAX_BATCH)))
            self.no_room.setVisible(True)
            notes.append(
                f"Memory holds {curve.max_batch:,} sequence(s) of {curve.context:,} tokens; "
                "the shaded batches do not fit."
            )
        else:
            self.no_room.setVisible(False)
        self._set_y_top(nice_top(top * 1.15))  # head room above the curve for the ceiling's label
        self.plot_note.setText(" ".join(notes))

    def _set_y_top(self, y_top: float) -> None:
        """Scale the tokens/s axis to a round top; unchanged, the axes are not redrawn."""
        if y_top == self._y_top:
            return
        self._y_top = y_top
        item = self.plot.getPlotItem()
        item.setXRange(0.0, math.log10(CURVE_MAX_BATCH), padding=0.02)
        # In batches, not their logarithms: the plot's log mode applies to the grid as to the curve.
        batches = [2**i for i in range(1, len(BATCH_TICKS))]
        set_value_axis(item, self.grid, y_top, (1.0, float(CURVE_MAX_BATCH)), xs=batches)


def _place_batch_line(line: pg.InfiniteLine, batch: float | None, text: str) -> bool:
    """Put a vertical line at ``batch`` on the log-x plot; hide it (False) when off the plot."""
    if batch is None or batch > CURVE_MAX_BATCH:
        line.setVisible(False)
        return False
    # The label only re-renders while visible: show the line first. Its text goes on the side
    # with more room: right of a line at small batch, else left.
    line.setVisible(True)
    side = (0, 1) if batch < 32 else (1, 1)
    line.label.anchors = [side, side]
    line.setPos(math.log10(batch))
    line.label.setFormat(text)
    return True
