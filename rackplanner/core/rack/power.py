"""Power of one rack: which PDU outlet each power cord uses, and every line and breaker's load.

Cords are assigned automatically (PSU 1 to the A-feed PDU, PSU 2 to the B-feed PDU, and
so on, each to the outlet group that keeps its PDU's lines most even), unless the plan
overrides an assignment. Three scenarios are evaluated: normal operation (each device's
load shared by its live cords), feed A failed and feed B failed (the surviving PDUs carry
everything). Loads are the maximum computed draw, the figure a breaker must hold.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from pydantic import BaseModel

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import NetworkSwitch, OutletGroup, Pdu, RackDevice
from rackplanner.core.findings import RackFinding, RackFindings
from rackplanner.core.machine.power import BTU_PER_HR_PER_W, POWER_FACTOR, machine_power
from rackplanner.core.plan.cache import LayeredCache, devices_key, identity_key
from rackplanner.core.plan.model import Feed, MountedDevice, Plan, Rack, rack_inputs
from rackplanner.core.rack import electrical

# A cord's plug end fits these PDU outlets (002_daeb2f0cc80a7fe9.txt: a C14 inlet takes a
# C13-C14 cord into a C13 outlet, a C20 inlet a C19-C20 cord into a C19 outlet; a C16 inlet
# takes a C15 cord, whose other end is a C14 plug).
OUTLET_FOR_INLET = {
    "iec-60320-c14": "iec-60320-c13",
    "iec-60320-c16": "iec-60320-c13",
    "iec-60320-c20": "iec-60320-c19",
}
DEFAULT_INLET = "iec-60320-c14"

SCENARIOS = ("normal", "feed-a-failed", "feed-b-failed")
SCENARIO_LABELS = {"normal": "Normal", "feed-a-failed": "Feed A failed", "feed-b-failed": "Feed B failed"}
FAILED_SIDE = {"feed-a-failed": "A", "feed-b-failed": "B"}


class Consumer(BaseModel):
    """Something in the rack that draws power through one or more cords."""

    device: str
    name: str
    wall_w: float
    wall_va: float
    heat_btu_hr: float
    inlets: list[str]
    inlet_assumed: bool = False
    power_known: bool = True
    # For machines: each PSU's rating and the DC load, to check what survives a feed loss.
    psu_watts_each: float | None = None
    dc_load_w: float | None = None

    @property
    def outlet_types(self) -> list[str]:
        """The PDU outlet each cord plugs into, by its inlet (C14 and C16 to C13, C20 to C19)."""
        return [OUTLET_FOR_INLET.get(inlet, "iec-60320-c13") for inlet in self.inlets]


class CordAssignment(BaseModel):
    device: str
    device_name: str
    psu_index: int
    pdu: str
    outlet_group: str
    outlet_type: str
    line: str
    manual: bool


class LineLoad(BaseModel):
    line: str
    current_a: float
    limit_a: float
    percent: float
    over: bool


class BreakerLoad(BaseModel):
    outlet_group: str
    line: str
    current_a: float
    breaker_a: float | None
    limit_a: float | None
    percent: float | None
    over: bool


class PduLoad(BaseModel):
    """One PDU in one scenario."""

    pdu: str
    name: str
    part: str
    feed: str | None
    side: str | None
    alive: bool
    wiring: str
    lines: list[LineLoad]
    breakers: list[BreakerLoad]
    neutral_a: float | None
    imbalance_percent: float
    load_w: float
    load_va: float
    usable_va: float
    limit_basis: str


class ScenarioResult(BaseModel):
    scenario: str
    label: str
    pdus: list[PduLoad]
    unpowered: list[str]
    load_w: float
    load_va: float


class OutletUse(BaseModel):
    pdu: str
    outlet_type: str
    used: int
    total: int


class GroupOutlets(BaseModel):
    """Outlets of one type in one outlet group of a PDU, and how many cords use them."""

    pdu: str
    pdu_name: str
    outlet_group: str
    line: str
    outlet_type: str
    used: int
    total: int

    @property
    def free(self) -> int:
        return self.total - self.used


class RackPower(BaseModel):
    rack: str
    name: str
    consumers: list[Consumer]
    cords: list[CordAssignment]
    scenarios: list[ScenarioResult]
    outlets: list[OutletUse]
    group_outlets: list[GroupOutlets]
    load_w: float
    load_va: float
    heat_btu_hr: float
    power_factor: float
    findings: list[RackFinding]

    def scenario(self, name: str) -> ScenarioResult:
        return next(s for s in self.scenarios if s.scenario == name)

    def pdu_load(self, scenario: str, pdu: str) -> PduLoad:
        return next(p for p in self.scenario(scenario).pdus if p.pdu == pdu)


@dataclass
class _PduState:
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

    @property
    def outlet_volts(self) -> float:
        return electrical.outlet_voltage_v(self.part.wiring, _pdu_voltage(self))

    def group(self, group_id: str) -> OutletGroup | None:
        return next((g for g in self.part.outlet_groups if g.id == group_id), None)


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

    pdus = _pdus(plan, rack, catalog, found)
    consumers = [c for d in rack.devices if (c := _consumer(d, plan, catalog)) is not None]
    for consumer in consumers:
        if not consumer.power_known:
            found.add(
                "warning",
                "power-unknown",
                f"{consumer.name}: the catalog gives no power draw, so it counts as 0 W; add its figure.",
                [consumer.device],
            )
        if consumer.inlet_assumed:
            found.add(
                "info",
                "inlet-unknown",
                f"{consumer.name}: the catalog does not give its power inlet; C14 (C13 outlets) assumed.",
                [consumer.device],
            )
    cords = _assign(plan, rack, pdus, consumers, found)
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


def _pdus(plan: Plan, rack: Rack, catalog: Catalog, found: RackFindings) -> list[_PduState]:
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
        state = _PduState(device=device, part=part, feed=feed)
        state.free = {g.id: Counter(g.outlets) for g in part.outlet_groups}
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


def _consumer(device: MountedDevice, plan: Plan, catalog: Catalog) -> Consumer | None:
    if device.machine is not None:
        machine = plan.machine(device.machine)
        if machine is None:
            return None
        power = machine_power(machine, catalog)
        inlet = power.inlet
        return Consumer(
            device=device.id,
            name=device.name,
            wall_w=power.wall_max_w,
            wall_va=power.wall_max_va,
            heat_btu_hr=power.heat_max_btu_hr,
            inlets=[inlet or DEFAULT_INLET] * power.power_cords,
            inlet_assumed=inlet is None,
            psu_watts_each=power.psu.watts_each if power.psu else None,
            dc_load_w=power.dc_max_w,
        )
    part = catalog.get(device.part or "")
    if isinstance(part, NetworkSwitch):
        watts = part.power_max_w or part.power_typical_w
        return _ac_consumer(device, watts, [part.inlet] * part.psu_count)
    if isinstance(part, RackDevice):
        inlets = [p.type if p.type in OUTLET_FOR_INLET else DEFAULT_INLET for p in part.power_ports]
        return _ac_consumer(device, part.draw_w, inlets)
    return None


def _ac_consumer(device: MountedDevice, wall_w: float | None, inlets: list[str]) -> Consumer:
    """A device whose catalog figure is already its draw at the wall (switches, NetBox devices)."""
    watts = wall_w or 0.0
    return Consumer(
        device=device.id,
        name=device.name,
        wall_w=watts,
        wall_va=watts / POWER_FACTOR,
        heat_btu_hr=watts * BTU_PER_HR_PER_W,
        inlets=inlets,
        power_known=wall_w is not None,
    )


# --- outlet assignment -----------------------------------------------------------------


def _assign(
    plan: Plan, rack: Rack, pdus: list[_PduState], consumers: list[Consumer], found: RackFindings
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
        outlet = consumer.outlet_types[override.psu_index]
        if pdu.free[group.id][outlet] <= 0:
            found.add(
                "error",
                "outlet-unavailable",
                f"{where} is set to {pdu.device.name} {group.id}, which has no free {_short(outlet)} outlet; "
                "assigned automatically instead.",
                [override.device, pdu.device.id],
            )
            continue
        cords.append(_plug(pdu, group, consumer, override.psu_index, outlet, manual=True))
        taken.add((consumer.device, override.psu_index))
    # Heaviest first, so the big loads spread over the lines before small ones fill gaps.
    for consumer in sorted(consumers, key=lambda c: (-c.wall_va, c.device)):
        for index, (inlet, outlet) in enumerate(zip(consumer.inlets, consumer.outlet_types, strict=True)):
            if (consumer.device, index) in taken:
                continue
            choice = _best_outlet(pdus, consumer, index, outlet)
            if choice is None:
                found.add(
                    "error",
                    "no-free-outlet",
                    f"{consumer.name} PSU {index + 1} ({_short(inlet)} inlet) finds no free {_short(outlet)} outlet "
                    "on a PDU in this rack.",
                    [consumer.device],
                )
                continue
            pdu, group = choice
            cords.append(_plug(pdu, group, consumer, index, outlet, manual=False))
    cords.sort(key=lambda c: (c.device, c.psu_index))
    return cords


def _plug(
    pdu: _PduState, group: OutletGroup, consumer: Consumer, index: int, outlet: str, *, manual: bool
) -> CordAssignment:
    pdu.free[group.id][outlet] -= 1
    share_va = consumer.wall_va / len(consumer.inlets)
    pdu.va_by_group[group.id] += share_va
    pdu.branch_a[group.line] += share_va / pdu.outlet_volts
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


def _best_outlet(
    pdus: list[_PduState], consumer: Consumer, index: int, outlet: str
) -> tuple[_PduState, OutletGroup] | None:
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
        best: tuple[tuple[float, float, int], _PduState, OutletGroup] | None = None
        for order, pdu in enumerate(preference):
            for group in pdu.part.outlet_groups:
                if pdu.free[group.id][outlet] <= 0:
                    continue
                if id(pdu) not in after:
                    after[id(pdu)] = _max_line_current_after(pdu, share_va)
                line_a = after[id(pdu)][group.line]
                group_va = pdu.va_by_group.get(group.id, 0.0) + share_va
                breaker_share = group_va / group.breaker_a if group.breaker_a else group_va
                score = (line_a, breaker_share, order)
                if best is None or score < best[0]:
                    best = (score, pdu, group)
        if best is not None:
            return best[1], best[2]
    return None


def _max_line_current_after(pdu: _PduState, extra_va: float) -> dict[str, float]:
    """For each branch line of the PDU: its highest line current with ``extra_va`` more on that branch."""
    branches = pdu.branch_a
    extra_a = extra_va / pdu.outlet_volts
    highest: dict[str, float] = {}
    for line in {g.line for g in pdu.part.outlet_groups}:
        trial = dict(branches)
        trial[line] = trial.get(line, 0.0) + extra_a
        # Rounded so that equal loads compare equal and the breaker decides.
        highest[line] = round(max(electrical.line_currents_a(pdu.part.wiring, trial).values(), default=0.0), 9)
    return highest


def _branch_currents(pdu: _PduState, va_by_group: dict[str, float]) -> dict[str, float]:
    volts = electrical.outlet_voltage_v(pdu.part.wiring, _pdu_voltage(pdu))
    branches: dict[str, float] = defaultdict(float)
    for group in pdu.part.outlet_groups:
        branches[group.line] += va_by_group.get(group.id, 0.0) / volts
    return branches


def _pdu_voltage(pdu: _PduState) -> float:
    return pdu.feed.voltage_v if pdu.feed else pdu.part.voltage_v


# --- scenarios -------------------------------------------------------------------------


def _applies(scenario: str, pdus: list[_PduState]) -> bool:
    """Normal operation always; a feed's failure only where a PDU is on that feed."""
    side = FAILED_SIDE.get(scenario)
    return side is None or any(p.side == side for p in pdus)


