"""Everything the app works out for a whole plan: each machine's topology and findings, each rack's report.

Each piece comes from its own cache (by content or by the identity of the plan objects it
reads), so analysing the plan again after one edit recomputes only what the edit touched.
"""

from __future__ import annotations

from dataclasses import dataclass

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.machine.fit import Finding, check_machine
from rackplanner.core.machine.topology import Topology, derive_topology
from rackplanner.core.plan.model import Plan
from rackplanner.core.rack.fabric import RowFabric
from rackplanner.core.rack.report import RackReport, plan_fabrics, rack_report


@dataclass(frozen=True)
class PlanAnalysis:
    topologies: dict[str, Topology]  # by machine id
    machine_findings: dict[str, list[Finding]]  # by machine id
    racks: dict[str, RackReport]  # by rack id
    fabrics: list[RowFabric]

    @property
    def finding_count(self) -> int:
        return sum(len(f) for f in self.machine_findings.values()) + sum(len(r.findings) for r in self.racks.values())


def analyse_plan(plan: Plan, catalog: Catalog) -> PlanAnalysis:
    """Topology and fit findings of every machine, layout, power and network of every rack, each row's fabric."""
    topologies = {m.id: derive_topology(m, catalog) for m in plan.machines}
    findings = {m.id: check_machine(m, catalog, topologies[m.id]) for m in plan.machines}
    racks = {r.id: rack_report(plan, r.id, catalog) for r in plan.racks}
    return PlanAnalysis(topologies, findings, racks, plan_fabrics(plan, catalog))
