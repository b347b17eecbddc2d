"""The CPU against its board: socket, count and family, and what an empty socket switches off.

A board with more sockets than CPUs still boots, but the PCIe lanes of an empty socket
come from that CPU: its root complexes, the slots under them and the cards in those slots
are not there for the operating system.
"""

from __future__ import annotations

from collections.abc import Callable

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Board, Cpu
from rackplanner.core.plan.model import Machine

Add = Callable[..., None]


def populated_sockets(machine: Machine, board: Board) -> int:
    """Sockets holding a CPU: the machine's CPU count, at most the board's sockets."""
    return min(machine.cpu_count, board.sockets)


def dead_slots(machine: Machine, board: Board) -> dict[str, int]:
    """Slots whose root complex belongs to an empty socket: {slot id: socket (0-based)}."""
    if machine.cpu is None or machine.cpu_count >= board.sockets:
        return {}
    sockets = {rc.id: rc.socket for rc in board.root_complexes}
    switches = {sw.id: sw.upstream for sw in board.switches}
    chipset = board.chipset
    live = populated_sockets(machine, board)
    dead: dict[str, int] = {}
    for slot in board.slots:
        node = slot.parent
        while node in switches:
            node = switches[node]
        socket = chipset.socket if chipset is not None and node == chipset.id else sockets.get(node, 0)
        if socket >= live:
            dead[slot.id] = socket
    return dead


def check_cpu(machine: Machine, board: Board, catalog: Catalog, add: Add) -> None:
    """Socket, count and family of the machine's CPU against the board, and the cards an empty socket cuts off."""
    if machine.cpu is None:
        add("warning", "no-cpu", f"{machine.name} has no CPU yet: its sockets, lanes and memory are not checked.")
        return
    cpu = catalog.get_as(machine.cpu, Cpu)
    if cpu is None:
        return  # the plan loader names an unknown part
    if cpu.socket != board.cpu_socket:
        add(
            "error",
            "cpu-socket",
            f"{cpu.model} is a {cpu.socket} CPU; {board.model} has {board.cpu_socket} sockets.",
            parts=[cpu.id, board.id],
        )
        return
    if machine.cpu_count > board.sockets:
        add(
            "error",
            "cpu-count",
            f"{machine.cpu_count} CPUs on {board.model}, which has {board.sockets} socket"
            f"{'s' if board.sockets > 1 else ''} ({board.cpu_socket}).",
            parts=[cpu.id, board.id],
        )
    if machine.cpu_count > cpu.max_sockets:
        add(
            "error",
            "cpu-count",
            f"{cpu.model} runs in at most {cpu.max_sockets} socket{'s' if cpu.max_sockets > 1 else ''}; "
            f"the machine has {machine.cpu_count}.",
            parts=[cpu.id],
        )
    if board.cpu_families and cpu.family is not None and cpu.family not in board.cpu_families:
        add(
            "error",
            "cpu-family",
            f"{board.model} ({board.cpu_socket}) supports {', '.join(board.cpu_families)}; "
            f"{cpu.model} is {cpu.family}.",
            parts=[cpu.id, board.id],
        )
    elif not board.cpu_families or cpu.family is None:
        add(
            "info",
            "cpu-family-unknown",
            f"The catalog does not say which {board.cpu_socket} CPU families {board.model} supports, "
            f"so {cpu.model} is checked by socket only.",
            parts=[cpu.id, board.id],
        )
    _empty_sockets(machine, board, catalog, add)


def _empty_sockets(machine: Machine, board: Board, catalog: Catalog, add: Add) -> None:
    dead = dead_slots(machine, board)
    if not dead:
        return
    empty = sorted(set(dead.values()))
    # Sockets are named CPU0, CPU1 as the board drawing and the block diagram name them.
    names = " and ".join(f"CPU{s}" for s in empty)
    cut = [card for card in machine.cards if card.slot in dead]
    if not cut:
        add(
            "warning",
            "empty-socket",
            f"{names} of {board.model} is empty: the {len(dead)} slots on its lanes are switched off.",
            slots=sorted(dead),
        )
        return
    for card in cut:
        part = catalog.get(card.part)
        model = part.model if part is not None else card.part
        add(
            "error",
            "empty-socket",
            f"{model} in {board.slot_label(card.slot)} hangs off CPU{dead[card.slot]}, whose socket is empty: "
            "the card is not powered up or seen. Add the CPU or move the card.",
            slots=[card.slot],
            parts=[card.part],
        )
