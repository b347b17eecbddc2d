"""Every change a user can make to a plan, as a pure function.

Each edit takes the plan and keyword-only arguments and returns an ``EditResult``: the
new plan, the change flags it touched (views refresh only for the flags they show), the
machines and racks it touched, and a label for the undo history. The old plan is never
modified. An edit that cannot be made raises ``EditRefused`` with the reason; physical
problems that a plan can still hold (a card too long for its case, two devices in one U)
are not refused here: ``fit`` and the rack checks report them as findings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from pydantic import ValidationError

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import (
    Board,
    Chassis,
    Cpu,
    Drive,
    Gpu,
    Memory,
    NetworkSwitch,
    Nic,
    NvlinkBridge,
    Part,
    Pdu,
    Psu,
    RackDevice,
    Server,
)
from rackplanner.core.catalog.parts import Rack as RackPart
from rackplanner.core.errors import InputError, describe_validation_error
from rackplanner.core.ids import free_id, slug_id
from rackplanner.core.plan.model import (
    BridgeLink,
    Feed,
    Machine,
    MountedDevice,
    OutletAssignment,
    PartCount,
    PlacedCard,
    Plan,
    Rack,
    Row,
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


# --- machines ------------------------------------------------------------------------


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


# --- cards in slots --------------------------------------------------------------------


def place_card(plan: Plan, *, machine: str, slot: str, part: str, catalog: Catalog) -> EditResult:
    """Put a GPU, NIC or NVMe drive into an empty slot of the machine's board."""
    old = _machine(plan, machine)
    card_part = _need(catalog, part, (Gpu, Nic, Drive), "card")
    board = _board(old, catalog)
    target = board.slot(slot)
    if target is None:
        raise EditRefused(f"{board.model} has no slot {slot!r}")
    occupant = old.card_in(slot)
    if occupant is not None:
        raise EditRefused(f"slot {target.label} already holds {occupant.part}")
    if isinstance(card_part, Drive) and target.kind == "pcie" and card_part.form_factor != "aic":
        raise EditRefused(f"{card_part.model} is a {card_part.form_factor} drive, not a PCIe card")
    if target.kind == "m2" and not (isinstance(card_part, Drive) and card_part.form_factor.startswith("m.2")):
        raise EditRefused(f"slot {target.label} is an M.2 socket; {card_part.model} does not go there")
    if target.kind == "sxm" and not (isinstance(card_part, Gpu) and card_part.form_factor == "sxm"):
        raise EditRefused(f"slot {target.label} is an SXM bay; it takes SXM GPU modules only")
    if target.kind == "pcie" and isinstance(card_part, Gpu) and card_part.form_factor != "pcie":
        raise EditRefused(f"{card_part.model} is an {card_part.form_factor.upper()} module, not a PCIe card")
    card = PlacedCard(slot=slot, part=part)
    updated = old.model_copy(update={"cards": [*old.cards, card]})
    return EditResult(
        _replace_machine(plan, updated),
        _MACHINE_PARTS,
        f"Place {card_part.model} in {target.label}",
        frozenset({machine}),
    )


def move_card(plan: Plan, *, machine: str, from_slot: str, to_slot: str, catalog: Catalog) -> EditResult:
    """Move a card to another slot; NVLink bridges on it come off (the spacing changes)."""
    old = _machine(plan, machine)
    card = old.card_in(from_slot)
    if card is None:
        raise EditRefused(f"slot {from_slot!r} holds no card")
    if from_slot == to_slot:
        raise EditRefused("the card is already in that slot")
    without = old.model_copy(
        update={
            "cards": [c for c in old.cards if c.slot != from_slot],
            "bridges": [b for b in old.bridges if from_slot not in b.slots],
        }
    )
    placed = place_card(_replace_machine(plan, without), machine=machine, slot=to_slot, part=card.part, catalog=catalog)
    moved_machine = _machine(placed.plan, machine)
    cards = [
        c.model_copy(update={"power_limit_w": card.power_limit_w}) if c.slot == to_slot else c
        for c in moved_machine.cards
    ]
    final = moved_machine.model_copy(update={"cards": cards})
    board = _board(old, catalog)
    label = f"Move {card.part} from {board.slot_label(from_slot)} to {board.slot_label(to_slot)}"
    return EditResult(_replace_machine(plan, final), _MACHINE_PARTS, label, frozenset({machine}))


