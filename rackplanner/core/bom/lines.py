"""Bill of materials: what a plan buys, grouped by machine and by rack, with prices and totals.

Counting rules, so nothing is bought twice:

- A server brings its board, chassis and stock PSUs: only the server is a line (its note says
  what it includes). PSUs a server machine lists beyond its stock ones are lines of their own.
- A build (board + chassis) lists board, chassis, CPUs (x ``cpu_count``), DIMMs, PSUs and drives
  from its part counts, and every card (GPU, NIC, M.2/U.2 drive) and NVLink bridge.
- A rack lists its rack part and every mounted catalog part (PDUs, switches, rack devices).
  Mounted machines stay in their machine group; a rack's total adds them.

Prices come from the catalog (``price_usd``, ``price_date``, ``source``) unless the plan's
``price_overrides_usd`` names the part; such lines are marked as overridden. A part with no
price is "no price", never zero: totals count only priced lines and say how many are not.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Part
from rackplanner.core.plan.model import Machine, Plan, Rack
from rackplanner.core.plan.resolve import server_of

CURRENCY = "USD"
NO_PRICE = "no price"

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

PriceOrigin = Literal["catalog", "override", "none"]


class BomLine(BaseModel):
    """One part of one group, with its count and price."""

    group: str
    group_name: str
    category: str
    part: str
    vendor: str
    model: str
    quantity: int
    unit_price_usd: float | None
    extended_price_usd: float | None
    price_date: date | None
    price_origin: PriceOrigin
    price_source: str
    note: str = ""

    @property
    def priced(self) -> bool:
        return self.unit_price_usd is not None

    @property
    def overridden(self) -> bool:
        return self.price_origin == "override"


class BomGroup(BaseModel):
    """The lines of one machine or one rack."""

    kind: Literal["machine", "rack"]
    id: str
    name: str
    lines: list[BomLine]
    subtotal_usd: float
    unpriced_lines: int
    # A machine: the rack it is mounted in (None if not mounted). A rack: its mounted machines.
    rack: str | None = None
    machines: list[str] = []
    # A rack: its own lines plus its machines' subtotals.
    rack_total_usd: float | None = None
    rack_unpriced_lines: int = 0


class BomTotals(BaseModel):
    """Consolidated totals of the whole plan."""

    lines: list[BomLine]
    total_usd: float
    priced_units: int
    unpriced_parts: int
    unpriced_units: int
    overridden_parts: int
    currency: str = CURRENCY

    @property
    def total_text(self) -> str:
        """The total as a person reads it, naming the parts without a price."""
        text = f"{format_usd(self.total_usd)}"
        if self.unpriced_parts:
            plural = "part" if self.unpriced_parts == 1 else "parts"
            text += f" plus {self.unpriced_parts} {plural} without a price ({self.unpriced_units} units)"
        return text


class Bom(BaseModel):
    plan: str
    machines: list[BomGroup]
    racks: list[BomGroup]
    totals: BomTotals
    currency: str = CURRENCY

    @property
    def groups(self) -> list[BomGroup]:
        return [*self.machines, *self.racks]

    @property
    def lines(self) -> list[BomLine]:
        return [line for group in self.groups for line in group.lines]


def format_usd(value: float | None) -> str:
    """'$1,234.00', or 'no price' for a missing price."""
    return NO_PRICE if value is None else f"${value:,.2f}"


def build_bom(plan: Plan, catalog: Catalog) -> Bom:
    """The plan's bill of materials: one group per machine, one per rack, and the plan's totals."""
    mounted_in = {d.machine: r.id for r in plan.racks for d in r.devices if d.machine}
    machines = [_machine_group(m, mounted_in.get(m.id), plan, catalog) for m in plan.machines]
    by_machine = {g.id: g for g in machines}
    racks = [_rack_group(r, by_machine, plan, catalog) for r in plan.racks]
    return Bom(plan=plan.name, machines=machines, racks=racks, totals=_totals([*machines, *racks], plan, catalog))


# --- groups ------------------------------------------------------------------------------


def _machine_group(machine: Machine, rack: str | None, plan: Plan, catalog: Catalog) -> BomGroup:
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
    lines = [_line(machine.id, machine.name, part, n, plan, catalog, notes.get(part, "")) for part, n in counts.items()]
    return _group("machine", machine.id, machine.name, lines, rack=rack)


def _server_note(board: str, chassis: str, psu: str, psu_count: int, catalog: Catalog) -> str:
    def name(part_id: str) -> str:
        part = catalog.get(part_id)
        return part.model if part else part_id

    return f"includes board {name(board)}, chassis {name(chassis)}, {psu_count} x PSU {name(psu)}"


def _rack_group(rack: Rack, machines: dict[str, BomGroup], plan: Plan, catalog: Catalog) -> BomGroup:
    counts: Counter[str] = Counter({rack.part: 1})
    for device in rack.devices:
        if device.part:
            counts[device.part] += 1
    lines = [_line(rack.id, rack.name, part, n, plan, catalog) for part, n in counts.items()]
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
    kind: Literal["machine", "rack"],
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
    group: str, group_name: str, part_id: str, quantity: int, plan: Plan, catalog: Catalog, note: str = ""
) -> BomLine:
    part = catalog.get(part_id)
    unit, when, origin, source = _price(part_id, part, plan)
    return BomLine(
        group=group,
        group_name=group_name,
        category=part.kind if part else "unknown",
        part=part_id,
        vendor=part.vendor if part else "",
        model=part.model if part else part_id,
        quantity=quantity,
        unit_price_usd=unit,
        extended_price_usd=None if unit is None else unit * quantity,
        price_date=when,
        price_origin=origin,
        price_source=source,
        note=note if part else "not in the catalog",
    )


def _price(part_id: str, part: Part | None, plan: Plan) -> tuple[float | None, date | None, PriceOrigin, str]:
    override = plan.price_overrides_usd.get(part_id)
    if override is not None:
        return override, None, "override", "price set in the plan"
    if part is not None and part.price_usd is not None:
        return part.price_usd, part.price_date, "catalog", "; ".join(part.source)
    return None, None, "none", ""


# --- totals ------------------------------------------------------------------------------


def _totals(groups: list[BomGroup], plan: Plan, catalog: Catalog) -> BomTotals:
    counts: Counter[str] = Counter()
    for group in groups:
        for line in group.lines:
            counts[line.part] += line.quantity
    lines = sorted(
        (_line("plan", plan.name, part, n, plan, catalog) for part, n in counts.items()),
        key=_line_order,
    )
    unpriced = [line for line in lines if not line.priced]
    return BomTotals(
        lines=lines,
        total_usd=sum(line.extended_price_usd or 0.0 for line in lines),
        priced_units=sum(line.quantity for line in lines if line.priced),
        unpriced_parts=len(unpriced),
        unpriced_units=sum(line.quantity for line in unpriced),
        overridden_parts=sum(1 for line in lines if line.overridden),
    )


# --- CSV ---------------------------------------------------------------------------------

# The CSV's columns, in order; their names and meaning stay stable (README, "Bill of materials").
CSV_COLUMNS = (
    "group_kind",
    "group_id",
    "group_name",
    "category",
    "part_id",
    "vendor",
    "model",
    "quantity",
    "unit_price_usd",
    "extended_price_usd",
    "price_date",
    "price_origin",
    "price_source",
    "note",
)


def bom_csv_rows(bom: Bom) -> list[dict[str, str]]:
    """One row per line of every machine and rack group; prices blank where there is none."""
    rows = []
    for group in bom.groups:
        for line in group.lines:
            rows.append(
                {
                    "group_kind": group.kind,
                    "group_id": group.id,
                    "group_name": group.name,
                    "category": line.category,
                    "part_id": line.part,
                    "vendor": line.vendor,
                    "model": line.model,
                    "quantity": str(line.quantity),
                    "unit_price_usd": "" if line.unit_price_usd is None else f"{line.unit_price_usd:.2f}",
                    "extended_price_usd": "" if line.extended_price_usd is None else f"{line.extended_price_usd:.2f}",
                    "price_date": line.price_date.isoformat() if line.price_date else "",
                    "price_origin": line.price_origin,
                    "price_source": line.price_source,
                    "note": line.note,
                }
            )
    return rows


def bom_csv(bom: Bom) -> str:
    """The BOM lines as CSV text: one header row (``CSV_COLUMNS``), then one row per line."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(bom_csv_rows(bom))
    return out.getvalue()


def write_bom_csv(bom: Bom, path: Path) -> Path:
    """Write ``bom_csv`` to ``path`` (UTF-8); returns the path."""
    path.write_text(bom_csv(bom), encoding="utf-8", newline="")
    return path
