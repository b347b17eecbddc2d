"""The largest catalog models a machine runs, one row each at its best common format: capacity at a glance."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rackplanner.core.capacity.hardware import Hardware
from rackplanner.core.capacity.picks import COMMON_FORMATS, ModelPick, top_models
from rackplanner.core.catalog.loading import Catalog
from rackplanner.gui.docks.live import fit_table_height, note_label, wrapped_label

CONTEXT_TOKENS = 4096
TOP_MODELS = 8


class TopModelsPanel(QWidget):
    """The hardware's label, the largest models that fit with their decode speed, and what was assumed."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.picks: list[ModelPick] = []
        self.hardware = wrapped_label()
        self.models = QTableWidget(0, 4)
        self.models.setHorizontalHeaderLabels(["Model", "Format", "GB", "Decode t/s"])
        self.models.verticalHeader().setVisible(False)
        self.models.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.models.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.models.setAlternatingRowColors(True)
        self.models.setWordWrap(False)
        self.models.setShowGrid(False)
        self.models.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.models.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        header = self.models.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.capacity_note = note_label()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 6, 0, 0)
        layout.addWidget(self.hardware)
        layout.addWidget(self.models)
        layout.addWidget(self.capacity_note)
        layout.addStretch(1)

    def show_problem(self, text: str) -> None:
        """Nothing to estimate on, and why."""
        self.picks = []
        self.hardware.setText(text)
        self.models.setRowCount(0)
        self.models.setVisible(False)
        self.capacity_note.setText("")

    def show_hardware(self, catalog: Catalog, hw: Hardware) -> None:
        """The largest models ``hw`` holds at a 4,096-token context, each at the best common format."""
        picks = top_models(catalog, hw, context=CONTEXT_TOKENS, limit=TOP_MODELS)
        self.hardware.setText(hw.label)
        self.models.setVisible(True)
        if picks == self.picks and self.models.rowCount() == len(picks):
            return
        self.picks = picks
        # Resizing columns to their contents after every cell is what makes refilling slow.
        header = self.models.horizontalHeader()
        for column in (1, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Fixed)
        self.models.setRowCount(len(self.picks))
        for row, pick in enumerate(self.picks):
            decode = f"{pick.decode_tokens_per_s:,.1f}" if pick.decode_tokens_per_s is not None else "–"
            cells = [pick.label, pick.format_label.removeprefix("llama.cpp "), f"{pick.total_gb:,.1f}", decode]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column >= 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                item.setToolTip(_pick_tip(pick))
                self.models.setItem(row, column, item)
        for column in (1, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        fit_table_height(self.models)
        formats = ", ".join(f.upper() for f in COMMON_FORMATS)
        note = (
            f"Each model at the best of {formats} that fits in memory at {CONTEXT_TOKENS:,} tokens; "
            "decode speed for one user (llama.cpp). The Inference tab has every model and format."
        )
        if not self.picks:
            note = "No catalog model fits. " + note
        self.capacity_note.setText(note)
        self.capacity_note.setToolTip("\n".join(hw.assumptions))


def _pick_tip(pick: ModelPick) -> str:
    best = f"; best batch {pick.best_batch_tokens_per_s:,.0f} tokens/s" if pick.best_batch_tokens_per_s else ""
    return (
        f"{pick.label} ({pick.params_b:g} B parameters), {pick.format_label}: {pick.total_gb:,.1f} GB "
        f"with a {CONTEXT_TOKENS:,}-token KV cache; max context {pick.max_context:,}{best}"
    )
