"""Round axis scales and plain grid lines for the docks' pyqtgraph plots.

pyqtgraph's own grid is drawn by the axis items and redrawn with every change of range: about
11 ms a redraw in software, most of a frame. The docks draw their grid as one item of plain
lines instead, and round their value axis up to a figure that a small change of data keeps,
so most edits move the data without redrawing the axes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtGui import QColor

GRID_COLOUR = QColor("#cdd2d8")
# An axis tops out at one of these times a power of ten: coarse steps, each with round ticks.
NICE_TOPS = (1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


def nice_top(wanted: float) -> float:
    """The smallest round figure (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^n) at or above ``wanted``."""
    wanted = max(wanted, 1e-9)
    power = 10.0 ** math.floor(math.log10(wanted))
    return next(round(n * power, 9) for n in NICE_TOPS if n * power >= wanted - 1e-9)


def nice_ticks(top: float) -> list[float]:
    """Round tick values from zero to ``top`` (a ``nice_top``): five to nine of them."""
    power = 10.0 ** math.floor(math.log10(top))
    # The finest step that divides the top evenly with no more than eight intervals.
    steps = [s * power for s in (0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 2.5, 5.0, 10.0)]
    step = next(s for s in steps if top / s <= 8 + 1e-9 and abs(top / s - round(top / s)) < 1e-6)
    return [round(i * step, 6) for i in range(round(top / step) + 1)]


def grid_item() -> pg.PlotDataItem:
    """An empty grid, behind everything else in the plot; fill it with ``set_grid``."""
    item = pg.PlotDataItem([], [], pen=pg.mkPen(GRID_COLOUR, width=1), antialias=False)
    item.setZValue(-20)
    return item


def set_grid(
    item: pg.PlotDataItem,
    x_span: tuple[float, float],
    y_span: tuple[float, float],
    xs: Sequence[float] = (),
    ys: Sequence[float] = (),
) -> None:
    """Vertical lines at ``xs`` across ``y_span`` and horizontal lines at ``ys`` across ``x_span``."""
    px: list[float] = []
    py: list[float] = []
    for x in xs:
        px += [x, x]
        py += [y_span[0], y_span[1]]
    for y in ys:
        px += [x_span[0], x_span[1]]
        py += [y, y]
    item.setData(px, py, connect="pairs")


def set_value_axis(
    plot: pg.PlotItem, grid: pg.PlotDataItem, top: float, x_span: tuple[float, float], xs: Sequence[float] = ()
) -> None:
    """Scale the value axis from 0 to ``top`` (a ``nice_top``) with round ticks and grid lines at them.

    The top itself is left unlabelled: its figure would be cut in half by the plot's edge.
    ``xs`` adds vertical grid lines; ``x_span`` is how far the horizontal ones reach.
    """
    plot.setYRange(0, top, padding=0)
    ticks = nice_ticks(top)
    plot.getAxis("left").setTicks([[(value, f"{value:,.10g}") for value in ticks[:-1]]])
    set_grid(grid, x_span, (0.0, top), xs=xs, ys=ticks[1:-1])
