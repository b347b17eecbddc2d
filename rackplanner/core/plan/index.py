"""Lookups over a whole plan, built once per plan object: racks by row, the rack each machine is in."""

from __future__ import annotations

from dataclasses import dataclass

from rackplanner.core.plan.model import Plan


@dataclass(frozen=True)
class PlanIndex:
    racks_by_row: dict[str, list[str]]  # row id -> rack ids in plan order
    rack_of_machine: dict[str, str]  # machine id -> the rack it is mounted in
    row_of_rack: dict[str, str]  # rack id -> its row id


# The last few plans indexed: views ask once per edit each, so all of them share one index.
_KEPT: list[tuple[Plan, PlanIndex]] = []
_KEEP = 4


def plan_index(plan: Plan) -> PlanIndex:
    """The plan's index (built on first use; plans are immutable, so it never goes stale)."""
    for kept, index in _KEPT:
        if kept is plan:
            return index
    racks_by_row: dict[str, list[str]] = {}
    rack_of_machine: dict[str, str] = {}
    for rack in plan.racks:
        racks_by_row.setdefault(rack.row, []).append(rack.id)
        for device in rack.devices:
            if device.machine:
                rack_of_machine[device.machine] = rack.id
    index = PlanIndex(racks_by_row, rack_of_machine, {r.id: r.row for r in plan.racks})
    _KEPT.insert(0, (plan, index))
    del _KEPT[_KEEP:]
    return index
