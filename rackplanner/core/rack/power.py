"""Power of one rack in each scenario: normal operation, feed A failed, feed B failed.

Each device's load is shared by its live cords; when a feed fails the surviving PDUs carry
everything. Loads are the maximum computed draw, the figure a breaker must hold. Every line
and breaker is compared with its derated limit (``electrical``), and the redundancy of each
device's cords is checked.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.findings import RackFindings
from rackplanner.core.machine.power import BTU_PER_HR_PER_W, POWER_FACTOR
from rackplanner.core.plan.cache import LayeredCache, devices_key, identity_key
from rackplanner.core.plan.model import Plan, Rack, rack_inputs
from rackplanner.core.rack import electrical
from rackplanner.core.rack.consumers import rack_consumer
from rackplanner.core.rack.outlets import PduState, assign_cords, branch_currents, pdu_states, pdu_voltage
from rackplanner.core.rack.power_model import (
    FAILED_SIDE,
    SCENARIO_LABELS,
    SCENARIOS,
    BreakerLoad,
    Consumer,
    CordAssignment,
    GroupOutlets,
    LineLoad,
    OutletUse,
    PduLoad,
    RackPower,
    ScenarioResult,
)

_CACHE: LayeredCache[RackPower] = LayeredCache()
_POWER_FIELDS = ("id", "name", "machine", "part", "feed")


def rack_power(plan: Plan, rack_id: str, catalog: Catalog) -> RackPower:
    """Outlet assignment and per-scenario loads of one rack (cached by what the rack depends on)."""
    inputs = rack_inputs(plan, rack_id)
    rack = inputs.rack
    related = identity_key(*inputs.objects())
    return _CACHE.get(
        catalog,
        (identity_key(rack), related),
        # Where a device sits does not change its cords: moving one within the rack costs nothing here.
        lambda: (devices_key(rack, *_POWER_FIELDS), related),
        lambda: _rack_power(plan, rack, catalog),
    )


def _rack_power(plan: Plan, rack: Rack, catalog: Catalog) -> RackPower:
    found = RackFindings(rack.id)

    pdus = pdu_states(plan, rack, catalog, found)
    consumers = [c for d in rack.devices if (c := rack_consumer(d, plan, catalog)) is not None]
    for consumer in consumers:
        if not consumer.power_known:
            found.add(
                "warning",
                "power-unknown",
                f"{consumer.name}: the catalog gives no power draw, so it counts as 0 W; add its figure.",
                [consumer.device],
            )
        if consumer.unfed_inlets:
            found.add(
                "warning",
                "inlet-not-pdu",
                f"{consumer.name}: its {', '.join(sorted(set(consumer.unfed_inlets)))} power input is not fed from "
                "a PDU outlet here, so its draw is not on any PDU and its feed redundancy is not checked.",
                [consumer.device],
            )
        if consumer.inlet_assumed:
            found.add(
                "info",
                "inlet-unknown",
                f"{consumer.name}: the catalog does not give its power inlet; C14 (C13 outlets) assumed.",
                [consumer.device],
            )
    cords = assign_cords(plan, rack, pdus, consumers, found, catalog)
    scenarios = [_scenario(name, pdus, consumers, cords, found) for name in SCENARIOS if _applies(name, pdus)]
    _redundancy_findings(consumers, cords, pdus, found)
    load_w = sum(c.wall_w for c in consumers)
    load_va = sum(c.wall_va for c in consumers)
    return RackPower(
        rack=rack.id,
        name=rack.name,
        consumers=consumers,
        cords=cords,
        scenarios=scenarios,
        outlets=_outlet_use(pdus),
        group_outlets=_group_outlets(pdus),
        load_w=load_w,
        load_va=load_va,
        heat_btu_hr=load_w * BTU_PER_HR_PER_W,
        power_factor=POWER_FACTOR,
        findings=found.sorted(),
    )


# --- scenarios -------------------------------------------------------------------------


def _applies(scenario: str, pdus: list[PduState]) -> bool:
    """Normal operation always; a feed's failure only where a PDU is on that feed."""
    side = FAILED_SIDE.get(scenario)
    return side is None or any(p.side == side for p in pdus)


def _scenario(
    name: str,
    pdus: list[PduState],
    consumers: list[Consumer],
    cords: list[CordAssignment],
    found: RackFindings,
) -> ScenarioResult:
    failed = FAILED_SIDE.get(name)
    alive = {p.device.id: p.feed is not None and p.side != failed for p in pdus}
    va_by_pdu_group: dict[str, dict[str, float]] = {p.device.id: defaultdict(float) for p in pdus}
    unpowered = []
    cords_of: dict[str, list[CordAssignment]] = defaultdict(list)
    for cord in cords:
        cords_of[cord.device].append(cord)
    for consumer in consumers:
        if not consumer.inlets:
            continue
        live = [c for c in cords_of[consumer.device] if alive.get(c.pdu, False)]
        if not live:
            unpowered.append(consumer.device)
            if name == "normal" or cords_of[consumer.device]:
                found.add(
                    "error",
                    "unpowered",
                    f"{consumer.name} has no live power cord" + (f" when feed {failed} fails." if failed else "."),
                    [consumer.device],
                    name,
                )
            continue
        for cord in live:
            va_by_pdu_group[cord.pdu][cord.outlet_group] += consumer.wall_va / len(live)
    loads = [_pdu_load(p, alive[p.device.id], va_by_pdu_group[p.device.id], name, found) for p in pdus]
    powered = [c for c in consumers if c.device not in unpowered]
    return ScenarioResult(
        scenario=name,
        label=SCENARIO_LABELS[name],
        pdus=loads,
        unpowered=unpowered,
        load_w=sum(c.wall_w for c in powered),
        load_va=sum(c.wall_va for c in powered),
    )


