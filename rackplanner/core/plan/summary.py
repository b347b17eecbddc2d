"""A short account of what a plan holds, for ``rackplanner check`` and the status bar."""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Rack
from rackplanner.core.plan.model import Plan
from rackplanner.core.plan.resolve import board_of, gpu_count, server_of


class MachineSummary(BaseModel):
    id: str
    name: str
    base: str
    gpus: int
    cards: int
    parts: dict[str, int]


class RackSummary(BaseModel):
    id: str
    name: str
    height_u: int | None
    devices: int
    machines: int
    row: str = ""
    row_name: str = ""


class PlanSummary(BaseModel):
    name: str
    machines: list[MachineSummary]
    racks: list[RackSummary]
    feeds: int
    total_gpus: int


def summarize(plan: Plan, catalog: Catalog) -> PlanSummary:
    machines = []
    for machine in plan.machines:
        parts: Counter[str] = Counter()
        for card in machine.cards:
            parts[card.part] += 1
        for item in (*machine.memory, *machine.psus, *machine.drives):
            parts[item.part] += item.count
        if machine.cpu:
            parts[machine.cpu] += machine.cpu_count
        server = server_of(machine, catalog)
        board = board_of(machine, catalog)
        base = server.label if server else (board.label if board else "no board")
        gpus = gpu_count(machine, catalog)
        machines.append(
            MachineSummary(
                id=machine.id,
                name=machine.name,
                base=base,
                gpus=gpus,
                cards=len(machine.cards),
                parts=dict(parts),
            )
        )
    racks = []
    for rack in plan.racks:
        rack_part = catalog.get_as(rack.part, Rack)
        row = plan.row(rack.row)
        racks.append(
            RackSummary(
                id=rack.id,
                name=rack.name,
                height_u=rack_part.height_u if rack_part else None,
                devices=len(rack.devices),
                machines=sum(1 for d in rack.devices if d.machine),
                row=rack.row,
                row_name=row.name if row else rack.row,
            )
        )
    return PlanSummary(
        name=plan.name,
        machines=machines,
        racks=racks,
        feeds=len(plan.feeds),
        total_gpus=sum(m.gpus for m in machines),
    )


def format_summary(summary: PlanSummary) -> str:
    lines = [f"Plan: {summary.name}"]
    lines.append(f"Machines: {len(summary.machines)} ({summary.total_gpus} GPUs)")
    for m in summary.machines:
        parts = ", ".join(f"{n} x {p}" for p, n in m.parts.items()) or "no parts"
        lines.append(f"  {m.name} [{m.id}] on {m.base}: {parts}")
    lines.append(f"Racks: {len(summary.racks)}")
    for r in summary.racks:
        height = f"{r.height_u}U" if r.height_u else "unknown height"
        lines.append(f"  {r.name} [{r.id}], {height}: {r.devices} devices ({r.machines} machines)")
    lines.append(f"Feeds: {summary.feeds}")
    return "\n".join(lines)
