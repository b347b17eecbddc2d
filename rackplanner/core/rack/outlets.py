"""The outlet balancer: which PDU outlet group each power cord uses.

PSU 1 goes to the A-feed PDU, PSU 2 to the B-feed PDU, and so on, each to an outlet group of
the right type (a C14 inlet to a C13 outlet, C20 to C19) that keeps its PDU's lines most even;
a plan can pin any cord to an outlet group.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from weakref import WeakKeyDictionary

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import OutletGroup, Pdu
from rackplanner.core.findings import RackFindings
from rackplanner.core.plan.model import Feed, MountedDevice, Plan, Rack
from rackplanner.core.rack import electrical
from rackplanner.core.rack.power_model import Consumer, CordAssignment, outlets_accepting, short_connector


@dataclass
class PduState:
    device: MountedDevice
    part: Pdu
    feed: Feed | None
    free: dict[str, Counter[str]] = field(default_factory=dict)  # group id -> outlet type -> free
    va_by_group: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    # Amps per branch line so far, kept up to date as cords are plugged (for choosing the next outlet).
    branch_a: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    total_va: float = 0.0

    @property
    def side(self) -> str | None:
        return self.feed.side if self.feed else None

    def branch_volts(self, line: str) -> float:
        """Voltage across an outlet group on ``line`` (line to line, or line to neutral)."""
        return electrical.branch_voltage_v(self.part.wiring, pdu_voltage(self), line)

    def group(self, group_id: str) -> OutletGroup | None:
        return next((g for g in self.part.outlet_groups if g.id == group_id), None)


def pdu_states(plan: Plan, rack: Rack, catalog: Catalog, found: RackFindings) -> list[PduState]:
    feeds = {f.id: f for f in plan.feeds}
    states = []
    for device in rack.devices:
        part = catalog.get_as(device.part, Pdu) if device.part else None
        if part is None:
            continue
        feed = feeds.get(device.feed) if device.feed else None
        if feed is None:
            found.add(
                "warning",
                "pdu-no-feed",
                f"{device.name} is not plugged into a feed; its outlets carry nothing.",
                [device.id],
            )
        elif feed.phases != part.phases or abs(feed.voltage_v - part.voltage_v) > 0.1 * part.voltage_v:
            found.add(
                "error",
                "feed-mismatch",
                f"{device.name} ({part.model}) needs {part.phases}-phase {part.voltage_v:g} V; "
                f"{feed.name} is {feed.phases}-phase {feed.voltage_v:g} V.",
                [device.id],
            )
        if not part.outlet_groups:
            found.add(
                "warning",
                "pdu-outlets-unknown",
                f"{device.name}: the catalog does not know {part.model}'s outlets, so nothing can be plugged into it.",
                [device.id],
            )
        state = PduState(device=device, part=part, feed=feed)
        state.free = {g.id: _counter(g.outlets) for g in part.outlet_groups}
        states.append(state)
    sides = {s.side for s in states if s.side}
    if states and len(sides) < 2:
        found.add(
            "warning",
            "single-feed",
            "Every PDU is on the same feed (or none): losing that feed loses the rack.",
            [s.device.id for s in states],
        )
    return states


def _counter(counts: Mapping[Any, int]) -> Counter[str]:
    """A Counter of ``counts`` (built without Counter's slow check for a mapping argument)."""
    found: Counter[str] = Counter()
    dict.update(found, counts)
    return found


# --- outlet assignment -----------------------------------------------------------------


def assign_cords(
    plan: Plan, rack: Rack, pdus: list[PduState], consumers: list[Consumer], found: RackFindings, catalog: Catalog
) -> list[CordAssignment]:
    by_id = {p.device.id: p for p in pdus}
    cords: list[CordAssignment] = []
    taken: set[tuple[str, int]] = set()
    consumer_by_id = {c.device: c for c in consumers}
    for override in plan.outlet_assignments:
        if override.rack != rack.id:
            continue
        consumer = consumer_by_id.get(override.device)
        pdu = by_id.get(override.pdu)
        where = f"{override.device} PSU {override.psu_index + 1}"
        if consumer is None or override.psu_index >= len(consumer.inlets):
            found.add(
                "warning",
                "stale-assignment",
                f"Outlet assignment for {where}: no such device or cord.",
                [override.device],
            )
            continue
        group = pdu.group(override.outlet_group) if pdu else None
        if pdu is None or group is None:
            found.add(
                "warning",
                "stale-assignment",
                f"Outlet assignment for {where}: {override.pdu} has no outlet group {override.outlet_group}; "
                "assigned automatically instead.",
                [override.device],
            )
            continue
        wanted = consumer.outlet_types[override.psu_index]
        outlet = _free_outlet(pdu, group, wanted)
        if outlet is None:
            found.add(
                "error",
                "outlet-unavailable",
                f"{where} is set to {pdu.device.name} {group.id}, which has no free {short_connector(wanted)} outlet; "
                "assigned automatically instead.",
                [override.device, pdu.device.id],
            )
            continue
        cords.append(_plug(pdu, group, consumer, override.psu_index, outlet, manual=True))
        taken.add((consumer.device, override.psu_index))
    # Heaviest first, so the big loads spread over the lines before small ones fill gaps.
    ordered = sorted(consumers, key=lambda c: (-c.wall_va, c.device))
    # Racks alike in what they draw and the PDUs they hold get alike choices, whatever their devices
    # are called: the search is done once and replayed (a cluster's hundreds of identical racks).
    key = _choice_key(ordered, pdus) if not taken else None
    memo = _CHOICES.setdefault(catalog, {})
    replay = memo.get(key) if key is not None else None
    made: list[tuple[int, str, str] | None] = []
    step = 0
    for consumer in ordered:
        for index, (inlet, outlet) in enumerate(zip(consumer.inlets, consumer.outlet_types, strict=True)):
            if (consumer.device, index) in taken:
                continue
            if replay is not None:
                known = replay[step]
                choice = None if known is None else _replayed(pdus, known)
            else:
                choice = _best_outlet(pdus, consumer, index, outlet)
                made.append(None if choice is None else (pdus.index(choice[0]), choice[1].id, choice[2]))
            step += 1
            if choice is None:
                found.add(
                    "error",
                    "no-free-outlet",
                    f"{consumer.name} PSU {index + 1} ({short_connector(inlet)} inlet) finds no free "
                    f"{short_connector(outlet)} outlet "
                    "on a PDU in this rack.",
                    [consumer.device],
                )
                continue
            pdu, group, used = choice
            cords.append(_plug(pdu, group, consumer, index, used, manual=False))
    if key is not None and replay is None:
        memo[key] = made
        if len(memo) > _CHOICES_KEPT:
            memo.pop(next(iter(memo)))
    cords.sort(key=lambda c: (c.device, c.psu_index))
    return cords


# Each cord's choice (PDU by position, outlet group, outlet type) by the shape of the rack's load,
# per catalog (a part id means another part in another catalog).
_CHOICES: WeakKeyDictionary[Catalog, dict[tuple[object, ...], list[tuple[int, str, str] | None]]] = WeakKeyDictionary()
_CHOICES_KEPT = 512


def _choice_key(ordered: list[Consumer], pdus: list[PduState]) -> tuple[object, ...]:
    """What the balancer's choices depend on: each consumer's load and cords in order, each PDU's
    part, feed side and voltage (all PDUs start empty)."""
    loads = tuple((c.wall_va, tuple(c.inlets)) for c in ordered)
    sockets = tuple((p.part.id, p.side, pdu_voltage(p), p.feed.breaker_a if p.feed else None) for p in pdus)
    return loads, sockets


def _replayed(pdus: list[PduState], known: tuple[int, str, str]) -> tuple[PduState, OutletGroup, str] | None:
    pdu = pdus[known[0]]
    group = pdu.group(known[1])
    return None if group is None else (pdu, group, known[2])


def _plug(
    pdu: PduState, group: OutletGroup, consumer: Consumer, index: int, outlet: str, *, manual: bool
) -> CordAssignment:
    pdu.free[group.id][outlet] -= 1
    share_va = consumer.wall_va / len(consumer.inlets)
    pdu.va_by_group[group.id] += share_va
    pdu.branch_a[group.line] += share_va / pdu.branch_volts(group.line)
    pdu.total_va += share_va
    return CordAssignment(
        device=consumer.device,
        device_name=consumer.name,
        psu_index=index,
        pdu=pdu.device.id,
        outlet_group=group.id,
        outlet_type=outlet,
        line=group.line,
        manual=manual,
    )


def _free_outlet(pdu: PduState, group: OutletGroup, outlet: str) -> str | None:
    """The outlet type in ``group`` a cord for ``outlet`` uses: its own type if free, else a combination one."""
    return next((kind for kind in outlets_accepting(outlet) if pdu.free[group.id][kind] > 0), None)


def _best_outlet(
    pdus: list[PduState], consumer: Consumer, index: int, outlet: str
) -> tuple[PduState, OutletGroup, str] | None:
    """PSU 1 to side A, PSU 2 to side B, ...; on that side, the group leaving the lines most even.

    Among groups that leave the lines equally loaded (several breakers on one line), the one
    whose breaker is least loaded after the cord wins, so cords spread over the breakers too.
    """
    sides = sorted({p.side for p in pdus if p.side})
    wanted = sides[index % len(sides)] if sides else None
    if len(consumer.inlets) == 1 and sides:
        # A single cord goes down with its feed either way; put it where the load is lighter.
        wanted = min(sides, key=lambda side: sum(p.total_va for p in pdus if p.side == side))
    ordered = [p for p in pdus if p.side == wanted] + [p for p in pdus if p.side != wanted]
    share_va = consumer.wall_va / len(consumer.inlets)
    # Groups on one line leave the PDU's lines alike: one figure per (PDU, line), not per group.
    after: dict[int, dict[str, float]] = {}
    for preference in (ordered[: sum(1 for p in pdus if p.side == wanted)], ordered):
        best: tuple[tuple[float, float, int, int], PduState, OutletGroup, str] | None = None
        for order, pdu in enumerate(preference):
            for group in pdu.part.outlet_groups:
                used = _free_outlet(pdu, group, outlet)
                if used is None:
                    continue
                if id(pdu) not in after:
                    after[id(pdu)] = _max_line_current_after(pdu, share_va)
                line_a = after[id(pdu)][group.line]
                group_va = pdu.va_by_group.get(group.id, 0.0) + share_va
                breaker_share = group_va / group.breaker_a if group.breaker_a else group_va
                # Combination outlets last among equals: they are kept for the cords only they can take.
                score = (line_a, breaker_share, int(used != outlet), order)
                if best is None or score < best[0]:
                    best = (score, pdu, group, used)
        if best is not None:
            return best[1], best[2], best[3]
    return None


def _max_line_current_after(pdu: PduState, extra_va: float) -> dict[str, float]:
    """For each branch line of the PDU: its highest line current with ``extra_va`` more on that branch."""
    branches = pdu.branch_a
    highest: dict[str, float] = {}
    for line in {g.line for g in pdu.part.outlet_groups}:
        trial = dict(branches)
        trial[line] = trial.get(line, 0.0) + extra_va / pdu.branch_volts(line)
        # Rounded so that equal loads compare equal and the breaker decides.
        highest[line] = round(max(electrical.line_currents_a(pdu.part.wiring, trial).values(), default=0.0), 9)
    return highest


def branch_currents(pdu: PduState, va_by_group: dict[str, float]) -> dict[str, float]:
    """Amps drawn on each branch line, from the VA on each outlet group."""
    branches: dict[str, float] = defaultdict(float)
    for group in pdu.part.outlet_groups:
        branches[group.line] += va_by_group.get(group.id, 0.0) / pdu.branch_volts(group.line)
    return branches


def pdu_voltage(pdu: PduState) -> float:
    return pdu.feed.voltage_v if pdu.feed else pdu.part.voltage_v
