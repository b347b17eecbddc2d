"""Catalog → New Board… / Edit Board as New…: a board the catalog lacks, entered with a live drawing.

The form holds what the planner needs of a board: its CPU sockets, memory (DIMM slots, channels,
top speed), power inputs, PCIe root complexes, switches and slots (size, lanes, generation, parent,
position on the ATX pitch, or a server GPU bay's width). Every change is validated as the
built-in catalog is (the first problem is shown with its field), the drawing follows the draft, and
Save writes the board to the user's catalog and reloads it, so the board can be used at once.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from PySide6.QtWidgets import (
    QComboBox,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Board
from rackplanner.core.errors import describe_validation_error
from rackplanner.core.plan.model import Machine
from rackplanner.draw.board import BoardDrawing
from rackplanner.gui.dialogs.entry_editor import EntryEditor, field_text
from rackplanner.gui.document import PlanDocument

PLATFORMS = ("consumer", "hedt", "workstation", "server")
ROOT_COLUMNS = ("id", "socket")
SWITCH_COLUMNS = ("id", "upstream", "upstream_lanes", "upstream_gen")
SLOT_COLUMNS = (
    "id",
    "label",
    "kind",
    "position",
    "bay_width_slots",
    "physical_lanes",
    "electrical_lanes",
    "gen",
    "parent",
)
NUMBERS = {
    "socket",
    "upstream_lanes",
    "upstream_gen",
    "position",
    "bay_width_slots",
    "physical_lanes",
    "electrical_lanes",
    "gen",
}
# Spin boxes where 0 stands for "not known" (left out of the entry), with their upper bounds.
OPTIONAL_NUMBERS = {"dimm_slots": 64, "memory_channels_per_socket": 16, "max_memory_speed_mts": 12_000}

# A new board starts as one socket with one x16 Gen4 slot: enough to draw and to edit from.
TEMPLATE: dict[str, Any] = {
    "id": "my-board",
    "vendor": "Vendor",
    "model": "Board model",
    "source": ["the board's manual (name it, with the page of its block diagram)"],
    "platform": "workstation",
    "form_factor": "ATX",
    "cpu_socket": "AM5",
    "sockets": 1,
    "dimm_slots": 4,
    "memory_channels_per_socket": 2,
    "power_connectors": ["atx-24pin", "eps-8pin"],
    "root_complexes": [{"id": "cpu", "socket": 0}],
    "slots": [
        {
            "id": "pcie1",
            "label": "PCIe x16 slot 1",
            "kind": "pcie",
            "position": 0,
            "physical_lanes": 16,
            "electrical_lanes": 16,
            "gen": 4,
            "parent": "cpu",
        },
    ],
}


class BoardEditor(EntryEditor):
    """The form, the tables and the live drawing of one draft board."""

    noun = "board"

    def __init__(self, document: PlanDocument, start: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(document, parent)
        self.draft: Board | None = None
        self._extra = {k: v for k, v in start.items() if k not in _FORM_KEYS}
        # Sources are a list; the form shows them joined and keeps the list while the text is unchanged.
        self._sources = [str(s) for s in start.get("source", [])]
        self.fields: dict[str, QLineEdit | QSpinBox | QComboBox] = {}
        form, second = QFormLayout(), QFormLayout()
        for key, label in (("id", "Id"), ("vendor", "Vendor"), ("model", "Model"), ("source", "Source")):
            edit = QLineEdit(field_text(start.get(key)))
            form.addRow(label, edit)
            self.fields[key] = edit
        platform = QComboBox()
        platform.addItems(PLATFORMS)
        platform.setCurrentText(str(start.get("platform", "workstation")))
        form.addRow("Platform", platform)
        self.fields["platform"] = platform
        for key, label in (("form_factor", "Form factor"), ("cpu_socket", "CPU socket"), ("mem_type", "Memory")):
            edit = QLineEdit(field_text(start.get(key)))
            second.addRow(label, edit)
            self.fields[key] = edit
        for key, label in (
            ("sockets", "CPU sockets"),
            ("dimm_slots", "DIMM slots"),
            ("memory_channels_per_socket", "Channels per socket"),
            ("max_memory_speed_mts", "Top DIMM speed (MT/s)"),
        ):
            spin = QSpinBox()
            spin.setRange(0 if key in OPTIONAL_NUMBERS else 1, OPTIONAL_NUMBERS.get(key, 8))
            spin.setSpecialValueText("unknown" if key in OPTIONAL_NUMBERS else "")
            spin.setValue(int(start.get(key) or 0))
            second.addRow(label, spin)
            self.fields[key] = spin
        power = QLineEdit(", ".join(start.get("power_connectors", [])))
        power.setPlaceholderText("atx-24pin, eps-8pin, eps-8pin")
        power.setToolTip("The board's power inputs, comma-separated")
        form.addRow("Power inputs", power)
        self.fields["power_connectors"] = power
        self.roots = _table(ROOT_COLUMNS, start.get("root_complexes", []))
        self.switches = _table(SWITCH_COLUMNS, start.get("switches", []))
        self.slots = _table(SLOT_COLUMNS, start.get("slots", []))
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setObjectName("board-editor-problem")

        left = QWidget()
        column = QVBoxLayout(left)
        fields = QHBoxLayout()
        fields.addLayout(form, 3)
        fields.addLayout(second, 2)
        column.addLayout(fields)
        for title, table in (("Root complexes", self.roots), ("PCIe switches", self.switches), ("Slots", self.slots)):
            row = QHBoxLayout()
            row.addWidget(QLabel(f"<b>{title}</b>"))
            row.addStretch(1)
            add, remove = QPushButton("Add"), QPushButton("Remove")
            add.clicked.connect(lambda _=False, t=table: self._add_row(t))
            remove.clicked.connect(lambda _=False, t=table: self._remove_row(t))
            row.addWidget(add)
            row.addWidget(remove)
            column.addLayout(row)
            if table is not self.slots:
                table.setMaximumHeight(96)
            column.addWidget(table, 1 if table is self.slots else 0)
        column.addWidget(self.problem)

        self.place(left, (660, 540), (1200, 760))

        for widget in self.fields.values():
            signal = (
                widget.textChanged
                if isinstance(widget, QLineEdit)
                else (widget.valueChanged if isinstance(widget, QSpinBox) else widget.currentTextChanged)
            )
            signal.connect(self.refresh)
        for table in (self.roots, self.switches, self.slots):
            table.itemChanged.connect(self.refresh)
        self.refresh()

    # --- the draft -----------------------------------------------------------------------

    def entry(self) -> dict[str, Any]:
        """The form as a catalog entry (a mapping, as a YAML file holds it)."""
        data: dict[str, Any] = dict(self._extra)
        for key, widget in self.fields.items():
            if isinstance(widget, QSpinBox):
                # Zero in an optional figure is "unknown", not zero.
                data[key] = (widget.value() or None) if key in OPTIONAL_NUMBERS else widget.value()
            elif isinstance(widget, QComboBox):
                data[key] = widget.currentText()
            elif key == "power_connectors":
                data[key] = [c.strip() for c in widget.text().split(",") if c.strip()]
            else:
                data[key] = widget.text().strip() or None
        text = data.get("source")
        data["source"] = self._sources if text == field_text(self._sources) else ([text] if text else [])
        data["root_complexes"] = _rows(self.roots, ROOT_COLUMNS)
        data["switches"] = _rows(self.switches, SWITCH_COLUMNS)
        data["slots"] = _rows(self.slots, SLOT_COLUMNS)
        return {k: v for k, v in data.items() if v is not None}

    def refresh(self) -> None:
        """Validate the form as the catalog would and redraw it; Save only while it is valid."""
        try:
            self.draft = Board.model_validate(self.entry())
        except ValidationError as exc:
            self.draft = None
            self.problem.setText(f"<span style='color:#b42318'>{describe_validation_error(exc)}</span>")
        else:
            self.problem.setText("Valid: Save puts it in your catalog, ready to use.")
            self._draw(self.draft)
        self.buttons.button(QDialogButtonBox.StandardButton.Save).setEnabled(self.draft is not None)

    def _draw(self, board: Board) -> None:
        catalog = self.document.catalog
        preview = Catalog(parts={**catalog.parts, board.id: board}, origins=catalog.origins, prices=catalog.prices)
        drawing = BoardDrawing(self.scene, preview)
        drawing.draw(Machine(id="preview", name="Preview", board=board.id))
        self.view.fit()

    def _add_row(self, table: QTableWidget) -> None:
        table.insertRow(table.rowCount())
        self.refresh()

    def _remove_row(self, table: QTableWidget) -> None:
        row = table.currentRow()
        if row >= 0:
            table.removeRow(row)
            self.refresh()


_FORM_KEYS = {
    "id",
    "vendor",
    "model",
    "source",
    "platform",
    "form_factor",
    "cpu_socket",
    "mem_type",
    "sockets",
    "dimm_slots",
    "memory_channels_per_socket",
    "max_memory_speed_mts",
    "power_connectors",
    "root_complexes",
    "switches",
    "slots",
}


def _table(columns: tuple[str, ...], rows: list[Any]) -> QTableWidget:
    table = QTableWidget(len(rows), len(columns))
    table.setHorizontalHeaderLabels([c.replace("_", " ") for c in columns])
    for r, row in enumerate(rows):
        values = row if isinstance(row, dict) else row.model_dump()
        for c, column in enumerate(columns):
            table.setItem(r, c, QTableWidgetItem(field_text(values.get(column))))
    table.resizeColumnsToContents()
    return table


def _rows(table: QTableWidget, columns: tuple[str, ...]) -> list[dict[str, Any]]:
    """Each non-empty row as a mapping; numbers where the column holds numbers (text left for the check)."""
    out = []
    for r in range(table.rowCount()):
        values: dict[str, Any] = {}
        for c, column in enumerate(columns):
            item = table.item(r, c)
            text = item.text().strip() if item is not None else ""
            if text:
                values[column] = int(text) if column in NUMBERS and text.isdigit() else text
        if values:
            out.append(values)
    return out


def board_editor(document: PlanDocument, parent: QWidget | None, based_on: Board | None = None) -> BoardEditor:
    """The editor for a new board, or for a copy of ``based_on`` under a new id."""
    if based_on is None:
        start = dict(TEMPLATE)
    else:
        start = based_on.model_dump(mode="json", exclude_none=True)
        start["id"] = f"{based_on.id}-mine"
        start["model"] = f"{based_on.model} (my copy)"
    editor = BoardEditor(document, start, parent)
    return editor
