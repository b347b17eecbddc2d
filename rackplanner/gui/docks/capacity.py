"""LLM capacity of the current machine or rack: models × formats that fit, decode against batch, training."""

from __future__ import annotations

import math
from functools import cache
from typing import Any, ClassVar

import pyqtgraph as pg
from PySide6.QtCore import (
    QAbstractTableModel,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    QSignalBlocker,
    Qt,
)
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QComboBox,
    QDoubleSpinBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QRadioButton,
    QScrollArea,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from rackplanner.core.capacity import constants as k
from rackplanner.core.capacity.curves import (
    CURVE_MAX_BATCH,
    BatchCurve,
    RackRow,
    TrainingPlan,
    cached_capacity_table,
    cached_decode_curve,
    hardware_key,
    rack_capacity_table,
    rack_hardware,
    training_plan,
)
from rackplanner.core.capacity.estimate import DEFAULT_RUNTIME, TableRow
from rackplanner.core.capacity.formats import FORMATS
from rackplanner.core.capacity.hardware import Hardware, from_machine
from rackplanner.core.capacity.runtime import RUNTIMES
from rackplanner.core.capacity.training import LORA_RANK, Method
from rackplanner.core.catalog.parts import LlmModel
from rackplanner.core.errors import InputError
from rackplanner.core.plan.edits import Change
from rackplanner.core.plan.model import Machine
from rackplanner.gui.docks.live import LiveDock, fit_table_height, scrolling
from rackplanner.gui.docks.plot_scale import grid_item, nice_top, set_value_axis
from rackplanner.gui.docks.summary import CONTEXT_TOKENS, short_model
from rackplanner.gui.document import ChangeSet, PlanDocument

pg.setConfigOptions(background="w", foreground="k", antialias=True)

# (model id, format id) of a row.
KEY_ROLE = Qt.ItemDataRole.UserRole + 1
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
# Batch ticks at powers of two (the x axis is log10 of the batch): pyqtgraph's own log ticks
# crowd into each other at dock width.
BATCH_TICKS = [(math.log10(2**i), str(2**i)) for i in range(int(math.log2(CURVE_MAX_BATCH)) + 1)]

CURVE_COLOUR = QColor("#1f5fbf")
KNEE_COLOUR = QColor("#b8690f")
CEILING_COLOUR = QColor("#6b7280")
NO_ROOM_BRUSH = QColor(200, 60, 50, 28)

METHOD_LABELS: dict[Method, str] = {
    "ddp": "Full AdamW, replicated (DDP)",
    "zero-1": "Full AdamW, ZeRO-1",
    "zero-2": "Full AdamW, ZeRO-2",
    "fsdp": "Full AdamW, sharded (FSDP)",
    "lora": f"LoRA (FP16 base, rank {LORA_RANK})",
    "qlora": "QLoRA (NF4 base)",
}

MACHINE, RACK = 0, 1
MACHINES_COLUMN = 8
_FORMAT_RANK = {f: i for i, f in enumerate(FORMATS)}
DEFAULT_TOKENS_B = 10.0


