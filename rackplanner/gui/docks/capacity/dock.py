"""LLM capacity of the current machine or rack: models × formats that fit, decode against batch, training."""

from __future__ import annotations

from PySide6.QtCore import (
    QItemSelectionModel,
    QSignalBlocker,
    Qt,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QRadioButton,
    QScrollArea,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from rackplanner.core.capacity.curves import (
    BatchCurve,
    RackRow,
    TrainingPlan,
    cached_decode_curve,
    hardware_key,
    rack_capacity_table,
    rack_hardware,
    training_plan,
)
from rackplanner.core.capacity.estimate import DEFAULT_RUNTIME, TableRow
from rackplanner.core.capacity.hardware import Hardware
from rackplanner.core.capacity.plan_training import plan_hardware
from rackplanner.core.capacity.purchase import purchase_of_machine
from rackplanner.core.capacity.runtime import RUNTIMES
from rackplanner.core.catalog.parts import LlmModel
from rackplanner.core.errors import InputError
from rackplanner.core.plan.edits import Change
from rackplanner.core.plan.model import Machine
from rackplanner.gui.docks.capacity.cost_panel import CostPanel
from rackplanner.gui.docks.capacity.curve_plot import DecodeCurvePlot
from rackplanner.gui.docks.capacity.table_model import KEY_ROLE, MACHINES_COLUMN, CapacityModel, table_note
from rackplanner.gui.docks.capacity.top_models import CONTEXT_TOKENS, TopModelsPanel
from rackplanner.gui.docks.capacity.training_panel import TrainingPanel
from rackplanner.gui.docks.live import LiveDock, note_label, scrolling
from rackplanner.gui.document import ChangeSet, PlanDocument

MACHINE, RACK = 0, 1


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
        # Likewise the Fits tab: what it would say when next shown (None: it is up to date).
        self._top_models_problem: str | None = None
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
        self.scope_note = note_label()

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
        self.table_note = note_label()

        # --- plot and training
        self.curve_plot = DecodeCurvePlot()
        # The plot's parts, by the names tests and tools use.
        self.plot, self.curve_item = self.curve_plot.plot, self.curve_plot.curve_item
        self.knee_line, self.peak_line = self.curve_plot.knee_line, self.curve_plot.peak_line
        self.cost_panel = CostPanel()
        self.cost_panel.settings_changed.connect(self._show_cost)
        self.training_box = TrainingPanel()
        self.methods, self.tokens, self.mfu = self.training_box.methods, self.training_box.tokens, self.training_box.mfu
        self.training_summary = self.training_box.training_summary
        self.train_time, self.interruptions = self.training_box.train_time, self.training_box.interruptions

        # --- layout: scope and title on top; inference (table over plot, the user sets the
        # split) and training in tabs, so the dock stays usable at 1366x768 beside others.
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.filter)
        top_layout.addWidget(self.table, 1)
        top_layout.addWidget(self.table_note)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setChildrenCollapsible(False)
        # Each pane scrolls when the split leaves it less than its wrapped notes need, rather than
        # squeezing them over the table or the plot.
        self.splitter.addWidget(scrolling(top))
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.curve_plot, 1)
        lower_layout.addWidget(self.cost_panel)
        self.splitter.addWidget(scrolling(lower))
        self.splitter.setSizes([300, 300])
        training_page = QWidget()
        training_layout_outer = QVBoxLayout(training_page)
        training_layout_outer.setContentsMargins(0, 0, 0, 0)
        training_layout_outer.addWidget(self.training_box)
        training_layout_outer.addStretch(1)
        scroll = scrolling(training_page)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.top_models = TopModelsPanel()
        self.top_models_page = scrolling(self.top_models)
        self.tabs.addTab(self.top_models_page, "Fits")
        self.tabs.setTabToolTip(0, "The largest catalog models this machine runs, each at its best common format")
        self.tabs.addTab(self.splitter, "Inference")
        self.tabs.addTab(scroll, "Training")
        self.training_page = scroll
        self.tabs.setCurrentWidget(self.splitter)
        self.tabs.currentChanged.connect(self._tab_changed)
        container = QWidget()
        container_layout = FillLayout(container)
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
        self.training_box.whole_plan.toggled.connect(lambda _on: self._show_training())
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
        elif change.touches(Change.BOM) and self.is_showing():
            self._show_cost()  # a price changed: only the cost of ownership moves

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
        self._top_models_problem = problem
        if self.tabs.currentWidget() is self.top_models_page:
            self._show_top_models()

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
            return RUNTIMES[runtime].refusal(hw.label) + ".", []
        return "", rows

    def _machine_table(self, machine: Machine, runtime: str) -> tuple[Hardware, list[TableRow] | None]:
        """A machine's hardware and its capacity table (None where the runtime cannot run on it)."""
        analysis = self._document.analysis
        hw = analysis.hardware(machine)
        if not RUNTIMES[runtime].runs_on(hw.kind, hw.vendor):
            return hw, None
        return hw, analysis.capacity_table(hw, runtime=runtime, context=self.context)

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
        skipped += [
            f"{h.label} ({rt.label} runs on {rt.runs_on_text} only)"
            for h in found.hardware
            if not rt.runs_on(h.kind, h.vendor)
        ]
        self.hardware = [h for h in found.hardware if rt.runs_on(h.kind, h.vendor)]
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
        runtime_id = str(self.runtime.currentData())
        return table_note(
            count, self.context, runtime_id, self.hardware[0] if self.hardware else None, self.model.marked
        )

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

    def _show_top_models(self) -> None:
        problem, self._top_models_problem = self._top_models_problem, None
        if problem is None:
            return
        # On a rack, the machine with the most memory: it holds the largest models.
        if not self.hardware:
            self.top_models.show_problem(problem or "Nothing to estimate on.")
            return
        hw = max(self.hardware, key=lambda h: h.total_mem_gb)
        self.top_models.show_hardware(self._document.catalog, hw)

    def _tab_changed(self, _index: int) -> None:
        if self.tabs.currentWidget() is self.top_models_page:
            self._show_top_models()
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
        self.curve_plot.show_curve(curve, selected[0] if selected else None, whole_rack=self.whole_rack)
        self._show_cost()

    def _show_cost(self) -> None:
        machine = None if self.whole_rack else self._document.plan.machine(self._document.current_machine)
        key = self.selected_key()
        index = self.model.row_of(*key) if key else None
        row = self.model.rows[index] if index is not None else None
        plan = self._document.plan
        purchase = purchase_of_machine(self._document.catalog, machine, plan.user_prices) if machine else None
        decode = self.curve.tokens_per_s[0] if self.curve else None
        self.cost_panel.show_cost(purchase, decode, row.prefill_tokens_per_s if row else None)

    def _show_training(self) -> None:
        selected = self._selected_model()
        plan: TrainingPlan | None = None
        hardware = self.hardware
        if self.training_box.whole_plan.isChecked():
            hardware = plan_hardware(self._document.plan, self._document.catalog) or hardware
        if selected is not None and hardware:
            try:
                plan = training_plan(
                    selected[0], hardware, tokens=self.tokens.value() * 1e9, mfu=self.mfu.value() / 100
                )
            except InputError:
                plan = None
        self._training = plan
        self._training_stale = False
        self.training_box.show_plan(plan, selected[0] if selected else None, has_hardware=bool(hardware))


class FillLayout(QVBoxLayout):
    """A column that does not report height-for-width: a scroll area would otherwise give it
    its preferred height (table and plot at full size) and scroll, instead of fitting it to
    the dock and scrolling only below the minimum."""

    def hasHeightForWidth(self) -> bool:
        return False
