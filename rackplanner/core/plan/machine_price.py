"""What a machine costs from the price book: every part it names, times its count, less what
a system's price already covers (its quote's ``includes``), as in the bill of materials."""

from __future__ import annotations

from collections.abc import Mapping

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan.model import Machine, UserPrice


def machine_parts(machine: Machine) -> list[tuple[str, int]]:
    """(part id, count) of everything bought for ``machine``."""
    parts: list[tuple[str, int]] = []
    for part in (machine.server, machine.board, machine.chassis):
        if part is not None:
            parts.append((part, 1))
    if machine.cpu is not None:
        parts.append((machine.cpu, machine.cpu_count))
    parts += [(pc.part, pc.count) for pc in (*machine.memory, *machine.psus, *machine.drives)]
    parts += [(card.part, 1) for card in machine.cards]
    parts += [(bridge.part, 1) for bridge in machine.bridges]
    return parts


def covered_by_server(
    machine: Machine, catalog: Catalog, user_prices: Mapping[str, UserPrice] | None = None, servers: int = 1
) -> dict[str, int]:
    """Parts (and how many) the price of ``machine``'s server already covers: its price book
    quote's ``includes`` (a DGX's GPUs), for ``servers`` of them. A user's own quote for the
    server says nothing of what it covers, so then nothing is."""
    if machine.server is None or machine.server in (user_prices or {}):
        return {}
    quote = catalog.price_of(machine.server)
    return {part: n * servers for part, n in quote.includes.items()} if quote else {}


def machine_price(
    catalog: Catalog,
    machine: Machine,
    allow_used: bool = True,
    user_prices: Mapping[str, UserPrice] | None = None,
) -> tuple[float, list[str]]:
    """(total in USD of the priced parts, ids of parts without a usable price); the plan's
    own prices (``user_prices``) come before the price book's, as in the bill of materials."""
    total = 0.0
    unpriced: list[str] = []
    covered = covered_by_server(machine, catalog, user_prices)
    for part, count in machine_parts(machine):
        free = min(count, covered.get(part, 0))
        covered[part] = covered.get(part, 0) - free
        count -= free
        if count == 0:
            continue
        mine = (user_prices or {}).get(part)
        if mine is not None:
            total += mine.price_usd * count
            continue
        quote = catalog.price_of(part)
        if quote is None or (quote.kind == "used" and not allow_used):
            unpriced.append(part)
            continue
        total += quote.price_usd * count
    return total, unpriced
