"""Network ports: what each device needs by network, which switch port serves it, and fabric sizing.

Networks follow the usual GPU-cluster split (002_daeb2f0cc80a7fe9.txt, Lambda Echelon): a
compute fabric (InfiniBand or RDMA NICs), storage, in-band management (Ethernet) and
out-of-band management (1 GbE to each BMC). A two-level non-blocking leaf/spine fabric
gives each leaf as many uplinks as downlinks; 216 endpoint ports on 36-port switches need
6 spines (002_daeb2f0cc80a7fe9.txt, the CS7520 example).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Literal
from weakref import WeakKeyDictionary

from pydantic import BaseModel

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import NetworkSwitch, Nic, RackDevice
from rackplanner.core.findings import RackFinding, RackFindings
from rackplanner.core.plan.cache import ContentCache, LayeredCache, devices_key, identity_key
from rackplanner.core.plan.model import MountedDevice, Plan, Rack, rack_machines
from rackplanner.core.plan.resolve import server_of
from rackplanner.core.rack.fat_tree import size_fat_tree

Network = Literal["compute", "storage", "in-band", "oob"]
NETWORK_LABELS: dict[str, str] = {
    "compute": "compute fabric",
    "storage": "storage",
    "in-band": "in-band management",
    "oob": "out-of-band management",
}
BMC_SPEED_GBPS = 1.0
# Direct-attach copper reaches about 3 m at 100-200 Gb/s, enough inside one rack; links
# between racks (leaf to spine) need optics (active optical cables or transceivers).
IN_RACK_CABLE = "DAC"
BETWEEN_RACKS_CABLE = "AOC/optical"


class PortDemand(BaseModel):
    device: str
    name: str
    network: Network
    count: int
    speed_gbps: float
    connector: str | None
    source: str


class SwitchPortUse(BaseModel):
    device: str
    name: str
    part: str
    fabric: str
    speed_gbps: float
    connector: str
    total: int
    used: int

    @property
    def free(self) -> int:
        return self.total - self.used


class CableRun(BaseModel):
    device: str
    switch: str
    network: Network
    speed_gbps: float
    cable: str
    count: int


class RackNetwork(BaseModel):
    rack: str
    demands: list[PortDemand]
    switch_ports: list[SwitchPortUse]
    cables: list[CableRun]
    findings: list[RackFinding]
    # Ports cabled to switches in other racks of the plan, by network (sized by the plan's fabric).
    outside_ports: dict[str, int] = {}

    def ports_needed(self, network: str) -> int:
        return sum(d.count for d in self.demands if d.network == network)


class FabricSize(BaseModel):
    """A non-blocking fabric for ``endpoints`` ports of one speed: the one-rail fat tree."""

    endpoints: int
    switch_ports: int
    leaves: int
    spines: int
    downlinks_per_leaf: int
    uplinks_per_leaf: int
    endpoint_cables: int
    leaf_spine_cables: int
    # Beyond what two tiers hold (``switch_ports`` x half of them), pods of leaves meet at cores.
    cores: int = 0
    spine_core_cables: int = 0


def size_leaf_spine(endpoints: int, switch_ports: int) -> FabricSize:
    """Leaves and spines (and cores, past two tiers) for a non-blocking fabric; one switch when it is enough.

    ValueError for switches of fewer than 2 ports, or more endpoints than three tiers hold."""
    tree = size_fat_tree(endpoints, 1, switch_ports)
    leaf, spine, core = tree.tiers[0], tree.tier("spine"), tree.tier("core")
    return FabricSize(
        endpoints=endpoints,
        switch_ports=switch_ports,
        leaves=leaf.switches,
        spines=spine.switches if spine else 0,
        downlinks_per_leaf=leaf.down_per_switch,
        uplinks_per_leaf=leaf.up_per_switch,
        endpoint_cables=endpoints,
        leaf_spine_cables=leaf.up_used,
        cores=core.switches if core else 0,
        spine_core_cables=spine.up_used if spine else 0,
    )


def device_demands(device: MountedDevice, plan: Plan, catalog: Catalog) -> list[PortDemand]:
    """Ports a mounted device needs, by network: its NICs, its BMC, a NetBox device's interfaces.

    Alike ports of one device (eight rail NICs of one model) are one demand with their count."""
    counts: Counter[tuple[Network, float, str | None, str]] = Counter()

    def need(network: Network, count: int, speed: float, connector: str | None, source: str) -> None:
        counts[(network, speed, connector, source)] += count

    if device.machine is not None:
        machine = plan.machine(device.machine)
        if machine is None:
            return []
        for card in machine.cards:
            nic = catalog.get_as(card.part, Nic)
            if nic is None:
                continue
            # A card's own role wins; otherwise Ethernet NICs are taken as in-band, the rest as compute.
            network: Network = card.network or ("in-band" if nic.protocol == "ethernet" else "compute")
            need(network, nic.ports, nic.port_speed_gbps, nic.connector, nic.model)
        server = server_of(machine, catalog)
        if server is not None and server.bmc:
            need("oob", 1, BMC_SPEED_GBPS, "rj45", "BMC")
    else:
        part = catalog.get_as(device.part or "", RackDevice)
        if part is not None:
            if part.mgmt_ports:
                need("oob", part.mgmt_ports, BMC_SPEED_GBPS, "rj45", "management port")
            for group in part.interfaces:
                need("in-band", group.count, group.speed_gbps, group.connector, "interfaces")
    return [
        PortDemand(
            device=device.id,
            name=device.name,
            network=network,
            count=count,
            speed_gbps=speed,
            connector=connector,
            source=source,
        )
        for (network, speed, connector, source), count in counts.items()
    ]


@dataclass
class _Port:
    device: MountedDevice
    part: NetworkSwitch
    use: SwitchPortUse


_CACHE: LayeredCache[RackNetwork] = LayeredCache()
_ROW_CACHE: ContentCache[RowFabric] = ContentCache()
_RACK_FABRICS: ContentCache[frozenset[str]] = ContentCache()
# The last rack list counted, per catalog, and its count of racks holding each fabric's switches.
_LAST_COUNT: WeakKeyDictionary[Catalog, tuple[list[Rack], Counter[str]]] = WeakKeyDictionary()


def switch_fabrics(rack: Rack | None, catalog: Catalog) -> frozenset[str]:
    """The fabrics (infiniband, ethernet) of the switches mounted in ``rack``."""
    if rack is None:
        return frozenset()

    def compute() -> frozenset[str]:
        parts = (catalog.get_as(d.part or "", NetworkSwitch) for d in rack.devices if d.part)
        return frozenset(p.fabric for p in parts if p is not None)

    return _RACK_FABRICS.get(catalog, identity_key(rack), compute)


def _fabrics_elsewhere(plan: Plan, rack: Rack, catalog: Catalog) -> frozenset[str]:
    """Fabrics with a switch in another rack of the plan: ports this rack cannot serve are cabled there."""
    racks_with = _racks_with_fabrics(plan.racks, catalog)
    here = switch_fabrics(rack, catalog)
    return frozenset(f for f, n in racks_with.items() if n > (f in here))


def _racks_with_fabrics(racks: list[Rack], catalog: Catalog) -> Counter[str]:
    """How many racks hold a switch of each fabric: worked out again only for the racks an edit replaced."""
    last = _LAST_COUNT.get(catalog)
    if last is not None and last[0] is racks:
        return last[1]
    if last is not None and len(last[0]) == len(racks):
        counts = Counter(last[1])
        for old, new in zip(last[0], racks, strict=True):
            if old is not new:
                counts.subtract(switch_fabrics(old, catalog))
                counts.update(switch_fabrics(new, catalog))
        counts = +counts
    else:
        counts = Counter(f for r in racks for f in switch_fabrics(r, catalog))
    _LAST_COUNT[catalog] = (racks, counts)
    return counts


def rack_network(plan: Plan, rack_id: str, catalog: Catalog) -> RackNetwork:
    """Match each device's port needs to free switch ports in the same rack, with a cable list."""
    rack = plan.rack(rack_id)
    if rack is None:
        raise KeyError(rack_id)
    machines = rack_machines(plan, rack)
    related = identity_key(*machines)
    elsewhere = _fabrics_elsewhere(plan, rack, catalog)
    return _CACHE.get(
        catalog,
        (identity_key(rack), related, elsewhere),
        # Ports and cables do not depend on where a device sits in the rack.
        lambda: (devices_key(rack, "id", "name", "machine", "part"), related, elsewhere),
        lambda: _rack_network(plan, rack, catalog, elsewhere),
    )


