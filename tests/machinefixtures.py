"""Plans of one machine built through the edits, for topology and fit tests."""

from __future__ import annotations

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan import edits
from rackplanner.core.plan.model import Plan


def build(
    catalog: Catalog,
    *,
    board: str | None = None,
    server: str | None = None,
    cards: dict[str, str],
    cpu: str | None = None,
    cpu_count: int = 1,
) -> Plan:
    """A plan with one machine "m" on ``board`` or ``server``, with ``cards`` placed by slot."""
    plan = edits.add_machine(
        Plan(name="t"), name="m", board=board, server=server, cpu=cpu, cpu_count=cpu_count, catalog=catalog
    ).plan
    for slot, part in cards.items():
        plan = edits.place_card(plan, machine="m", slot=slot, part=part, catalog=catalog).plan
    return plan
