"""The report's sections, laid out on a ``Composer``: what each page says and in which order."""

from __future__ import annotations

from datetime import date
from urllib.parse import urlparse

from PySide6.QtCore import QRectF, QSizeF
from PySide6.QtGui import QColor

from rackplanner.core.bom import BomGroup, BomLine, format_usd
from rackplanner.core.machine.power import MachinePower
from rackplanner.core.rack.power import PduLoad
from rackplanner.core.rack.report import RackReport
from rackplanner.report.drawings import Drawings
from rackplanner.report.facts import CAPACITY_CONTEXT, MachineConfig, PlanFacts
from rackplanner.report.pages import ACCENT, BAND, ERROR, INK, MUTED, WARNING, Column, Composer, Row, font

COVER = "Summary"
BOM = "Bill of materials"
RACKS = "Rack elevations"
MACHINES = "Machine configurations"
POWER = "Power"
CAPACITY = "Capacity"
FINDINGS = "Findings"
SEVERITY_COLORS = {"error": ERROR, "warning": WARNING, "info": MUTED}


def compose(c: Composer, facts: PlanFacts, drawings: Drawings, when: date) -> None:
    """Every section in order; the cover's contents are filled in once the pages are known."""
    contents_at = _cover(c, facts, when)
    _bom(c, facts)
    if facts.racks:
        for index, report in enumerate(facts.racks):
            _rack_page(c, facts, report, drawings, first=index == 0)
    for index, config in enumerate(facts.configs):
        _machine_page(c, config, index, len(facts.configs), drawings)
    _power(c, facts)
    _capacity(c, facts)
    _findings(c, facts)
    _contents(c, contents_at)


# --- cover -------------------------------------------------------------------------------


def _cover(c: Composer, facts: PlanFacts, when: date) -> float:
    c.new_page(COVER)
    plan = facts.plan
    c.text_at(c.left, c.y, c.content_width, "BILL OF MATERIALS", font(9, bold=True), ACCENT)
    c.space(18)
    c.space(c.text_at(c.left, c.y, c.content_width, plan.name, font(22, bold=True), INK) + 6)
    c.space(c.text_at(c.left, c.y, c.content_width, f"Prepared {when:%d %B %Y}", font(9), MUTED) + 6)
    if plan.notes:
        c.paragraph(plan.notes, 9, color=INK)
    c.space(8)
    totals = facts.bom.totals
    cost_sub = (
        f"plus {totals.unpriced_parts} part{'s' if totals.unpriced_parts != 1 else ''} without a price "
        f"({totals.unpriced_units} units)"
        if totals.unpriced_parts
        else "every part priced"
    )
    racks = len(facts.racks)
    boxes = [
        ("Cost (USD)", format_usd(totals.total_usd), cost_sub),
        ("Power at the wall", f"{facts.load_w / 1000:,.2f} kW", "maximum computed draw"),
        ("Apparent power", f"{facts.load_va / 1000:,.2f} kVA", "at the PSUs' power factor"),
        ("Heat", f"{facts.heat_btu_hr:,.0f} BTU/hr", "to be cooled"),
        (
            "Rack space",
            f"{facts.used_u} of {facts.total_u} U" if racks else "no racks",
            f"{racks} rack{'s' if racks != 1 else ''}" if racks else "machines stand alone",
        ),
        ("GPUs", f"{facts.gpus}", f"in {len(plan.machines)} machine{'s' if len(plan.machines) != 1 else ''}"),
        ("Configurations", f"{len(facts.configs)}", "distinct machine builds"),
        ("Findings", f"{facts.findings_count}", _severity_counts(facts)),
    ]
    _boxes(c, boxes)
    c.space(14)
    c.heading("What the plan can run", 12)
    c.paragraph(
        f"Largest catalog model that fits each configuration entirely in GPU memory (or RAM for CPU-only "
        f"machines) at {CAPACITY_CONTEXT:,} tokens of context, at the best of FP16, Q8_0 and Q4_K_M.",
        8,
        color=MUTED,
    )
    rows = []
    for config in facts.configs:
        hw = config.hardware
        what = f"{hw.devices} x {hw.label.split(' x ', 1)[-1]}" if hw and hw.kind == "gpu" else (hw.label if hw else "")
        best = config.models[0] if config.models else None
        rows.append(
            Row(
                [
                    config.names,
                    what,
                    best.label if best else config.capacity_note or "none",
                    best.format_label if best else "",
                    _rate(best.decode_tokens_per_s) if best else "",
                ]
            )
        )
    if rows:
        c.table(
            [
                Column("Machines", 2.6),
                Column("Compute", 2.8),
                Column("Largest model", 2.6),
                Column("Format", 1.9),
                Column("Decode, batch 1", 1.9, "right"),
            ],
            rows,
        )
    else:
        c.paragraph("The plan has no machines.", 9, color=MUTED)
    c.space(6)
    c.heading("Contents", 12)
    at = c.y
    c.space(7 * 16)
    return at