def _rack_network(plan: Plan, rack: Rack, catalog: Catalog, elsewhere: frozenset[str]) -> RackNetwork:
    found = RackFindings(rack.id)

    ports = _switch_ports(rack, catalog)
    demands = [d for device in rack.devices for d in device_demands(device, plan, catalog)]
    cables: Counter[tuple[str, str, str, float, str]] = Counter()
    outside: Counter[tuple[str, str, str, float]] = Counter()
    for demand in demands:
        left = demand.count
        for port in _candidates(ports, demand):
            take = min(left, port.use.free)
            if take <= 0:
                continue
            port.use.used += take
            left -= take
            speed = min(demand.speed_gbps, port.use.speed_gbps)
            cable = _cable_name(speed, port.use.connector, port.use.fabric)
            cables[(demand.device, port.device.id, demand.network, speed, cable)] += take
            if port.use.speed_gbps < demand.speed_gbps:
                found.add(
                    "warning",
                    "port-slower",
                    f"{demand.name}: its {demand.speed_gbps:g} Gb/s {demand.source} port runs at "
                    f"{port.use.speed_gbps:g} Gb/s on {port.device.name}.",
                    [demand.device, port.device.id],
                )
            if left == 0:
                break
        if left and _fabric_of(demand) in elsewhere:
            outside[(demand.device, demand.name, demand.network, demand.speed_gbps)] += left
        elif left:
            found.add(
                "error",
                "no-switch-port",
                f"{demand.name} needs {left} more {demand.speed_gbps:g} Gb/s port(s) on the "
                f"{NETWORK_LABELS[demand.network]} ({demand.source}); no free switch port in this rack serves it.",
                [demand.device],
            )
    for (device, name, network, speed), count in outside.items():
        found.add(
            "info",
            "ports-outside-rack",
            f"{name}: {count} {speed:g} Gb/s {NETWORK_LABELS[network]} port(s) go to switches in other "
            "racks (the fabric sizes and cables them).",
            [device],
        )
    outside_ports: Counter[str] = Counter()
    for (_device, _name, network, _speed), count in outside.items():
        outside_ports[network] += count
    return RackNetwork(
        rack=rack.id,
        outside_ports=dict(outside_ports),
        demands=demands,
        switch_ports=[p.use for p in ports],
        cables=[
            CableRun(device=d, switch=s, network=n, speed_gbps=sp, cable=c, count=k)
            for (d, s, n, sp, c), k in cables.items()
        ],
        findings=found.sorted(),
    )