def _scenario(
    name: str,
    pdus: list[_PduState],
    consumers: list[Consumer],
    cords: list[CordAssignment],
    found: RackFindings,
) -> ScenarioResult:
    failed = FAILED_SIDE.get(name)
    alive = {p.device.id: p.feed is not None and p.side != failed for p in pdus}
    va_by_pdu_group: dict[str, dict[str, float]] = {p.device.id: defaultdict(float) for p in pdus}
    unpowered = []
    for consumer in consumers:
        if not consumer.inlets:
            continue
        live = [c for c in cords if c.device == consumer.device and alive.get(c.pdu, False)]
        if not live:
            unpowered.append(consumer.device)
            if name == "normal" or any(c.device == consumer.device for c in cords):
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


def _pdu_load(
    pdu: _PduState, alive: bool, va_by_group: dict[str, float], scenario: str, found: RackFindings
) -> PduLoad:
    part = pdu.part
    voltage = _pdu_voltage(pdu)
    input_a = part.input_current_a
    basis = f"PDU input {input_a:g} A"
    if pdu.feed is not None and pdu.feed.breaker_a < input_a:
        input_a = pdu.feed.breaker_a
        basis = f"{pdu.feed.name} breaker {input_a:g} A"
    limit_a = input_a * part.derating
    basis += f" x {part.derating:g} derating = {limit_a:g} A"
    branches = _branch_currents(pdu, va_by_group)
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
    volts = electrical.outlet_voltage_v(part.wiring, voltage)
    for group in part.outlet_groups:
        amps = va_by_group.get(group.id, 0.0) / volts
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
        neutral_a=electrical.neutral_current_a(currents) if part.wiring == "wye" else None,
        imbalance_percent=electrical.imbalance_percent(currents),
        load_w=load_va * POWER_FACTOR,
        load_va=load_va,
        usable_va=electrical.usable_va(part.phases, voltage, input_a, part.derating),
        limit_basis=basis,
    )


def _redundancy_findings(
    consumers: list[Consumer], cords: list[CordAssignment], pdus: list[_PduState], found: RackFindings
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


def _outlet_use(pdus: list[_PduState]) -> list[OutletUse]:
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


def _group_outlets(pdus: list[_PduState]) -> list[GroupOutlets]:
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


def _short(connector: str) -> str:
    return connector.removeprefix("iec-60320-").upper()