def remove_card(plan: Plan, *, machine: str, slot: str) -> EditResult:
    old = _machine(plan, machine)
    card = old.card_in(slot)
    if card is None:
        raise EditRefused(f"slot {slot!r} holds no card")
    updated = old.model_copy(
        update={
            "cards": [c for c in old.cards if c.slot != slot],
            "bridges": [b for b in old.bridges if slot not in b.slots],
        }
    )
    return EditResult(_replace_machine(plan, updated), _MACHINE_PARTS, f"Remove {card.part}", frozenset({machine}))


def set_power_limit(plan: Plan, *, machine: str, slot: str, watts: float | None, catalog: Catalog) -> EditResult:
    """Set (or clear, with None) a GPU's power limit, as ``nvidia-smi -pl`` would."""
    old = _machine(plan, machine)
    card = old.card_in(slot)
    if card is None:
        raise EditRefused(f"slot {slot!r} holds no card")
    gpu = catalog.get_as(card.part, Gpu)
    if gpu is None:
        raise EditRefused(f"{card.part} is not a GPU; only GPUs take a power limit")
    if watts is not None:
        if watts > gpu.tdp_w:
            raise EditRefused(f"{watts:g} W is above the {gpu.model}'s {gpu.tdp_w:g} W board power")
        floor = gpu.min_power_limit_w or 0.0
        if watts <= 0 or watts < floor:
            raise EditRefused(
                f"{watts:g} W is below the {gpu.model}'s lowest power limit" + (f" of {floor:g} W" if floor else "")
            )
    cards = [c.model_copy(update={"power_limit_w": watts}) if c.slot == slot else c for c in old.cards]
    label = f"Power limit {gpu.model} to {watts:g} W" if watts else f"Clear power limit of {gpu.model}"
    return EditResult(
        _replace_machine(plan, old.model_copy(update={"cards": cards})),
        frozenset({Change.POWER, Change.CAPACITY, Change.MACHINES}),
        label,
        frozenset({machine}),
    )


def add_bridge(plan: Plan, *, machine: str, slots: tuple[str, str], part: str, catalog: Catalog) -> EditResult:
    """Join the GPUs in two slots with an NVLink bridge the catalog says fits them."""
    old = _machine(plan, machine)
    bridge = _need(catalog, part, (NvlinkBridge,), "NVLink bridge")
    assert isinstance(bridge, NvlinkBridge)
    for slot in slots:
        card = old.card_in(slot)
        if card is None:
            raise EditRefused(f"slot {slot!r} holds no card to bridge")
        if card.part not in bridge.fits_gpus:
            raise EditRefused(f"{bridge.model} does not fit {card.part}")
        if any(slot in b.slots for b in old.bridges):
            raise EditRefused(f"the card in slot {slot!r} already has a bridge")
    try:
        link = BridgeLink(part=part, slots=slots)
    except ValidationError as exc:
        raise EditRefused(describe_validation_error(exc)) from None
    updated = old.model_copy(update={"bridges": [*old.bridges, link]})
    return EditResult(
        _replace_machine(plan, updated),
        _MACHINE_PARTS,
        f"Add {bridge.model}",
        frozenset({machine}),
    )


def set_card_network(
    plan: Plan, *, machine: str, slot: str, network: Literal["compute", "storage", "in-band"] | None, catalog: Catalog
) -> EditResult:
    """Say which network a NIC's ports serve (None: inferred from its protocol again)."""
    old = _machine(plan, machine)
    card = old.card_in(slot)
    if card is None:
        raise EditRefused(f"slot {slot!r} holds no card")
    nic = catalog.get_as(card.part, Nic)
    if nic is None:
        raise EditRefused(f"{card.part} is not a NIC; only NICs serve a network")
    if card.network == network:
        raise EditRefused(f"the {nic.model} already serves {network or 'the network its protocol gives'}")
    cards = [c.model_copy(update={"network": network}) if c.slot == slot else c for c in old.cards]
    label = f"{nic.model} serves {network}" if network else f"{nic.model} serves the network its protocol gives"
    return EditResult(
        _replace_machine(plan, old.model_copy(update={"cards": cards})),
        frozenset({Change.NETWORK, Change.MACHINES}),
        label,
        frozenset({machine}),
    )