def _switch_ports(rack: Rack, catalog: Catalog) -> list[_Port]:
    ports = []
    for device in rack.devices:
        part = catalog.get_as(device.part or "", NetworkSwitch)
        if part is None:
            continue
        for group in part.ports:
            use = SwitchPortUse(
                device=device.id,
                name=device.name,
                part=part.id,
                fabric=part.fabric,
                speed_gbps=group.speed_gbps,
                connector=group.connector,
                total=group.count,
                used=0,
            )
            ports.append(_Port(device, part, use))
    return ports


def _fabric_of(demand: PortDemand) -> str:
    return "infiniband" if demand.network == "compute" else "ethernet"


def _candidates(ports: list[_Port], demand: PortDemand) -> list[_Port]:
    """Ports of the right fabric: same speed first, then faster, then slower (which a finding names)."""
    fabric = _fabric_of(demand)
    copper = _is_copper(demand.connector)
    # A BASE-T (RJ45) port takes only a BASE-T cable, a cage (SFP/QSFP/OSFP) only a pluggable one.
    fitting = [
        p for p in ports if p.part.fabric == fabric and (copper is None or _is_copper(p.use.connector) == copper)
    ]

    def rank(port: _Port) -> tuple[int, float]:
        speed = port.use.speed_gbps
        if speed == demand.speed_gbps:
            return (0, speed)
        if speed > demand.speed_gbps:
            return (1, speed)
        return (2, -speed)

    return sorted(fitting, key=rank)


def _is_copper(connector: str | None) -> bool | None:
    """Whether a port is BASE-T (RJ45); None when the connector is unknown."""
    return None if not connector else connector.lower() in ("rj45", "8p8c")