def _pdu_load(pdu: PduState, alive: bool, va_by_group: dict[str, float], scenario: str, found: RackFindings) -> PduLoad:
    part = pdu.part
    voltage = pdu_voltage(pdu)
    input_a = part.input_current_a
    basis = f"PDU input {input_a:g} A"
    if pdu.feed is not None and pdu.feed.breaker_a < input_a:
        input_a = pdu.feed.breaker_a
        basis = f"{pdu.feed.name} breaker {input_a:g} A"
    limit_a = input_a * part.derating
    basis += f" x {part.derating:g} derating = {limit_a:g} A"
    branches = branch_currents(pdu, va_by_group)
    currents = electrical.line_currents_a(part.wiring, branches)
    failed = FAILED_SIDE.get(scenario)
    label = f"with feed {failed} failed" if failed else "in normal operation"
    lines = []
    for line, amps in currents.items():
        over = amps > limit_a + 1e-9
        lines.append(LineLoad(line=line, current_a=amps, limit_a=limit_a, percent=amps / limit_a * 100, over=over))
        if over:
            found.add(
                "error",
                "line-over-limit",
                f"{pdu.device.name} line {line} carries {amps:.1f} A {label}, over its derated "
                f"limit of {limit_a:.1f} A ({basis}).",
                [pdu.device.id],
                scenario,
            )
    breakers = []
    for group in part.outlet_groups:
        amps = va_by_group.get(group.id, 0.0) / pdu.branch_volts(group.line)
        breaker_limit = group.breaker_a * part.derating if group.breaker_a else None
        over = breaker_limit is not None and amps > breaker_limit + 1e-9
        breakers.append(
            BreakerLoad(
                outlet_group=group.id,
                line=group.line,
                current_a=amps,
                breaker_a=group.breaker_a,
                limit_a=breaker_limit,
                percent=amps / breaker_limit * 100 if breaker_limit else None,
                over=over,
            )
        )
        if over and breaker_limit is not None:
            found.add(
                "error",
                "breaker-over-limit",
                f"{pdu.device.name} outlet group {group.id} ({group.line}) draws {amps:.1f} A {label}, "
                f"over its {group.breaker_a:g} A breaker's derated {breaker_limit:.1f} A.",
                [pdu.device.id],
                scenario,
            )
    load_va = sum(va_by_group.values())
    return PduLoad(
        pdu=pdu.device.id,
        name=pdu.device.name,
        part=part.id,
        feed=pdu.feed.id if pdu.feed else None,
        side=pdu.side,
        alive=alive,
        wiring=part.wiring,
        lines=lines,
        breakers=breakers,
        neutral_a=electrical.neutral_current_a(branches) if part.wiring == "wye" else None,
        imbalance_percent=electrical.imbalance_percent(currents),
        load_w=load_va * POWER_FACTOR,
        load_va=load_va,
        usable_va=electrical.usable_va(part.phases, voltage, input_a, part.derating),
        limit_basis=basis,
    )


def _redundancy_findings(
    consumers: list[Consumer], cords: list[CordAssignment], pdus: list[PduState], found: RackFindings
) -> None:
    side_of = {p.device.id: p.side for p in pdus}
    for consumer in consumers:
        mine = [c for c in cords if c.device == consumer.device]
        sides = {side_of.get(c.pdu) for c in mine}
        if len(consumer.inlets) >= 2 and len(sides) == 1 and len(mine) == len(consumer.inlets):
            found.add(
                "warning",
                "not-redundant",
                f"All {len(mine)} power cords of {consumer.name} are on one feed; it goes down with that feed.",
                [consumer.device],
            )
        if consumer.psu_watts_each is None or consumer.dc_load_w is None:
            continue
        for side in sorted(s for s in sides if s):
            surviving = [c for c in mine if side_of.get(c.pdu) != side]
            if not surviving or len(surviving) == len(mine):
                continue
            capacity = len(surviving) * consumer.psu_watts_each
            if consumer.dc_load_w > capacity:
                found.add(
                    "error",
                    "psus-cannot-carry",
                    f"When feed {side} fails, {consumer.name} runs on {len(surviving)} PSU(s) of "
                    f"{consumer.psu_watts_each:g} W ({capacity:,.0f} W) but draws up to {consumer.dc_load_w:,.0f} W.",
                    [consumer.device],
                    f"feed-{side.lower()}-failed",
                )


def _outlet_use(pdus: list[PduState]) -> list[OutletUse]:
    rows = []
    for pdu in pdus:
        totals: Counter[str] = Counter()
        free: Counter[str] = Counter()
        for group in pdu.part.outlet_groups:
            totals.update(group.outlets)
            free.update(pdu.free[group.id])
        for outlet_type in sorted(totals):
            rows.append(
                OutletUse(
                    pdu=pdu.device.id,
                    outlet_type=outlet_type,
                    used=totals[outlet_type] - free[outlet_type],
                    total=totals[outlet_type],
                )
            )
    return rows


def _group_outlets(pdus: list[PduState]) -> list[GroupOutlets]:
    return [
        GroupOutlets(
            pdu=pdu.device.id,
            pdu_name=pdu.device.name,
            outlet_group=group.id,
            line=group.line,
            outlet_type=outlet_type,
            used=total - pdu.free[group.id][outlet_type],
            total=total,
        )
        for pdu in pdus
        for group in pdu.part.outlet_groups
        for outlet_type, total in sorted(group.outlets.items())
    ]
