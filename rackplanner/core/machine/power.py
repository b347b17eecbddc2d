"""What a machine draws: DC load from its parts, transient peak for PSU sizing, wall power and heat.

A figure the catalog does not give is replaced by a stated planning allowance, and every
allowance used is listed in the result's ``assumptions`` so nothing is silently guessed.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter

from pydantic import BaseModel

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Board, Chassis, Cpu, Drive, Gpu, Memory, Nic, PcieSwitch, Psu, Server
from rackplanner.core.plan.cache import ContentCache, LayeredCache, configuration_key, content_key, identity_key
from rackplanner.core.plan.model import Machine
from rackplanner.core.plan.resolve import board_of, chassis_of, psus_of, server_of

BTU_PER_HR_PER_W = 3.412

# 80 PLUS requires a power factor of at least 0.9 at full load, and Platinum server PSUs
# 0.95 (https://en.wikipedia.org/wiki/80_Plus). Apparent power uses 0.95.
POWER_FACTOR = 0.95

# 80 PLUS minimum efficiency by load fraction (https://en.wikipedia.org/wiki/80_Plus,
# "Efficiency level certifications"). Desktop and workstation PSUs are certified on the
# 115 V internal non-redundant test; server PSUs on the 230 V internal redundant test.
EfficiencyCurve = tuple[tuple[float, float], ...]
EFFICIENCY_115V_INTERNAL: dict[str, EfficiencyCurve] = {
    "80plus": ((0.2, 0.80), (0.5, 0.80), (1.0, 0.80)),
    "80plus-bronze": ((0.2, 0.82), (0.5, 0.85), (1.0, 0.82)),
    "80plus-silver": ((0.2, 0.85), (0.5, 0.88), (1.0, 0.85)),
    "80plus-gold": ((0.2, 0.87), (0.5, 0.90), (1.0, 0.87)),
    "80plus-platinum": ((0.2, 0.90), (0.5, 0.92), (1.0, 0.89)),
    "80plus-titanium": ((0.1, 0.90), (0.2, 0.92), (0.5, 0.94), (1.0, 0.90)),
}
EFFICIENCY_230V_REDUNDANT: dict[str, EfficiencyCurve] = {
    "80plus": ((0.2, 0.82), (0.5, 0.85), (1.0, 0.82)),
    "80plus-bronze": ((0.2, 0.81), (0.5, 0.85), (1.0, 0.81)),
    "80plus-silver": ((0.2, 0.85), (0.5, 0.89), (1.0, 0.85)),
    "80plus-gold": ((0.2, 0.88), (0.5, 0.92), (1.0, 0.88)),
    "80plus-platinum": ((0.2, 0.90), (0.5, 0.94), (1.0, 0.91)),
    "80plus-titanium": ((0.1, 0.90), (0.2, 0.94), (0.5, 0.96), (1.0, 0.91)),
}

# Planning allowances where the catalog has no figure (each use is listed in assumptions):
# a DDR4/DDR5 module draws about 1.5-3.5 W (icdirectory.com, "What is the power consumption
# of RDIMM"); 4 W covers large RDIMMs.
DIMM_ALLOWANCE_W = 4.0
# Drives by form factor: an M.2 NVMe SSD peaks at 8.6 W (Samsung 990 PRO data sheet, see
# catalog/drive.yaml); U.2/U.3 slots are specified for up to 25 W (SFF-8639); 2.5"/3.5" SATA
# and SAS drives are budgeted like a 3.5" hard disk's spin-up-free running draw, 10 W.
DRIVE_ALLOWANCE_W = {"m.2-2280": 8.6, "m.2-22110": 8.6, "u.2": 25.0, "u.3": 25.0, "e1.s": 25.0}
DRIVE_ALLOWANCE_OTHER_W = 10.0
# A x4/x8 PCIe add-in card is limited to 25 W by the PCIe CEM specification's slot budget.
NIC_ALLOWANCE_W = 25.0
# Board, fans, drives and USB devices of a desktop build besides CPU and GPUs.
DESKTOP_OVERHEAD_W = 75.0
# Board (BMC, chipset) and fans of a rack server when the catalog gives neither.
SERVER_OVERHEAD_W = 150.0

# "Expected" load: GPUs and CPUs at this fraction of their limit (a planning default).
EXPECTED_UTILISATION = 0.7

_REDUNDANCY = re.compile(r"^\s*(\d+)\s*\+\s*(\d+)\s*$")


class PowerLine(BaseModel):
    """One row of the load table: a part (or allowance) with its count and watts."""

    label: str
    part: str | None = None
    count: int
    each_w: float
    total_w: float
    peak_w: float
    scales_with_utilisation: bool = False
    assumed: bool = False


class PsuLoad(BaseModel):
    """How the machine's PSUs share the load, normally and with one lost."""

    psu: str
    model: str
    count: int
    watts_each: float
    active: int
    spare: int
    redundancy: str
    per_psu_normal_w: float
    per_psu_one_lost_w: float | None
    load_fraction_normal: float
    efficiency_normal: float
    efficiency_basis: str
    # The redundancy promise: the active PSUs alone carry the maximum load.
    redundancy_holds: bool
    one_lost_holds: bool
    inlet: str | None


