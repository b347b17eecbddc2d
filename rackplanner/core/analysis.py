"""The one entry point for everything worked out from a plan: the app, the CLI and the report all ask here.

``analyse(plan, catalog)`` gives an ``Analysis``: each result is worked out when first asked for,
by the domain function that owns its rule, and comes from that function's cache (by content or
by the identity of the plan objects it reads). So analysing the plan again after one edit
recomputes only what the edit touched, and a view that shows one machine computes nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass

from rackplanner.core.bom import Bom, build_bom
from rackplanner.core.capacity.curves import cached_capacity_table
from rackplanner.core.capacity.estimate import TableRow
from rackplanner.core.capacity.hardware import Hardware, from_machine
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.collector import collector_paused
from rackplanner.core.fabric_bom import fabric_items
from rackplanner.core.findings import FindingSummary, Severity, summarize_findings
from rackplanner.core.machine.fit import Finding, check_machine
from rackplanner.core.machine.power import MachinePower, machine_power
from rackplanner.core.machine.topology import Topology, derive_topology
from rackplanner.core.plan.model import Machine, Plan
from rackplanner.core.rack.cluster_fabric import ClusterFabric, cluster_fabric
from rackplanner.core.rack.fabric import RackNetwork, RowFabric, rack_network, row_fabric, switch_fabrics
from rackplanner.core.rack.mounting import RackLayout, rack_layout
from rackplanner.core.rack.power import RackPower, rack_power
from rackplanner.core.rack.report import RackReport, plan_fabrics, rack_report


class Analysis:
    """What a plan means, asked for piece by piece (cheap to make: nothing is computed until asked)."""

    def __init__(self, plan: Plan, catalog: Catalog) -> None:
        self.plan = plan
        self.catalog = catalog

    def _machine(self, machine: Machine | str) -> Machine:
        if isinstance(machine, Machine):
            return machine
        found = self.plan.machine(machine)
        if found is None:
            raise KeyError(f"the plan has no machine {machine!r}")
        return found

    # --- one machine ---------------------------------------------------------------------

    def topology(self, machine: Machine | str) -> Topology:
        """PCIe/NVLink tree, path classes, P2P and NCCL verdicts, ring all-reduce."""
        return derive_topology(self._machine(machine), self.catalog)

    def machine_findings(self, machine: Machine | str) -> list[Finding]:
        """Fit, lanes, bridges, memory and PSU findings, most severe first."""
        found = self._machine(machine)
        return check_machine(found, self.catalog, self.topology(found))

    def machine_power(self, machine: Machine | str) -> MachinePower:
        """DC load, transient peak, wall power, heat and each PSU's share."""
        return machine_power(self._machine(machine), self.catalog)

    def hardware(self, machine: Machine | str) -> Hardware:
        """What capacity estimates run on: the machine's GPUs with their links, or its CPUs and RAM."""
        return from_machine(self._machine(machine), self.catalog)

    def capacity_table(self, hardware: Hardware, *, runtime: str | None = None, context: int = 4096) -> list[TableRow]:
        """Every catalog model × format that fits ``hardware``, with its speeds (cached per hardware)."""
        return cached_capacity_table(self.catalog, hardware, runtime=runtime, context=context)

    # --- one rack ------------------------------------------------------------------------

    def rack_layout(self, rack_id: str) -> RackLayout:
        return rack_layout(self.plan, rack_id, self.catalog)

    def rack_power(self, rack_id: str) -> RackPower:
        return rack_power(self.plan, rack_id, self.catalog)

    def rack_network(self, rack_id: str) -> RackNetwork:
        return rack_network(self.plan, rack_id, self.catalog)

    def rack(self, rack_id: str) -> RackReport:
        """Layout, power, network, its machines' power and findings together."""
        return rack_report(self.plan, rack_id, self.catalog)

    # --- the whole plan ------------------------------------------------------------------

    def row_fabric(self, row: str) -> RowFabric:
        """The compute fabric a row of racks needs."""
        return row_fabric(self.plan, row, self.catalog)

    def fabrics(self) -> list[RowFabric]:
        """Each row's compute fabric size."""
        return plan_fabrics(self.plan, self.catalog)

    def findings_by_place(self) -> list[FindingSummary]:
        """Each distinct finding of every machine and rack once, with where it holds as
        ``machine:<id>`` and ``rack:<id>``, most severe first."""
        found: list[tuple[Severity, str, str, str]] = []
        for machine in self.plan.machines:
            found += [(f.severity, f.code, f.message, f"machine:{machine.id}") for f in self.machine_findings(machine)]
        for rack in self.plan.racks:
            found += [(f.severity, f.code, f.message, f"rack:{rack.id}") for f in self.rack(rack.id).findings]
        return summarize_findings(found)

    def bom(self) -> Bom:
        """Every part with its price; with the cables and switches a compute fabric across racks needs."""
        try:
            derived = fabric_items(self.cluster_fabric())
        except ValueError:  # a tree this switch cannot build: `rackplanner fabric` says why
            derived = []
        return build_bom(self.plan, self.catalog, derived=derived)

    def cluster_fabric(self) -> ClusterFabric:
        """The plan's compute fabric as a rail-optimized fat tree on its own switch model, wired."""
        return cluster_fabric(self.plan, self.catalog)

    def everything(self, previous: PlanAnalysis | None = None) -> PlanAnalysis:
        """Every machine's topology and findings, every rack's report, each row's fabric.

        With ``previous`` (the analysis of the plan before an edit) only what the edit touched is
        looked at again: untouched machines, racks and rows keep their results without a lookup.
        """
        if previous is not None:
            found = _reanalysis(self, previous)
            if found is not None:
                return found
        machines = self.plan.machines
        with collector_paused():
            return PlanAnalysis(
                plan=self.plan,
                topologies={m.id: self.topology(m) for m in machines},
                machine_findings={m.id: self.machine_findings(m) for m in machines},
                racks={r.id: self.rack(r.id) for r in self.plan.racks},
                fabrics=self.fabrics(),
            )


