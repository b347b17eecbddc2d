"""Bill of materials: what a plan buys, grouped by machine and by rack, with prices and totals.

Counting rules, so nothing is bought twice:

- A server brings its board, chassis and stock PSUs: only the server is a line (its note says
  what it includes). PSUs a server machine lists beyond its stock ones are lines of their own.
- A build (board + chassis) lists board, chassis, CPUs (x ``cpu_count``), DIMMs, PSUs and drives
  from its part counts, and every card (GPU, NIC, M.2/U.2 drive) and NVLink bridge.
- A rack lists its rack part and every mounted catalog part (PDUs, switches, rack devices).
  Mounted machines stay in their machine group; a rack's total adds them.

Prices come from the plan's ``user_prices`` (the user's quotes and price lists; such lines are
marked as overridden), else the catalog's price book (each line names the price's kind, date
and source, and says when it is more than a year old), else a price on the catalog entry
itself. A part with no price is "no price", never zero: totals count only priced lines and say
how many are not.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import date
from typing import Literal

from rackplanner.core.bom.model import Bom, BomGroup, BomLine, BomTotals, DerivedItem, PriceOrigin
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Part
from rackplanner.core.catalog.prices import STALE_AFTER_DAYS
from rackplanner.core.plan.machine_price import covered_by_server
from rackplanner.core.plan.model import Machine, Plan, Rack
from rackplanner.core.plan.resolve import server_of

# The order lines appear in within a group: what people read a machine's spec in.
_CATEGORY_ORDER = (
    "rack",
    "server",
    "board",
    "chassis",
    "cpu",
    "memory",
    "gpu",
    "nic",
    "drive",
    "nvlink-bridge",
    "pcie-switch",
    "psu",
    "switch",
    "rack-device",
    "pdu",
)


def build_bom(plan: Plan, catalog: Catalog, today: date | None = None, derived: Sequence[DerivedItem] = ()) -> Bom:
    """The plan's bill of materials: one group per machine, one per rack, and the plan's totals.

    ``today`` (default: the date now) decides which prices are more than a year old. ``derived``
    are parts worked out from the plan (the fabric's cables and missing switches): a group of their own.
    """
    when = today or date.today()
    mounted_in = {d.machine: r.id for r in plan.racks for d in r.devices if d.machine}
    machines = [_machine_group(m, mounted_in.get(m.id), plan, catalog, when) for m in plan.machines]
    by_machine = {g.id: g for g in machines}
    racks = [_rack_group(r, by_machine, plan, catalog, when) for r in plan.racks]
    fabric = _fabric_group(derived, plan, catalog, when) if derived else None
    totals = _totals([*machines, *racks, *([fabric] if fabric else [])], plan, catalog, when)
    return Bom(plan=plan.name, machines=machines, racks=racks, totals=totals, fabric=fabric)


FABRIC_GROUP = "Fabric: what the compute fabric needs beyond the racks' parts"


def _fabric_group(derived: Sequence[DerivedItem], plan: Plan, catalog: Catalog, today: date) -> BomGroup:
    lines = []
    for item in derived:
        line = _line("fabric", FABRIC_GROUP, item.part, item.quantity, plan, catalog, today, note=item.note)
        if catalog.get(item.part) is None:
            line = line.model_copy(update={"category": item.category, "model": item.model, "note": item.note})
        lines.append(line)
    return _group("fabric", "fabric", FABRIC_GROUP, lines)


# --- groups ------------------------------------------------------------------------------


def _machine_group(machine: Machine, rack: str | None, plan: Plan, catalog: Catalog, today: date) -> BomGroup:
    counts: Counter[str] = Counter()
    notes: dict[str, str] = {}
    server = server_of(machine, catalog)
    stock_psus: Counter[str] = Counter()
    if machine.server:
        counts[machine.server] += 1
        if server is not None:
            notes[machine.server] = _server_note(server.board, server.chassis, server.psu, server.psu_count, catalog)
            stock_psus[server.psu] = server.psu_count
    else:
        for part in (machine.board, machine.chassis):
            if part:
                counts[part] += 1
    if machine.cpu:
        counts[machine.cpu] += machine.cpu_count
    for item in (*machine.memory, *machine.drives):
        counts[item.part] += item.count
    for item in machine.psus:
        # A server's own PSUs listed again are the stock ones; only the extra ones are bought.
        extra = item.count - stock_psus[item.part]
        stock_psus[item.part] = max(0, -extra)
        if extra > 0:
            counts[item.part] += extra
    for card in machine.cards:
        counts[card.part] += 1
    for bridge in machine.bridges:
        counts[bridge.part] += 1
    included = _included(machine, counts, plan, catalog)
    lines = [
        _line(machine.id, machine.name, part, n, plan, catalog, today, notes.get(part, ""))
        for part, n in counts.items()
        if n > 0
    ]
    system = server.model if server else machine.server
    lines += [
        _included_line(machine.id, machine.name, part, n, catalog, f"in the price of {system}")
        for part, n in included.items()
    ]
    return _group("machine", machine.id, machine.name, lines, rack=rack)


def _included(machine: Machine, counts: Counter[str], plan: Plan, catalog: Catalog) -> Counter[str]:
    """Parts the server's own price covers, moved out of ``counts``."""
    included: Counter[str] = Counter()
    covered = covered_by_server(machine, catalog, plan.user_prices, servers=counts[machine.server or ""])
    for part, most in covered.items():
        n = min(counts[part], most)
        if n > 0:
            counts[part] -= n
            included[part] += n
    return included


def _included_line(group: str, group_name: str, part_id: str, quantity: int, catalog: Catalog, source: str) -> BomLine:
    """``quantity`` of a part at no cost of its own; ``source`` says whose price covers it."""
    return BomLine(
        group=group,
        group_name=group_name,
        **_described(part_id, catalog),
        quantity=quantity,
        unit_price_usd=0.0,
        extended_price_usd=0.0,
        price_date=None,
        price_origin="included",
        price_source=source,
        price_kind="included",
        note=f"included {source}",
    )


def _described(part_id: str, catalog: Catalog) -> dict[str, str]:
    """A line's category, part id, vendor and model from the catalog (the id alone if unknown)."""
    part = catalog.get(part_id)
    return {
        "category": part.kind if part else "unknown",
        "part": part_id,
        "vendor": part.vendor if part else "",
        "model": part.model if part else part_id,
    }


def _server_note(board: str, chassis: str, psu: str, psu_count: int, catalog: Catalog) -> str:
    def name(part_id: str) -> str:
        part = catalog.get(part_id)
        return part.model if part else part_id

    return f"includes board {name(board)}, chassis {name(chassis)}, {psu_count} x PSU {name(psu)}"


def _rack_group(rack: Rack, machines: dict[str, BomGroup], plan: Plan, catalog: Catalog, today: date) -> BomGroup:
    counts: Counter[str] = Counter({rack.part: 1})
    for device in rack.devices:
        if device.part:
            counts[device.part] += 1
    lines = [_line(rack.id, rack.name, part, n, plan, catalog, today) for part, n in counts.items()]
    members = [d.machine for d in rack.devices if d.machine and d.machine in machines]
    group = _group("rack", rack.id, rack.name, lines, machines=members)
    inside = [machines[m] for m in members]
    return group.model_copy(
        update={
            "rack_total_usd": group.subtotal_usd + sum(g.subtotal_usd for g in inside),
            "rack_unpriced_lines": group.unpriced_lines + sum(g.unpriced_lines for g in inside),
        }
    )


def _group(
    kind: Literal["machine", "rack", "fabric"],
    group_id: str,
    name: str,
    lines: list[BomLine],
    *,
    rack: str | None = None,
    machines: list[str] | None = None,
) -> BomGroup:
    lines = sorted(lines, key=_line_order)
    return BomGroup(
        kind=kind,
        id=group_id,
        name=name,
        lines=lines,
        subtotal_usd=sum(line.extended_price_usd or 0.0 for line in lines),
        unpriced_lines=sum(1 for line in lines if not line.priced),
        rack=rack,
        machines=machines or [],
    )


def _line_order(line: BomLine) -> tuple[int, str, str]:
    rank = _CATEGORY_ORDER.index(line.category) if line.category in _CATEGORY_ORDER else len(_CATEGORY_ORDER)
    return rank, line.vendor.lower(), line.model.lower()


def _line(
    group: str, group_name: str, part_id: str, quantity: int, plan: Plan, catalog: Catalog, today: date, note: str = ""
) -> BomLine:
    part = catalog.get(part_id)
    unit, when, origin, source, kind = _price(part_id, part, plan, catalog)
    mine = plan.user_prices.get(part_id)
    return BomLine(
        group=group,
        group_name=group_name,
        **_described(part_id, catalog),
        quantity=quantity,
        unit_price_usd=unit,
        extended_price_usd=None if unit is None else unit * quantity,
        price_date=when,
        price_origin=origin,
        price_source=source,
        price_kind=kind,
        price_stale=when is not None and (today - when).days > STALE_AFTER_DAYS,
        price_note=mine.note if mine else "",
        note=note if part else "not in the catalog",
    )


def _price(
    part_id: str, part: Part | None, plan: Plan, catalog: Catalog
) -> tuple[float | None, date | None, PriceOrigin, str, str]:
    """(unit price, its date, origin, source, kind) of a part."""
    mine = plan.user_prices.get(part_id)
    if mine is not None:
        source = mine.source + (f" ({mine.note})" if mine.note else "")
        return mine.price_usd, mine.price_date, "override", source, "quote"
    if part is None or part.price_usd is None:
        return None, None, "none", "", ""
    quote = catalog.price_of(part_id)
    if quote is not None and quote.price_usd == part.price_usd and quote.price_date == part.price_date:
        return quote.price_usd, quote.price_date, "catalog", quote.source, quote.kind
    return part.price_usd, part.price_date, "catalog", "; ".join(part.source), "catalog entry"


# --- totals ------------------------------------------------------------------------------


def _totals(groups: list[BomGroup], plan: Plan, catalog: Catalog, today: date) -> BomTotals:
    counts: Counter[str] = Counter()
    included: dict[str, tuple[int, str]] = {}
    for group in groups:
        for line in group.lines:
            if line.price_origin == "included":
                n, source = included.get(line.part, (0, line.price_source))
                included[line.part] = (n + line.quantity, source)
            else:
                counts[line.part] += line.quantity
    described = {line.part: line for group in groups for line in group.lines if catalog.get(line.part) is None}
    lines = [_line("plan", plan.name, part, n, plan, catalog, today) for part, n in counts.items()]
    lines = [
        line.model_copy(update={"category": d.category, "model": d.model, "note": d.note})
        if (d := described.get(line.part)) is not None
        else line
        for line in lines
    ]
    lines += [_included_line("plan", plan.name, part, n, catalog, source) for part, (n, source) in included.items()]
    lines.sort(key=_line_order)
    unpriced = [line for line in lines if not line.priced]
    return BomTotals(
        lines=lines,
        total_usd=sum(line.extended_price_usd or 0.0 for line in lines),
        priced_units=sum(line.quantity for line in lines if line.priced),
        unpriced_parts=len(unpriced),
        unpriced_units=sum(line.quantity for line in unpriced),
        overridden_parts=sum(1 for line in lines if line.overridden),
        stale_parts=sum(1 for line in lines if line.priced and line.price_stale),
    )
