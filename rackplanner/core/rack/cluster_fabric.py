"""A plan's compute fabric as a rail-optimized fat tree: which port goes to which, over what cable.

Nodes are the machines with compute-fabric ports, in row and rack order; their n-th compute
port is rail n. The plan's switches of the fabric's model take the roles the tree needs: a
switch whose id or name says leaf, spine or core takes that role, the rest fill the roles in
plan order. A role the plan has too few switches for is still wired, to switches marked "not
in the plan", so every count adds up and the missing ones are named.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterator

from pydantic import BaseModel

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import NetworkSwitch
from rackplanner.core.plan.model import Plan
from rackplanner.core.rack.cable_plan import Place, cable_kind, rack_places, route_m
from rackplanner.core.rack.fabric import NETWORK_LABELS, rack_network
from rackplanner.core.rack.fat_tree import FatTree, TierName, size_fat_tree
from rackplanner.core.rack.side_networks import SideNetwork, size_side_networks

NOT_PLACED = "(not in the plan)"
MAX_SPLIT = 8  # breakout cables split a cage into at most eight ports


class FabricLink(BaseModel):
    """One cable of the fabric, from the lower end to the upper."""

    level: str  # node-leaf, leaf-spine, spine-core
    from_rack: str
    from_device: str
    from_port: str
    to_rack: str
    to_device: str
    to_port: str
    speed_gbps: float
    length_m: float | None
    cable: str


class NetworkPorts(BaseModel):
    """Ports a network other than the compute fabric needs, by speed."""

    network: str
    ports_by_speed: dict[str, int]


class ClusterFabric(BaseModel):
    switch_part: str | None
    switch_model: str | None
    speed_gbps: float | None
    tree: FatTree | None
    needed: dict[str, int]  # switches per tier
    in_plan: dict[str, int]  # of those, how many are switches the plan holds
    spare_switches: int  # switches of the model beyond what the tree needs
    links: list[FabricLink]
    other_networks: list[NetworkPorts]
    notes: list[str]
    side_networks: list[SideNetwork] = []


class _Switch:
    """A switch of the tree: where it stands (None when the plan lacks it) and its next free ports."""

    __slots__ = ("device", "next_down", "next_up", "place", "rack", "u")

    def __init__(self, rack: str, device: str, place: Place | None, u: int | None, first_up: int) -> None:
        self.rack, self.device, self.place, self.u = rack, device, place, u
        self.next_down, self.next_up = 1, first_up

    def port(self, up: bool) -> str:
        if up:
            self.next_up += 1
            return str(self.next_up - 1)
        self.next_down += 1
        return str(self.next_down - 1)


def cluster_fabric(
    plan: Plan,
    catalog: Catalog,
    *,
    switch: str | None = None,
    tiers: int | None = None,
    leaf_oversubscription: float = 1.0,
    spine_oversubscription: float = 1.0,
    storage_switch: str | None = None,
    storage_oversubscription: float = 1.0,
    split: int = 1,
    wire: bool = True,
) -> ClusterFabric:
    """Size and wire the plan's compute fabric on ``switch`` (default: the plan's most common InfiniBand switch).

    ValueError for a switch id that is not a network switch, or a tree the switch cannot build.
    """
    places = rack_places(plan, catalog)
    order = {rack_id: n for n, rack_id in enumerate(places)}
    ordered = sorted(plan.racks, key=lambda r: order.get(r.id, len(order)))
    nodes: list[tuple[str, str, int, float]] = []  # rack, device, compute ports, speed
    others: dict[str, Counter[float]] = {}
    for rack in ordered:
        by_device: dict[str, list[float]] = {}
        for demand in rack_network(plan, rack.id, catalog).demands:
            if demand.network == "compute":
                by_device.setdefault(demand.device, []).extend([demand.speed_gbps] * demand.count)
            else:
                others.setdefault(demand.network, Counter())[demand.speed_gbps] += demand.count
        for device, speeds in by_device.items():
            nodes.append((rack.id, device, len(speeds), Counter(speeds).most_common(1)[0][0]))
    other_networks = [
        NetworkPorts(network=NETWORK_LABELS[n], ports_by_speed={f"{speed:g} Gb/s": k for speed, k in c.items()})
        for n, c in others.items()
    ]
    sides = size_side_networks(plan, catalog, others, switch=storage_switch, oversubscription=storage_oversubscription)
    part = _fabric_switch(plan, catalog, switch)
    empty = ClusterFabric(switch_part=None, switch_model=None, speed_gbps=None, tree=None, needed={}, in_plan={},
                          spare_switches=0, links=[], other_networks=other_networks, notes=[],
                          side_networks=sides)  # fmt: skip
    if not nodes:
        empty.notes.append("no machine in a rack has a compute-fabric port")
        return empty
    if part is None:
        empty.notes.append("no InfiniBand switch in the plan to build the fabric from (name one with --switch)")
        return empty
    radix_group = max(part.ports, key=lambda g: g.count)
    if not 1 <= split <= MAX_SPLIT:
        raise ValueError(f"a breakout splits a port into 1 to {MAX_SPLIT} ports, not {split}")
    # A breakout cable splits each cage into ``split`` ports of a fraction of its speed (64 x 800G as 128 x 400G).
    radix, switch_speed = radix_group.count * split, radix_group.speed_gbps / split
    rails = max(n[2] for n in nodes)
    tree = size_fat_tree(len(nodes), rails, radix, tiers=tiers,
                         leaf_oversubscription=leaf_oversubscription,
                         spine_oversubscription=spine_oversubscription)  # fmt: skip
    roles, spare = _assign_roles(plan, part.id, tree, places)
    speed = Counter(n[3] for n in nodes).most_common(1)[0][0]
    # Without wiring: the tiers and which switches the plan has, for a view that updates per edit.
    links = list(_wire(tree, nodes, roles, places, plan, switch_speed)) if wire else []
    notes: list[str] = []
    if switch_speed < speed:
        notes.append(
            f"The switch ports run at {switch_speed:g} Gb/s, slower than the nodes' {speed:g} Gb/s: "
            "each node link runs at the slower speed."
        )
    missing = {t.name: t.switches - sum(1 for s in roles[t.name] if s.place is not None) for t in tree.tiers}
    if any(missing.values()):
        notes.append(
            "The plan lacks "
            + ", ".join(f"{n:,} {name}" for name, n in missing.items() if n)
            + f" switch(es) of {part.model}; their cables are counted without a length."
        )
    if any(n[2] < rails for n in nodes):
        notes.append(f"Some nodes have fewer than {rails} compute ports; their leaves keep those ports free.")
    return ClusterFabric(
        switch_part=part.id,
        switch_model=part.model,
        speed_gbps=speed,
        tree=tree,
        needed={t.name: t.switches for t in tree.tiers},
        in_plan={t.name: t.switches - missing[t.name] for t in tree.tiers},
        spare_switches=spare,
        links=links,
        other_networks=other_networks,
        notes=notes,
        side_networks=sides,
    )


def _fabric_switch(plan: Plan, catalog: Catalog, switch: str | None) -> NetworkSwitch | None:
    if switch is not None:
        part = catalog.get_as(switch, NetworkSwitch)
        if part is None:
            raise ValueError(f"{switch!r} is not a network switch in the catalog")
        return part
    counts = Counter(
        d.part for r in plan.racks for d in r.devices
        if d.part and (p := catalog.get_as(d.part, NetworkSwitch)) is not None and p.fabric == "infiniband"
    )  # fmt: skip
    return catalog.get_as(counts.most_common(1)[0][0], NetworkSwitch) if counts else None


def _assign_roles(
    plan: Plan, part: str, tree: FatTree, places: dict[str, Place]
) -> tuple[dict[TierName, list[_Switch]], int]:
    named: dict[str | None, deque[tuple[str, str, int | None]]] = {
        role: deque() for role in ("leaf", "spine", "core", None)
    }
    for rack in plan.racks:
        for d in rack.devices:
            if d.part == part:
                text = f"{d.id} {d.name}".lower()
                role = next((r for r in ("leaf", "spine", "core") if r in text), None)
                named[role].append((rack.id, d.id, d.position_u))
    roles: dict[TierName, list[_Switch]] = {}
    for tier in tree.tiers:
        pool = named[tier.name]
        chosen = []
        for n in range(tier.switches):
            source = pool if pool else named[None]
            first_up = tier.down_per_switch + 1
            if source:
                rack_id, device, u = source.popleft()
                chosen.append(_Switch(rack_id, device, places.get(rack_id), u, first_up))
            else:
                chosen.append(_Switch(NOT_PLACED, f"{tier.name}-{n + 1}", None, None, first_up))
        roles[tier.name] = chosen
    spare = sum(len(v) for v in named.values())
    return roles, spare


def _wire(
    tree: FatTree,
    nodes: list[tuple[str, str, int, float]],
    roles: dict[TierName, list[_Switch]],
    places: dict[str, Place],
    plan: Plan,
    switch_speed: float,
) -> Iterator[FabricLink]:
    """Node rail r to rail r's leaf of its unit; leaves to their pod's spines; spines to the cores."""
    position = {(r.id, d.id): d.position_u for r in plan.racks for d in r.devices}
    leaves, rails = roles["leaf"], tree.rails
    single = len(tree.tiers) == 1
    for index, (rack, device, ports, speed) in enumerate(nodes):
        unit = 0 if single else index // tree.nodes_per_unit
        for rail in range(ports):
            leaf = leaves[0] if single else leaves[unit * rails + rail]
            yield _link("node-leaf", (rack, device, f"rail {rail + 1}", places.get(rack), position.get((rack, device))),
                        leaf, leaf.port(up=False), speed)  # fmt: skip
    if single:
        return
    spines = roles["spine"]
    leaf_up = tree.tiers[0].up_per_switch
    three = len(tree.tiers) == 3
    for number, leaf in enumerate(leaves):
        for uplink in range(leaf_up):
            if three:
                spine = spines[(number // tree.leaves_per_pod) * leaf_up + uplink]
            else:
                spine = spines[(number * leaf_up + uplink) % len(spines)]
            yield _switch_link("leaf-spine", leaf, spine, switch_speed)
    if not three:
        return
    cores = roles["core"]
    spine_up = tree.tiers[1].up_per_switch
    planes = leaf_up if len(cores) % leaf_up == 0 else 1
    per_plane = len(cores) // planes
    for number, spine in enumerate(spines):
        plane = number % leaf_up if planes > 1 else 0
        for uplink in range(spine_up):
            core = cores[plane * per_plane + (number // planes * spine_up + uplink) % per_plane]
            yield _switch_link("spine-core", spine, core, switch_speed)


def _link(level: str, lower: tuple[str, str, str, Place | None, int | None], upper: _Switch,
          upper_port: str, speed: float) -> FabricLink:  # fmt: skip
    rack, device, port, place, u = lower
    length = route_m(place, u, upper.place, upper.u) if place is not None and upper.place is not None else None
    return FabricLink(level=level, from_rack=rack, from_device=device, from_port=port, to_rack=upper.rack,
                      to_device=upper.device, to_port=upper_port, speed_gbps=speed, length_m=length,
                      cable=cable_kind(length, speed))  # fmt: skip


def _switch_link(level: str, lower: _Switch, upper: _Switch, speed: float) -> FabricLink:
    port = lower.port(up=True)
    return _link(level, (lower.rack, lower.device, port, lower.place, lower.u), upper, upper.port(up=False),
                 speed)  # fmt: skip
