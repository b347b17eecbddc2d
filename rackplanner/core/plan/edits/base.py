"""What every edit returns, the change flags, and the lookups edits share."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import ValidationError

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import (
    Board,
    Part,
)
from rackplanner.core.errors import InputError, describe_validation_error
from rackplanner.core.plan.model import (
    Machine,
    Plan,
    Rack,
)
from rackplanner.core.plan.resolve import board_of


class Change(StrEnum):
    """What an edit touched; each view names the flags it shows."""

    MACHINES = "machines"
    TOPOLOGY = "topology"
    POWER = "power"
    RACK_LAYOUT = "rack_layout"
    CAPACITY = "capacity"
    BOM = "bom"
    NETWORK = "network"
    OUTLETS = "outlets"
    DOCUMENT = "document"


# What changing the parts of a machine invalidates.
_MACHINE_PARTS = frozenset({Change.MACHINES, Change.TOPOLOGY, Change.POWER, Change.CAPACITY, Change.BOM})
_RACK = frozenset({Change.RACK_LAYOUT, Change.POWER, Change.OUTLETS, Change.NETWORK})


class EditRefused(InputError):
    """The edit cannot be made; the message says why."""


@dataclass(frozen=True)
class EditResult:
    plan: Plan
    changes: frozenset[Change]
    label: str
    machines: frozenset[str] = field(default_factory=frozenset)
    racks: frozenset[str] = field(default_factory=frozenset)


def _build(model: type[Any], **values: Any) -> Any:
    try:
        return model.model_validate(values)
    except ValidationError as exc:
        raise EditRefused(describe_validation_error(exc)) from None


def _machine(plan: Plan, machine_id: str) -> Machine:
    found = plan.machine(machine_id)
    if found is None:
        raise EditRefused(f"no machine {machine_id!r} in the plan")
    return found


def _rack(plan: Plan, rack_id: str) -> Rack:
    found = plan.rack(rack_id)
    if found is None:
        raise EditRefused(f"no rack {rack_id!r} in the plan")
    return found


def _board(machine: Machine, catalog: Catalog) -> Board:
    board = board_of(machine, catalog)
    if board is None:
        raise EditRefused(f"{machine.name} has no board yet: choose a board or server first")
    return board


def _need(catalog: Catalog, part_id: str, kinds: tuple[type[Part], ...], what: str) -> Part:
    part = catalog.get(part_id)
    if part is None:
        raise EditRefused(f"{what} {part_id!r} is not in the catalog")
    if not isinstance(part, kinds):
        raise EditRefused(f"{part.model} is a {part.kind}, not a {what}")
    return part


def _need_optional(catalog: Catalog, part_id: str | None, kind: type[Part], what: str) -> None:
    if part_id is not None:
        _need(catalog, part_id, (kind,), what)


def _replace_machine(plan: Plan, machine: Machine) -> Plan:
    return plan.model_copy(update={"machines": [machine if m.id == machine.id else m for m in plan.machines]})


def _replace_rack(plan: Plan, rack: Rack) -> Plan:
    return plan.model_copy(update={"racks": [rack if r.id == rack.id else r for r in plan.racks]})
