"""Advise…: a goal in, the Pareto front of checked builds out, and the chosen one onto the canvas.

The search is the core's (``rackplanner advise``); the dialog only gathers the goal, plots price
against speed (hover a point to see its build, click it to choose) and applies the chosen
machine as one undoable edit.
"""

from __future__ import annotations

from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rackplanner.core.advise.goal import Goal
from rackplanner.core.advise.search import Advice, Build, advise
from rackplanner.core.capacity.formats import FORMATS
from rackplanner.core.capacity.runtime import RUNTIMES
from rackplanner.core.catalog.hf import load_hf_config
from rackplanner.core.catalog.parts import LlmModel
from rackplanner.core.errors import InputError
from rackplanner.core.plan import edits
from rackplanner.gui.docks.capacity.cost_panel import stored_cost_settings
from rackplanner.gui.document import PlanDocument

# Power limits offered: (label, volts, amps); a rack's kW is its own field.
CIRCUITS = (
    ("No power limit", None, None),
    ("120 V / 15 A household circuit", 120.0, 15.0),
    ("120 V / 20 A circuit", 120.0, 20.0),
    ("230 V / 10 A circuit", 230.0, 10.0),
    ("230 V / 16 A circuit", 230.0, 16.0),
    ("A rack's power (kW)", None, None),
)
RACK_CHOICE = len(CIRCUITS) - 1
COLUMNS = ("Build", "Price", "At the wall", "Speed", "$ per M tokens", "Main risk")


