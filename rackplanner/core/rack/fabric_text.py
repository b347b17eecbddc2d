"""What ``rackplanner fabric`` prints and writes: the tiers, the counts that must add up, the cable schedule."""

from __future__ import annotations

import csv
import io
from collections import Counter, defaultdict
from pathlib import Path

from rackplanner.core.files import write_atomic
from rackplanner.core.rack.cable_plan import LAYOUT_NOTE
from rackplanner.core.rack.cluster_fabric import NOT_PLACED, ClusterFabric
from rackplanner.core.rack.fat_tree import describe_fat_tree
from rackplanner.core.rack.side_networks import describe_side_network

SCHEDULE_COLUMNS = (
    "link", "level", "from_rack", "from_device", "from_port", "to_rack", "to_device", "to_port",
    "speed_gbps", "length_m", "cable",
)  # fmt: skip


def format_fabric(fabric: ClusterFabric) -> str:
    """The compute fabric's tiers, port accounting, switches present and cables by kind."""
    lines = ["Compute fabric"]
    if fabric.tree is None or fabric.switch_model is None:
        lines += [f"  {note}" for note in fabric.notes]
    else:
        tree = fabric.tree
        lines += describe_fat_tree(tree, fabric.switch_model)
        connected = sum(1 for link in fabric.links if link.level == "node-leaf")
        lines.append(f"  every compute port connected once: {connected:,} of {tree.endpoints:,} node ports cabled")
        lines.append(
            "  switches in the plan: "
            + ", ".join(f"{fabric.in_plan[t]:,} of {n:,} {t}" for t, n in fabric.needed.items())
            + (f"; {fabric.spare_switches:,} more of this model take no role" if fabric.spare_switches else "")
        )
        lines.append("  cables by kind:")
        for level, kinds in cable_summary(fabric).items():
            for kind, (count, metres) in kinds.items():
                length = f", {metres:,.0f} m in all" if metres else ""
                lines.append(f"    {level:<10} {count:>7,} x {kind}{length}")
        lines += [f"  Note: {note}" for note in fabric.notes]
        if fabric.links:
            lines.append(f"  Note: {LAYOUT_NOTE}")
    for side in fabric.side_networks:
        lines += describe_side_network(side)
    if fabric.other_networks:
        lines.append("Ports per network (each rack's own switches are matched by `rackplanner power`):")
        for network in fabric.other_networks:
            ports = ", ".join(f"{n:,} x {speed}" for speed, n in network.ports_by_speed.items())
            lines.append(f"  {network.network}: {ports}")
    return "\n".join(lines) + "\n"


def cable_summary(fabric: ClusterFabric) -> dict[str, dict[str, tuple[int, float]]]:
    """Per level, each cable kind's count and total length (lengths unknown count as 0 m)."""
    counts: dict[str, Counter[str]] = {}
    metres: dict[str, defaultdict[str, float]] = {}
    for link in fabric.links:
        kind = f"{link.speed_gbps:g}G {link.cable}"
        counts.setdefault(link.level, Counter())[kind] += 1
        metres.setdefault(link.level, defaultdict(float))[kind] += link.length_m or 0.0
    return {level: {k: (n, metres[level][k]) for k, n in sorted(c.items())} for level, c in counts.items()}


def schedule_csv(fabric: ClusterFabric) -> str:
    """One row per cable: from-port, to-port, speed, length and kind."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(SCHEDULE_COLUMNS)
    for number, link in enumerate(fabric.links, start=1):
        writer.writerow(
            [number, link.level, link.from_rack, link.from_device, link.from_port,
             "" if link.to_rack == NOT_PLACED else link.to_rack, link.to_device, link.to_port,
             f"{link.speed_gbps:g}", "" if link.length_m is None else f"{link.length_m:g}", link.cable]
        )  # fmt: skip
    return out.getvalue()


def write_schedule(fabric: ClusterFabric, path: Path) -> None:
    """The cable schedule as CSV, written whole or not at all."""
    write_atomic(path, schedule_csv(fabric).encode("utf-8"))