@dataclass(frozen=True)
class PlanAnalysis:
    plan: Plan  # the plan these results are of
    topologies: dict[str, Topology]  # by machine id
    machine_findings: dict[str, list[Finding]]  # by machine id
    racks: dict[str, RackReport]  # by rack id
    fabrics: list[RowFabric]

    @property
    def finding_count(self) -> int:
        return sum(len(f) for f in self.machine_findings.values()) + sum(len(r.findings) for r in self.racks.values())


def analyse(plan: Plan, catalog: Catalog) -> Analysis:
    """The plan's analysis, computed piece by piece as it is asked for."""
    return Analysis(plan, catalog)


def analyse_plan(plan: Plan, catalog: Catalog, previous: PlanAnalysis | None = None) -> PlanAnalysis:
    """Everything at once: topology and findings of every machine, every rack's report, each row's fabric.

    Pass the analysis of the plan before an edit as ``previous`` to redo only what the edit touched.
    """
    return Analysis(plan, catalog).everything(previous)


def _reanalysis(analysis: Analysis, previous: PlanAnalysis) -> PlanAnalysis | None:
    """The previous results with the edited machines, racks and rows redone; None when the edit
    changed what every rack depends on (feeds, pinned cords, rows, the set of machines or racks)."""
    plan, old = analysis.plan, previous.plan
    if plan is old:
        return previous
    if (
        plan.feeds != old.feeds
        or plan.outlet_assignments != old.outlet_assignments
        or plan.rows != old.rows
        or [m.id for m in plan.machines] != list(previous.topologies)
        or [r.id for r in plan.racks] != list(previous.racks)
    ):
        return None
    machines = [m for m, was in zip(plan.machines, old.machines, strict=True) if m is not was]
    changed = {m.id for m in machines}
    racks = [
        r
        for r, was in zip(plan.racks, old.racks, strict=True)
        if r is not was or any(d.machine in changed for d in r.devices if d.machine)
    ]
    if any(switch_fabrics(r, analysis.catalog) != switch_fabrics(old.rack(r.id), analysis.catalog) for r in racks):
        return None  # which racks' ports go elsewhere may have changed everywhere
    topologies, findings = dict(previous.topologies), dict(previous.machine_findings)
    for machine in machines:
        topologies[machine.id] = analysis.topology(machine)
        findings[machine.id] = analysis.machine_findings(machine)
    reports = dict(previous.racks)
    for rack in racks:
        reports[rack.id] = analysis.rack(rack.id)
    rows = {r.row for r in racks} | {was.row for r in racks if (was := old.rack(r.id)) is not None}
    if {r.row for r in plan.racks} != {r.row for r in old.racks}:
        return None  # a row gained its first rack or lost its last
    fabrics = [analysis.row_fabric(f.row) if f.row in rows else f for f in previous.fabrics]
    return PlanAnalysis(plan=plan, topologies=topologies, machine_findings=findings, racks=reports, fabrics=fabrics)