def remove_bridge(plan: Plan, *, machine: str, slot: str) -> EditResult:
    """Take off the NVLink bridge on the card in ``slot``."""
    old = _machine(plan, machine)
    kept = [b for b in old.bridges if slot not in b.slots]
    if len(kept) == len(old.bridges):
        raise EditRefused(f"no NVLink bridge on slot {slot!r}")
    return EditResult(
        _replace_machine(plan, old.model_copy(update={"bridges": kept})),
        _MACHINE_PARTS,
        "Remove NVLink bridge",
        frozenset({machine}),
    )


# --- racks -----------------------------------------------------------------------------


# The row a rack goes to when the plan has none yet.
DEFAULT_ROW_ID = "row-1"
DEFAULT_ROW_NAME = "Row 1"


def add_rack(
    plan: Plan, *, name: str, part: str, catalog: Catalog, row: str | None = None, rack_id: str | None = None
) -> EditResult:
    """Add an empty rack to a row (by default the plan's first row, created as "Row 1" if there is none)."""
    _need(catalog, part, (RackPart,), "rack")
    new_id = rack_id or slug_id(name, {r.id for r in plan.racks})
    if plan.rack(new_id) is not None:
        raise EditRefused(f"a rack with id {new_id!r} already exists")
    rows = list(plan.rows)
    if row is None:
        if not rows:
            rows.append(Row(id=DEFAULT_ROW_ID, name=DEFAULT_ROW_NAME))
        row = rows[0].id
    elif plan.row(row) is None:
        raise EditRefused(f"no row {row!r} in the plan")
    rack = _build(Rack, id=new_id, name=name, part=part, row=row)
    return EditResult(
        plan.model_copy(update={"rows": rows, "racks": [*plan.racks, rack]}),
        _RACK | {Change.BOM},
        f"Add rack {name}",
        racks=frozenset({new_id}),
    )


def add_row(plan: Plan, *, name: str, row_id: str | None = None) -> EditResult:
    """Add an empty row of racks."""
    if not name.strip():
        raise EditRefused("a row name cannot be empty")
    new_id = row_id or slug_id(name, {r.id for r in plan.rows})
    if plan.row(new_id) is not None:
        raise EditRefused(f"a row with id {new_id!r} already exists")
    row = _build(Row, id=new_id, name=name)
    return EditResult(
        plan.model_copy(update={"rows": [*plan.rows, row]}),
        frozenset({Change.RACK_LAYOUT, Change.NETWORK}),
        f"Add row {name}",
    )


def rename_row(plan: Plan, *, row: str, name: str) -> EditResult:
    old = plan.row(row)
    if old is None:
        raise EditRefused(f"no row {row!r} in the plan")
    if not name.strip():
        raise EditRefused("a row name cannot be empty")
    rows = [old.model_copy(update={"name": name}) if r.id == row else r for r in plan.rows]
    return EditResult(
        plan.model_copy(update={"rows": rows}),
        frozenset({Change.RACK_LAYOUT, Change.NETWORK}),
        f"Rename {old.name} to {name}",
    )


def remove_row(plan: Plan, *, row: str) -> EditResult:
    """Remove an empty row; a row that still holds racks is refused (move or remove them first)."""
    old = plan.row(row)
    if old is None:
        raise EditRefused(f"no row {row!r} in the plan")
    held = [r.name for r in plan.racks if r.row == row]
    if held:
        raise EditRefused(f"{old.name} still holds {len(held)} rack(s): {', '.join(held)}")
    return EditResult(
        plan.model_copy(update={"rows": [r for r in plan.rows if r.id != row]}),
        frozenset({Change.RACK_LAYOUT, Change.NETWORK}),
        f"Remove row {old.name}",
    )


