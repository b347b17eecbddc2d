"""Look up the catalog parts a machine is made of (a server brings board, case and PSUs)."""

from __future__ import annotations

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Board, Chassis, Gpu, Psu, Server
from rackplanner.core.plan.model import Machine, PartCount


def server_of(machine: Machine, catalog: Catalog) -> Server | None:
    return catalog.get_as(machine.server, Server) if machine.server else None


def board_of(machine: Machine, catalog: Catalog) -> Board | None:
    """The machine's own board, or the board of its server."""
    server = server_of(machine, catalog)
    board_id = server.board if server else machine.board
    return catalog.get_as(board_id, Board) if board_id else None


def chassis_of(machine: Machine, catalog: Catalog) -> Chassis | None:
    server = server_of(machine, catalog)
    chassis_id = server.chassis if server else machine.chassis
    return catalog.get_as(chassis_id, Chassis) if chassis_id else None


def psus_of(machine: Machine, catalog: Catalog) -> list[tuple[Psu, int]]:
    """The machine's PSUs with counts: its own list, else its server's stock PSUs."""
    counts: list[PartCount] = list(machine.psus)
    server = server_of(machine, catalog)
    if not counts and server is not None:
        counts = [PartCount(part=server.psu, count=server.psu_count)]
    found = []
    for item in counts:
        psu = catalog.get_as(item.part, Psu)
        if psu is not None:
            found.append((psu, item.count))
    return found


def gpu_count(machine: Machine, catalog: Catalog) -> int:
    """How many of the machine's cards are GPUs."""
    return sum(1 for c in machine.cards if isinstance(catalog.get(c.part), Gpu))