class MachinePower(BaseModel):
    machine: str
    name: str
    lines: list[PowerLine]
    dc_max_w: float
    dc_expected_w: float
    transient_peak_w: float
    utilisation: float
    psu: PsuLoad | None
    efficiency: float
    wall_max_w: float
    wall_max_va: float
    wall_expected_w: float
    heat_max_btu_hr: float
    nameplate_w: float
    assumptions: list[str]
    recommended_psu_w: float | None = None
    recommended_psus: list[str] = []

    @property
    def power_cords(self) -> int:
        return self.psu.count if self.psu else 1

    @property
    def inlet(self) -> str | None:
        return self.psu.inlet if self.psu else None


def efficiency_at(psu: Psu | None, load_fraction: float) -> tuple[float, str]:
    """PSU efficiency at a load fraction, from its 80 PLUS level's curve (linear between points).

    Below the lowest certified point the lowest point's figure is used; a PSU with no known
    level is taken at the base 80 PLUS curve. Returns (efficiency, basis).
    """
    server = psu is not None and psu.form == "server"
    table = EFFICIENCY_230V_REDUNDANT if server else EFFICIENCY_115V_INTERNAL
    level = psu.efficiency if psu is not None and psu.efficiency else "80plus"
    curve = table[level]
    basis = f"{level} {'230 V redundant' if server else '115 V internal'} curve"
    if psu is None or not psu.efficiency:
        basis += " (no level known; base 80 PLUS assumed)"
    fraction = min(max(load_fraction, 0.0), 1.0)
    if fraction <= curve[0][0]:
        return curve[0][1], basis
    for (x0, y0), (x1, y1) in itertools.pairwise(curve):
        if fraction <= x1:
            return y0 + (y1 - y0) * (fraction - x0) / (x1 - x0), basis
    return curve[-1][1], basis


def parse_redundancy(text: str | None, count: int) -> tuple[int, int]:
    """(active, spare) PSUs from '2+2', '1+1', 'N+1' style text; without one, all are active."""
    if text:
        match = _REDUNDANCY.match(text)
        if match and int(match.group(1)) + int(match.group(2)) == count:
            return int(match.group(1)), int(match.group(2))
        if text.strip().upper() == "N+1" and count > 1:
            return count - 1, 1
    return count, 0


# By machine (object, then content: each machine keeps one result object) and by configuration
# (identical servers in a row compute once; only the labels differ).
_CACHE: LayeredCache[MachinePower] = LayeredCache()
_BY_CONFIGURATION: ContentCache[MachinePower] = ContentCache()