class AdviseDialog(QDialog):
    """Gather a goal, search, show the front, apply a build."""

    def __init__(self, document: PlanDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Advise a build")
        self._document = document
        self.advice: Advice | None = None
        self.goal: Goal | None = None
        self.applied: str | None = None
        # Models read from config.json files, by the key their combo entry carries.
        self._configs: dict[str, LlmModel] = {}

        catalog = document.catalog
        self.model = QComboBox()
        for llm in sorted(catalog.of_kind(LlmModel), key=lambda m: (m.vendor, m.model)):
            self.model.addItem(f"{llm.vendor} {llm.model}", llm.id)
        self.format = QComboBox()
        for fmt in FORMATS.values():
            self.format.addItem(fmt.label, fmt.id)
        self.format.setCurrentIndex(list(FORMATS).index("q4_k_m"))
        self.context = QSpinBox()
        self.context.setRange(256, 1_000_000)
        self.context.setSingleStep(1024)
        self.context.setValue(8192)
        self.context.setSuffix(" tokens")
        self.users = QSpinBox()
        self.users.setRange(1, 100_000)
        self.users.setSuffix(" user(s)")
        self.tok_s = QDoubleSpinBox()
        self.tok_s.setRange(0.1, 100_000)
        self.tok_s.setValue(20)
        self.tok_s.setSuffix(" tokens/s each")
        self.budget = QDoubleSpinBox()
        self.budget.setRange(0, 1e9)
        self.budget.setDecimals(0)
        self.budget.setSingleStep(500)
        self.budget.setPrefix("$")
        self.budget.setSpecialValueText("no limit")
        self.power = QComboBox()
        for label, _v, _a in CIRCUITS:
            self.power.addItem(label)
        self.rack_kw = QDoubleSpinBox()
        self.rack_kw.setRange(0.5, 1000)
        self.rack_kw.setValue(17)
        self.rack_kw.setSuffix(" kW")
        self.rack_kw.setEnabled(False)
        self.power.currentIndexChanged.connect(lambda i: self.rack_kw.setEnabled(i == RACK_CHOICE))
        self.runtime = QComboBox()
        self.runtime.addItem("Chosen by the goal", None)
        for runtime in RUNTIMES.values():
            self.runtime.addItem(runtime.label, runtime.id)
        self.allow_used = QCheckBox("Used-market prices too")
        self.allow_used.setChecked(True)
        self.search_button = QPushButton("Search")
        self.search_button.setDefault(True)
        self.search_button.clicked.connect(self.search)

        form = QFormLayout()
        self.config_button = QPushButton("Model config…")
        self.config_button.setToolTip("A Hugging Face config.json: its layers, experts and attention layout")
        self.config_button.clicked.connect(self.choose_config)
        model_row = QHBoxLayout()
        model_row.addWidget(self.model, 1)
        model_row.addWidget(self.config_button)
        form.addRow("Model", model_row)
        form.addRow("Format", self.format)
        form.addRow("Context", self.context)
        target = QHBoxLayout()
        target.addWidget(self.users)
        target.addWidget(self.tok_s)
        form.addRow("Serve", target)
        form.addRow("Budget", self.budget)
        power = QHBoxLayout()
        power.addWidget(self.power, 1)
        power.addWidget(self.rack_kw)
        form.addRow("Power", power)
        form.addRow("Runtime", self.runtime)
        form.addRow("", self.allow_used)

        self.status = QLabel("Set a goal and search.")
        self.status.setWordWrap(True)
        self.status.setMinimumHeight(3 * self.fontMetrics().lineSpacing())
        self.status.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.plot = pg.PlotWidget(background="w")
        self.plot.setLabel("bottom", "price (USD)")
        self.plot.setLabel("left", "tokens/s for one user")
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        self.plot.setMinimumHeight(220)
        self.points = pg.ScatterPlotItem(size=11, hoverable=True, hoverSize=15, tip=None)
        self.points.sigClicked.connect(self._point_clicked)
        self.points.sigHovered.connect(self._point_hovered)
        self.plot.addItem(self.points)
        self.hover = QLabel(" ")
        self.hover.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.apply_button = self.buttons.addButton("Apply", QDialogButtonBox.ButtonRole.ApplyRole)
        self.apply_button.setToolTip("Put the chosen build on the canvas as a new machine (one undoable edit)")
        self.apply_button.setEnabled(False)
        self.apply_button.clicked.connect(self.apply)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        top.addLayout(form, 1)
        top.addWidget(self.search_button, 0, Qt.AlignmentFlag.AlignBottom)
        layout.addLayout(top)
        layout.addWidget(self.status)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.hover)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.buttons)
        self.resize(960, 820)

    # --- the goal and the search ----------------------------------------------------

    def goal_from_fields(self) -> Goal:
        catalog = self._document.catalog
        key = str(self.model.currentData())
        model = self._configs.get(key) or catalog.get_as(key, LlmModel)
        if model is None:
            raise InputError("choose a model")
        _label, volts, amps = CIRCUITS[self.power.currentIndex()]
        many = self.users.value() > 1
        return Goal(
            model=model,
            format=str(self.format.currentData()),
            context=self.context.value(),
            tokens_per_s=None if many else self.tok_s.value(),
            users=self.users.value() if many else None,
            tokens_per_s_per_user=self.tok_s.value() if many else None,
            budget_usd=self.budget.value() or None,
            circuit_v=volts,
            circuit_a=amps,
            rack_kw=self.rack_kw.value() if self.power.currentIndex() == RACK_CHOICE else None,
            runtime=self.runtime.currentData(),
            allow_used=self.allow_used.isChecked(),
            cost=stored_cost_settings(),
        )

    def choose_config(self) -> None:
        path, _filter = QFileDialog.getOpenFileName(self, "Model config", "", "config.json (*.json)")
        if path:
            self.add_config(Path(path))

    def add_config(self, path: Path) -> LlmModel | None:
        """Read a config.json and choose it as the model (a bad file is said in the status line)."""
        try:
            model = load_hf_config(path)
        except InputError as exc:
            self.status.setText(str(exc))
            return None
        key = f"config:{path}"
        self._configs[key] = model
        if self.model.findData(key) < 0:
            self.model.insertItem(0, f"{model.model} ({path.name})", key)
        self.model.setCurrentIndex(self.model.findData(key))
        if model.shipped_format:
            self.format.setCurrentIndex(self.format.findData(model.shipped_format))
        return model

    def search(self) -> Advice | None:
        """Run the core's search for the goal in the fields and show its front."""
        try:
            goal = self.goal_from_fields()
        except (InputError, ValueError) as exc:
            self.status.setText(str(exc))
            return None
        QGuiApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            advice = advise(self._document.catalog, goal)
        finally:
            QGuiApplication.restoreOverrideCursor()
        self.goal, self.advice = goal, advice
        self._show(advice, goal)
        return advice

    def _show(self, advice: Advice, goal: Goal) -> None:
        left_out = ", ".join(f"{n:,} {reason}" for reason, n in list(advice.rejected.items())[:4])
        verdict = "; ".join(advice.notes) or f"{len(advice.builds)} build(s) on the front"
        self.status.setText(
            f"{advice.considered:,} builds considered in {advice.seconds:.2f} s: {verdict}. Left out: {left_out}."
        )
        self.plot.setLabel("left", "users served" if goal.users else "tokens/s for one user")
        spots = [
            {
                "pos": (b.price_usd, _speed(b, goal)),
                "data": i,
                "brush": pg.mkBrush("#2a6f97" if b.meets_target else "#c0c0c0"),
            }
            for i, b in enumerate(advice.builds)
        ]
        self.points.setData(spots)
        self.plot.autoRange()
        self.table.setRowCount(len(advice.builds))
        for row, build in enumerate(advice.builds):
            cost = build.ownership.usd_per_m_decode_tokens if build.ownership else None
            cells = (
                build.label,
                f"${build.price_usd:,.0f}",
                "unknown" if build.wall_w is None else f"{build.wall_w:,.0f} W",
                f"{_speed(build, goal):,.1f}" + (" users" if goal.users else " tok/s"),
                "unknown" if cost is None else f"${cost:,.2f}",
                build.risk,
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.table.setItem(row, column, item)
        if advice.builds:
            self.table.selectRow(0)
        self._selection_changed()

    # --- choosing and applying ---------------------------------------------------------

    def selected_build(self) -> Build | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows or self.advice is None:
            return None
        return self.advice.builds[rows[0].row()]

    def _selection_changed(self) -> None:
        build = self.selected_build()
        if self.advice is not None and self.goal is not None:
            chosen = self.advice.builds.index(build) if build is not None else -1
            brushes = [
                pg.mkBrush("#e07a1f" if i == chosen else "#2a6f97" if b.meets_target else "#c0c0c0")
                for i, b in enumerate(self.advice.builds)
            ]
            self.points.setBrush(brushes)
        self.apply_button.setEnabled(build is not None and build.machine is not None)
        if build is not None and build.machine is None:
            self.apply_button.setToolTip(f"{build.label} is bought whole: it is not a machine of parts on the canvas")

    def _point_clicked(self, _item: object, points: list[pg.SpotItem], _event: object = None) -> None:
        if len(points):
            self.table.selectRow(int(points[0].data()))

    def _point_hovered(self, _item: object, points: list[pg.SpotItem], _event: object = None) -> None:
        if not len(points) or self.advice is None or self.goal is None:
            self.hover.setText(" ")
            return
        build = self.advice.builds[int(points[0].data())]
        wall = "power unknown" if build.wall_w is None else f"{build.wall_w:,.0f} W"
        self.hover.setText(
            f"{build.label}: ${build.price_usd:,.0f}, {wall}, {_speed(build, self.goal):,.1f}; {build.risk}"
        )

    def apply(self) -> str | None:
        """Add the chosen build as a new machine (one undoable edit) and show it; its id."""
        build = self.selected_build()
        if build is None or build.machine is None:
            return None
        before = {m.id for m in self._document.plan.machines}
        result = self._document.apply(edits.add_built_machine, machine=build.machine, catalog=self._document.catalog)
        if result is None:
            return None
        new_id = next(m.id for m in result.plan.machines if m.id not in before)
        self._document.set_current_machine(new_id)
        self.applied = new_id
        self.status.setText(f"Added {build.label} to the plan as machine {new_id}; Undo removes it.")
        return new_id


def _speed(build: Build, goal: Goal) -> float:
    return float(build.users_served or 0) if goal.users is not None else (build.decode_tokens_per_s or 0.0)
