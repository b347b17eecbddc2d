"""What the compute fabric adds to the bill of materials: cables between racks and switches not yet mounted."""

from __future__ import annotations

import re
from collections import Counter

from rackplanner.core.bom.model import DerivedItem
from rackplanner.core.rack.cluster_fabric import ClusterFabric

OPTICS_NOTE = "a transceiver at each end and a fibre of this length"


def fabric_items(fabric: ClusterFabric) -> list[DerivedItem]:
    """Cables of links between racks by kind and length, and the switches the tree needs beyond those mounted.

    Nothing when every link stays in one rack and every switch is mounted (a rack's own cabling is
    listed with the rack's network, not bought as fabric)."""
    between = [link for link in fabric.links if link.from_rack != link.to_rack]
    missing = {tier: fabric.needed[tier] - fabric.in_plan.get(tier, 0) for tier in fabric.needed}
    if not between and not any(missing.values()):
        return []
    items: list[DerivedItem] = []
    if fabric.switch_part and fabric.switch_model:
        for tier, count in missing.items():
            if count:
                items.append(
                    DerivedItem(
                        part=fabric.switch_part, category="switch", model=fabric.switch_model, quantity=count,
                        note=f"{tier} switches the fat tree needs beyond those mounted in the plan",
                    )
                )  # fmt: skip
    counts = Counter((link.speed_gbps, link.cable, link.length_m) for link in between)
    for (speed, cable, length), count in sorted(counts.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] or 0)):
        what = f"{cable}, {length:g} m" if length is not None else "to a switch not in the plan, length unknown"
        items.append(
            DerivedItem(
                part=_slug(f"fabric-link-{speed:g}g-{what}"),
                category="cable",
                model=f"{speed:g} Gb/s link, {what}",
                quantity=count,
                note=OPTICS_NOTE if "transceiver" in cable else "",
            )
        )
    return items


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-")