def machine_power(machine: Machine, catalog: Catalog, utilisation: float = EXPECTED_UTILISATION) -> MachinePower:
    """The machine's power figures (cached by content, so an edit elsewhere costs nothing)."""
    return _CACHE.get(
        catalog,
        (identity_key(machine), utilisation),
        lambda: (content_key(machine), utilisation),
        lambda: _shared_machine_power(machine, catalog, utilisation),
    )


def _shared_machine_power(machine: Machine, catalog: Catalog, utilisation: float) -> MachinePower:
    key = (configuration_key(machine), utilisation)
    figures = _BY_CONFIGURATION.get(catalog, key, lambda: _machine_power(machine, catalog, utilisation))
    if figures.machine == machine.id and figures.name == machine.name:
        return figures
    return figures.model_copy(update={"machine": machine.id, "name": machine.name})


def _machine_power(machine: Machine, catalog: Catalog, utilisation: float) -> MachinePower:
    server = server_of(machine, catalog)
    board = board_of(machine, catalog)
    chassis = chassis_of(machine, catalog)

    table = _LoadTable()
    add = table.add
    _cards(machine, catalog, table)
    cpu = catalog.get_as(machine.cpu, Cpu) if machine.cpu else None
    if cpu is not None:
        add(cpu.model, cpu.id, machine.cpu_count, cpu.tdp_w, scales=True)
    for item in machine.memory:
        memory = catalog.get_as(item.part, Memory)
        if memory is None:
            continue
        if memory.power_w is not None:
            add(memory.model, memory.id, item.count, memory.power_w)
        else:
            add(
                memory.model,
                memory.id,
                item.count,
                DIMM_ALLOWANCE_W,
                assumed=f"{memory.model}: no module power in the catalog, {DIMM_ALLOWANCE_W:g} W each assumed",
            )
    for item in machine.drives:
        drive = catalog.get_as(item.part, Drive)
        if drive is not None:
            _drive(drive, item.count, table)
    _board_and_fans(catalog, server, board, chassis, table)

    lines, assumptions = table.lines, table.assumptions
    dc_max = sum(line.total_w for line in lines)
    dc_expected = sum(line.total_w * (utilisation if line.scales_with_utilisation else 1.0) for line in lines)
    transient = sum(line.peak_w for line in lines)
    psu_load = _psu_load(machine, catalog, server, dc_max)
    if psu_load is not None:
        efficiency = psu_load.efficiency_normal
        efficiency_expected = efficiency_at(
            catalog.get_as(psu_load.psu, Psu), dc_expected / (psu_load.watts_each * psu_load.count)
        )[0]
    else:
        efficiency, basis = efficiency_at(None, 0.5)
        efficiency_expected = efficiency
        assumptions.append(f"no PSU chosen: wall power uses the {basis} at 50% load")
    wall_max = dc_max / efficiency
    recommended_w: float | None = None
    recommended: list[str] = []
    if server is None:
        recommended_w, recommended = _recommend_psu(machine, catalog, transient)
    return MachinePower(
        machine=machine.id,
        name=machine.name,
        lines=lines,
        dc_max_w=dc_max,
        dc_expected_w=dc_expected,
        transient_peak_w=transient,
        utilisation=utilisation,
        psu=psu_load,
        efficiency=efficiency,
        wall_max_w=wall_max,
        wall_max_va=wall_max / POWER_FACTOR,
        wall_expected_w=dc_expected / efficiency_expected,
        heat_max_btu_hr=wall_max * BTU_PER_HR_PER_W,
        nameplate_w=psu_load.watts_each * psu_load.count if psu_load else 0.0,
        assumptions=assumptions,
        recommended_psu_w=recommended_w,
        recommended_psus=recommended,
    )


class _LoadTable:
    """The rows of a machine's load table, and the allowances behind any of them."""

    def __init__(self) -> None:
        self.lines: list[PowerLine] = []
        self.assumptions: list[str] = []

    def add(
        self,
        label: str,
        part: str | None,
        count: int,
        each_w: float,
        *,
        peak_each_w: float | None = None,
        scales: bool = False,
        assumed: str | None = None,
    ) -> None:
        if count <= 0:
            return
        self.lines.append(
            PowerLine(
                label=label,
                part=part,
                count=count,
                each_w=each_w,
                total_w=each_w * count,
                peak_w=(peak_each_w if peak_each_w is not None else each_w) * count,
                scales_with_utilisation=scales,
                assumed=assumed is not None,
            )
        )
        if assumed:
            self.assumptions.append(assumed)