def move_rack_to_row(plan: Plan, *, rack: str, row: str) -> EditResult:
    """Put a rack in another row of the plan (its devices go with it)."""
    old = _rack(plan, rack)
    target = plan.row(row)
    if target is None:
        raise EditRefused(f"no row {row!r} in the plan")
    if old.row == row:
        raise EditRefused(f"{old.name} is already in {target.name}")
    return EditResult(
        _replace_rack(plan, old.model_copy(update={"row": row})),
        frozenset({Change.RACK_LAYOUT, Change.NETWORK}),
        f"Move {old.name} to {target.name}",
        racks=frozenset({rack}),
    )


def rename_rack(plan: Plan, *, rack: str, name: str) -> EditResult:
    old = _rack(plan, rack)
    if not name.strip():
        raise EditRefused("a rack name cannot be empty")
    return EditResult(
        _replace_rack(plan, old.model_copy(update={"name": name})),
        frozenset({Change.RACK_LAYOUT, Change.BOM}),
        f"Rename {old.name} to {name}",
        racks=frozenset({rack}),
    )


def remove_rack(plan: Plan, *, rack: str) -> EditResult:
    """Remove a rack; its machines stay in the plan, unmounted."""
    old = _rack(plan, rack)
    new_plan = plan.model_copy(
        update={
            "racks": [r for r in plan.racks if r.id != rack],
            "outlet_assignments": [a for a in plan.outlet_assignments if a.rack != rack],
        }
    )
    return EditResult(new_plan, _RACK | {Change.BOM}, f"Remove rack {old.name}", racks=frozenset({rack}))


def mount_device(
    plan: Plan,
    *,
    rack: str,
    name: str,
    catalog: Catalog,
    machine: str | None = None,
    part: str | None = None,
    position_u: int | None = None,
    face: Literal["front", "rear"] = "front",
    side: Literal["left", "right"] | None = None,
    feed: str | None = None,
    device_id: str | None = None,
) -> EditResult:
    """Mount a machine of the plan, or a switch or PDU from the catalog, in a rack."""
    old = _rack(plan, rack)
    if machine is not None:
        _machine(plan, machine)
        for other in plan.racks:
            if any(d.machine == machine for d in other.devices):
                raise EditRefused(f"machine {machine!r} is already mounted in {other.name}")
    if part is not None:
        _need(catalog, part, (NetworkSwitch, Pdu, RackDevice), "rack device")
    if feed is not None and not any(f.id == feed for f in plan.feeds):
        raise EditRefused(f"feed {feed!r} is not in the plan")
    new_id = device_id or slug_id(name, {d.id for d in old.devices})
    if old.device(new_id) is not None:
        raise EditRefused(f"rack {old.name} already has a device {new_id!r}")
    device = _build(
        MountedDevice,
        id=new_id,
        name=name,
        machine=machine,
        part=part,
        position_u=position_u,
        face=face,
        side=side,
        feed=feed,
    )
    where = f"U{position_u}" if position_u is not None else f"{side} side"
    return EditResult(
        _replace_rack(plan, old.model_copy(update={"devices": [*old.devices, device]})),
        _RACK | {Change.BOM},
        f"Mount {name} in {old.name} at {where}",
        frozenset({machine}) if machine else frozenset(),
        frozenset({rack}),
    )