def _contents(c: Composer, y: float) -> None:
    """The contents list on the cover, now that every section's first page is known."""
    page = c.pages[0]
    saved_pages, saved_y = c.pages, c.y
    c.pages = [page]
    c.y = y
    for name, index in c.section_pages.items():
        if name == COVER:
            continue
        c.text_at(c.left, c.y, c.content_width * 0.6, name, font(9.5), INK)
        c.text_at(c.left + c.content_width * 0.6, c.y, c.content_width * 0.15, f"page {index + 1}", font(9.5), MUTED)
        c.y += 16
    c.pages, c.y = saved_pages, saved_y


def _boxes(c: Composer, boxes: list[tuple[str, str, str]]) -> None:
    per_row, gap = 4, 8.0
    w = (c.content_width - gap * (per_row - 1)) / per_row
    h = 64.0
    for start in range(0, len(boxes), per_row):
        c.ensure(h)
        for i, (label, value, sub) in enumerate(boxes[start : start + per_row]):
            x = c.left + i * (w + gap)
            rect = QRectF(x, c.y, w, h)

            def op(p: object, rect: QRectF = rect) -> None:
                from PySide6.QtGui import QPainter

                assert isinstance(p, QPainter)
                p.fillRect(rect, BAND)
                p.fillRect(QRectF(rect.left(), rect.top(), 3, rect.height()), ACCENT)

            c.draw(op)
            c.text_at(x + 10, c.y + 6, w - 14, label, font(7.5), MUTED)
            c.text_at(x + 10, c.y + 19, w - 14, value, font(12.5, bold=True), INK)
            c.text_at(x + 10, c.y + 40, w - 14, sub, font(6.5), MUTED)
        c.y += h + gap


def _severity_counts(facts: PlanFacts) -> str:
    severities = [f.severity for f in facts.machine_findings] + [f.severity for f in facts.rack_findings]
    parts = [f"{severities.count(s)} {s}{'s' if severities.count(s) != 1 else ''}" for s in ("error", "warning")]
    return ", ".join([*parts, f"{severities.count('info')} notes"])


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f} tokens/s"


# --- bill of materials ---------------------------------------------------------------------

BOM_COLUMNS = [
    Column("Item", 3.9),
    Column("Part id", 2.4),
    Column("Qty", 0.6, "right"),
    Column("Unit price", 1.3, "right"),
    Column("Extended", 1.4, "right"),
    Column("Price date", 1.35, "center"),
    Column("Source", 1.9),
]


def _bom(c: Composer, facts: PlanFacts) -> None:
    bom = facts.bom
    c.new_page(BOM)
    c.heading(BOM)
    c.paragraph(
        "Prices in US dollars. A server's board, chassis and stock power supplies come with the server and "
        "are not listed again; machines mounted in a rack are listed under the machine. Parts without a known "
        'price say "no price" and are left out of every total, which says how many there are. '
        "Prices marked * are set in the plan; numbers in brackets refer to the price sources at the end.",
        8,
        color=MUTED,
    )
    refs = _source_refs(bom.totals.lines)
    rows: list[Row] = []
    for group in bom.machines:
        where = f"mounted in {_rack_name(facts, group.rack)}" if group.rack else "not mounted in a rack"
        rows.append(Row([f"Machine: {group.name}  ({where})"], kind="band"))
        rows.extend(_bom_row(line, refs) for line in group.lines)
        rows.append(_subtotal(f"Subtotal {group.name}", group.subtotal_usd, group.unpriced_lines))
    for group in bom.racks:
        rows.append(Row([f"Rack: {group.name}  (rack, PDUs, switches and other mounted parts)"], kind="band"))
        rows.extend(_bom_row(line, refs) for line in group.lines)
        rows.append(_subtotal(f"Subtotal {group.name} equipment", group.subtotal_usd, group.unpriced_lines))
        if group.machines:
            rows.append(_rack_total(group))
    c.table(BOM_COLUMNS, rows)
    c.heading("Whole plan", 12)
    totals = bom.totals
    rows = [_bom_row(line, refs) for line in totals.lines]
    total_row = Row(
        ["Total (USD)", "", str(sum(line.quantity for line in totals.lines)), "", format_usd(totals.total_usd), "", ""],
        kind="total",
    )
    if totals.unpriced_parts:
        total_row.subs[0] = (
            f"plus {totals.unpriced_parts} part{'s' if totals.unpriced_parts != 1 else ''} without a price "
            f"({totals.unpriced_units} units)"
        )
    rows.append(total_row)
    c.table(BOM_COLUMNS, rows)
    if refs:
        c.heading("Price sources", 11)
        for source, number in refs.items():
            c.paragraph(f"[{number}] {source}", 7.5, color=INK, space_after=3)


