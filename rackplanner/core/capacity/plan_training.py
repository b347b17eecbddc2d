"""Training across every GPU machine of a plan: one job sharded over the whole cluster."""

from __future__ import annotations

from rackplanner.core.capacity import constants as k
from rackplanner.core.capacity.curves import TrainingPlan, training_plan
from rackplanner.core.capacity.failures import format_failure_budget
from rackplanner.core.capacity.hardware import Hardware, from_machine
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import LlmModel
from rackplanner.core.errors import InputError
from rackplanner.core.plan.cache import configuration_key
from rackplanner.core.plan.model import Plan

BILLION = 1e9


def plan_hardware(plan: Plan, catalog: Catalog) -> list[Hardware]:
    """Each machine of the plan that has GPUs, as estimate hardware (alike machines worked out once)."""
    by_config: dict[str, Hardware | None] = {}
    found: list[Hardware] = []
    for machine in plan.machines:
        key = configuration_key(machine)
        if key not in by_config:
            try:
                by_config[key] = from_machine(machine, catalog)
            except InputError:
                by_config[key] = None
        hw = by_config[key]
        if hw is not None and hw.kind == "gpu":
            found.append(hw)
    return found


def plan_training(plan: Plan, catalog: Catalog, model: LlmModel, *, tokens: float = BILLION) -> TrainingPlan | None:
    """Train ``model`` on ``tokens`` over every GPU of the plan; None when fewer than two machines have GPUs."""
    hardware = plan_hardware(plan, catalog)
    if len(hardware) < 2:
        return None
    return training_plan(model, hardware, tokens=tokens, mfu=k.DEFAULT_MFU)


def format_plan_training(training: TrainingPlan) -> list[str]:
    """Lines for the estimate: GPUs, time per billion tokens, interruptions and goodput."""
    lines = [f"Training across the whole plan ({training.machines:,} machines, {training.gpus:,} GPUs, sharded):"]
    if training.days is not None:
        lines.append(
            f"  {training.days * 24:,.2f} hours per billion tokens at {training.mfu:.0%} MFU "
            f"({'fits' if any(m.fits for m in training.limits.methods) else 'does not fit'} in memory)"
        )
    if training.failures is not None:
        lines.append(f"  failure budget: {format_failure_budget(training.failures)}")
    return lines
