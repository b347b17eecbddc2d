"""A small form for a new feed: the facility circuit a PDU plugs into."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLineEdit,
    QWidget,
)


class FeedDialog(QDialog):
    """Name, side (A/B), phases, voltage and breaker of a feed; defaults suit a 400 V 3-phase colo."""

    def __init__(self, taken_sides: set[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Add feed")
        side = "B" if "A" in taken_sides and "B" not in taken_sides else "A"
        self.name = QLineEdit(f"Feed {side}")
        self.side = QComboBox()
        self.side.addItems(["A", "B"])
        self.side.setCurrentText(side)
        self.phases = QComboBox()
        self.phases.addItem("3-phase", 3)
        self.phases.addItem("Single-phase", 1)
        self.voltage = QDoubleSpinBox()
        self.voltage.setRange(100, 690)
        self.voltage.setDecimals(0)
        self.voltage.setSuffix(" V (line to line)")
        self.voltage.setValue(400)
        self.breaker = QDoubleSpinBox()
        self.breaker.setRange(1, 400)
        self.breaker.setDecimals(0)
        self.breaker.setSuffix(" A")
        self.breaker.setValue(32)
        form = QFormLayout(self)
        form.addRow("Name", self.name)
        form.addRow("Side", self.side)
        form.addRow("Phases", self.phases)
        form.addRow("Voltage", self.voltage)
        form.addRow("Breaker", self.breaker)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def values(self) -> dict[str, object]:
        """Keyword arguments for ``edits.add_feed``."""
        return {
            "name": self.name.text().strip() or f"Feed {self.side.currentText()}",
            "side": self.side.currentText(),
            "phases": self.phases.currentData(),
            "voltage_v": self.voltage.value(),
            "breaker_a": self.breaker.value(),
        }
