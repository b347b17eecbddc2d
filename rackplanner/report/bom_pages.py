"""The report's bill of materials: lines by machine and by rack, subtotals, totals and price sources."""

from __future__ import annotations

from urllib.parse import urlparse

from rackplanner.core.bom import BomGroup, BomLine, format_usd
from rackplanner.report.facts import PlanFacts
from rackplanner.report.pages import INK, MUTED, WARNING, Column, Composer, Row
from rackplanner.report.titles import BOM

FABRIC_LINKS_NOTE = (
    "Links between racks, by kind and length (from rack positions and tray routing). An optical link takes a "
    "transceiver at each end and a fibre of its length; at a twin-port OSFP switch cage one transceiver "
    "serves two links."
)
BOM_COLUMNS = [
    Column("Item", 3.6),
    Column("Part id", 2.2),
    Column("Qty", 0.6, "right"),
    Column("Unit price", 1.3, "right"),
    # Wide enough for a cluster's totals ($123,456,789.00) at the table's type size.
    Column("Extended", 1.9, "right"),
    Column("Price date", 1.35, "center"),
    Column("Source", 1.9),
]


def bom_pages(c: Composer, facts: PlanFacts) -> None:
    bom = facts.bom
    c.new_page(BOM)
    c.heading(BOM)
    c.paragraph(
        "Prices in US dollars. A server's board, chassis and stock power supplies come with the server and "
        "are not listed again; machines mounted in a rack are listed under the machine. Parts without a known "
        'price say "no price" and are left out of every total, which says how many there are. '
        "Prices marked * are the plan's own (a quote or an imported price list); the others come from the "
        "catalog's price book, each with its kind (launch, list, street or used price) and date, and numbers in "
        "brackets refer to the price sources at the end. Prices more than a year old are marked old."
        + _stale_sentence(bom.totals.stale_parts),
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
    if bom.fabric is not None:
        rows.append(Row([f"{bom.fabric.name} (worked out by rackplanner fabric)"], kind="band"))
        rows.append(Row([FABRIC_LINKS_NOTE], kind="band"))
        rows.extend(_bom_row(line, refs) for line in bom.fabric.lines)
        rows.append(_subtotal("Subtotal fabric", bom.fabric.subtotal_usd, bom.fabric.unpriced_lines))
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


def _stale_sentence(stale: int) -> str:
    if not stale:
        return ""
    if stale == 1:
        return " 1 of this plan's prices is more than a year old: check it."
    return f" {stale} of this plan's prices are more than a year old: check them."


def _bom_row(line: BomLine, refs: dict[str, int]) -> Row:
    unit = format_usd(line.unit_price_usd) + (" *" if line.overridden else "")
    source = ""
    if line.overridden:
        source = "your price"
    elif line.price_origin == "included":
        source = "in the system's price"
    elif line.price_source:
        kind = f"{line.price_kind} " if line.price_kind and line.price_kind != "catalog entry" else ""
        source = f"{kind}[{refs.get(line.price_source, 0)}] {_short_source(line.price_source)}"
    row = Row(
        [
            f"{line.vendor} {line.model}".strip(),
            line.part,
            str(line.quantity),
            unit,
            format_usd(line.extended_price_usd),
            line.price_date.isoformat() + (" old" if line.price_stale else "") if line.price_date else "",
            source,
        ]
    )
    if line.note:
        row.subs[0] = line.note
    if line.priced and line.price_stale:
        row.colors[5] = WARNING
    if line.price_note:
        row.subs[6] = line.price_note
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