@cache  # a few dozen formats, asked for on every row of every table
def format_label(format_id: str) -> str:
    fmt = FORMATS.get(format_id)
    if fmt is None:
        return format_id
    text = short_model(fmt.label).removeprefix("llama.cpp ").removeprefix("bitsandbytes ")
    return text.replace(" 4-bit, group ", " g").replace(", double quantization", " DQ")


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
        return [
            (label, label.lower()),
            (format_label(row.format), _FORMAT_RANK.get(row.format, len(_FORMAT_RANK))),
            (rate(row.decode_tokens_per_s), row.decode_tokens_per_s or 0.0),
            (rate(row.best_batch_tokens_per_s), row.best_batch_tokens_per_s or 0.0),
            (rate(row.prefill_tokens_per_s, 0), row.prefill_tokens_per_s or 0.0),
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
        return f"{self._labels.get(row.model, row.model)} ({row.model}), {fmt.label if fmt else row.format}"


class CapacityDock(LiveDock):
    """What the current machine, or the whole current rack, runs and trains, from the capacity core."""

    def __init__(self, document: PlanDocument, parent: QWidget | None = None) -> None:
        super().__init__("Capacity", parent)
        self.setObjectName("capacity-dock")
        self._document = document
        self.context = CONTEXT_TOKENS
        # What is shown: the hardware the rows were computed on, the curve and the training plan.
        self.hardware: list[Hardware] = []
        self.curve: BatchCurve | None = None
        self._training: TrainingPlan | None = None
        # The training tab is filled when it is shown (or its plan asked for), not on every edit.
        self._training_stale = False
        self._rack_machines: set[str] = set()

        # --- scope and runtime
        self.machine_button = QRadioButton("This machine")
        self.rack_button = QRadioButton("Whole rack")
        self.machine_button.setChecked(True)
        self.scope = QButtonGroup(self)
        self.scope.addButton(self.machine_button, MACHINE)
        self.scope.addButton(self.rack_button, RACK)
        self.runtime = QComboBox()
        for runtime in RUNTIMES.values():
            self.runtime.addItem(runtime.label, runtime.id)
        self.runtime.setCurrentIndex(list(RUNTIMES).index(DEFAULT_RUNTIME))
        # Narrow docks elide the runtime's name rather than widen the window.
        self.runtime.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.runtime.setMinimumContentsLength(10)
        self.runtime.setToolTip(
            "Inference runtime: a layer split holds bigger models, tensor parallelism decodes faster"
        )
        controls = QHBoxLayout()
        controls.addWidget(self.machine_button)
        controls.addWidget(self.rack_button)
        controls.addStretch(1)
        controls.addWidget(self.runtime)

        self.title = QLabel()
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.title.setWordWrap(True)
        self.scope_note = _note()

        # --- table
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter models and formats")
        self.filter.setClearButtonEnabled(True)
        self.model = CapacityModel()
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        # Model names differ at their ends (…-Llama-8B, …-Llama-70B): elide in the middle.
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.setShowGrid(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        self.table_note = _note()

        # --- plot
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
        self.plot_note = _note()
        # Room for the usual notes from the start, so a longer or shorter one does not resize the
        # plot above it (a resized plot redraws whole).
        line = self.plot_note.fontMetrics().lineSpacing()
        self.plot_note.setMinimumHeight(4 * line + 4)
        self.plot_title.setMinimumHeight(2 * self.plot_title.fontMetrics().lineSpacing() + 2)

        # --- training
        self.training_box = QGroupBox("Training")
        self.training_summary = _label()
        self.methods = QTableWidget(0, 4)
        method_tips = [
            "",
            "This model's weights, gradients, optimizer state and activations per GPU, with full recomputation",
            "",
            "Largest model whose weights and optimizer state fit the GPUs (activations aside)",
        ]
        for column, (title, tip) in enumerate(
            zip(["Method", "GB per GPU", "Fits", "Largest model"], method_tips, strict=True)
        ):
            header_item = QTableWidgetItem(title)
            header_item.setToolTip(tip)
            self.methods.setHorizontalHeaderItem(column, header_item)
        self.methods.verticalHeader().setVisible(False)
        self.methods.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.methods.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.methods.setShowGrid(False)
        self.methods.setAlternatingRowColors(True)
        self.methods.setWordWrap(False)
        self.methods.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.methods.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        methods_header = self.methods.horizontalHeader()
        methods_header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):
            methods_header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.tokens = QDoubleSpinBox()
        self.tokens.setDecimals(1)
        self.tokens.setRange(0.1, 100_000.0)
        self.tokens.setValue(DEFAULT_TOKENS_B)
        self.tokens.setSuffix(" B tokens")
        self.tokens.setToolTip("Tokens to train on, in billions (6 × parameters × tokens FLOP)")
        self.mfu = QDoubleSpinBox()
        self.mfu.setDecimals(0)
        self.mfu.setRange(1, 100)
        self.mfu.setValue(k.DEFAULT_MFU * 100)
        self.mfu.setSuffix(" % MFU")
        self.mfu.setToolTip("Model FLOP utilisation: the share of the GPUs' dense TFLOP/s the run achieves")
        run_row = QHBoxLayout()
        run_row.addWidget(QLabel("Train on"))
        run_row.addWidget(self.tokens)
        run_row.addWidget(QLabel("at"))
        run_row.addWidget(self.mfu)
        run_row.addStretch(1)
        self.train_time = _label()
        self.interruptions = _label()
        training_layout = QVBoxLayout(self.training_box)
        training_layout.addWidget(self.training_summary)
        training_layout.addWidget(self.methods)
        training_layout.addLayout(run_row)
        training_layout.addWidget(self.train_time)
        training_layout.addWidget(self.interruptions)

        # --- layout: scope and title on top; inference (table over plot, the user sets the
        # split) and training in tabs, so the dock stays usable at 1366x768 beside others.
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.filter)
        top_layout.addWidget(self.table, 1)
        top_layout.addWidget(self.table_note)
        middle = QWidget()
        middle_layout = QVBoxLayout(middle)
        middle_layout.setContentsMargins(0, 0, 0, 0)
        middle_layout.addWidget(self.plot_title)
        middle_layout.addWidget(self.plot)
        middle_layout.addWidget(self.plot_note)
        middle_layout.addStretch(1)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setChildrenCollapsible(False)
        # Each pane scrolls when the split leaves it less than its wrapped notes need, rather than
        # squeezing them over the table or the plot.
        self.splitter.addWidget(scrolling(top))
        self.splitter.addWidget(scrolling(middle))
        self.splitter.setSizes([300, 300])
        training_page = QWidget()
        training_layout_outer = QVBoxLayout(training_page)
        training_layout_outer.setContentsMargins(0, 0, 0, 0)
        training_layout_outer.addWidget(self.training_box)
        training_layout_outer.addStretch(1)
        scroll = scrolling(training_page)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.splitter, "Inference")
        self.tabs.addTab(scroll, "Training")
        self.training_page = scroll
        self.tabs.currentChanged.connect(self._tab_changed)
        container = QWidget()
        container_layout = _FillLayout(container)
        container_layout.setContentsMargins(6, 6, 6, 6)
        container_layout.addLayout(controls)
        container_layout.addWidget(self.title)
        container_layout.addWidget(self.scope_note)
        container_layout.addWidget(self.tabs, 1)
        # Shorter than its contents' minimum, the dock scrolls rather than stretch the window.
        outer = QScrollArea()
        outer.setWidgetResizable(True)
        outer.setFrameShape(QScrollArea.Shape.NoFrame)
        outer.setWidget(container)
        self.setWidget(outer)

        document.changed.connect(self._on_changed)
        document.previewed.connect(self._prepare)
        document.current_machine_changed.connect(lambda _id: self._scope_changed(MACHINE))
        document.current_rack_changed.connect(lambda _id: self._scope_changed(RACK))
        document.reset.connect(self.refresh_when_visible)
        self.scope.idToggled.connect(self._on_scope_toggled)
        self.runtime.currentIndexChanged.connect(lambda _i: self.refresh_when_visible())
        self.filter.textChanged.connect(self._on_filter)
        self.table.selectionModel().currentRowChanged.connect(lambda _c, _p: self._show_selected())
        self.tokens.valueChanged.connect(lambda _v: self._show_training())
        self.mfu.valueChanged.connect(lambda _v: self._show_training())
        # Nothing is computed until the dock is first shown.
        self.refresh_when_visible()

    # --- what is shown ---------------------------------------------------------------

    @property
    def whole_rack(self) -> bool:
        return self.scope.checkedId() == RACK

    def set_whole_rack(self, whole: bool) -> None:
        (self.rack_button if whole else self.machine_button).setChecked(True)

    def selected_key(self) -> tuple[str, str] | None:
        index = self.table.currentIndex()
        if not index.isValid():
            return None
        key = index.siblingAtColumn(0).data(KEY_ROLE)
        return (str(key[0]), str(key[1])) if key else None

    def select(self, model_id: str, format_id: str) -> bool:
        """Select the row of a model and format (if the table lists it and the filter shows it)."""
        row = self.model.row_of(model_id, format_id)
        if row is None:
            return False
        index = self.model.index(row, 0)
        self.table.selectionModel().setCurrentIndex(
            index,
            QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
        )
        self.table.scrollTo(index)
        return True

    # --- handlers --------------------------------------------------------------------

    def _on_changed(self, change: ChangeSet) -> None:
        if self.whole_rack:
            rack = self._document.plan.rack(self._document.current_rack)
            machines = {d.machine for d in rack.devices if d.machine} if rack else set()
            # Moving a switch or a server within the rack changes nothing it can run.
            mounted = change.touches(Change.RACK_LAYOUT) and machines != self._rack_machines
            if mounted or (
                change.touches(Change.CAPACITY, Change.MACHINES) and change.machines & (machines | self._rack_machines)
            ):
                self.refresh_when_visible()
            return
        current = self._document.current_machine
        if change.touches(Change.CAPACITY, Change.MACHINES) and (not current or current in change.machines):
            self.refresh_when_visible()

    def _prepare(self, machine: Machine) -> None:
        """Work out the table a hovered drop would give, so the drop finds it cached."""
        if not self.is_showing() or self.whole_rack or machine.id != self._document.current_machine:
            return
        runtime = str(self.runtime.currentData())
        try:
            hw, rows = self._machine_table(machine, runtime)
            if rows is None:
                return
            self.model.presort(self.model.cells_of(rows, self._labels()))
            selected = self._selected_model()
            if selected is not None:
                catalog = self._document.catalog
                cached_decode_curve(catalog, selected[0], selected[1], hw, runtime=runtime, context=self.context)
        except InputError:
            pass  # the drop itself will say what is wrong

    def _scope_changed(self, scope: int) -> None:
        if self.scope.checkedId() == scope:
            self.refresh_when_visible()

    def _on_scope_toggled(self, _id: int, checked: bool) -> None:
        if checked:
            self.refresh_when_visible()

    def _on_filter(self, text: str) -> None:
        self.model.set_filter(text)
        if not self.table.currentIndex().isValid() and self.model.rowCount():
            self.table.selectRow(0)
        self._show_selected()

    # --- content ---------------------------------------------------------------------

    def refresh(self) -> None:
        self._dirty = False
        keep = self.selected_key()
        labels = self._labels()
        runtime = str(self.runtime.currentData())
        rows: list[TableRow] | list[RackRow] = []
        self.hardware = []
        self._rack_machines = set()
        problem = ""
        try:
            if self.whole_rack:
                problem, rows = self._rack_rows(runtime)
            else:
                problem, rows = self._machine_rows(runtime)
        except InputError as exc:
            problem, rows = str(exc), []
        if self.model.set_rows(rows, self.whole_rack, labels):
            self.table.setColumnHidden(MACHINES_COLUMN, not self.whole_rack)
            self._size_columns()
        self.table_note.setText(problem or self._table_note(len(rows)))
        # Selected quietly: the plot and training are shown once below, not again for the selection.
        with QSignalBlocker(self.table.selectionModel()):
            if not (keep and self.select(*keep)) and self.model.rowCount():
                self.table.selectRow(0)
        self.table.viewport().update()
        self._show_selected()

    def _labels(self) -> dict[str, str]:
        """Catalog model names by id, as the table shows them."""
        return {m.id: m.model for m in self._document.catalog.of_kind(LlmModel)}

    def _machine_rows(self, runtime: str) -> tuple[str, list[TableRow]]:
        self.scope_note.setVisible(False)
        machine = self._document.plan.machine(self._document.current_machine)
        if machine is None:
            self.title.setText("No machine" if not self._document.plan.machines else "No machine selected")
            return "Add a machine to see the models it runs.", []
        hw, rows = self._machine_table(machine, runtime)
        self.hardware = [hw]
        self.title.setText(hw.label)
        self.title.setToolTip("\n".join(hw.assumptions))
        if rows is None:
            return f"{RUNTIMES[runtime].label} runs on GPUs only; choose llama.cpp for {hw.label}.", []
        return "", rows

    def _machine_table(self, machine: Machine, runtime: str) -> tuple[Hardware, list[TableRow] | None]:
        """A machine's hardware and its capacity table (None where the runtime cannot run on it)."""
        catalog = self._document.catalog
        hw = from_machine(machine, catalog)
        if RUNTIMES[runtime].gpu_only and hw.kind != "gpu":
            return hw, None
        return hw, cached_capacity_table(catalog, hw, runtime=runtime, context=self.context)

    def _rack_rows(self, runtime: str) -> tuple[str, list[RackRow]]:
        plan = self._document.plan
        rack = plan.rack(self._document.current_rack)
        self.scope_note.setVisible(rack is not None)
        if rack is None:
            self.title.setText("No rack" if not plan.racks else "No rack selected")
            return "Mount machines in a rack to see what the rack runs.", []
        found = rack_hardware(plan, rack.id, self._document.catalog)
        self.hardware = found.hardware
        self._rack_machines = {d.machine for d in rack.devices if d.machine}
        gpus = f", {found.gpus} GPUs" if found.gpus else ""
        self.title.setText(f"{rack.name}: {len(found.machines)} machine(s){gpus}")
        self.title.setToolTip("\n".join([h.label for h in found.hardware] + found.skipped))
        skipped = list(found.skipped)
        rt = RUNTIMES[runtime]
        if rt.gpu_only:
            skipped += [f"{h.label} ({rt.label} runs on GPUs only)" for h in found.hardware if h.kind != "gpu"]
            self.hardware = [h for h in found.hardware if h.kind == "gpu"]
        self.scope_note.setText(
            "Each machine runs its own copy (independent servers, no model split across machines): "
            "batch-1 decode and prefill are the fastest machine's, best-batch tokens/s add up over "
            "the machines that hold the model." + (f" Left out: {'; '.join(skipped)}." if skipped else "")
        )
        if not self.hardware:
            return "No machine in this rack to estimate on.", []
        rows = rack_capacity_table(self._document.catalog, self.hardware, runtime=runtime, context=self.context)
        return "", rows

    def _table_note(self, count: int) -> str:
        runtime = RUNTIMES[str(self.runtime.currentData())].label
        if not count:
            return f"No catalog model fits with {runtime}."
        return f"{count} model × format pairs fit at context {self.context:,} (or the model's maximum), {runtime}."

    def _size_columns(self) -> None:
        # Measure the longest text per column rather than resizeColumnsToContents, which
        # lays out every cell of every row (most of a refresh's time on 670 rows).
        header = self.table.horizontalHeader()
        metrics = self.table.fontMetrics()
        bold = header.fontMetrics()
        pad = 2 * self.table.style().pixelMetric(self.table.style().PixelMetric.PM_FocusFrameHMargin) + 10
        for column, title in enumerate(self.model.COLUMNS):
            longest = self.model.longest[column] if column < len(self.model.longest) else ""
            width = max(metrics.horizontalAdvance(longest), bold.horizontalAdvance(title)) + pad
            if column == 0:
                width = min(width, 170)  # long model names elide; the tooltip has them whole
            header.resizeSection(column, width)

    def _selected_model(self) -> tuple[LlmModel, str] | None:
        key = self.selected_key()
        if key is None:
            return None
        model = self._document.catalog.get_as(key[0], LlmModel)
        return (model, key[1]) if model is not None else None

    @property
    def training(self) -> TrainingPlan | None:
        """The training plan of the selected model on the shown hardware."""
        if self._training_stale:
            self._show_training()
        return self._training

    def _show_selected(self) -> None:
        self._show_curve()
        if self.tabs.currentWidget() is self.training_page:
            self._show_training()
        else:
            self._training_stale = True

    def _tab_changed(self, _index: int) -> None:
        if self._training_stale and self.tabs.currentWidget() is self.training_page:
            self._show_training()

    def _show_curve(self) -> None:
        selected = self._selected_model()
        runtime = str(self.runtime.currentData())
        curve: BatchCurve | None = None
        if selected is not None:
            # On a rack, the curve of the machine with the fastest batch-1 decode (the table's figure).
            seen: set[str] = set()
            for hw in self.hardware:
                key = hardware_key(hw)
                if key in seen:
                    continue
                seen.add(key)
                try:
                    candidate = cached_decode_curve(
                        self._document.catalog, selected[0], selected[1], hw, runtime=runtime, context=self.context
                    )
                except InputError:
                    continue
                if candidate is not None and (curve is None or candidate.tokens_per_s[0] > curve.tokens_per_s[0]):
                    curve = candidate
        self.curve = curve
        if curve is None or selected is None:
            self.curve_item.setData([], [])
            for extra in (self.knee_line, self.peak_line, self.ceiling_line, self.no_room):
                extra.setVisible(False)
            self.plot_title.setText("Select a model to see its decode speed against batch size.")
            self.plot_note.setText("")
            return
        model = selected[0]
        self.curve_item.setData(curve.batches, curve.tokens_per_s)
        where = f" on one machine ({curve.hardware})" if self.whole_rack else ""
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

    def _show_training(self) -> None:
        selected = self._selected_model()
        plan: TrainingPlan | None = None
        if selected is not None and self.hardware:
            try:
                plan = training_plan(
                    selected[0], self.hardware, tokens=self.tokens.value() * 1e9, mfu=self.mfu.value() / 100
                )
            except InputError:
                plan = None
        self._training = plan
        self._training_stale = False
        if plan is None or selected is None:
            self.training_box.setTitle("Training")
            self.training_summary.setText(
                "Select a model." if selected is None or not self.hardware else "Training estimates need GPUs."
            )
            self.methods.setVisible(False)
            self.train_time.setText("")
            self.interruptions.setText("")
            return
        model = selected[0]
        limits = plan.limits
        self.training_box.setTitle(f"Training {model.model}")
        spread = f" in {plan.machines} machines, sharded across them" if plan.machines > 1 else ""
        self.training_summary.setText(
            f"{plan.gpus} GPU(s){spread}; sequence {limits.seq:,}, micro-batch {limits.micro_batch}, "
            "mixed-precision AdamW (18 bytes per parameter)."
        )
        self.methods.setVisible(True)
        self.methods.setRowCount(len(limits.methods))
        for row, method in enumerate(limits.methods):
            cells = [
                METHOD_LABELS[method.method],
                f"{method.gb_per_gpu:,.1f}",
                "yes" if method.fits else "no",
                f"{method.largest_params_b:,.1f} B",
            ]
            for column, text in enumerate(cells):
                cell = QTableWidgetItem(text)
                if column >= 1:
                    cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if column == 1:
                    cell.setToolTip(f"{method.gb_per_gpu_no_recompute:,.1f} GB without activation recomputation")
                if column == 2 and not method.fits:
                    cell.setForeground(self.palette().color(QPalette.ColorRole.PlaceholderText))
                self.methods.setItem(row, column, cell)
        fit_table_height(self.methods)
        if plan.days is not None and plan.tflops_total is not None:
            self.train_time.setText(
                f"{plan.days:,.1f} days ({plan.days * 24:,.0f} h) for {plan.tokens / 1e9:,.1f} B tokens: "
                f"6 × active parameters × tokens FLOP at {plan.mfu:.0%} of "
                f"{plan.tflops_total:,.0f} dense TFLOP/s."
            )
        else:
            self.train_time.setText("No time: the catalog gives no TFLOP/s for these GPUs.")
        run = f"; about {plan.interruptions:,.2f} over this run" if plan.interruptions is not None else ""
        self.interruptions.setText(
            f"Expected interruptions: {limits.interruptions_per_day:.4f} per day "
            f"({limits.gpu_failures_per_day:.4f} GPU failures){run}, at the Llama 3 run's rates "
            f"({k.LLAMA3_INTERRUPTIONS} in {k.LLAMA3_DAYS} days on {k.LLAMA3_GPUS:,} GPUs)."
        )


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


class _FillLayout(QVBoxLayout):
    """A column that does not report height-for-width: a scroll area would otherwise give it
    its preferred height (table and plot at full size) and scroll, instead of fitting it to
    the dock and scrolling only below the minimum."""

    def hasHeightForWidth(self) -> bool:
        return False


def _label() -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def _note() -> QLabel:
    label = _label()
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    return label