def _bom_row(line: BomLine, refs: dict[str, int]) -> Row:
    unit = format_usd(line.unit_price_usd) + (" *" if line.overridden else "")
    source = ""
    if line.overridden:
        source = "plan"
    elif line.price_source:
        source = f"[{refs.get(line.price_source, 0)}] {_short_source(line.price_source)}"
    row = Row(
        [
            f"{line.vendor} {line.model}".strip(),
            line.part,
            str(line.quantity),
            unit,
            format_usd(line.extended_price_usd),
            line.price_date.isoformat() if line.price_date else "",
            source,
        ]
    )
    if line.note:
        row.subs[0] = line.note
    if not line.priced:
        row.colors[3] = MUTED
        row.colors[4] = MUTED
    return row


def _subtotal(label: str, amount: float, unpriced: int) -> Row:
    row = Row([label, "", "", "", format_usd(amount), "", ""], kind="subtotal")
    if unpriced:
        row.subs[0] = f"plus {unpriced} line{'s' if unpriced != 1 else ''} without a price"
    return row


def _rack_total(group: BomGroup) -> Row:
    row = Row(
        [f"{group.name} with its {len(group.machines)} machines", "", "", "", format_usd(group.rack_total_usd), "", ""],
        kind="subtotal",
    )
    if group.rack_unpriced_lines:
        row.subs[0] = f"plus {group.rack_unpriced_lines} lines without a price"
    return row


def _source_refs(lines: list[BomLine]) -> dict[str, int]:
    refs: dict[str, int] = {}
    for line in lines:
        if line.price_origin == "catalog" and line.price_source and line.price_source not in refs:
            refs[line.price_source] = len(refs) + 1
    return refs


def _short_source(source: str) -> str:
    """A URL's host or a seed file's name: enough to tell sources apart in a narrow column."""
    for word in source.split():
        if word.startswith(("http://", "https://")):
            return urlparse(word).netloc.removeprefix("www.")
    return source.split("(")[0].strip()[:24]


def _rack_name(facts: PlanFacts, rack_id: str | None) -> str:
    rack = facts.plan.rack(rack_id or "")
    return rack.name if rack else (rack_id or "")


# --- racks -------------------------------------------------------------------------------


def _rack_page(c: Composer, facts: PlanFacts, report: RackReport, drawings: Drawings, *, first: bool) -> None:
    c.new_page(RACKS if first else None)
    layout, power = report.layout, report.power
    c.heading(f"{layout.name}: elevation, front and rear")
    weight = f"{layout.equipment_weight_kg:,.0f} kg"
    if layout.weight_unknown:
        weight += f" plus {len(layout.weight_unknown)} of unknown weight"
    c.paragraph(
        f"{layout.used_u} of {layout.height_u} U used ({layout.utilisation_percent:.0f}%), {layout.free_u} U free; "
        f"{power.load_w / 1000:,.2f} kW, {power.load_va / 1000:,.2f} kVA, {power.heat_btu_hr:,.0f} BTU/hr; "
        f"equipment {weight}.",
        9,
    )
    drawn = drawings.rack(layout.rack)
    if drawn is None:
        c.paragraph("This rack could not be drawn.", 9, color=MUTED)
        return
    scene, source = drawn
    c.scene(scene, source, c.room - 4)


