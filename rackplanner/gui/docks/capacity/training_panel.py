"""The capacity dock's training tab: memory per GPU by method, time to train and interruptions."""

from __future__ import annotations

from PySide6.QtCore import (
    Qt,
)
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDoubleSpinBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rackplanner.core.capacity import constants as k
from rackplanner.core.capacity.curves import (
    TrainingPlan,
)
from rackplanner.core.capacity.failures import format_checkpointing
from rackplanner.core.capacity.training import LORA_RANK, Method
from rackplanner.core.catalog.parts import LlmModel
from rackplanner.gui.docks.live import fit_table_height, wrapped_label

METHOD_LABELS: dict[Method, str] = {
    "ddp": "Full AdamW, replicated (DDP)",
    "zero-1": "Full AdamW, ZeRO-1",
    "zero-2": "Full AdamW, ZeRO-2",
    "fsdp": "Full AdamW, sharded (FSDP)",
    "lora": f"LoRA (FP16 base, rank {LORA_RANK})",
    "qlora": "QLoRA (NF4 base)",
}
DEFAULT_TOKENS_B = 10.0


class TrainingPanel(QGroupBox):
    """What the shown hardware can train: memory per GPU by method, time to train, expected interruptions."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Training", parent)
        self.training_summary = wrapped_label()
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
        self.whole_plan = QCheckBox("Across the whole plan")
        self.whole_plan.setToolTip(
            "One job sharded over every GPU machine of the plan (a cluster), instead of the machine or rack shown"
        )
        run_row = QHBoxLayout()
        run_row.addWidget(QLabel("Train on"))
        run_row.addWidget(self.tokens)
        run_row.addWidget(QLabel("at"))
        run_row.addWidget(self.mfu)
        run_row.addStretch(1)
        self.train_time = wrapped_label()
        self.interruptions = wrapped_label()
        training_layout = QVBoxLayout(self)
        training_layout.addWidget(self.training_summary)
        training_layout.addWidget(self.methods)
        training_layout.addLayout(run_row)
        training_layout.addWidget(self.whole_plan)
        training_layout.addWidget(self.train_time)
        training_layout.addWidget(self.interruptions)

    def show_plan(self, plan: TrainingPlan | None, model: LlmModel | None, *, has_hardware: bool) -> None:
        """Show ``plan`` for ``model`` (None: nothing to show, and why)."""
        if plan is None or model is None:
            self.setTitle("Training")
            self.training_summary.setText(
                "Select a model." if model is None or not has_hardware else "Training estimates need GPUs."
            )
            self.methods.setVisible(False)
            self.train_time.setText("")
            self.interruptions.setText("")
            return
        limits = plan.limits
        self.setTitle(f"Training {model.model}")
        spread = f" in {plan.machines:,} machines, sharded across them" if plan.machines > 1 else ""
        self.training_summary.setText(
            f"{plan.gpus:,} GPU(s){spread}; sequence {limits.seq:,}, micro-batch {limits.micro_batch}, "
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
                f"{_duration(plan.days)} for {plan.tokens / 1e9:,.1f} B tokens: "
                f"6 × active parameters × tokens FLOP at {plan.mfu:.0%} of "
                f"{plan.tflops_total:,.0f} dense TFLOP/s."
            )
        else:
            self.train_time.setText("No time: the catalog gives no TFLOP/s for these GPUs.")
        run = f"; about {plan.interruptions:,.2f} over this run" if plan.interruptions is not None else ""
        budget = f"Failure budget: {format_checkpointing(plan.failures)}" if plan.failures else ""
        self.interruptions.setText(
            f"Expected interruptions: {limits.interruptions_per_day:.4f} per day "
            f"({limits.gpu_failures_per_day:.4f} GPU failures){run}, at the Llama 3 run's rates "
            f"({k.LLAMA3_INTERRUPTIONS} in {k.LLAMA3_DAYS} days on {k.LLAMA3_GPUS:,} GPUs).\n{budget}"
        )


def _duration(days: float) -> str:
    """'12.3 days (295 h)', '5.2 h' or '11 min': a cluster's run can take minutes."""
    if days >= 1:
        return f"{days:,.1f} days ({days * 24:,.0f} h)"
    if days * 24 >= 1:
        return f"{days * 24:,.1f} h"
    return f"{days * 24 * 60:,.0f} min"
