"""The report's cover: plan, date, totals in boxes, the largest model each configuration runs, contents."""

from __future__ import annotations

from datetime import date

from PySide6.QtCore import QRectF

from rackplanner.core.bom import format_usd
from rackplanner.report.facts import CAPACITY_CONTEXT, PlanFacts
from rackplanner.report.pages import ACCENT, BAND, INK, MUTED, Column, Composer, Row, font
from rackplanner.report.titles import COVER, rate


def cover_page(c: Composer, facts: PlanFacts, when: date) -> float:
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
                    rate(best.decode_tokens_per_s) if best else "",
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


def contents(c: Composer, y: float) -> None:
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
    severities = [f.severity for f in facts.findings_summary]
    parts = [f"{severities.count(s)} {s}{'s' if severities.count(s) != 1 else ''}" for s in ("error", "warning")]
    return ", ".join([*parts, f"{severities.count('info')} notes"])
