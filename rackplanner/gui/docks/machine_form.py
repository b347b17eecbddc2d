"""The current machine's settings as a form: name, server or board and case, CPUs, DIMMs, PSUs, drives."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from rackplanner.core.catalog.figures import UNKNOWN, key_figures
from rackplanner.core.catalog.parts import Board, Chassis, Cpu, Drive, Memory, Part, Psu, Server
from rackplanner.core.plan import edits
from rackplanner.core.plan.edits import Change
from rackplanner.core.plan.model import Machine, PartCount
from rackplanner.core.plan.resolve import board_of, chassis_of
from rackplanner.gui.docks.host_settings import HostSettingsBox
from rackplanner.gui.docks.live import LiveDock, scrolling
from rackplanner.gui.document import ChangeSet, PlanDocument

# A new machine starts on the home-rig build (resources/examples/home-rig-2x3090.json)
# unless the user picks a server to build on.
HOME_RIG_BUILD = {"board": "proart-x670e-creator", "chassis": "fractal-define-7-xl", "cpu": "ryzen-9-7950x"}

MAX_DIMMS = 64
MAX_PSUS = 16
MAX_DRIVES = 64


def _hint(part: Part, labels: Iterable[str]) -> str:
    """The part's label with a few of its key figures, for combo boxes."""
    wanted = set(labels)
    figures = [
        f"{v} {label}" if v.replace(",", "").isdigit() else v
        for label, v in key_figures(part)
        if label in wanted and v != UNKNOWN
    ]
    return f"{part.label} ({', '.join(figures)})" if figures else part.label


HINTS: dict[type[Part], tuple[str, ...]] = {
    Server: ("height", "GPUs"),
    Board: ("socket", "PCIe slots"),
    Chassis: ("form", "max GPU"),
    Cpu: ("cores", "socket"),
    Memory: ("size", "type"),
    Psu: ("power", "efficiency"),
    Drive: ("size", "interface"),
}


