"""The report's power pages: every PDU line's current in each scenario, and each machine's power."""

from __future__ import annotations

from PySide6.QtGui import QColor

from rackplanner.core.machine.power import MachinePower
from rackplanner.core.rack.power import PduLoad
from rackplanner.core.rack.report import RackReport
from rackplanner.report.facts import PlanFacts
from rackplanner.report.pages import ERROR, INK, MUTED, Column, Composer, Row
from rackplanner.report.titles import POWER


def power_pages(c: Composer, facts: PlanFacts) -> None:
    c.new_page(POWER)
    c.heading("Power per PDU and line")
    c.paragraph(
        "Maximum computed draw of every device, shared by its live power cords. Each line's current is shown "
        "against its derated limit in normal operation and with either feed failed, as a colo provider asks.",
        8,
        color=MUTED,
    )
    for report in facts.racks:
        power = report.power
        c.heading(
            f"{power.name}: {power.load_w / 1000:,.2f} kW, {power.load_va / 1000:,.2f} kVA, "
            f"{power.heat_btu_hr:,.0f} BTU/hr",
            11,
            color=INK,
        )
        if not power.scenarios or not power.scenarios[0].pdus:
            c.paragraph("No PDU in this rack.", 9, color=MUTED)
        else:
            for pdu in power.scenarios[0].pdus:
                _pdu_table(c, facts, report, pdu)
        if report.machines:
            _machine_power_table(c, report.machines, f"Machines in {power.name}")
    if facts.unmounted:
        _machine_power_table(c, facts.unmounted, "Machines not in a rack")
    if not facts.racks and not facts.unmounted:
        c.paragraph("The plan has no machines and no racks.", 9, color=MUTED)


def _pdu_table(c: Composer, facts: PlanFacts, report: RackReport, first: PduLoad) -> None:
    power = report.power
    feed = next((f for f in facts.plan.feeds if f.id == first.feed), None)
    on = f"on {feed.name} (side {feed.side}, {feed.voltage_v:g} V {feed.breaker_a:g} A)" if feed else "on no feed"
    part = facts.catalog.get(first.part)
    model = part.label if part else first.part
    caption = (
        f"{first.name}: {model}, {first.wiring} wiring, {on}. Limit per line: {first.limit_basis}; "
        f"usable {first.usable_va / 1000:,.1f} kVA. Percentages are of the line's derated limit."
    )
    lines = [line.line for line in first.lines]
    columns = [Column("Scenario", 2.2)] + [Column(f"{name} current", 2.0, "right") for name in lines]
    columns += [Column("Imbalance", 1.3, "right"), Column("kVA", 1.0, "right")]
    neutral = first.neutral_a is not None
    if neutral:
        columns.append(Column("Neutral", 1.2, "right"))
    rows = []
    for scenario in power.scenarios:
        load = power.pdu_load(scenario.scenario, first.pdu)
        if not load.alive:
            cells = [scenario.label] + ["feed down"] * len(lines) + ["", ""] + ([""] if neutral else [])
            rows.append(Row(cells, colors={i: QColor(MUTED) for i in range(1, len(cells))}))
            continue
        cells = [scenario.label]
        colors = {}
        for i, line in enumerate(load.lines):
            cells.append(f"{line.current_a:.1f} A ({line.percent:.0f}%)")
            if line.over:
                colors[i + 1] = ERROR
        cells += [f"{load.imbalance_percent:.0f}%", f"{load.load_va / 1000:.2f}"]
        if neutral:
            cells.append(f"{load.neutral_a or 0:.1f} A")
        rows.append(Row(cells, colors=colors))
    c.table(columns, rows, caption=caption)


def _machine_power_table(c: Composer, machines: list[MachinePower], title: str) -> None:
    rows = []
    for m in machines:
        psu = m.psu
        psus = "no PSU"
        if psu is not None:
            psus = f"{psu.count} x {psu.watts_each:,.0f} W {psu.redundancy}"
        rows.append(
            Row(
                [
                    m.name,
                    f"{m.dc_max_w:,.0f}",
                    f"{m.wall_max_w:,.0f}",
                    f"{m.wall_max_va:,.0f}",
                    f"{m.heat_max_btu_hr:,.0f}",
                    psus,
                ]
            )
        )
    c.table(
        [
            Column("Machine", 2.4),
            Column("DC max W", 1.2, "right"),
            Column("Wall W", 1.2, "right"),
            Column("VA", 1.0, "right"),
            Column("BTU/hr", 1.2, "right"),
            Column("PSUs", 2.6),
        ],
        rows,
        caption=title,
    )
