"""Catalog → New Server… / Edit Server as New…: a GPU server the catalog lacks, from its parts.

A catalog server joins a board (its GPU bays and slots), a chassis (height, depth) and its stock
power supplies (count and redundancy). The form picks each from the catalog, a board or chassis
the catalog lacks is made first with New Board…, and the drawing shows the server's board with
the power the supplies give. Save validates as the catalog does and writes to the user's catalog.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from PySide6.QtWidgets import (
    QComboBox,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Board, Chassis, Psu, Server
from rackplanner.core.errors import describe_validation_error
from rackplanner.core.machine.power import stock_supply_summary
from rackplanner.core.plan.model import Machine
from rackplanner.draw.board import BoardDrawing
from rackplanner.gui.dialogs.entry_editor import EntryEditor, field_text
from rackplanner.gui.document import PlanDocument

# Spin boxes: (label, lowest, highest); 0 in an optional one means "not known".
SPINS: dict[str, tuple[str, int, int]] = {
    "psu_count": ("Power supplies", 1, 64),
    "height_u": ("Height (U)", 1, 100),
    "max_gpus": ("GPUs", 0, 64),
    "depth_mm": ("Depth (mm)", 0, 2000),
    "weight_kg": ("Weight (kg)", 0, 1000),
    "fans_w": ("Fans (W)", 0, 20_000),
}
OPTIONAL = {"max_gpus", "depth_mm", "weight_kg", "fans_w"}
PICKS: dict[str, tuple[str, type[Board] | type[Chassis] | type[Psu]]] = {
    "board": ("Board", Board),
    "chassis": ("Chassis", Chassis),
    "psu": ("Power supply", Psu),
}


class ServerEditor(EntryEditor):
    """The form and live drawing of one draft server."""

    noun = "server"

    def __init__(self, document: PlanDocument, start: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(document, parent)
        self.draft: Server | None = None
        self._extra = {k: v for k, v in start.items() if k not in _FORM_KEYS}
        self._sources = [str(s) for s in start.get("source", [])]
        catalog = document.catalog
        form = QFormLayout()
        self.fields: dict[str, QLineEdit | QSpinBox | QComboBox] = {}
        for key, label in (("id", "Id"), ("vendor", "Vendor"), ("model", "Model"), ("source", "Source")):
            self.fields[key] = QLineEdit(field_text(start.get(key)))
            form.addRow(label, self.fields[key])
        for key, (label, kind) in PICKS.items():
            combo = QComboBox()
            parts = sorted(catalog.of_kind(kind), key=lambda p: (p.vendor.lower(), p.model.lower()))
            if kind is Chassis:
                parts = [p for p in parts if isinstance(p, Chassis) and p.form == "rack"]
            for part in parts:
                combo.addItem(f"{part.label} ({part.id})", part.id)
            index = combo.findData(start.get(key))
            combo.setCurrentIndex(max(index, 0))
            form.addRow(label, combo)
            self.fields[key] = combo
        redundancy = QLineEdit(field_text(start.get("psu_redundancy")))
        redundancy.setPlaceholderText("2+2, N+1, or empty when every supply is needed")
        for key, (label, low, high) in SPINS.items():
            spin = QSpinBox()
            spin.setRange(low, high)
            if key in OPTIONAL:
                spin.setSpecialValueText("unknown")
            spin.setValue(int(start.get(key) or 0))
            form.addRow(label, spin)
            self.fields[key] = spin
            if key == "psu_count":
                form.addRow("Redundancy", redundancy)
                self.fields["psu_redundancy"] = redundancy
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setObjectName("server-editor-summary")
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setObjectName("server-editor-problem")
        left = QWidget()
        column = QVBoxLayout(left)
        column.addLayout(form)
        column.addWidget(self.summary)
        column.addWidget(self.problem)
        column.addStretch(1)
        left.setMaximumWidth(560)

        self.place(left, (520, 600), (1160, 700))
        for widget in self.fields.values():
            if isinstance(widget, QLineEdit):
                widget.textChanged.connect(self.refresh)
            elif isinstance(widget, QSpinBox):
                widget.valueChanged.connect(self.refresh)
            else:
                widget.currentIndexChanged.connect(self.refresh)
        self.refresh()

    def entry(self) -> dict[str, Any]:
        """The form as a catalog entry (a mapping, as a YAML file holds it)."""
        data: dict[str, Any] = dict(self._extra)
        for key, widget in self.fields.items():
            if isinstance(widget, QSpinBox):
                data[key] = (widget.value() or None) if key in OPTIONAL else widget.value()
            elif isinstance(widget, QComboBox):
                data[key] = widget.currentData()
            else:
                data[key] = widget.text().strip() or None
        text = data.get("source")
        data["source"] = self._sources if text == field_text(self._sources) else ([text] if text else [])
        return {k: v for k, v in data.items() if v is not None}

    def refresh(self) -> None:
        """Validate the draft, say what its supplies give, and draw its board."""
        try:
            self.draft = Server.model_validate(self.entry())
        except ValidationError as exc:
            self.draft = None
            self.summary.setText("")
            self.problem.setText(f"<span style='color:#b42318'>{describe_validation_error(exc)}</span>")
        else:
            self.summary.setText("<br>".join(stock_supply_summary(self.draft, self.document.catalog)))
            self.problem.setText("Valid: Save puts it in your catalog, ready to use.")
            self._draw(self.draft)
        self.buttons.button(QDialogButtonBox.StandardButton.Save).setEnabled(self.draft is not None)

    def _draw(self, server: Server) -> None:
        catalog = self.document.catalog
        preview = Catalog(parts={**catalog.parts, server.id: server}, origins=catalog.origins, prices=catalog.prices)
        BoardDrawing(self.scene, preview).draw(Machine(id="preview", name="Preview", server=server.id))
        self.view.fit()


_FORM_KEYS = {"id", "vendor", "model", "source", "psu_redundancy", *PICKS, *SPINS}


def server_editor(document: PlanDocument, parent: QWidget | None, based_on: Server | None = None) -> ServerEditor:
    """The editor for a new server, or for a copy of ``based_on`` under a new id."""
    if based_on is None:
        start: dict[str, Any] = {
            "id": "my-server",
            "vendor": "Vendor",
            "model": "Server model",
            "source": ["the server's data sheet (name it, with its URL)"],
            "psu_count": 2,
            "psu_redundancy": "1+1",
            "height_u": 4,
        }
    else:
        start = based_on.model_dump(mode="json", exclude_none=True)
        start["id"] = f"{based_on.id}-mine"
        start["model"] = f"{based_on.model} (my copy)"
    return ServerEditor(document, start, parent)
