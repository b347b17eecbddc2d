"""Where a card may go: for each slot of a machine, whether dropping a part there is valid and why not.

A drop is valid when the edit itself is allowed and it adds no new physical error finding
(a card that would cover an occupied slot, a card too long for the case, more cards than
the case has slots). The same rules as the findings decide, so the highlight during a drag
never disagrees with what the user sees after the drop.
"""

from __future__ import annotations

from pydantic import BaseModel

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.machine.fit import Finding, check_machine
from rackplanner.core.machine.topology import derive_topology
from rackplanner.core.plan import edits
from rackplanner.core.plan.edits import EditRefused
from rackplanner.core.plan.model import Plan
from rackplanner.core.plan.resolve import board_of

# Findings that make a slot unusable for the card; the others (PSU budget, wall circuit...)
# are about the whole build and show as findings after the drop instead of refusing it.
PHYSICAL_CODES = frozenset({"slot-covered", "too-long", "too-many-slots", "layout"})


class SlotVerdict(BaseModel):
    slot: str
    ok: bool
    reason: str | None = None
    # Non-blocking notes the drop would add (e.g. "runs at x8"): shown, not refused.
    notes: list[str] = []


def slot_verdicts(
    plan: Plan, machine_id: str, part_id: str, catalog: Catalog, *, from_slot: str | None = None
) -> dict[str, SlotVerdict]:
    """A verdict for every slot of the machine's board for placing ``part_id`` (or moving ``from_slot``)."""
    machine = plan.machine(machine_id)
    board = board_of(machine, catalog) if machine else None
    if machine is None or board is None:
        return {}
    base_plan = plan
    if from_slot is not None:
        base_plan = edits.remove_card(plan, machine=machine_id, slot=from_slot).plan
    base_machine = base_plan.machine(machine_id)
    assert base_machine is not None
    before = _error_keys(check_machine(base_machine, catalog, derive_topology(base_machine, catalog)))
    verdicts: dict[str, SlotVerdict] = {}
    for slot in board.slots:
        if from_slot is not None and slot.id == from_slot:
            verdicts[slot.id] = SlotVerdict(slot=slot.id, ok=False, reason="the card is already here")
            continue
        try:
            result = edits.place_card(base_plan, machine=machine_id, slot=slot.id, part=part_id, catalog=catalog)
        except EditRefused as exc:
            verdicts[slot.id] = SlotVerdict(slot=slot.id, ok=False, reason=str(exc))
            continue
        placed = result.plan.machine(machine_id)
        assert placed is not None
        findings = check_machine(placed, catalog, derive_topology(placed, catalog))
        new_errors = [
            f for f in findings if f.severity == "error" and f.code in PHYSICAL_CODES and _key(f) not in before
        ]
        notes = [f.message for f in findings if f.severity != "error" and slot.id in f.slots]
        if new_errors:
            verdicts[slot.id] = SlotVerdict(slot=slot.id, ok=False, reason=new_errors[0].message, notes=notes)
        else:
            verdicts[slot.id] = SlotVerdict(slot=slot.id, ok=True, notes=notes)
    return verdicts


def _key(finding: Finding) -> tuple[str, str]:
    return finding.code, finding.message


def _error_keys(findings: list[Finding]) -> set[tuple[str, str]]:
    return {_key(f) for f in findings if f.severity == "error"}
