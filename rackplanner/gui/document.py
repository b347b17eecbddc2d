"""The open plan in the app: its file, its undo stack, and the signals every view listens to.

Views never change the plan themselves: they call ``apply`` with a function from
``rackplanner.core.plan.edits``; the document wraps the result in an undo command and tells
every view what changed (the edit's change flags), so each refreshes only what it shows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from rackplanner.core.analysis import Analysis, analyse
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan.edits import Change, EditRefused, EditResult
from rackplanner.core.plan.files import save_plan
from rackplanner.core.plan.model import Machine, Plan

ALL_CHANGES = frozenset(Change)


@dataclass(frozen=True)
class ChangeSet:
    """What an edit (or its undo) changed: flags, and the machines and racks it touched."""

    changes: frozenset[Change]
    machines: frozenset[str] = field(default_factory=frozenset)
    racks: frozenset[str] = field(default_factory=frozenset)

    def touches(self, *flags: Change) -> bool:
        return any(flag in self.changes for flag in flags)


class EditCommand(QUndoCommand):
    """One edit on the undo stack: the plans before and after, and what it changed."""

    def __init__(self, document: PlanDocument, before: Plan, result: EditResult) -> None:
        super().__init__(result.label)
        self._document = document
        self._before = before
        self._after = result.plan
        self._change = ChangeSet(result.changes, result.machines, result.racks)

    def redo(self) -> None:
        self._document._set_plan(self._after, self._change)

    def undo(self) -> None:
        self._document._set_plan(self._before, self._change)


class PlanDocument(QObject):
    """The plan being edited, with its path, catalog and undo stack."""

    # A ChangeSet, after every edit, undo and redo.
    changed = Signal(object)
    # An edit the core refused, with the reason (for the status bar).
    refused = Signal(str)
    # The machine shown in the centre (id, or "" for none) and the slots selected on it.
    current_machine_changed = Signal(str)
    # The rack the rack docks (power, network) show (id, or "" for none).
    current_rack_changed = Signal(str)
    selection_changed = Signal(list)
    # The file name or the plan was replaced (open, new, save as).
    reset = Signal()
    # The machine as a drop being dragged would leave it (not applied): views may get ready for it.
    previewed = Signal(object)

    def __init__(self, plan: Plan, catalog: Catalog, path: Path | None = None) -> None:
        super().__init__()
        self.plan = plan
        self.catalog = catalog
        self.path = path
        self.undo_stack = QUndoStack(self)
        self.current_machine: str = plan.machines[0].id if plan.machines else ""
        self.current_rack: str = plan.racks[0].id if plan.racks else ""
        self.selected_slots: list[str] = []

    # --- editing ---------------------------------------------------------------------

    def apply(self, edit: Callable[..., EditResult], /, **kwargs: Any) -> EditResult | None:
        """Run a core edit on the plan and push it on the undo stack; None (and ``refused``) if refused."""
        try:
            result = edit(self.plan, **kwargs)
        except EditRefused as exc:
            self.refused.emit(str(exc))
            return None
        self.undo_stack.push(EditCommand(self, self.plan, result))
        return result

    def _set_plan(self, plan: Plan, change: ChangeSet) -> None:
        self.plan = plan
        if self.current_machine and plan.machine(self.current_machine) is None:
            self.set_current_machine(plan.machines[0].id if plan.machines else "")
        if plan.rack(self.current_rack) is None:
            self.set_current_rack(plan.racks[0].id if plan.racks else "")
        self.changed.emit(change)

    # --- what is shown ---------------------------------------------------------------

    def set_current_machine(self, machine_id: str) -> None:
        if machine_id != self.current_machine:
            self.current_machine = machine_id
            self.selected_slots = []
            self.current_machine_changed.emit(machine_id)

    def preview(self, machine: Machine) -> None:
        """Say how a machine would look after a drop the user is hovering (nothing changes)."""
        self.previewed.emit(machine)

    def set_current_rack(self, rack_id: str) -> None:
        if rack_id != self.current_rack:
            self.current_rack = rack_id
            self.current_rack_changed.emit(rack_id)

    def select_slots(self, slots: list[str]) -> None:
        if slots != self.selected_slots:
            self.selected_slots = list(slots)
            self.selection_changed.emit(self.selected_slots)

    # --- files -----------------------------------------------------------------------

    @property
    def analysis(self) -> Analysis:
        """What the open plan means, from the core's one entry point (each piece computed when asked)."""
        return analyse(self.plan, self.catalog)

    @property
    def is_modified(self) -> bool:
        return not self.undo_stack.isClean()

    def save(self, path: Path | None = None) -> Path:
        """Save atomically (with a .bak of the old file); raises InputError naming the file on failure."""
        target = path or self.path
        if target is None:
            raise ValueError("no file name: use save(path)")
        save_plan(self.plan, target)
        renamed = target != self.path
        self.path = target
        self.undo_stack.setClean()
        if renamed:
            self.reset.emit()
        return target

    def set_catalog(self, catalog: Catalog) -> None:
        """Use a reloaded catalog (a part saved to the user's catalog): every view redraws with it."""
        self.catalog = catalog
        self.reset.emit()
        self.changed.emit(ChangeSet(ALL_CHANGES, frozenset(m.id for m in self.plan.machines)))

    def replace(self, plan: Plan, path: Path | None) -> None:
        """Show another plan (after New or Open): a fresh undo history."""
        self.undo_stack.clear()
        self.plan = plan
        self.path = path
        self.current_machine = plan.machines[0].id if plan.machines else ""
        self.current_rack = plan.racks[0].id if plan.racks else ""
        self.selected_slots = []
        self.reset.emit()
        self.changed.emit(ChangeSet(ALL_CHANGES, frozenset(m.id for m in plan.machines)))
