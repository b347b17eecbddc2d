"""The figures a plan's report states: totals, distinct machine configurations, capacity, findings.

No Qt here: every number comes from the core (BOM, power, rack layout, capacity, fit), so
the PDF shows the same figures as ``rackplanner power``, ``capacity`` and ``check``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from rackplanner.core.analysis import analyse
from rackplanner.core.bom import Bom
from rackplanner.core.capacity.hardware import Hardware
from rackplanner.core.capacity.picks import ModelPick, top_models
from rackplanner.core.capacity.purchase import Purchase, purchase_of_machine
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Gpu
from rackplanner.core.errors import InputError
from rackplanner.core.findings import FindingSummary, RackFinding, summarize_findings
from rackplanner.core.machine.fit import Finding
from rackplanner.core.machine.power import MachinePower
from rackplanner.core.plan.model import Machine, Plan
from rackplanner.core.rack.report import RackReport

# Models listed per configuration in the capacity summary, and the context they are sized at.
MODELS_PER_CONFIG = 6
CAPACITY_CONTEXT = 4096


@dataclass
class MachineConfig:
    """Machines with equal parts: one drawing, one capacity estimate for all of them."""

    machines: list[Machine]
    hardware: Hardware | None = None
    models: list[ModelPick] = field(default_factory=list)
    capacity_note: str = ""
    purchase: Purchase | None = None

    @property
    def first(self) -> Machine:
        return self.machines[0]

    @property
    def names(self) -> str:
        return ", ".join(m.name for m in self.machines)


@dataclass
class PlanFacts:
    plan: Plan
    catalog: Catalog
    bom: Bom
    racks: list[RackReport]
    unmounted: list[MachinePower]
    configs: list[MachineConfig]
    machine_findings: list[Finding]
    rack_findings: list[RackFinding]
    load_w: float
    load_va: float
    heat_btu_hr: float
    used_u: int
    total_u: int
    gpus: int

    @property
    def findings_count(self) -> int:
        """Distinct findings: one a row of identical servers shares counts once."""
        return len(self.findings_summary)

    @cached_property
    def findings_summary(self) -> list[FindingSummary]:
        """Each distinct finding once, with the machines and racks it holds for, most severe first."""
        names = {m.id: m.name for m in self.plan.machines}
        racks = {r.id: r.name for r in self.plan.racks}
        found = [(f.severity, f.code, f.message, names.get(f.machine, f.machine)) for f in self.machine_findings]
        found += [(f.severity, f.code, f.message, racks.get(f.rack, f.rack)) for f in self.rack_findings]
        return summarize_findings(found)


def machine_configs(plan: Plan) -> list[MachineConfig]:
    """Machines grouped by equal parts (name, id and notes aside), in plan order."""
    groups: dict[str, MachineConfig] = {}
    for machine in plan.machines:
        key = machine.model_dump_json(exclude={"id", "name", "notes"})
        if key in groups:
            groups[key].machines.append(machine)
        else:
            groups[key] = MachineConfig(machines=[machine])
    return list(groups.values())


def plan_facts(plan: Plan, catalog: Catalog) -> PlanFacts:
    """Everything the report states about ``plan``."""
    analysis = analyse(plan, catalog)
    racks = [analysis.rack(r.id) for r in plan.racks]
    mounted = {d.machine for r in plan.racks for d in r.devices if d.machine}
    unmounted = [analysis.machine_power(m) for m in plan.machines if m.id not in mounted]
    configs = machine_configs(plan)
    for config in configs:
        try:
            config.hardware = analysis.hardware(config.first)
        except InputError as exc:
            config.capacity_note = str(exc)
            continue
        config.models = top_models(catalog, config.hardware, context=CAPACITY_CONTEXT, limit=MODELS_PER_CONFIG)
        config.purchase = purchase_of_machine(catalog, config.first, plan.user_prices)
        if not config.models:
            config.capacity_note = "No catalog model fits this machine's memory at the common formats."
    machine_findings = [f for m in plan.machines for f in analysis.machine_findings(m)]
    rack_findings = [f for r in racks for f in r.findings]
    load_w = sum(r.power.load_w for r in racks) + sum(m.wall_max_w for m in unmounted)
    load_va = sum(r.power.load_va for r in racks) + sum(m.wall_max_va for m in unmounted)
    heat = sum(r.power.heat_btu_hr for r in racks) + sum(m.heat_max_btu_hr for m in unmounted)
    gpus = sum(1 for m in plan.machines for c in m.cards if isinstance(catalog.get(c.part), Gpu))
    return PlanFacts(
        plan=plan,
        catalog=catalog,
        bom=analysis.bom(),
        racks=racks,
        unmounted=unmounted,
        configs=configs,
        machine_findings=machine_findings,
        rack_findings=rack_findings,
        load_w=load_w,
        load_va=load_va,
        heat_btu_hr=heat,
        used_u=sum(r.layout.used_u for r in racks),
        total_u=sum(r.layout.height_u for r in racks),
        gpus=gpus,
    )
