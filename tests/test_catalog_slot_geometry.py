"""Slot geometry from the catalog: a wide card covers its neighbours on every board that gives positions."""

from __future__ import annotations

import pytest

from rackplanner.core.catalog.loading import Catalog, load_catalog
from rackplanner.core.catalog.parts import Board, Server
from rackplanner.core.machine.fit import check_machine
from rackplanner.core.machine.topology import derive_topology
from rackplanner.core.plan import edits
from rackplanner.core.plan.model import Plan

_CATALOG = load_catalog(include_user=False)


def _close_x16_pairs(board: Board) -> list[tuple[str, str]]:
    """Pairs of full-size x16 slots whose positions are one or two openings apart."""
    slots = sorted(
        (s for s in board.slots if s.kind == "pcie" and s.physical_lanes == 16 and s.position is not None),
        key=lambda s: s.position or 0,
    )
    return [
        (a.id, b.id)
        for i, a in enumerate(slots)
        for b in slots[i + 1 :]
        if 0 < (b.position or 0) - (a.position or 0) < 3
    ]


BOARDS_WITH_CLOSE_SLOTS = [b.id for b in _CATALOG.of_kind(Board) if _close_x16_pairs(b)]


def _on_board(board_id: str, catalog: Catalog) -> tuple[Plan, str]:
    plan = edits.add_machine(Plan(name="geometry"), name="rig", catalog=catalog, board=board_id).plan
    return plan, plan.machines[0].id


@pytest.mark.parametrize("board_id", BOARDS_WITH_CLOSE_SLOTS)
def test_a_three_slot_card_blocks_the_next_slot(board_id: str, catalog: Catalog) -> None:
    board = catalog.get_as(board_id, Board)
    assert board is not None
    for upper, lower in _close_x16_pairs(board):
        # The RTX 3090 Founders Edition covers three slots (Tom's Hardware review, catalog gpu.yaml).
        plan, machine = _on_board(board_id, catalog)
        plan = edits.place_card(plan, machine=machine, slot=upper, part="rtx-3090", catalog=catalog).plan
        found = check_machine(plan.machines[0], catalog, derive_topology(plan.machines[0], catalog))
        blocked = [f for f in found if f.code == "slot-blocked" and lower in f.slots]
        assert blocked, (board_id, upper, lower)
        # With a card in the lower slot too, the clash is an error naming both cards.
        plan = edits.place_card(plan, machine=machine, slot=lower, part="rtx-a4000", catalog=catalog).plan
        found = check_machine(plan.machines[0], catalog, derive_topology(plan.machines[0], catalog))
        covered = [f for f in found if f.code == "slot-covered" and f.slots == [upper, lower]]
        assert covered and covered[0].severity == "error", (board_id, upper, lower)


def test_boards_with_close_slots_are_checked() -> None:
    # Guards the parametrisation above against silently shrinking: the boards whose slot positions
    # are sourced (catalog board.yaml) and have x16 slots one or two openings apart.
    assert {
        "pro-ws-wrx80e-sage-se-wifi",
        "mpg-x870e-carbon-wifi",
        "proart-b550-creator",
        "z890-aorus-master",
        "pro-ws-wrx90e-sage-se",
    } <= set(BOARDS_WITH_CLOSE_SLOTS)


def test_the_wrx90e_slots_sit_one_per_opening_with_the_x8_slot_sixth(catalog: Catalog) -> None:
    # Owners' WRX90E-SAGE SE builds (catalog board.yaml): PCIEX16(G5)_n in opening n; two
    # three-slot cards in _3 and _7 leave one empty slot-width between them; _6 is the x8 slot.
    board = catalog.get_as("pro-ws-wrx90e-sage-se", Board)
    assert board is not None
    pcie = sorted((s for s in board.slots if s.kind == "pcie"), key=lambda s: s.position or 0)
    assert [s.position for s in pcie] == [0, 1, 2, 3, 4, 5, 6]
    assert [s.electrical_lanes for s in pcie] == [16, 16, 16, 16, 16, 8, 16]
    plan, machine = _on_board("pro-ws-wrx90e-sage-se", catalog)
    for slot in ("x16-c", "x16-f"):  # PCIEX16(G5)_3 and _7, as the owner built it
        plan = edits.place_card(plan, machine=machine, slot=slot, part="rtx-3090", catalog=catalog).plan
    found = check_machine(plan.machines[0], catalog, derive_topology(plan.machines[0], catalog))
    assert not [f for f in found if f.code == "slot-covered"]
    # The card in _3 covers _4 and _5 (three slots wide), not _6 or _7.
    blocked = {f.slots[0] for f in found if f.code == "slot-blocked"}
    assert blocked == {"x16-d", "x16-e"}


def test_a_three_slot_card_does_not_fit_a_4029gp_bay(catalog: Catalog) -> None:
    # An SYS-4029GP-TRT2 owner: cards must be "only two slots wide"; the RTX 3090 FE covers three.
    plan = edits.add_machine(Plan(name="bays"), name="gpu", catalog=catalog, server="sys-4029gp-trt2").plan
    machine = plan.machines[0].id
    plan = edits.place_card(plan, machine=machine, slot="gpu1", part="rtx-3090", catalog=catalog).plan
    found = check_machine(plan.machines[0], catalog, derive_topology(plan.machines[0], catalog))
    assert [f.code for f in found if f.severity == "error"] == ["bay-too-narrow"]


@pytest.mark.parametrize("board", ["x10drg-o-plus-cpu", "mz52-g40-g482"])
def test_two_slot_server_cards_fit_the_4028gr_and_g482_bays_and_a_3090_does_not(catalog: Catalog, board: str) -> None:
    # Owners run two-slot cards in every bay: seven P100 PCIe / eight CMP 170HX in an
    # SYS-4028GR-TRT2, eight L40S / eight A100 PCIe in a G482-Z54 (catalog board.yaml sources).
    plan, machine = _on_board(board, catalog)
    plan = edits.place_card(plan, machine=machine, slot="gpu1", part="l40s", catalog=catalog).plan
    plan = edits.place_card(plan, machine=machine, slot="gpu2", part="tesla-p100-16gb-pcie", catalog=catalog).plan
    found = check_machine(plan.machines[0], catalog, derive_topology(plan.machines[0], catalog))
    assert not [f for f in found if f.code in ("bay-too-narrow", "slot-covered", "slot-blocked")]
    # The RTX 3090 Founders Edition is three slots wide: the bay takes two.
    plan = edits.place_card(plan, machine=machine, slot="gpu3", part="rtx-3090", catalog=catalog).plan
    found = check_machine(plan.machines[0], catalog, derive_topology(plan.machines[0], catalog))
    assert [f.slots for f in found if f.code == "bay-too-narrow"] == [["gpu3"]]


def test_every_server_gpu_slot_has_a_bay_width_or_says_why_not() -> None:
    for server in _CATALOG.of_kind(Server):
        board = _CATALOG.get_as(server.board, Board)
        assert board is not None
        gpu_slots = [s for s in board.slots if s.kind == "pcie" and "gpu" in f"{s.id} {s.label}".lower()]
        widths = {s.bay_width_slots for s in gpu_slots}
        assert None not in widths or "bay width" in (board.notes or "").lower(), server.id
