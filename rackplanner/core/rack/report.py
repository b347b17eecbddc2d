"""One rack's layout, power, network and findings together: what the power command, the app and the report show."""

from __future__ import annotations

from pydantic import BaseModel

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.findings import RackFinding, sort_findings
from rackplanner.core.machine.power import MachinePower, machine_power
from rackplanner.core.plan.cache import ContentCache, identity_key
from rackplanner.core.plan.model import Plan, RackInputs, rack_inputs
from rackplanner.core.rack.fabric import RackNetwork, RowFabric, rack_network, row_fabric
from rackplanner.core.rack.mounting import RackLayout, rack_layout
from rackplanner.core.rack.power import RackPower, rack_power


class RackReport(BaseModel):
    """Everything ``rackplanner power`` and the power dock show for one rack."""

    layout: RackLayout
    power: RackPower
    network: RackNetwork
    machines: list[MachinePower]
    findings: list[RackFinding]


# By the plan objects a rack's results come from, and by those results themselves (an edit that
# changes nothing a report shows, such as a device moved within the rack, builds no new report).
_BY_INPUTS: ContentCache[RackReport] = ContentCache()
_BY_RESULTS: ContentCache[RackReport] = ContentCache()


def rack_report(plan: Plan, rack_id: str, catalog: Catalog) -> RackReport:
    """The rack's layout, power, network and machines' power (cached while none of those results changes)."""
    inputs = rack_inputs(plan, rack_id)
    # Everything a rack's results are computed from; the same objects give the same report at once.
    key = identity_key(inputs.rack, *inputs.objects())
    return _BY_INPUTS.get(catalog, key, lambda: _rack_report(plan, inputs, catalog))


def _rack_report(plan: Plan, inputs: RackInputs, catalog: Catalog) -> RackReport:
    rack_id = inputs.rack.id
    layout = rack_layout(plan, rack_id, catalog)
    power = rack_power(plan, rack_id, catalog)
    network = rack_network(plan, rack_id, catalog)
    machines = [machine_power(m, catalog) for m in inputs.machines]
    return _BY_RESULTS.get(
        catalog,
        identity_key(layout, power, network, *machines),
        lambda: RackReport(
            layout=layout,
            power=power,
            network=network,
            machines=machines,
            findings=sort_findings([*layout.findings, *power.findings, *network.findings]),
        ),
    )


def plan_fabrics(plan: Plan, catalog: Catalog) -> list[RowFabric]:
    """The compute fabric of each row that holds racks, in the plan's row order."""
    used = {r.row for r in plan.racks}
    return [row_fabric(plan, row.id, catalog) for row in plan.rows if row.id in used]