def gpu_budget_w(gpu: Gpu, power_limit_w: float | None) -> tuple[float, bool]:
    """Watts to budget for a GPU when sizing a PSU: its transient peak, scaled by a power limit.

    Returns (watts, measured): measured is False when no transient peak is known and the
    board power is used instead.
    """
    peak, measured = (gpu.transient_peak_w, True) if gpu.transient_peak_w else (gpu.tdp_w, False)
    if power_limit_w is not None:
        peak *= power_limit_w / gpu.tdp_w
    return peak, measured


def _cards(machine: Machine, catalog: Catalog, table: _LoadTable) -> None:
    gpu_counts: Counter[tuple[str, float | None]] = Counter()
    for card in machine.cards:
        part = catalog.get(card.part)
        if isinstance(part, Gpu):
            gpu_counts[(part.id, card.power_limit_w)] += 1
        elif isinstance(part, Nic):
            if part.tdp_w is not None:
                table.add(part.model, part.id, 1, part.tdp_w)
            else:
                table.add(
                    part.model,
                    part.id,
                    1,
                    NIC_ALLOWANCE_W,
                    assumed=f"{part.model}: no power figure, {NIC_ALLOWANCE_W:g} W (PCIe x8 card limit) assumed",
                )
        elif isinstance(part, Drive):
            _drive(part, 1, table)
    for (gpu_id, limit_w), count in sorted(gpu_counts.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0)):
        gpu = catalog.get_as(gpu_id, Gpu)
        assert gpu is not None
        watts = limit_w if limit_w is not None else gpu.tdp_w
        peak, _ = gpu_budget_w(gpu, limit_w)
        label = gpu.model if limit_w is None else f"{gpu.model} (limited to {limit_w:g} W)"
        note = None
        if gpu.transient_peak_w is None:
            note = f"{gpu.model}: no measured transient peak, board power {gpu.tdp_w:g} W used for PSU sizing"
        table.add(label, gpu.id, count, watts, peak_each_w=peak, scales=True, assumed=note)


def _drive(drive: Drive, count: int, table: _LoadTable) -> None:
    if drive.power_w is not None:
        table.add(drive.model, drive.id, count, drive.power_w)
        return
    watts = DRIVE_ALLOWANCE_W.get(drive.form_factor, DRIVE_ALLOWANCE_OTHER_W)
    table.add(
        drive.model,
        drive.id,
        count,
        watts,
        assumed=f"{drive.model}: no power figure, {watts:g} W ({drive.form_factor} allowance) assumed",
    )


def _board_and_fans(
    catalog: Catalog, server: Server | None, board: Board | None, chassis: Chassis | None, table: _LoadTable
) -> None:
    if board is not None:
        for switch in board.switches:
            part_switch = catalog.get_as(switch.part, PcieSwitch) if switch.part else None
            if part_switch is not None and part_switch.power_w is not None:
                table.add(f"{part_switch.model} PCIe switch", part_switch.id, 1, part_switch.power_w)
        if board.chipset is not None and board.chipset.power_w is not None:
            table.add(f"{board.chipset.name} chipset", None, 1, board.chipset.power_w)
    fans_w = (server.fans_w if server else None) or (chassis.fans_w if chassis else None)
    if board is not None and board.overhead_w is not None:
        table.add(f"{board.model} board", board.id, 1, board.overhead_w)
        if fans_w is not None:
            table.add("Fans", None, 1, fans_w)
        return
    if fans_w is not None:
        table.add("Fans", None, 1, fans_w)
        return
    if server is not None:
        table.add(
            "Board, BMC and fans (allowance)",
            None,
            1,
            SERVER_OVERHEAD_W,
            assumed=f"{server.model}: board and fan power not in the catalog, {SERVER_OVERHEAD_W:g} W assumed",
        )
    else:
        table.add(
            "Board, fans and USB (allowance)",
            None,
            1,
            DESKTOP_OVERHEAD_W,
            assumed=f"board and fans not in the catalog, {DESKTOP_OVERHEAD_W:g} W assumed for a desktop build",
        )


