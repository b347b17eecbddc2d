"""Power of the current machine: load, transient peak against the PSUs, wall power and heat."""

from __future__ import annotations

import re

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from rackplanner.core.machine.power import MachinePower
from rackplanner.core.plan.edits import Change
from rackplanner.gui.docks.live import LiveDock, note_label, scrolling, wrapped_label
from rackplanner.gui.document import ChangeSet, PlanDocument

# Bar colours by how much of the PSU nameplate the transient peak takes.
OK_COLOUR = QColor("#3a9a4a")
TIGHT_COLOUR = QColor("#d89a1c")
OVER_COLOUR = QColor("#c83a32")
# Above this share of the nameplate the margin is thin (a planning rule of thumb for the colour only).
TIGHT_SHARE = 0.8


def watts(value: float) -> str:
    return f"{value:,.0f} W"


def short_model(text: str) -> str:
    """A model name without its parenthesised details, for one-line summaries (tooltips keep them)."""
    return re.sub(r"\s*\([^)]*\)", "", text).strip() or text


class LoadBar(QWidget):
    """A horizontal bar: a load against a limit, coloured by how close it gets; drawn, not a bitmap."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._value = 0.0
        self._limit = 0.0
        self.setMinimumHeight(self.fontMetrics().height() + 6)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_load(self, value: float, limit: float) -> None:
        self._value, self._limit = value, limit
        self.update()

    @property
    def share(self) -> float | None:
        return self._value / self._limit if self._limit > 0 else None

    def sizeHint(self) -> QSize:
        return QSize(160, self.fontMetrics().height() + 6)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        palette = self.palette()
        painter.setPen(QPen(palette.color(QPalette.ColorRole.Mid), 1))
        painter.setBrush(palette.color(QPalette.ColorRole.Base))
        painter.drawRoundedRect(rect, 3, 3)
        share = self.share
        if share is None:
            painter.end()
            return
        colour = OK_COLOUR if share < TIGHT_SHARE else TIGHT_COLOUR if share <= 1.0 else OVER_COLOUR
        fill = QRectF(rect)
        fill.setWidth(rect.width() * min(share, 1.0))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colour)
        painter.drawRoundedRect(fill.adjusted(1, 1, -1, -1), 2, 2)
        painter.setPen(palette.color(QPalette.ColorRole.Text))
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, f"{share:.0%} of nameplate")
        painter.end()


class SummaryDock(LiveDock):
    """Power of the machine shown in the centre: its load, transient peak against the PSUs, wall power and heat."""

    def __init__(self, document: PlanDocument, parent: QWidget | None = None) -> None:
        super().__init__("Machine power", parent)
        self.setObjectName("summary-dock")
        self._document = document
        self.power: MachinePower | None = None

        self.title = QLabel()
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.title.setWordWrap(True)

        self.dc_load = wrapped_label()
        self.transient = wrapped_label()
        self.transient_bar = LoadBar()
        self.wall = wrapped_label()
        self.psu = wrapped_label()
        self.recommended = wrapped_label()
        self.recommended_caption = QLabel("Recommended PSU")
        self.assumptions = note_label()

        power_box = QGroupBox("Power")
        form = QFormLayout(power_box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.DontWrapRows)
        form.addRow("DC load", self.dc_load)
        form.addRow("Transient peak", self.transient)
        form.addRow("", self.transient_bar)
        form.addRow("At the wall", self.wall)
        form.addRow("PSUs", self.psu)
        form.addRow(self.recommended_caption, self.recommended)
        form.addRow(self.assumptions)

        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.title)
        layout.addWidget(power_box)
        layout.addStretch(1)
        self.setWidget(scrolling(body))

        document.changed.connect(self._on_changed)
        document.current_machine_changed.connect(self._on_current_machine_changed)
        document.reset.connect(self._on_reset)
        self.refresh()

    # --- handlers --------------------------------------------------------------------

    def _on_changed(self, change: ChangeSet) -> None:
        current = self._document.current_machine
        if change.touches(Change.POWER, Change.MACHINES) and (not current or current in change.machines):
            self.refresh_when_visible()

    def _on_current_machine_changed(self, _machine_id: str) -> None:
        self.refresh_when_visible()

    def _on_reset(self) -> None:
        self.refresh_when_visible()

    # --- content ---------------------------------------------------------------------

    def refresh(self) -> None:
        self._dirty = False
        machine = self._document.plan.machine(self._document.current_machine)
        if machine is None:
            self._show_empty()
            return
        self.title.setText(machine.name)
        self._show_power(self._document.analysis.machine_power(machine))

    def _show_empty(self) -> None:
        self.power = None
        self.title.setText("No machine" if not self._document.plan.machines else "No machine selected")
        for label in (self.dc_load, self.transient, self.wall, self.psu, self.recommended):
            label.setText("–")
        self.transient_bar.set_load(0, 0)
        self.assumptions.setText("Add a machine to see its power.")

    def _show_power(self, power: MachinePower) -> None:
        self.power = power
        self.dc_load.setText(
            f"{watts(power.dc_max_w)} max, {watts(power.dc_expected_w)} expected "
            f"(GPUs and CPUs at {power.utilisation:.0%})"
        )
        breakdown = (f"{line.count} × {line.label}: {watts(line.total_w)}" for line in power.lines)
        self.dc_load.setToolTip("\n".join(breakdown))
        if power.nameplate_w > 0:
            over = power.transient_peak_w > power.nameplate_w
            self.transient.setText(
                f"{watts(power.transient_peak_w)} of {watts(power.nameplate_w)} PSU nameplate"
                + (": above the rating" if over else "")
            )
        else:
            self.transient.setText(f"{watts(power.transient_peak_w)} (no PSU chosen)")
        self.transient.setToolTip(
            "Sum of the parts' short power peaks (GPU transients), which the PSU must ride through"
        )
        self.transient_bar.set_load(power.transient_peak_w, power.nameplate_w)
        self.wall.setText(
            f"{watts(power.wall_max_w)} max ({power.wall_max_va:,.0f} VA, {power.efficiency:.0%} efficient), "
            f"{power.heat_max_btu_hr:,.0f} BTU/hr; {watts(power.wall_expected_w)} expected"
        )
        self.psu.setText(self._psu_text(power))
        if power.recommended_psu_w is not None:
            names = [self._part_label(p) for p in power.recommended_psus]
            text = f"{watts(power.recommended_psu_w)} or more"
            if names:
                more = f" and {len(names) - 1} more" if len(names) > 1 else ""
                self.recommended.setText(f"{text}\ne.g. {short_model(names[0])}{more}")
            else:
                self.recommended.setText(f"{text} (none in the catalog)")
            self.recommended.setToolTip("\n".join(names))
        self.recommended.setVisible(power.recommended_psu_w is not None)
        self.recommended_caption.setVisible(power.recommended_psu_w is not None)
        if power.assumptions:
            self.assumptions.setText(f"{len(power.assumptions)} assumption(s), hover for the list")
            self.assumptions.setToolTip("\n".join(f"• {a}" for a in power.assumptions))
        else:
            self.assumptions.setText("Every figure from the catalog; no allowances used.")
            self.assumptions.setToolTip("")

    def _psu_text(self, power: MachinePower) -> str:
        psu = power.psu
        if psu is None:
            return "none chosen"
        redundancy = f"{psu.redundancy} redundant" if psu.spare else psu.redundancy.replace("none", "no redundancy")
        self.psu.setToolTip(f"{psu.model}, {psu.efficiency_basis}" + (f", inlet {psu.inlet}" if psu.inlet else ""))
        lines = [
            f"{psu.count} × {short_model(psu.model)} ({watts(psu.watts_each)} each), {redundancy}",
            f"{watts(psu.per_psu_normal_w)} per PSU ({psu.load_fraction_normal:.0%}, "
            f"{psu.efficiency_normal:.0%} efficient)",
        ]
        if psu.per_psu_one_lost_w is not None:
            holds = "holds" if psu.one_lost_holds else "overloads"
            lines.append(f"one PSU lost: {watts(psu.per_psu_one_lost_w)} per PSU, {holds}")
        if psu.spare:
            lines.append("redundancy " + ("holds" if psu.redundancy_holds else "does not hold at full load"))
        return "\n".join(lines)

    def _part_label(self, part_id: str) -> str:
        part = self._document.catalog.get(part_id)
        return part.label if part is not None else part_id