def move_device(
    plan: Plan,
    *,
    rack: str,
    device: str,
    position_u: int | None = None,
    face: Literal["front", "rear"] | None = None,
    side: Literal["left", "right"] | None = None,
    to_rack: str | None = None,
) -> EditResult:
    """Move a mounted device to another U position, face or side channel, or another rack."""
    source = _rack(plan, rack)
    old = source.device(device)
    if old is None:
        raise EditRefused(f"rack {source.name} has no device {device!r}")
    update: dict[str, Any] = {}
    if position_u is not None:
        update.update(position_u=position_u, side=None)
    elif side is not None:
        update.update(side=side, position_u=None)
    if face is not None:
        update["face"] = face
    moved = _build(MountedDevice, **{**old.model_dump(), **update})
    destination_id = to_rack or rack
    new_plan = _replace_rack(plan, source.model_copy(update={"devices": [d for d in source.devices if d.id != device]}))
    destination = _rack(new_plan, destination_id)
    if destination.device(moved.id) is not None:
        moved = moved.model_copy(update={"id": free_id(moved.id, {d.id for d in destination.devices})})
    if destination_id == rack:
        devices = [moved if d.id == device else d for d in source.devices]
    else:
        devices = [*destination.devices, moved]
    new_plan = _replace_rack(new_plan, destination.model_copy(update={"devices": devices}))
    assignments = plan.outlet_assignments
    if destination_id != rack:
        # Outlets of the old rack's PDUs are out of reach from the new rack.
        assignments = [a for a in assignments if not (a.rack == rack and a.device == device)]
        new_plan = new_plan.model_copy(update={"outlet_assignments": assignments})
    machines = frozenset({old.machine}) if old.machine else frozenset()
    return EditResult(
        new_plan,
        _RACK,
        f"Move {old.name}",
        machines,
        frozenset({rack, destination_id}),
    )


def unmount_device(plan: Plan, *, rack: str, device: str) -> EditResult:
    old_rack = _rack(plan, rack)
    old = old_rack.device(device)
    if old is None:
        raise EditRefused(f"rack {old_rack.name} has no device {device!r}")
    new_plan = _replace_rack(
        plan, old_rack.model_copy(update={"devices": [d for d in old_rack.devices if d.id != device]})
    )
    new_plan = new_plan.model_copy(
        update={
            "outlet_assignments": [
                a for a in plan.outlet_assignments if not (a.rack == rack and (a.device == device or a.pdu == device))
            ]
        }
    )
    return EditResult(
        new_plan,
        _RACK | {Change.BOM},
        f"Unmount {old.name}",
        frozenset({old.machine}) if old.machine else frozenset(),
        frozenset({rack}),
    )


# --- feeds, prices, outlets --------------------------------------------------------------


def add_feed(
    plan: Plan,
    *,
    name: str,
    side: Literal["A", "B"],
    phases: Literal[1, 3],
    voltage_v: float,
    breaker_a: float,
    feed_id: str | None = None,
) -> EditResult:
    new_id = feed_id or slug_id(name, {f.id for f in plan.feeds})
    if any(f.id == new_id for f in plan.feeds):
        raise EditRefused(f"a feed with id {new_id!r} already exists")
    feed = _build(Feed, id=new_id, name=name, side=side, phases=phases, voltage_v=voltage_v, breaker_a=breaker_a)
    return EditResult(
        plan.model_copy(update={"feeds": [*plan.feeds, feed]}),
        frozenset({Change.POWER}),
        f"Add feed {name}",
    )


def set_device_feed(plan: Plan, *, rack: str, device: str, feed: str | None) -> EditResult:
    """Plug a mounted PDU into a feed (or unplug it with None)."""
    old_rack = _rack(plan, rack)
    old = old_rack.device(device)
    if old is None:
        raise EditRefused(f"rack {old_rack.name} has no device {device!r}")
    if feed is not None and not any(f.id == feed for f in plan.feeds):
        raise EditRefused(f"feed {feed!r} is not in the plan")
    if old.feed == feed:
        raise EditRefused(f"{old.name} is already on {feed or 'no feed'}")
    moved = old.model_copy(update={"feed": feed})
    new_rack = old_rack.model_copy(update={"devices": [moved if d.id == device else d for d in old_rack.devices]})
    label = f"Plug {old.name} into {feed}" if feed else f"Unplug {old.name}"
    changes = frozenset({Change.POWER, Change.OUTLETS})
    return EditResult(_replace_rack(plan, new_rack), changes, label, racks=frozenset({rack}))