def _cable_name(speed_gbps: float, connector: str, fabric: str) -> str:
    if _is_copper(connector):
        return f"{speed_gbps:g}GbE RJ45 Cat6"
    kind = "IB" if fabric == "infiniband" else "GbE"
    return f"{speed_gbps:g}G {kind} {connector.upper()} {IN_RACK_CABLE}"


class RowFabric(BaseModel):
    """The compute fabric for a row of racks, sized as leaf/spine on the row's leaf switch model."""

    row: str
    row_name: str = ""
    racks: list[str]
    endpoints: int
    speed_gbps: float | None
    switch_part: str | None
    size: FabricSize | None
    leaves_present: int
    cables: dict[str, int]
    notes: list[str]


def row_fabric(plan: Plan, row: str, catalog: Catalog) -> RowFabric:
    """Size the compute fabric of one row (by row id) from its devices' compute ports and InfiniBand switches."""
    racks = [r for r in plan.racks if r.row == row]
    machines = [m for r in racks for m in rack_machines(plan, r)]
    key = identity_key(plan.row(row), *racks, None, *machines)
    return _ROW_CACHE.get(catalog, key, lambda: _row_fabric(plan, row, racks, catalog))


def _row_fabric(plan: Plan, row: str, racks: list[Rack], catalog: Catalog) -> RowFabric:
    found_row = plan.row(row)
    row_name = found_row.name if found_row is not None else row
    endpoints = 0
    speeds: Counter[float] = Counter()
    switches: list[NetworkSwitch] = []
    for rack in racks:
        # Each rack's port needs are already worked out (and cached) for its network.
        for demand in rack_network(plan, rack.id, catalog).demands:
            if demand.network == "compute":
                endpoints += demand.count
                speeds[demand.speed_gbps] += demand.count
        for device in rack.devices:
            part = catalog.get_as(device.part or "", NetworkSwitch)
            if part is not None and part.fabric == "infiniband":
                switches.append(part)
    notes: list[str] = []
    if not switches:
        notes.append("no InfiniBand switch in this row to size the fabric with")
        return RowFabric(
            row=row,
            row_name=row_name,
            racks=[r.id for r in racks],
            endpoints=endpoints,
            speed_gbps=None,
            switch_part=None,
            size=None,
            leaves_present=0,
            cables={},
            notes=notes,
        )
    switch = switches[0]
    radix = max(switch.ports, key=lambda g: g.count)
    speed = speeds.most_common(1)[0][0] if speeds else radix.speed_gbps
    try:
        size = size_leaf_spine(endpoints, radix.count)
    except ValueError as exc:  # more ports than three tiers of this switch hold
        notes.append(f"not sized: {exc}")
        return RowFabric(
            row=row, row_name=row_name, racks=[r.id for r in racks], endpoints=endpoints, speed_gbps=speed,
            switch_part=switch.id, size=None, leaves_present=len(switches), cables={}, notes=notes,
        )  # fmt: skip
    cables = {f"{speed:g}G IB {radix.connector.upper()} {IN_RACK_CABLE} (node to leaf)": size.endpoint_cables}
    if size.leaf_spine_cables:
        cables[f"{radix.speed_gbps:g}G IB {radix.connector.upper()} {BETWEEN_RACKS_CABLE} (leaf to spine)"] = (
            size.leaf_spine_cables
        )
    if size.spine_core_cables:
        cables[f"{radix.speed_gbps:g}G IB {radix.connector.upper()} {BETWEEN_RACKS_CABLE} (spine to core)"] = (
            size.spine_core_cables
        )
    if size.spines:
        cores = f" and {size.cores} cores" if size.cores else ""
        notes.append(
            f"{endpoints} ports need {size.leaves} leaves ({size.downlinks_per_leaf} down, "
            f"{size.uplinks_per_leaf} up), {size.spines} spines{cores} of {radix.count}-port {switch.model}; "
            f"the row has {len(switches)} such switch(es)."
        )
    return RowFabric(
        row=row,
        row_name=row_name,
        racks=[r.id for r in racks],
        endpoints=endpoints,
        speed_gbps=speed,
        switch_part=switch.id,
        size=size,
        leaves_present=len(switches),
        cables=cables,
        notes=notes,
    )
