"""The capacity table as a Qt model: one row per model × format that fits, sorted and filtered in the model."""

from __future__ import annotations

from functools import cache
from typing import Any, ClassVar

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)

from rackplanner.core.capacity.curves import (
    RackRow,
)
from rackplanner.core.capacity.estimate import TableRow
from rackplanner.core.capacity.fitted import current
from rackplanner.core.capacity.formats import FORMATS
from rackplanner.core.capacity.hardware import Hardware
from rackplanner.core.capacity.measured_range import UNMEASURED_MARK_NOTE, table_notes
from rackplanner.core.capacity.runtime import RUNTIMES
from rackplanner.core.capacity.text import trust_note
from rackplanner.gui.docks.summary import short_model

# (model id, format id) of a row.
KEY_ROLE = Qt.ItemDataRole.UserRole + 1
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
MACHINES_COLUMN = 8
SPEED_COLUMNS = (2, 4)  # batch-1 decode, prefill
_FORMAT_RANK = {f: i for i, f in enumerate(FORMATS)}


@cache  # a few dozen formats, asked for on every row of every table
def format_label(format_id: str) -> str:
    fmt = FORMATS.get(format_id)
    if fmt is None:
        return format_id
    text = short_model(fmt.label).removeprefix("llama.cpp ").removeprefix("bitsandbytes ")
    return text.replace(" 4-bit, group ", " g").replace(", double quantization", " DQ")


def table_note(count: int, context: int, runtime_id: str, hw: Hardware | None, marked: bool) -> str:
    """The line under the table: what fits, how far its speeds are off held out, what no
    measured run covered (the † rows, best batches beyond any measured one)."""
    runtime = RUNTIMES[runtime_id].label
    if not count:
        return f"No catalog model fits with {runtime}."
    fits = f"{count} model × format pairs fit at context {context:,} (or the model's maximum), {runtime}."
    if hw is None:
        return fits
    mark = f" {UNMEASURED_MARK_NOTE} (the tooltip says which)." if marked else ""
    batches = table_notes(current(), hw, runtime_id, runtime)
    return f"{fits} {trust_note(hw, runtime_id)}{mark}" + (f" {batches}" if batches else "")


