"""Plain-text tables of a plan's power: what ``rackplanner power`` prints for each rack."""

from __future__ import annotations

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Pdu
from rackplanner.core.rack.fabric import RowFabric
from rackplanner.core.rack.power import RackPower
from rackplanner.core.rack.report import RackReport


def format_power(catalog: Catalog, reports: list[RackReport], fabrics: list[RowFabric]) -> str:
    """The text ``rackplanner power`` prints: per rack, machines, PDUs per scenario, cords, findings."""
    out: list[str] = []
    for report in reports:
        out.extend(_rack_lines(report, catalog))
        out.append("")
    for fabric in fabrics:
        if fabric.size is None:
            continue
        size = fabric.size
        row = fabric.row_name or fabric.row
        out.append(f"Compute fabric, {row}: {fabric.endpoints} ports at {fabric.speed_gbps or 0:g} Gb/s")
        if size.spines:
            cores = f" and {size.cores} cores" if size.cores else ""
            out.append(
                f"  non-blocking leaf/spine: {size.leaves} leaves and {size.spines} spines{cores} "
                f"({size.downlinks_per_leaf} down / {size.uplinks_per_leaf} up per leaf); "
                f"the row has {fabric.leaves_present} switch(es)"
            )
        else:
            out.append(f"  one {size.switch_ports}-port switch is enough (the row has {fabric.leaves_present})")
        for cable, count in fabric.cables.items():
            out.append(f"  {count:>4} x {cable}")
        out.append("")
    if not reports:
        out.append("The plan has no racks.")
    return "\n".join(out).rstrip() + "\n"


def _rack_lines(report: RackReport, catalog: Catalog) -> list[str]:
    layout, power = report.layout, report.power
    rack_part = catalog.get(layout.part)
    lines = [
        f"{layout.name} ({layout.rack}, {rack_part.label if rack_part else layout.part}, {layout.height_u}U)",
        f"  space: {layout.used_u} of {layout.height_u} U used ({layout.utilisation_percent:.0f}%), "
        f"{layout.free_u} U free; equipment {layout.equipment_weight_kg:,.1f} kg"
        + (f" plus {len(layout.weight_unknown)} device(s) of unknown weight" if layout.weight_unknown else "")
        + (f" (rack rated {layout.max_load_kg:,.0f} kg)" if layout.max_load_kg else ""),
        f"  load: {power.load_w / 1000:,.2f} kW, {power.load_va / 1000:,.2f} kVA at power factor "
        f"{power.power_factor:g}, {power.heat_btu_hr:,.0f} BTU/hr",
    ]
    if report.machines:
        lines.append("")
        lines.append(
            f"  {'machine':<18}{'DC max W':>10}{'wall W':>9}{'VA':>8}{'BTU/hr':>9}  PSUs (per PSU: normal / one lost)"
        )
        for m in report.machines:
            psu = m.psu
            psu_text = "no PSU"
            if psu is not None:
                lost = f"{psu.per_psu_one_lost_w:,.0f} W" if psu.per_psu_one_lost_w is not None else "-"
                psu_text = (
                    f"{psu.count} x {psu.watts_each:,.0f} W {psu.redundancy} "
                    f"({psu.per_psu_normal_w:,.0f} W / {lost}, {psu.efficiency_normal:.0%} efficient)"
                )
            lines.append(
                f"  {m.name[:17]:<18}{m.dc_max_w:>10,.0f}{m.wall_max_w:>9,.0f}{m.wall_max_va:>8,.0f}"
                f"{m.heat_max_btu_hr:>9,.0f}  {psu_text}"
            )
    for pdu_id in [p.pdu for p in power.scenarios[0].pdus] if power.scenarios else []:
        lines.append("")
        lines.extend(_pdu_lines(power, pdu_id, catalog))
    if power.cords:
        lines.append("")
        lines.append("  power cords:")
        for cord in power.cords:
            how = "set by hand" if cord.manual else "auto"
            outlet = cord.outlet_type.removeprefix("iec-60320-").upper()
            lines.append(
                f"    {cord.device_name} PSU {cord.psu_index + 1} -> {_pdu_name(power, cord.pdu)} "
                f"{cord.outlet_group} ({cord.line}, {outlet}) [{how}]"
            )
    if report.findings:
        lines.append("")
        lines.append("  findings:")
        for finding in report.findings:
            lines.append(f"    {finding.severity:<7} {finding.message}")
    return lines


def _pdu_lines(power: RackPower, pdu_id: str, catalog: Catalog) -> list[str]:
    first = power.pdu_load(power.scenarios[0].scenario, pdu_id)
    part = catalog.get_as(first.part, Pdu)
    described = (
        f"{part.model}, {part.voltage_v:g} V {'3-phase ' + part.wiring if part.phases == 3 else 'single-phase'}"
        if part
        else first.part
    )
    feed = f"feed {first.feed} (side {first.side})" if first.feed else "no feed"
    lines = [
        f"  {first.name}: {described}, {feed}",
        f"    limit per line: {first.limit_basis}; usable {first.usable_va / 1000:,.1f} kVA",
    ]
    line_names = [line.line for line in first.lines]
    header = f"    {'scenario':<16}" + "".join(f"{name:>16}" for name in line_names) + f"{'imbalance':>11}{'kVA':>8}"
    if first.neutral_a is not None:
        header += f"{'neutral':>10}"
    lines.append(header)
    for scenario in power.scenarios:
        load = power.pdu_load(scenario.scenario, pdu_id)
        if not load.alive:
            lines.append(f"    {scenario.label:<16}{'(no power: feed down)':>{16 * len(line_names)}}")
            continue
        cells = "".join(_cell(line.current_a, line.percent, line.over) for line in load.lines)
        row = f"    {scenario.label:<16}{cells}{load.imbalance_percent:>10.0f}%{load.load_va / 1000:>8.2f}"
        if load.neutral_a is not None:
            row += f"{load.neutral_a:>8.1f} A"
        lines.append(row)
    if first.breakers:
        worst = {b.outlet_group: b for b in first.breakers}
        for scenario in power.scenarios[1:]:
            for b in power.pdu_load(scenario.scenario, pdu_id).breakers:
                if b.current_a > worst[b.outlet_group].current_a:
                    worst[b.outlet_group] = b
        parts = []
        for b in worst.values():
            rating = f" of {b.limit_a:.1f} A" if b.limit_a is not None else ""
            parts.append(f"{b.outlet_group} ({b.line}) {b.current_a:.1f} A{rating}")
        unknown = " (breaker ratings not in the catalog)" if all(b.breaker_a is None for b in worst.values()) else ""
        lines.append(f"    outlet groups at their worst{unknown}: " + "; ".join(parts))
    outlets = [o for o in power.outlets if o.pdu == pdu_id]
    if outlets:
        text = ", ".join(f"{o.outlet_type.removeprefix('iec-60320-').upper()} {o.used}/{o.total}" for o in outlets)
        lines.append(f"    outlets used: {text}")
    return lines


def _cell(amps: float, percent: float, over: bool) -> str:
    text = f"{amps:.1f} A {percent:.0f}%" + (" !" if over else "  ")
    return f"{text:>16}"


def _pdu_name(power: RackPower, pdu_id: str) -> str:
    if not power.scenarios:
        return pdu_id
    return next((p.name for p in power.scenarios[0].pdus if p.pdu == pdu_id), pdu_id)
