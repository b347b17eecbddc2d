"""Read-only tables of plain cells that redraw only the cells that changed."""

from __future__ import annotations

from dataclasses import dataclass, replace

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
)

from rackplanner.gui.docks.live import fit_table_height


@dataclass(frozen=True)
class Cell:
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


def tinted(cell: Cell, colour: QColor) -> Cell:
    """The cell on a light wash of ``colour``."""
    wash = QColor(colour)
    wash.setAlpha(70)
    return replace(cell, background=wash)


class CellTable(QTableWidget):
    """A read-only table that remembers what its cells show."""

    def __init__(self, rows: int, columns: int) -> None:
        super().__init__(rows, columns)
        self.shown: list[list[Cell]] = []


def cell_table(headers: list[str]) -> CellTable:
    table = CellTable(0, len(headers))
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


def fill_table(table: CellTable, rows: list[list[Cell]]) -> None:
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