def _psu_load(machine: Machine, catalog: Catalog, server: Server | None, dc_max_w: float) -> PsuLoad | None:
    psus = psus_of(machine, catalog)
    if not psus:
        return None
    # Mixed PSU models are rare; the first model describes the set, counts add up.
    psu = psus[0][0]
    count = sum(n for _, n in psus)
    active, spare = parse_redundancy(server.psu_redundancy if server and not machine.psus else None, count)
    per_normal = dc_max_w / count
    per_one_lost = dc_max_w / (count - 1) if count > 1 else None
    fraction = per_normal / psu.watts
    efficiency, basis = efficiency_at(psu, fraction)
    redundancy = f"{active}+{spare}" if spare else ("none" if count == 1 else f"{count} sharing, no spare")
    return PsuLoad(
        psu=psu.id,
        model=psu.model,
        count=count,
        watts_each=psu.watts,
        active=active,
        spare=spare,
        redundancy=redundancy,
        per_psu_normal_w=per_normal,
        per_psu_one_lost_w=per_one_lost,
        load_fraction_normal=fraction,
        efficiency_normal=efficiency,
        efficiency_basis=basis,
        redundancy_holds=dc_max_w <= active * psu.watts,
        one_lost_holds=per_one_lost is not None and per_one_lost <= psu.watts,
        inlet=psu.inlet,
    )


def _recommend_psu(machine: Machine, catalog: Catalog, transient_w: float) -> tuple[float, list[str]]:
    """Smallest desktop PSU rating that covers the transient budget, and catalog PSUs that do."""
    needed_w = math.ceil(transient_w / 50) * 50
    connectors: Counter[str] = Counter()
    for card in machine.cards:
        gpu = catalog.get_as(card.part, Gpu)
        if gpu is not None:
            connectors.update(gpu.power_connectors)
    need_8pin = connectors["pcie-8pin"]
    need_hp = connectors["12vhpwr"] + connectors["12v-2x6"]
    fitting = [
        p
        for p in catalog.of_kind(Psu)
        if p.form != "server"
        and p.watts >= needed_w
        and (p.pcie_8pin is None or p.pcie_8pin >= need_8pin)
        and (p.pcie_12v_2x6 is None or p.pcie_12v_2x6 >= need_hp)
    ]
    fitting.sort(key=lambda p: (p.watts, p.price_usd or math.inf))
    return float(needed_w), [p.id for p in fitting[:3]]


def stock_supply_summary(server: Server, catalog: Catalog) -> list[str]:
    """A catalog server's stock supplies in words: usable watts with the spares, and its board's bays."""
    psu = catalog.get_as(server.psu, Psu)
    board = catalog.get_as(server.board, Board)
    lines = []
    if psu is not None:
        active, spare = parse_redundancy(server.psu_redundancy, server.psu_count)
        lines.append(
            f"{server.psu_count} x {psu.watts:,.0f} W supplies: {active * psu.watts:,.0f} W usable"
            + (f" with {spare} spare" if spare else " (no spare)")
        )
        text = (server.psu_redundancy or "").strip()
        stated = _REDUNDANCY.match(text)
        if text and (active, spare) == (server.psu_count, 0) and not (stated and int(stated.group(2)) == 0):
            lines.append(f"Redundancy {text!r} does not add up to {server.psu_count} supplies.")
    if board is not None:
        bays = [s for s in board.slots if s.kind in ("pcie", "sxm")]
        lines.append(f"Board: {len(bays)} GPU-capable slots or bays, {board.sockets} x {board.cpu_socket}")
    return lines
