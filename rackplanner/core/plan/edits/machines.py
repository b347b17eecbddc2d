"""Adding, renaming, removing and configuring machines."""

from __future__ import annotations

from typing import Any

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import (
    Board,
    Chassis,
    Cpu,
    Drive,
    Memory,
    Psu,
    Server,
)
from rackplanner.core.ids import slug_id
from rackplanner.core.plan.edits.base import (
    _MACHINE_PARTS,
    _RACK,
    Change,
    EditRefused,
    EditResult,
    _build,
    _machine,
    _need,
    _need_optional,
    _replace_machine,
)
from rackplanner.core.plan.model import (
    HostSettings,
    Machine,
    PartCount,
    Plan,
)
from rackplanner.core.plan.resolve import board_of


def add_machine(
    plan: Plan,
    *,
    name: str,
    catalog: Catalog,
    server: str | None = None,
    board: str | None = None,
    chassis: str | None = None,
    cpu: str | None = None,
    cpu_count: int = 1,
    machine_id: str | None = None,
) -> EditResult:
    """Add an empty machine built on a catalog server, or on a board and case."""
    _need_optional(catalog, server, Server, "server")
    _need_optional(catalog, board, Board, "board")
    _need_optional(catalog, chassis, Chassis, "chassis")
    _need_optional(catalog, cpu, Cpu, "CPU")
    new_id = machine_id or slug_id(name, {m.id for m in plan.machines})
    if plan.machine(new_id) is not None:
        raise EditRefused(f"a machine with id {new_id!r} already exists")
    machine = _build(
        Machine,
        id=new_id,
        name=name,
        server=server,
        board=board,
        chassis=chassis,
        cpu=cpu,
        cpu_count=cpu_count,
    )
    new_plan = plan.model_copy(update={"machines": [*plan.machines, machine]})
    return EditResult(new_plan, _MACHINE_PARTS, f"Add machine {name}", frozenset({new_id}))


def add_built_machine(plan: Plan, *, machine: Machine, catalog: Catalog) -> EditResult:
    """Add a complete machine (parts, cards, memory, PSUs) as one edit, under an id of its own."""
    for part, kind in (
        (machine.server, Server),
        (machine.board, Board),
        (machine.chassis, Chassis),
        (machine.cpu, Cpu),
    ):
        _need_optional(catalog, part, kind, kind.kind)
    for card in machine.cards:
        if catalog.get(card.part) is None:
            raise EditRefused(f"{card.part} is not in the catalog")
    new_id = slug_id(machine.name, {m.id for m in plan.machines})
    added = machine.model_copy(update={"id": new_id})
    new_plan = plan.model_copy(update={"machines": [*plan.machines, added]})
    return EditResult(new_plan, _MACHINE_PARTS, f"Add machine {machine.name}", frozenset({new_id}))


def rename_machine(plan: Plan, *, machine: str, name: str) -> EditResult:
    old = _machine(plan, machine)
    if not name.strip():
        raise EditRefused("a machine name cannot be empty")
    updated = old.model_copy(update={"name": name})
    return EditResult(
        _replace_machine(plan, updated),
        frozenset({Change.MACHINES, Change.BOM}),
        f"Rename {old.name} to {name}",
        frozenset({machine}),
    )


def remove_machine(plan: Plan, *, machine: str) -> EditResult:
    """Remove a machine, unmounting it from its rack and dropping its outlet overrides."""
    old = _machine(plan, machine)
    racks = []
    touched_racks = set()
    gone_devices: set[tuple[str, str]] = set()
    for rack in plan.racks:
        kept = [d for d in rack.devices if d.machine != machine]
        if len(kept) != len(rack.devices):
            touched_racks.add(rack.id)
            gone_devices |= {(rack.id, d.id) for d in rack.devices if d.machine == machine}
            rack = rack.model_copy(update={"devices": kept})
        racks.append(rack)
    assignments = [a for a in plan.outlet_assignments if (a.rack, a.device) not in gone_devices]
    new_plan = plan.model_copy(
        update={
            "machines": [m for m in plan.machines if m.id != machine],
            "racks": racks,
            "outlet_assignments": assignments,
        }
    )
    changes = _MACHINE_PARTS | (_RACK if touched_racks else frozenset())
    return EditResult(new_plan, changes, f"Remove machine {old.name}", frozenset({machine}), frozenset(touched_racks))


_UNSET: Any = object()


def configure_machine(
    plan: Plan,
    *,
    machine: str,
    catalog: Catalog,
    server: str | None = _UNSET,
    board: str | None = _UNSET,
    chassis: str | None = _UNSET,
    cpu: str | None = _UNSET,
    cpu_count: int = _UNSET,
    memory: list[PartCount] = _UNSET,
    psus: list[PartCount] = _UNSET,
    drives: list[PartCount] = _UNSET,
) -> EditResult:
    """Change a machine's base parts. Cards in slots the new board lacks are taken out."""
    old = _machine(plan, machine)
    update: dict[str, Any] = {}
    for key, value, kind in (
        ("server", server, Server),
        ("board", board, Board),
        ("chassis", chassis, Chassis),
        ("cpu", cpu, Cpu),
    ):
        if value is not _UNSET:
            _need_optional(catalog, value, kind, key)
            update[key] = value
    if cpu_count is not _UNSET:
        update["cpu_count"] = cpu_count
    for key, items, kinds in (
        ("memory", memory, (Memory,)),
        ("psus", psus, (Psu,)),
        ("drives", drives, (Drive,)),
    ):
        if items is not _UNSET:
            for item in items:
                _need(catalog, item.part, kinds, key)
            update[key] = [i.model_dump() for i in items]
    if update.get("server"):
        update.setdefault("board", None)
        update.setdefault("chassis", None)
    if update.get("board") or update.get("chassis"):
        update.setdefault("server", None)
    data = {**old.model_dump(), **update}
    candidate = _build(Machine, **{**data, "cards": [], "bridges": []})
    new_board = board_of(candidate, catalog)
    cards = [c for c in old.cards if new_board is not None and new_board.slot(c.slot) is not None]
    kept_slots = {c.slot for c in cards}
    bridges = [b for b in old.bridges if set(b.slots) <= kept_slots]
    updated = _build(
        Machine,
        **{**data, "cards": [c.model_dump() for c in cards], "bridges": [b.model_dump() for b in bridges]},
    )
    dropped = len(old.cards) - len(cards)
    label = f"Configure {old.name}" + (f" ({dropped} cards taken out)" if dropped else "")
    return EditResult(_replace_machine(plan, updated), _MACHINE_PARTS, label, frozenset({machine}))


def set_host_settings(plan: Plan, *, machine: str, **settings: Any) -> EditResult:
    """Change BIOS/OS settings of a machine (NUMA per socket, ACS, IOMMU, SMT, P2P driver, NCCL variables)."""
    old = _machine(plan, machine)
    unknown = sorted(set(settings) - set(HostSettings.model_fields))
    if unknown:
        raise EditRefused(f"{unknown[0]} is not a host setting")
    host = _build(HostSettings, **{**old.host.model_dump(), **settings})
    updated = old.model_copy(update={"host": host})
    changed = ", ".join(f"{k} {v}" for k, v in settings.items())
    return EditResult(_replace_machine(plan, updated), _MACHINE_PARTS, f"{old.name}: {changed}", frozenset({machine}))
