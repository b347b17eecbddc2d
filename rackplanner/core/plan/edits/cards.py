"""Cards in slots: placing, moving, removing, power limits, NVLink bridges, networks."""

from __future__ import annotations

from typing import Literal

from pydantic import ValidationError

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import (
    Drive,
    Gpu,
    Nic,
    NvlinkBridge,
)
from rackplanner.core.catalog.slot_rules import card_slot_problem
from rackplanner.core.errors import describe_validation_error
from rackplanner.core.plan.edits.base import (
    _MACHINE_PARTS,
    Change,
    EditRefused,
    EditResult,
    _board,
    _machine,
    _need,
    _replace_machine,
)
from rackplanner.core.plan.model import (
    BridgeLink,
    PlacedCard,
    Plan,
)


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
    problem = card_slot_problem(card_part, target)
    if problem is not None:
        raise EditRefused(problem)
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
