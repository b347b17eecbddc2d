"""The report's sections, laid out on a ``Composer``: what each page says and in which order."""

from __future__ import annotations

from datetime import date

from PySide6.QtCore import QSizeF

from rackplanner.core.capacity.cost import ELECTRICITY_SOURCE, CostSettings, format_ownership
from rackplanner.core.capacity.estimate import DEFAULT_RUNTIME
from rackplanner.core.capacity.fitted import current
from rackplanner.core.capacity.measured_range import table_notes
from rackplanner.core.capacity.purchase import ownership_of
from rackplanner.core.capacity.runtime import RUNTIMES
from rackplanner.core.capacity.text import trust_note
from rackplanner.core.rack.report import RackReport
from rackplanner.report.bom_pages import bom_pages
from rackplanner.report.cover import contents, cover_page
from rackplanner.report.drawings import Drawings
from rackplanner.report.facts import CAPACITY_CONTEXT, MachineConfig, PlanFacts
from rackplanner.report.pages import INK, MUTED, Column, Composer, Row, font
from rackplanner.report.power_pages import power_pages
from rackplanner.report.titles import CAPACITY, FINDINGS, MACHINES, RACKS, SEVERITY_COLORS, rate


def compose(c: Composer, facts: PlanFacts, drawings: Drawings, when: date) -> None:
    """Every section in order; the cover's contents are filled in once the pages are known."""
    contents_at = cover_page(c, facts, when)
    bom_pages(c, facts)
    if facts.racks:
        for index, report in enumerate(facts.racks):
            _rack_page(c, facts, report, drawings, first=index == 0)
    for index, config in enumerate(facts.configs):
        _machine_page(c, config, index, len(facts.configs), drawings)
    power_pages(c, facts)
    _capacity(c, facts)
    _findings(c, facts)
    contents(c, contents_at)


# --- racks -------------------------------------------------------------------------------


AIRFLOW_KEY = (
    " The strip at a device's left edge is its airflow: blue where air goes in, orange where it comes out;"
    " the rack's front should take air in."
)


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
        f"equipment {weight}." + (AIRFLOW_KEY if any(d.airflow for d in layout.devices) else ""),
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
                    rate(m.decode_tokens_per_s),
                    rate(m.best_batch_tokens_per_s),
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
        if hw is not None:
            batches = table_notes(current(), hw, DEFAULT_RUNTIME, RUNTIMES[DEFAULT_RUNTIME].label)
            c.paragraph(trust_note(hw) + (f" {batches}" if batches else ""), 8, color=MUTED)
        c.paragraph(cost_sentence(config), 8.5)


def cost_sentence(config: MachineConfig) -> str:
    """The configuration's cost of ownership running its largest model for one user."""
    purchase, first = config.purchase, config.models[0] if config.models else None
    if purchase is None or first is None:
        return "Cost of ownership: unknown (no machine or no model to run)."
    cost = ownership_of(purchase, first.decode_tokens_per_s, None)
    if cost is None:
        missing = ", ".join(purchase.unpriced) or "its wall power"
        return f"Cost of ownership: unknown, no price for {missing}."
    s = CostSettings()
    lines = [line for line in format_ownership(cost) if not line.startswith("note: ")]
    return (
        f"Cost of ownership, each machine, running {first.label} ({first.format_label}) for one user: "
        + "; ".join(lines)
        + f". Assumed: {s.electricity_usd_per_kwh * 100:.2f} ¢/kWh, {s.utilisation:.0%} of hours busy, "
        f"paid off over {s.amortisation_years:g} years ({ELECTRICITY_SOURCE})."
    )


# --- findings ----------------------------------------------------------------------------


def _findings(c: Composer, facts: PlanFacts) -> None:
    c.new_page(FINDINGS)
    c.heading("Open findings")
    summary = facts.findings_summary
    if not summary:
        c.paragraph("No findings: every fit, power and placement rule passes.", 9)
        return
    # Identical servers report the same finding once, naming every server it holds for.
    rows = [Row([f.severity, f.where_text, f.message], colors={0: SEVERITY_COLORS[f.severity]}) for f in summary]
    c.table([Column("Severity", 1.1), Column("Where", 1.8), Column("Finding", 8)], rows, points=8)