class MachineDock(LiveDock):
    """Edits the current machine's base parts; every change is one undoable edit.

    Tabbed away behind the catalog, it only notes that it is stale and fills itself when shown.
    """

    def __init__(self, document: PlanDocument, parent: QWidget | None = None) -> None:
        super().__init__("Machine", parent)
        self.setObjectName("machine-dock")
        self._document = document
        self._filling = False
        self._combo_keys: dict[int, tuple[object, ...]] = {}
        self._listed: list[tuple[str, str]] = []

        self.machine_choice = QComboBox()
        self.machine_choice.setToolTip("The machine shown in the centre")
        self.name = QLineEdit()
        self.server = QComboBox()
        self.board = QComboBox()
        self.chassis = QComboBox()
        self.cpu = QComboBox()
        self.cpu_count = self._spin(1, 8, "CPU sockets in use")
        self.memory = QComboBox()
        self.memory_count = self._spin(1, MAX_DIMMS, "DIMMs")
        self.psu = QComboBox()
        self.psu_count = self._spin(1, MAX_PSUS, "PSUs")
        self.drive = QComboBox()
        self.drive_count = self._spin(1, MAX_DRIVES, "Drives in bays")
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        for combo in (self.machine_choice, self.server, self.board, self.chassis, self.cpu, self.memory):
            self._tidy(combo)
        for combo in (self.psu, self.drive):
            self._tidy(combo)

        self.new_base = QComboBox()
        self.new_base.setToolTip("What a new machine is built on")
        self._tidy(self.new_base)
        self.add_button = QPushButton("Add machine…")
        self.remove_button = QPushButton("Remove machine")

        machine_box = QGroupBox("Machine")
        form = QFormLayout(machine_box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow("Shown", self.machine_choice)
        form.addRow("Name", self.name)
        form.addRow("Server", self.server)
        form.addRow("Board", self.board)
        form.addRow("Case", self.chassis)
        form.addRow("CPU", self._with_count(self.cpu, self.cpu_count))
        form.addRow("Memory", self._with_count(self.memory, self.memory_count))
        form.addRow("PSU", self._with_count(self.psu, self.psu_count))
        form.addRow("Drives", self._with_count(self.drive, self.drive_count))

        add_box = QGroupBox("Machines in the plan")
        add_form = QFormLayout(add_box)
        add_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        add_form.addRow("Build on", self.new_base)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        add_form.addRow(buttons)

        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(machine_box)
        self.host = HostSettingsBox(document, self.machine)
        layout.addWidget(self.host)
        layout.addWidget(self.note)
        layout.addWidget(add_box)
        layout.addStretch(1)
        self.setWidget(scrolling(body))

        self._fill_static_choices()

        self.machine_choice.currentIndexChanged.connect(self._on_machine_chosen)
        self.name.editingFinished.connect(self._on_name_edited)
        self.server.currentIndexChanged.connect(lambda _i: self._on_part_chosen("server", self.server))
        self.board.currentIndexChanged.connect(lambda _i: self._on_part_chosen("board", self.board))
        self.chassis.currentIndexChanged.connect(lambda _i: self._on_part_chosen("chassis", self.chassis))
        self.cpu.currentIndexChanged.connect(lambda _i: self._on_part_chosen("cpu", self.cpu))
        self.cpu_count.valueChanged.connect(self._on_cpu_count_changed)
        self.memory.currentIndexChanged.connect(lambda _i: self._on_counted_changed("memory"))
        self.memory_count.valueChanged.connect(lambda _v: self._on_counted_changed("memory"))
        self.psu.currentIndexChanged.connect(lambda _i: self._on_counted_changed("psus"))
        self.psu_count.valueChanged.connect(lambda _v: self._on_counted_changed("psus"))
        self.drive.currentIndexChanged.connect(lambda _i: self._on_counted_changed("drives"))
        self.drive_count.valueChanged.connect(lambda _v: self._on_counted_changed("drives"))
        self.add_button.clicked.connect(self._on_add_clicked)
        self.remove_button.clicked.connect(self._on_remove_clicked)
        document.changed.connect(self._on_changed)
        document.current_machine_changed.connect(self._on_current_machine_changed)
        document.reset.connect(self._on_reset)

        self.refresh()

    # --- building ----------------------------------------------------------------------

    @staticmethod
    def _spin(low: int, high: int, tip: str) -> QSpinBox:
        spin = QSpinBox()
        spin.setRange(low, high)
        spin.setToolTip(tip)
        # One edit when the user is done typing (or per arrow step), not per keystroke.
        spin.setKeyboardTracking(False)
        spin.setSuffix(" ×")
        return spin

    @staticmethod
    def _tidy(combo: QComboBox) -> None:
        # Long part names must not widen the dock; the popup shows them in full.
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setMinimumContentsLength(12)
        combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    @staticmethod
    def _with_count(combo: QComboBox, spin: QSpinBox) -> QWidget:
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(combo, 1)
        layout.addWidget(spin)
        return row

    def _fill_static_choices(self) -> None:
        catalog = self._document.catalog
        with QSignalBlocker(self.new_base):
            self.new_base.clear()
            build = {k: v for k, v in HOME_RIG_BUILD.items() if catalog.get(v) is not None}
            board = catalog.get_as(HOME_RIG_BUILD["board"], Board)
            self.new_base.addItem(f"{board.label} (home rig build)" if board else "Nothing yet", build)
            for server in sorted(catalog.of_kind(Server), key=lambda p: p.label.lower()):
                self.new_base.addItem(_hint(server, HINTS[Server]), {"server": server.id})

    def _fill_combo(
        self, combo: QComboBox, kind: type[Part], selected: str | None, none_text: str, first: Callable[[Part], bool]
    ) -> None:
        """Parts of ``kind`` (those passing ``first`` on top, then the rest), with ``selected`` current."""
        parts = sorted(self._document.catalog.of_kind(kind), key=lambda p: p.label.lower())
        preferred = [p for p in parts if first(p)]
        others = [p for p in parts if not first(p)]
        # Refilling a combo costs more than a whole drop's analysis; skip it when nothing it lists changed.
        key = (id(self._document.catalog), kind, none_text, tuple(p.id for p in preferred), selected)
        if self._combo_keys.get(id(combo)) == key:
            return
        self._combo_keys[id(combo)] = key
        combo.clear()
        combo.addItem(none_text, None)
        for part in preferred:
            combo.addItem(_hint(part, HINTS.get(kind, ())), part.id)
        if preferred and others:
            combo.insertSeparator(combo.count())
        for part in others:
            combo.addItem(_hint(part, HINTS.get(kind, ())), part.id)
        if selected is not None and combo.findData(selected) < 0:
            # A part the catalog no longer has: keep showing it rather than pretend it is gone.
            combo.addItem(f"{selected} (not in the catalog)", selected)
        combo.setCurrentIndex(max(combo.findData(selected), 0))
        # The field may be too narrow for the whole name and figures.
        combo.setToolTip(combo.currentText())

    # --- what is shown -------------------------------------------------------------------

    def machine(self) -> Machine | None:
        return self._document.plan.machine(self._document.current_machine)

    def refresh(self) -> None:
        """Fill every field from the plan, without sending edits back."""
        self._dirty = False
        self._filling = True
        blockers = [QSignalBlocker(w) for w in self._inputs()]
        try:
            self._fill_machine_choice()
            self._fill_fields(self.machine())
        finally:
            del blockers
            self._filling = False

    def _inputs(self) -> list[QWidget]:
        return [
            self.machine_choice,
            self.name,
            self.server,
            self.board,
            self.chassis,
            self.cpu,
            self.cpu_count,
            self.memory,
            self.memory_count,
            self.psu,
            self.psu_count,
            self.drive,
            self.drive_count,
        ]

    def _fill_machine_choice(self) -> None:
        listed = [(m.id, m.name) for m in self._document.plan.machines]
        if listed != self._listed:
            # Refilled only when machines come, go or are renamed (a row can hold hundreds).
            self._listed = listed
            self.machine_choice.clear()
            for machine_id, name in listed:
                self.machine_choice.addItem(name, machine_id)
        self.machine_choice.setCurrentIndex(self.machine_choice.findData(self._document.current_machine))

    def _fill_fields(self, machine: Machine | None) -> None:
        catalog = self._document.catalog
        self.host.fill(machine)
        for widget in self._inputs()[1:]:
            widget.setEnabled(machine is not None)
        self.machine_choice.setEnabled(bool(self._document.plan.machines))
        self.remove_button.setEnabled(machine is not None)
        if machine is None:
            self.name.clear()
            for combo in (self.server, self.board, self.chassis, self.cpu, self.memory, self.psu, self.drive):
                combo.clear()
            self._combo_keys.clear()
            self._set_note("The plan has no machines: add one below." if not self._document.plan.machines else "")
            return
        server = catalog.get_as(machine.server, Server) if machine.server else None
        board = board_of(machine, catalog)
        chassis = chassis_of(machine, catalog)
        self.name.setText(machine.name)
        self._fill_combo(self.server, Server, machine.server, "None: a board and case", lambda p: True)
        # A server brings its own board and case: show them, but they are not chosen here.
        self._fill_combo(
            self.board,
            Board,
            board.id if board else machine.board,
            "None",
            lambda p: chassis is None or _board_fits_case(p, chassis),
        )
        self._fill_combo(
            self.chassis,
            Chassis,
            chassis.id if chassis else machine.chassis,
            "None",
            lambda p: board is None or _board_fits_case(board, p),
        )
        self.board.setEnabled(server is None)
        self.chassis.setEnabled(server is None)
        socket = board.cpu_socket if board else None
        self._fill_combo(
            self.cpu, Cpu, machine.cpu, "None", lambda p: socket is None or getattr(p, "socket", None) == socket
        )
        self.cpu_count.setValue(machine.cpu_count)
        mem_type = board.mem_type if board else None
        self._fill_counted(self.memory, self.memory_count, Memory, machine.memory, "None", mem_type)
        stock = f"Stock: {server.psu_count} × {_label(catalog.get(server.psu), server.psu)}" if server else "None"
        self._fill_counted(self.psu, self.psu_count, Psu, machine.psus, stock, None)
        self._fill_counted(self.drive, self.drive_count, Drive, machine.drives, "None", None)
        self._set_note(self._note(machine))

    def _set_note(self, text: str) -> None:
        self.note.setText(text)
        self.note.setVisible(bool(text))

    def _fill_counted(
        self,
        combo: QComboBox,
        spin: QSpinBox,
        kind: type[Part],
        items: list[PartCount],
        none_text: str,
        mem_type: str | None,
    ) -> None:
        first = items[0] if items else None

        def preferred(part: Part) -> bool:
            return mem_type is None or getattr(part, "mem_type", None) == mem_type

        self._fill_combo(combo, kind, first.part if first else None, none_text, preferred)
        spin.setValue(first.count if first else 1)
        spin.setEnabled(first is not None)

    @staticmethod
    def _note(machine: Machine) -> str:
        mixed = [what for what, items in (("memory", machine.memory), ("PSUs", machine.psus)) if len(items) > 1]
        if mixed:
            return f"This machine mixes several {' and '.join(mixed)}; the form shows the first and replaces all."
        return ""

    # --- handlers ------------------------------------------------------------------------

    def _on_changed(self, change: ChangeSet) -> None:
        if not change.touches(Change.MACHINES):
            return
        if not change.machines or self._document.current_machine in change.machines or not self.is_showing():
            self.refresh_when_visible()
        else:
            # Another machine changed: at most its name in the list of machines.
            self._filling = True
            with QSignalBlocker(self.machine_choice):
                self._fill_machine_choice()
            self._filling = False

    def _on_current_machine_changed(self, _machine_id: str) -> None:
        self.refresh_when_visible()

    def _on_reset(self) -> None:
        self._fill_static_choices()
        self.refresh_when_visible()

    def _on_machine_chosen(self, index: int) -> None:
        if self._filling or index < 0:
            return
        self._document.set_current_machine(str(self.machine_choice.itemData(index)))

    def _on_name_edited(self) -> None:
        machine = self.machine()
        name = self.name.text().strip()
        if self._filling or machine is None or name == machine.name:
            return
        if not name:
            self.name.setText(machine.name)
            return
        self._document.apply(edits.rename_machine, machine=machine.id, name=name)

    def _on_part_chosen(self, field: str, combo: QComboBox) -> None:
        combo.setToolTip(combo.currentText())
        if self._filling:
            return
        self._configure(**{field: combo.currentData()})

    def _on_cpu_count_changed(self, value: int) -> None:
        machine = self.machine()
        if self._filling or machine is None or value == machine.cpu_count:
            return
        self._configure(cpu_count=value)

    def _on_counted_changed(self, field: str) -> None:
        if self._filling:
            return
        combo, spin = {
            "memory": (self.memory, self.memory_count),
            "psus": (self.psu, self.psu_count),
            "drives": (self.drive, self.drive_count),
        }[field]
        part = combo.currentData()
        machine = self.machine()
        count = spin.value()
        server = self._document.catalog.get_as(machine.server, Server) if machine and machine.server else None
        if field == "psus" and server is not None and machine is not None and not machine.psus:
            # Swapping a server's stock PSUs keeps how many it has.
            count = server.psu_count
        items = [PartCount(part=part, count=count)] if part else []
        if machine is not None and items == getattr(machine, field):
            return
        self._configure(**{field: items})

    def _configure(self, **fields: Any) -> None:
        machine = self.machine()
        if machine is None:
            return
        result = self._document.apply(
            edits.configure_machine, machine=machine.id, catalog=self._document.catalog, **fields
        )
        if result is None:
            # Refused: show the plan as it still is.
            self.refresh()

    def _on_add_clicked(self) -> None:
        name, ok = QInputDialog.getText(self, "Add machine", "Name of the new machine:")
        name = name.strip()
        if not ok or not name:
            return
        base = self.new_base.currentData() or {}
        result = self._document.apply(edits.add_machine, name=name, catalog=self._document.catalog, **base)
        if result is not None:
            new_id = next(iter(result.machines))
            self._document.set_current_machine(new_id)

    def _on_remove_clicked(self) -> None:
        machine = self.machine()
        if machine is None:
            return
        answer = QMessageBox.question(
            self,
            "Remove machine",
            f"Remove {machine.name} and its cards from the plan? (Undo brings it back.)",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        if answer == QMessageBox.StandardButton.Yes:
            self._document.apply(edits.remove_machine, machine=machine.id)


def _board_fits_case(board: Part, chassis: Part) -> bool:
    if not isinstance(board, Board) or not isinstance(chassis, Chassis):
        return True
    return board.form_factor in chassis.board_form_factors


def _label(part: Part | None, fallback: str) -> str:
    return part.label if part is not None else fallback


def current_part(combo: QComboBox) -> str | None:
    """The part id of a combo's current entry (None for the "none" entry)."""
    data = combo.currentData(Qt.ItemDataRole.UserRole)
    return str(data) if data else None
