"""Rail-optimized fat trees: how many leaf, spine and core switches a GPU cluster's compute fabric needs.

In a rail-optimized fabric each node's n-th GPU NIC (its rail) goes to the n-th leaf of the node's
scalable unit, so GPUs of the same rank on different nodes are one hop apart (NVIDIA DGX SuperPOD
reference architecture: a scalable unit of 32 DGX H100, one leaf per rail). A leaf splits its ports
between nodes (down) and spines (up) in the ratio of its oversubscription (1:1 is non-blocking).
Two tiers hold up to ``radix`` leaves; beyond that, groups of leaves (pods) share their own
spines and the pods meet at a core tier. With 64-port switches and 1:1 at every tier that is
64 x 32 = 2,048 ports in two tiers and 64 x 32 x 32 = 65,536 in three (the k-ary fat tree,
k^3/4 hosts on 5k^2/4 switches).
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel

TierName = Literal["leaf", "spine", "core"]
MAX_TIERS = 3


class Tier(BaseModel):
    """One level of switches and how their ports are used."""

    name: TierName
    switches: int
    ports_per_switch: int
    down_per_switch: int  # ports a switch has for the tier below (nodes, for leaves)
    up_per_switch: int  # ports toward the tier above (0 at the top)
    down_used: int  # links to the tier below, over the whole tier
    up_used: int  # links to the tier above, over the whole tier

    @property
    def ports(self) -> int:
        return self.switches * self.ports_per_switch

    @property
    def free(self) -> int:
        return self.ports - self.down_used - self.up_used

    @property
    def oversubscription(self) -> float | None:
        """Down-links per up-link (1.0 is non-blocking); None at the top tier."""
        return self.down_per_switch / self.up_per_switch if self.up_per_switch else None


class FatTree(BaseModel):
    """The switch tiers and link counts of one compute fabric."""

    nodes: int
    rails: int
    radix: int
    tiers: list[Tier]
    nodes_per_unit: int  # nodes under one set of rail leaves (a scalable unit)
    units: int
    leaves_per_pod: int  # leaves that share a set of spines (all of them in two tiers)
    pods: int

    @property
    def endpoints(self) -> int:
        return self.nodes * self.rails

    @property
    def switches(self) -> int:
        return sum(t.switches for t in self.tiers)

    def tier(self, name: TierName) -> Tier | None:
        return next((t for t in self.tiers if t.name == name), None)

    def links(self) -> dict[str, int]:
        """Links by the pair of levels they join, from the bottom up."""
        found = {"node-leaf": self.endpoints}
        for lower, upper in zip(self.tiers, self.tiers[1:], strict=False):
            found[f"{lower.name}-{upper.name}"] = lower.up_used
        return found


def split_ports(radix: int, oversubscription: float) -> tuple[int, int]:
    """Down and up ports of a ``radix``-port switch at ``oversubscription`` (down:up)."""
    if radix < 2:
        raise ValueError("a fat tree needs switches of at least 2 ports")
    if not 1 <= oversubscription <= radix - 1:
        raise ValueError(f"oversubscription must be from 1 to {radix - 1} (down:up), got {oversubscription:g}")
    down = min(radix - 1, math.floor(radix * oversubscription / (1 + oversubscription)))
    return down, radix - down


def size_fat_tree(
    nodes: int,
    rails: int,
    radix: int,
    *,
    tiers: int | None = None,
    leaf_oversubscription: float = 1.0,
    spine_oversubscription: float = 1.0,
) -> FatTree:
    """The smallest rail-optimized fat tree (or the one with ``tiers`` levels) for ``nodes`` x ``rails`` ports.

    ValueError when the asked number of tiers cannot hold the endpoints at this radix.
    """
    if nodes < 0 or rails < 1:
        raise ValueError("a fabric needs a non-negative node count and at least one rail")
    endpoints = nodes * rails
    if tiers is not None and not 1 <= tiers <= MAX_TIERS:
        raise ValueError(f"a fat tree has 1 to {MAX_TIERS} tiers, not {tiers}")
    leaf_down, leaf_up = split_ports(radix, leaf_oversubscription)
    spine_down, spine_up = split_ports(radix, spine_oversubscription)
    capacity = {1: radix, 2: radix * leaf_down, 3: radix * leaf_down * spine_down}
    if tiers is None:
        tiers = next((n for n in (1, 2, 3) if endpoints <= capacity[n]), None)
        if tiers is None:
            raise ValueError(
                f"{endpoints:,} ports need more than three tiers of {radix}-port switches "
                f"(three tiers hold {capacity[3]:,} at this oversubscription)"
            )
    elif endpoints > capacity[tiers]:
        raise ValueError(
            f"{tiers} tier(s) of {radix}-port switches hold {capacity[tiers]:,} ports at this "
            f"oversubscription; the fabric needs {endpoints:,}"
        )
    if tiers == 1 or endpoints == 0:
        switches = 1 if endpoints else 0
        leaf = Tier(name="leaf", switches=switches, ports_per_switch=radix, down_per_switch=radix,
                    up_per_switch=0, down_used=endpoints, up_used=0)  # fmt: skip
        return FatTree(nodes=nodes, rails=rails, radix=radix, tiers=[leaf], nodes_per_unit=nodes,
                       units=switches, leaves_per_pod=switches, pods=switches)  # fmt: skip
    units = math.ceil(nodes / leaf_down)
    leaves = units * rails
    # A unit of fewer nodes than a leaf's down ports leaves the rest free; its up ports are all cabled.
    leaf = Tier(name="leaf", switches=leaves, ports_per_switch=radix, down_per_switch=leaf_down,
                up_per_switch=leaf_up, down_used=endpoints, up_used=leaves * leaf_up)  # fmt: skip
    if tiers == 2:
        spines = math.ceil(leaves * leaf_up / radix)
        spine = Tier(name="spine", switches=spines, ports_per_switch=radix, down_per_switch=radix,
                     up_per_switch=0, down_used=leaf.up_used, up_used=0)  # fmt: skip
        return FatTree(nodes=nodes, rails=rails, radix=radix, tiers=[leaf, spine], nodes_per_unit=leaf_down,
                       units=units, leaves_per_pod=leaves, pods=1)  # fmt: skip
    # Three tiers: a pod is as many leaves as a spine has down ports; each leaf takes one link
    # to each spine of its pod, so a pod has as many spines as a leaf has up ports.
    leaves_per_pod = spine_down
    pods = math.ceil(leaves / leaves_per_pod)
    spines = pods * leaf_up
    cores = math.ceil(spines * spine_up / radix)
    spine = Tier(name="spine", switches=spines, ports_per_switch=radix, down_per_switch=spine_down,
                 up_per_switch=spine_up, down_used=leaf.up_used, up_used=spines * spine_up)  # fmt: skip
    core = Tier(name="core", switches=cores, ports_per_switch=radix, down_per_switch=radix,
                up_per_switch=0, down_used=spine.up_used, up_used=0)  # fmt: skip
    return FatTree(nodes=nodes, rails=rails, radix=radix, tiers=[leaf, spine, core], nodes_per_unit=leaf_down,
                   units=units, leaves_per_pod=leaves_per_pod, pods=pods)  # fmt: skip


def describe_fat_tree(tree: FatTree, switch_model: str) -> list[str]:
    """Lines a user reads: each tier's switches and port use, and the links between tiers."""
    lines = [
        f"{tree.nodes:,} nodes x {tree.rails} rails = {tree.endpoints:,} ports on {tree.radix}-port {switch_model}, "
        f"{len(tree.tiers)} tier(s), rail-optimized: {tree.units:,} unit(s) of {tree.nodes_per_unit} nodes"
        + (f", {tree.pods:,} pods of {tree.leaves_per_pod} leaves" if len(tree.tiers) == MAX_TIERS else "")
    ]
    for tier in tree.tiers:
        ratio = f", {tier.oversubscription:g}:1 down:up" if tier.oversubscription is not None else ""
        lines.append(
            f"  {tier.name:<5} {tier.switches:>6,} switches, {tier.ports:,} ports: {tier.down_used:,} down, "
            f"{tier.up_used:,} up, {tier.free:,} free{ratio}"
        )
    lines.append("  links: " + ", ".join(f"{k} {v:,}" for k, v in tree.links().items()))
    return lines