def remove_feed(plan: Plan, *, feed: str) -> EditResult:
    """Remove a feed; PDUs plugged into it are left unplugged."""
    if not any(f.id == feed for f in plan.feeds):
        raise EditRefused(f"feed {feed!r} is not in the plan")
    racks = [
        r.model_copy(
            update={"devices": [d.model_copy(update={"feed": None}) if d.feed == feed else d for d in r.devices]}
        )
        for r in plan.racks
    ]
    touched = frozenset(r.id for r in plan.racks if any(d.feed == feed for d in r.devices))
    new_plan = plan.model_copy(update={"feeds": [f for f in plan.feeds if f.id != feed], "racks": racks})
    return EditResult(new_plan, frozenset({Change.POWER}), f"Remove feed {feed}", racks=touched)


def set_price_override(plan: Plan, *, part: str, price_usd: float | None, catalog: Catalog) -> EditResult:
    """Use the user's own price for a part in the bill of materials (None restores the catalog's)."""
    found = _need(catalog, part, (Part,), "part")
    prices = dict(plan.price_overrides_usd)
    if price_usd is None:
        if part not in prices:
            raise EditRefused(f"{part} has no price override")
        del prices[part]
        label = f"Use catalog price for {found.model}"
    else:
        if price_usd < 0:
            raise EditRefused(f"a price cannot be negative ({price_usd:g} USD)")
        prices[part] = price_usd
        label = f"Price {found.model} at {price_usd:,.2f} USD"
    return EditResult(plan.model_copy(update={"price_overrides_usd": prices}), frozenset({Change.BOM}), label)


def set_outlet_assignment(
    plan: Plan,
    *,
    rack: str,
    device: str,
    psu_index: int,
    pdu: str | None,
    outlet_group: str | None,
    catalog: Catalog,
) -> EditResult:
    """Plug PSU ``psu_index`` of a device into an outlet group of a PDU in the same rack.

    With ``pdu=None`` the override is removed and the automatic assignment applies again.
    """
    the_rack = _rack(plan, rack)
    if the_rack.device(device) is None:
        raise EditRefused(f"rack {the_rack.name} has no device {device!r}")
    kept = [
        a for a in plan.outlet_assignments if not (a.rack == rack and a.device == device and a.psu_index == psu_index)
    ]
    if pdu is None:
        if len(kept) == len(plan.outlet_assignments):
            raise EditRefused(f"PSU {psu_index + 1} of {device} has no manual outlet assignment")
        return EditResult(
            plan.model_copy(update={"outlet_assignments": kept}),
            frozenset({Change.OUTLETS, Change.POWER}),
            f"Auto-assign outlet for {device} PSU {psu_index + 1}",
            racks=frozenset({rack}),
        )
    pdu_device = the_rack.device(pdu)
    pdu_part = catalog.get_as(pdu_device.part, Pdu) if pdu_device and pdu_device.part else None
    if pdu_part is None:
        raise EditRefused(f"{pdu!r} is not a PDU in rack {the_rack.name}")
    if not any(g.id == outlet_group for g in pdu_part.outlet_groups):
        raise EditRefused(f"{pdu_part.model} has no outlet group {outlet_group!r}")
    assignment = _build(
        OutletAssignment, rack=rack, device=device, psu_index=psu_index, pdu=pdu, outlet_group=outlet_group
    )
    return EditResult(
        plan.model_copy(update={"outlet_assignments": [*kept, assignment]}),
        frozenset({Change.OUTLETS, Change.POWER}),
        f"Plug {device} PSU {psu_index + 1} into {pdu_device.name if pdu_device else pdu}",
        racks=frozenset({rack}),
    )


def set_plan_notes(plan: Plan, *, name: str | None = None, notes: str | None = None) -> EditResult:
    update: dict[str, str] = {}
    if name is not None:
        if not name.strip():
            raise EditRefused("a plan name cannot be empty")
        update["name"] = name
    if notes is not None:
        update["notes"] = notes
    return EditResult(plan.model_copy(update=update), frozenset({Change.DOCUMENT}), "Edit plan details")


# --- helpers ---------------------------------------------------------------------------


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