def rate(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


class CapacityModel(QAbstractTableModel):
    """Rows of ``capacity_table`` (one machine) or ``rack_capacity_table`` (a rack), as the core gives them."""

    # Speeds first: they are what the table is read for; memory details follow.
    COLUMNS: ClassVar[list[str]] = [
        "Model",
        "Format",
        "Decode t/s",
        "Best batch t/s",
        "Prefill t/s",
        "GB",
        "In RAM",
        "Max ctx",
        "Machines",
    ]
    TIPS: ClassVar[list[str]] = [
        "Catalog model",
        "Weight format",
        "Decode tokens/s for one request (batch 1); on a rack, the fastest machine's",
        "Decode tokens/s over all sequences at the best batch memory allows; on a rack, summed over the machines",
        "Prompt tokens/s (512-token prompt); on a rack, one machine's",
        "Memory used (weights, KV cache at the context, activations, runtime overhead); on a rack, per machine",
        "Share of the weights llama.cpp keeps in system RAM and runs on the CPU",
        "Longest context memory holds at batch 1",
        "Machines of the rack that hold the model in this format",
    ]

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[TableRow | RackRow] = []
        self.cells: list[list[tuple[str, Any]]] = []
        self.rack = False
        self._labels: dict[str, str] = {}
        self._given: list[TableRow | RackRow] = []  # the rows as the core gave them, before sorting
        self.sort_column = 0
        self.sort_order = Qt.SortOrder.AscendingOrder
        self._row_of: dict[tuple[str, str], int] = {}
        self._ready: (
            tuple[object, dict[str, str], list[tuple[TableRow | RackRow, list[tuple[str, Any]]]], list[str]] | None
        ) = None
        self.longest: list[str] = []  # per column, of the rows shown
        self._all: list[tuple[TableRow | RackRow, list[tuple[str, Any]]]] = []  # sorted, before the filter
        # The row list last sorted (held, so it is that very list), and by what.
        self._sorted: tuple[object, tuple[int, Qt.SortOrder]] = (None, (-1, Qt.SortOrder.AscendingOrder))
        self.filter_text = ""

    def set_rows(self, rows: list[TableRow] | list[RackRow], rack: bool, labels: dict[str, str]) -> bool:
        """Show ``rows``; False (and nothing redone) when they are what is shown already."""
        if rack == self.rack and list(rows) == self._given:
            return False
        self.beginResetModel()
        self._given = list(rows)
        self.rack = rack
        self._labels = labels
        self._arrange(self.cells_of(rows, labels))
        self.endResetModel()
        return True

    def cells_of(
        self, rows: list[TableRow] | list[RackRow], labels: dict[str, str]
    ) -> list[tuple[TableRow | RackRow, list[tuple[str, Any]]]]:
        """Each row with its texts and sort keys; the last table's are kept (a hovered drop works them out)."""
        ready = self._ready
        if ready is not None and ready[0] is rows and ready[1] == labels:
            self.longest = ready[3]
            return ready[2]
        pairs: list[tuple[TableRow | RackRow, list[tuple[str, Any]]]] = [
            (row, self._values(row, labels)) for row in rows
        ]
        # The longest text of each column, for sizing the columns without measuring every cell.
        longest = [
            max((cells[column][0] for _row, cells in pairs), key=len, default="") for column in range(len(self.COLUMNS))
        ]
        self._ready = (rows, labels, pairs, longest)
        self.longest = longest
        return pairs

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort by a column's key.

        The model sorts and filters its own rows: a sorting proxy asked this Python model for keys
        tens of thousands of times, and for every cell it paints, mapped through Python calls.
        """
        self.sort_column, self.sort_order = column, order
        self.layoutAboutToBeChanged.emit()
        self._arrange(self._all)
        self.layoutChanged.emit()

    def set_filter(self, text: str) -> None:
        """Show only rows with ``text`` in one of their cells (any case)."""
        if text == self.filter_text:
            return
        self.beginResetModel()
        self.filter_text = text
        self._arrange(self._all)
        self.endResetModel()

    def presort(self, pairs: list[tuple[TableRow | RackRow, list[tuple[str, Any]]]]) -> None:
        """Put rows in the table's order, in place; rows already in it (sorted while a drop hovered) are left."""
        column = self.sort_column
        order = (column, self.sort_order)
        if not 0 <= column < len(self.COLUMNS) or (pairs is self._sorted[0] and order == self._sorted[1]):
            return

        # Rows without a figure (None) sort together, apart from those with one.
        def key(pair: tuple[TableRow | RackRow, list[tuple[str, Any]]]) -> tuple[bool, Any]:
            value = pair[1][column][1]
            return (value is None, value if value is not None else 0)

        pairs.sort(key=key, reverse=self.sort_order == Qt.SortOrder.DescendingOrder)
        self._sorted = (pairs, order)

    def _arrange(self, pairs: list[tuple[TableRow | RackRow, list[tuple[str, Any]]]]) -> None:
        self.presort(pairs)
        self._all = pairs
        wanted = self.filter_text.casefold()
        if wanted:
            pairs = [pair for pair in pairs if any(wanted in text.casefold() for text, _key in pair[1])]
        self.rows = [row for row, _cells in pairs]
        # Texts and sort keys worked out once: painting asks for them many times.
        self.cells = [cells for _row, cells in pairs]
        self._row_of = {(row.model, row.format): i for i, row in enumerate(self.rows)}

    @property
    def marked(self) -> bool:
        """Whether a row shown carries the mark of speeds no measured run covered."""
        return any(row.unmeasured for row in self.rows)

    def row_of(self, model_id: str, format_id: str) -> int | None:
        """The row showing a model in a format, if any."""
        return self._row_of.get((model_id, format_id))

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.TIPS[section]
        return None

    @staticmethod
    def _values(row: TableRow | RackRow, labels: dict[str, str]) -> list[tuple[str, Any]]:
        offload = f"{row.offload_fraction:.0%}" if row.offload_fraction else "–"
        machines = f"{row.machines_fitting} of {row.machines}" if isinstance(row, RackRow) else "1"
        label = labels.get(row.model, row.model)
        # Speeds no measured run covered carry a mark; the tooltip and the table note say why.
        mark = " †" if row.unmeasured else ""
        return [
            (label, label.lower()),
            (format_label(row.format), _FORMAT_RANK.get(row.format, len(_FORMAT_RANK))),
            (rate(row.decode_tokens_per_s) + mark, row.decode_tokens_per_s or 0.0),
            (rate(row.best_batch_tokens_per_s), row.best_batch_tokens_per_s or 0.0),
            (rate(row.prefill_tokens_per_s, 0) + mark, row.prefill_tokens_per_s or 0.0),
            (f"{row.total_gb:,.1f}", row.total_gb),
            (offload, row.offload_fraction),
            (f"{row.max_context:,}", row.max_context),
            (machines, row.machines_fitting if isinstance(row, RackRow) else 1),
        ]

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # Asked for every role of every visible cell on each paint: the usual answers come first.
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cells[index.row()][index.column()][0] if index.isValid() else None
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return _RIGHT if index.column() >= 2 else None
        if role not in (KEY_ROLE, Qt.ItemDataRole.ToolTipRole) or not index.isValid():
            return None
        row = self.rows[index.row()]
        if role == KEY_ROLE:
            return (row.model, row.format)
        fmt = FORMATS.get(row.format)
        if row.unmeasured and index.column() in SPEED_COLUMNS:
            return f"Outside the measured runs ({row.unmeasured}): the error band is other runs'"
        return f"{self._labels.get(row.model, row.model)} ({row.model}), {fmt.label if fmt else row.format}"
