"""The ``nvidia-smi topo -m`` matrix of the current machine, to read or copy."""

from __future__ import annotations

from PySide6.QtGui import (
    QFontDatabase,
    QFontMetricsF,
    QGuiApplication,
)
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)


class TopologyMatrixDialog(QDialog):
    """The ``nvidia-smi topo -m`` style matrix as text, with a button to copy it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("topologyMatrixDialog")
        self.setWindowTitle("Topology matrix")
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.text.setFont(mono)
        self.text.setTabStopDistance(QFontMetricsF(mono).horizontalAdvance(" ") * 8)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.copy_button = buttons.addButton("Copy", QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.setToolTip("Copy the matrix to the clipboard as text")
        self.copy_button.clicked.connect(self.copy)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        layout.addWidget(buttons)
        self.resize(760, 460)

    def set_text(self, text: str) -> None:
        self.text.setPlainText(text)

    def fit_width(self) -> None:
        """As wide as the longest line (tabs at eight columns), within reason."""
        metrics = QFontMetricsF(self.text.font())
        cell = metrics.horizontalAdvance(" ")
        longest = max((len(line.expandtabs(8)) for line in self.text.toPlainText().splitlines()), default=60)
        self.resize(int(min(1100, max(560, longest * cell + 60))), self.height())

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.text.toPlainText())
