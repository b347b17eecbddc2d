"""Power at hall scale: each row's and the hall's load, the heat the cooling must remove, the
circuits the PDUs plug into, and the hall's power budget.

Every watt drawn ends as heat in the room, so the cooling load is the electrical load
(1 W = 3.412 BTU/hr; 12,000 BTU/hr is one ton of refrigeration).
"""

from __future__ import annotations

from pydantic import BaseModel

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Pdu
from rackplanner.core.machine.power import BTU_PER_HR_PER_W
from rackplanner.core.plan.model import Plan
from rackplanner.core.rack.power_model import RackPower

BTU_PER_HR_PER_TON = 12_000


class RowPower(BaseModel):
    row: str
    name: str
    racks: int
    load_kw: float
    load_kva: float
    heat_btu_hr: float
    # PDU inputs plugged into A-side and B-side feeds: the facility circuits the row needs.
    pdus_a: int
    pdus_b: int


class HallPower(BaseModel):
    rows: list[RowPower]
    load_kw: float
    load_kva: float
    heat_btu_hr: float
    cooling_tons: float
    budget_kw: float | None
    over_budget: bool
    findings: list[str]


def hall_power(plan: Plan, catalog: Catalog, racks: dict[str, RackPower], budget_kw: float | None) -> HallPower:
    """Row and hall totals of the racks' loads (``racks`` by rack id), against ``budget_kw``."""
    feed_side = {f.id: f.side for f in plan.feeds}
    rows: list[RowPower] = []
    for row in plan.rows:
        members = [r for r in plan.racks if r.row == row.id and r.id in racks]
        sides = [
            feed_side.get(d.feed or "", "")
            for r in members
            for d in r.devices
            if d.part and catalog.get_as(d.part, Pdu) is not None
        ]
        rows.append(
            RowPower(
                row=row.id,
                name=row.name,
                racks=len(members),
                load_kw=sum(racks[r.id].load_w for r in members) / 1000,
                load_kva=sum(racks[r.id].load_va for r in members) / 1000,
                heat_btu_hr=sum(racks[r.id].load_w for r in members) * BTU_PER_HR_PER_W,
                pdus_a=sides.count("A"),
                pdus_b=sides.count("B"),
            )
        )
    load_kw = sum(r.load_kw for r in rows)
    heat = sum(r.heat_btu_hr for r in rows)
    findings: list[str] = []
    over = budget_kw is not None and load_kw > budget_kw
    if budget_kw is not None:
        verdict = "over" if over else "within"
        findings.append(f"the hall draws {load_kw:,.1f} kW at full load, {verdict} its {budget_kw:,.1f} kW budget")
    findings += [
        f"{r.name}: no PDU is on a feed, so its circuits are not counted"
        for r in rows
        if r.racks and r.pdus_a + r.pdus_b == 0
    ]
    return HallPower(
        rows=rows,
        load_kw=load_kw,
        load_kva=sum(r.load_kva for r in rows),
        heat_btu_hr=heat,
        cooling_tons=heat / BTU_PER_HR_PER_TON,
        budget_kw=budget_kw,
        over_budget=over,
        findings=findings,
    )


def format_hall(hall: HallPower) -> list[str]:
    """Text lines: one per row, the hall's total, cooling and budget."""
    lines = ["Rows and hall:"]
    for row in hall.rows:
        lines.append(
            f"  {row.name}: {row.racks} rack(s), {row.load_kw:,.2f} kW ({row.load_kva:,.2f} kVA), "
            f"heat {row.heat_btu_hr:,.0f} BTU/hr; PDUs on feeds: {row.pdus_a} A-side, {row.pdus_b} B-side"
        )
    lines.append(
        f"  hall: {hall.load_kw:,.2f} kW ({hall.load_kva:,.2f} kVA); cooling must remove {hall.load_kw:,.2f} kW "
        f"({hall.heat_btu_hr:,.0f} BTU/hr, {hall.cooling_tons:,.1f} tons)"
    )
    lines += [f"  {finding}" for finding in hall.findings]
    return lines
