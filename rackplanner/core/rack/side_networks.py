"""The networks beside the compute fabric: storage (or front-end) and in-band Ethernet, sized as fat trees.

Each is a separate network on its own switches (the usual split of a GPU cluster: a compute fabric,
a storage fabric, in-band and out-of-band management). Every port a node has on the network is one
endpoint (no rails), and the leaves may be oversubscribed: storage and front-end traffic rarely
needs the compute fabric's full bisection. Out-of-band management (1 GbE to each BMC) is served by
each rack's management switch and checked per rack, so it is not sized here.
"""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import NetworkSwitch
from rackplanner.core.plan.model import Plan
from rackplanner.core.rack.fabric import NETWORK_LABELS
from rackplanner.core.rack.fat_tree import FatTree, size_fat_tree

SIZED = ("storage", "in-band")


class SideNetwork(BaseModel):
    network: str
    ports: int
    speed_gbps: float
    switch_part: str | None
    switch_model: str | None
    tree: FatTree | None
    mounted: int  # switches of that model mounted anywhere in the plan (they may serve other networks)
    notes: list[str]


def size_side_networks(
    plan: Plan,
    catalog: Catalog,
    ports: dict[str, Counter[float]],
    *,
    switch: str | None = None,
    oversubscription: float = 1.0,
) -> list[SideNetwork]:
    """Each sized network that has ports, on ``switch`` or the plan's fastest suitable Ethernet switch.

    ValueError for a switch id that is not a network switch, or a tree it cannot build."""
    chosen = _named(catalog, switch)
    found = []
    for network in SIZED:
        by_speed = ports.get(network)
        if not by_speed:
            continue
        count = sum(by_speed.values())
        speed = max(by_speed)
        label = NETWORK_LABELS[network]
        part = chosen or _fastest_ethernet(plan, catalog, speed)
        if part is None:
            found.append(
                SideNetwork(
                    network=label,
                    ports=count,
                    speed_gbps=speed,
                    switch_part=None,
                    switch_model=None,
                    tree=None,
                    mounted=0,
                    notes=[
                        f"no Ethernet switch of {speed:g} Gb/s or faster in the plan to size it with "
                        "(name one with --storage-switch)"
                    ],
                )
            )
            continue
        radix = max(part.ports, key=lambda g: g.count)
        tree = size_fat_tree(count, 1, radix.count, leaf_oversubscription=oversubscription,
                             spine_oversubscription=oversubscription)  # fmt: skip
        notes = []
        if radix.speed_gbps < speed:
            notes.append(
                f"{part.model}'s ports run at {radix.speed_gbps:g} Gb/s, slower than the nodes' {speed:g} Gb/s"
            )
        found.append(
            SideNetwork(
                network=label,
                ports=count,
                speed_gbps=speed,
                switch_part=part.id,
                switch_model=part.model,
                tree=tree,
                mounted=_mounted(plan, part.id),
                notes=notes,
            )
        )
    return found


def _named(catalog: Catalog, switch: str | None) -> NetworkSwitch | None:
    if switch is None:
        return None
    part = catalog.get_as(switch, NetworkSwitch)
    if part is None:
        raise ValueError(f"{switch!r} is not a network switch in the catalog")
    return part


def _fastest_ethernet(plan: Plan, catalog: Catalog, speed: float) -> NetworkSwitch | None:
    """The plan's Ethernet switch model whose main ports are fastest, if they reach ``speed``."""
    parts = {
        p.id: p for r in plan.racks for d in r.devices
        if d.part and (p := catalog.get_as(d.part, NetworkSwitch)) is not None and p.fabric == "ethernet"
    }  # fmt: skip
    fitting = [p for p in parts.values() if max(p.ports, key=lambda g: g.count).speed_gbps >= speed]
    return max(fitting, key=lambda p: (max(p.ports, key=lambda g: g.count).speed_gbps, p.id), default=None)


def _mounted(plan: Plan, part: str) -> int:
    return sum(1 for r in plan.racks for d in r.devices if d.part == part)


def describe_side_network(side: SideNetwork) -> list[str]:
    """Lines for ``rackplanner fabric``: ports, the switch and each tier's switch and port counts."""
    lines = [f"{side.network.capitalize()}: {side.ports:,} ports of {side.speed_gbps:g} Gb/s"]
    if side.tree is not None and side.switch_model is not None:
        tree = side.tree
        lines.append(
            f"  on {tree.radix}-port {side.switch_model}, {len(tree.tiers)} tier(s) "
            f"({side.mounted:,} of this model mounted in the plan, for any network)"
        )
        for tier in tree.tiers:
            ratio = f", {tier.oversubscription:g}:1 down:up" if tier.oversubscription is not None else ""
            lines.append(
                f"  {tier.name:<5} {tier.switches:>6,} switches: {tier.down_used:,} down, {tier.up_used:,} up, "
                f"{tier.free:,} free{ratio}"
            )
        lines.append("  links: " + ", ".join(f"{k} {v:,}" for k, v in tree.links().items()) + " (not scheduled)")
    lines += [f"  Note: {note}" for note in side.notes]
    return lines