# --- machine configurations -----------------------------------------------------------------


def _machine_page(c: Composer, config: MachineConfig, index: int, count: int, drawings: Drawings) -> None:
    c.new_page(MACHINES if index == 0 else None)
    n = len(config.machines)
    title = f"Configuration {index + 1} of {count}: {config.first.name}"
    if n > 1:
        title += f" and {n - 1} more like it"
    c.heading(title)
    c.paragraph(f"{n} machine{'s' if n != 1 else ''}: {config.names}.", 9)
    board = drawings.board(config.first)
    if board is None:
        c.paragraph("No board or server yet: nothing to draw.", 9, color=MUTED)
        return
    c.heading("Board and cards", 11, color=INK, space_after=4)
    scene, source = board
    c.scene(scene, source, min(c.room * 0.45, c.content_width * source.height() / source.width()))
    c.space(10)
    c.heading("PCIe and NVLink topology", 11, color=INK, space_after=4)
    room = QSizeF(c.content_width, c.room - 4)
    diagram = drawings.block_diagram(config.first, room, font(8))
    if diagram is not None:
        scene, source = diagram
        c.scene(scene, source, min(room.height(), c.content_width * source.height() / source.width()))


# --- power -------------------------------------------------------------------------------


def _power(c: Composer, facts: PlanFacts) -> None:
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


# --- capacity ----------------------------------------------------------------------------


def _capacity(c: Composer, facts: PlanFacts) -> None:
    c.new_page(CAPACITY)
    c.heading("Capacity summary")
    c.paragraph(
        f"The largest catalog models each configuration holds entirely in its memory at {CAPACITY_CONTEXT:,} "
        "tokens of context, each at the best of FP16, Q8_0 and Q4_K_M that fits, with estimated decode speed "
        "(one sequence, and the best batch) as rackplanner capacity computes it.",
        8,
        color=MUTED,
    )
    if not facts.configs:
        c.paragraph("The plan has no machines.", 9, color=MUTED)
    for config in facts.configs:
        hw = config.hardware
        label = hw.label if hw else config.first.name
        c.heading(f"{config.names}", 11, color=INK, space_after=2)
        if hw is not None:
            c.paragraph(
                f"{label}: {hw.total_mem_gb:,.0f} GB of {'GPU memory' if hw.kind == 'gpu' else 'memory'}"
                + (f", linked by {hw.link_kind}" if hw.devices > 1 and hw.link_kind != "none" else ""),
                8.5,
                color=MUTED,
            )
        if not config.models:
            c.paragraph(config.capacity_note or "No model fits.", 9, color=MUTED)
            continue
        rows = [
            Row(
                [
                    m.label,
                    f"{m.params_b:g} B",
                    m.format_label,
                    f"{m.total_gb:,.1f} GB",
                    f"{m.max_context:,}",
                    _rate(m.decode_tokens_per_s),
                    _rate(m.best_batch_tokens_per_s),
                ]
            )
            for m in config.models
        ]
        c.table(
            [
                Column("Model", 2.8),
                Column("Parameters", 1.2, "right"),
                Column("Format", 1.7),
                Column("Memory", 1.2, "right"),
                Column("Max context", 1.3, "right"),
                Column("Decode, batch 1", 1.7, "right"),
                Column("Decode, best batch", 1.8, "right"),
            ],
            rows,
        )


# --- findings ----------------------------------------------------------------------------


def _findings(c: Composer, facts: PlanFacts) -> None:
    c.new_page(FINDINGS)
    c.heading("Open findings")
    names = {m.id: m.name for m in facts.plan.machines}
    rows = [
        Row([f.severity, names.get(f.machine, f.machine), f.message], colors={0: SEVERITY_COLORS[f.severity]})
        for f in facts.machine_findings
    ]
    racks = {r.id: r.name for r in facts.plan.racks}
    rows += [
        Row([f.severity, racks.get(f.rack, f.rack), f.message], colors={0: SEVERITY_COLORS[f.severity]})
        for f in facts.rack_findings
    ]
    if not rows:
        c.paragraph("No findings: every fit, power and placement rule passes.", 9)
        return
    order = {"error": 0, "warning": 1, "info": 2}
    rows.sort(key=lambda r: order.get(r.cells[0], 3))
    c.table([Column("Severity", 1.1), Column("Where", 1.8), Column("Finding", 8)], rows, points=8)
