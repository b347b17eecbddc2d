"""``rackplanner advise``: the goal from command-line options, the ranked builds as text or JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from rackplanner.core.advise.goal import Goal, parse_circuit
from rackplanner.core.advise.search import Advice, Build, advise
from rackplanner.core.capacity.cost import CLOUD_SOURCE, ELECTRICITY_SOURCE, CostSettings, format_ownership
from rackplanner.core.capacity.formats import get_format
from rackplanner.core.capacity.runtime import get_runtime
from rackplanner.core.capacity.text import resolve_model
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.errors import InputError, describe_validation_error
from rackplanner.core.files import strict_json
from rackplanner.core.plan.files import save_plan
from rackplanner.core.plan.model import Plan

# The ``rackplanner advise`` options advise_command takes (argparse destinations).
ADVISE_OPTIONS = (
    "model",
    "config",
    "hf",
    "format",
    "context",
    "tok_s",
    "users",
    "tok_s_per_user",
    "budget",
    "circuit",
    "rack_kw",
    "runtime",
    "new_only",
    "usd_per_kwh",
    "utilisation",
    "years",
    "cloud_usd_per_gpu_hour",
    "gpus",
    "kind",
    "save",
    "pick",
    "json",
)


# The option each goal field comes from, so a refusal names what the user typed.
OPTION_OF_FIELD = {
    "budget_usd": "--budget",
    "users": "--users",
    "context": "--context",
    "tokens_per_s": "--tok-s",
    "tokens_per_s_per_user": "--tok-s-per-user",
    "rack_kw": "--rack-kw",
    "gpu_count": "--gpus",
    "electricity_usd_per_kwh": "--usd-per-kwh",
    "utilisation": "--utilisation",
    "amortisation_years": "--years",
    "cloud_usd_per_gpu_hour": "--cloud-usd-per-gpu-hour",
}


def build_goal(
    catalog: Catalog,
    *,
    model: str | None = None,
    config: Path | None = None,
    hf: str | None = None,
    format: str | None = None,
    context: int = 4096,
    tok_s: float | None = None,
    users: int | None = None,
    tok_s_per_user: float | None = None,
    budget: float | None = None,
    circuit: str | None = None,
    rack_kw: float | None = None,
    runtime: str | None = None,
    new_only: bool = False,
    usd_per_kwh: float | None = None,
    utilisation: float | None = None,
    years: float | None = None,
    cloud_usd_per_gpu_hour: float | None = None,
    gpus: int | None = None,
    kind: list[str] | None = None,
) -> Goal:
    """The goal the options describe; InputError naming the option that cannot be right."""
    llm = resolve_model(catalog, model=model, config=config, hf=hf)
    fmt = get_format(format or llm.shipped_format or "q4_k_m").id
    if runtime is not None:
        get_runtime(runtime)
    if tok_s_per_user is not None and users is None:
        raise InputError("--tok-s-per-user goes with --users")
    volts, amps = parse_circuit(circuit) if circuit is not None else (None, None)
    cost_values = {
        "electricity_usd_per_kwh": usd_per_kwh,
        "utilisation": utilisation,
        "amortisation_years": years,
        "cloud_usd_per_gpu_hour": cloud_usd_per_gpu_hour,
    }
    try:
        cost = CostSettings(**{k: v for k, v in cost_values.items() if v is not None})
        return Goal(
            model=llm,
            format=fmt,
            context=context,
            tokens_per_s=tok_s,
            users=users,
            tokens_per_s_per_user=tok_s_per_user,
            budget_usd=budget,
            circuit_v=volts,
            circuit_a=amps,
            rack_kw=rack_kw,
            runtime=runtime,
            allow_used=not new_only,
            cost=cost,
            gpu_count=gpus,
            kinds=frozenset(kind) if kind else None,
        )
    except ValidationError as exc:
        text = describe_validation_error(exc)
        field = text.split(":", 1)[0]
        raise InputError(OPTION_OF_FIELD[field] + text[len(field) :] if field in OPTION_OF_FIELD else text) from None


def _speed(build: Build, goal: Goal) -> str:
    if goal.users is not None:
        return f"{build.users_served or 0:,} users at {goal.per_user_tokens_per_s:g} tok/s"
    return f"{build.decode_tokens_per_s or 0:,.1f} tok/s"


def format_advice(advice: Advice, goal: Goal) -> str:
    """The ranked builds, each with its price, power, speed, cost of ownership and main risk."""
    target = (
        f"{goal.users} users at {goal.per_user_tokens_per_s:g} tokens/s each"
        if goal.users is not None
        else f"{goal.tokens_per_s:g} tokens/s for one user"
        if goal.tokens_per_s is not None
        else "as fast as possible"
    )
    limits = []
    if goal.budget_usd is not None:
        limits.append(f"under ${goal.budget_usd:,.0f}")
    if goal.circuit_limit_w is not None:
        limits.append(
            f"on a {goal.circuit_v:g} V / {goal.circuit_a:g} A circuit ({goal.circuit_limit_w:,.0f} W at 80%)"
        )
    if goal.rack_kw is not None:
        limits.append(f"in one rack of {goal.rack_kw:g} kW")
    lines = [
        f"{goal.model.vendor} {goal.model.model} as {goal.format}, {goal.context:,} tokens of context: {target}"
        + (f", {', '.join(limits)}" if limits else ""),
        f"{advice.considered:,} builds considered in {advice.seconds:.2f} s; "
        + ("new parts only" if not goal.allow_used else "used prices allowed"),
    ]
    lines += [f"Note: {n}" for n in advice.notes]
    if not advice.builds:
        lines.append("No build passes. Why builds were left out:")
    for rank, build in enumerate(advice.builds, start=1):
        wall = "power unknown" if build.wall_w is None else f"{build.wall_w:,.0f} W at the wall"
        mark = "" if build.meets_target else "  (below target)"
        lines += [
            "",
            f"{rank}. {build.label}{mark}",
            f"   ${build.price_usd:,.0f}, {wall}, {_speed(build, goal)} ({build.runtime})",
            f"   main risk: {build.risk}",
        ]
        lines += [f"   also: {w}" for w in build.warnings[1:]]
        if build.ownership is not None:
            lines += [f"   {line}" for line in format_ownership(build.ownership) if not line.startswith("note: ")]
    shared = sorted({n for b in advice.builds if b.ownership for n in b.ownership.notes})
    lines += ["", *(f"Note on costs: {n}" for n in shared)]
    lines += ["Left out: " + ", ".join(f"{n:,} {reason}" for reason, n in advice.rejected.items())]
    lines.append(
        f"Costs: {goal.cost.electricity_usd_per_kwh * 100:.2f} ¢/kWh, {goal.cost.utilisation:.0%} of hours busy, "
        f"{goal.cost.amortisation_years:g} years, "
        + (
            f"cloud ${goal.cost.cloud_usd_per_gpu_hour:g}/GPU-hour "
            if goal.cost.cloud_usd_per_gpu_hour is not None
            else "cloud $2/GPU-hour for Hopper GPUs "
        )
        + f"(defaults: {ELECTRICITY_SOURCE}; {CLOUD_SOURCE})"
    )
    return "\n".join(lines)


def advice_json(advice: Advice, goal: Goal) -> dict[str, Any]:
    data = advice.model_dump(mode="json")
    data["goal"] = goal.model_dump(mode="json", exclude={"model"}) | {"model": goal.model.id}
    return data


def advised_plan(build: Build, goal: Goal) -> Plan:
    """A plan holding ``build``: its machine, as many copies as the users need."""
    if build.machine is None:
        raise InputError(f"{build.label} is bought whole, not built from parts: there is no machine to save")
    name = f"Advised: {goal.model.model} ({build.label})"
    if build.copies == 1:
        return Plan(name=name, machines=[build.machine])
    machines = [
        build.machine.model_copy(update={"id": f"{build.machine.id}-{n}", "name": f"{build.machine.name} #{n}"})
        for n in range(1, build.copies + 1)
    ]
    return Plan(name=name, machines=machines)


def advise_command(
    catalog: Catalog, *, json: bool = False, save: Path | None = None, pick: int = 1, **options: Any
) -> str:
    """What ``rackplanner advise`` prints; with ``save``, the ``pick``-th build is written as a plan."""
    goal = build_goal(catalog, **options)
    advice = advise(catalog, goal)
    text = strict_json(advice_json(advice, goal)) if json else format_advice(advice, goal)
    if save is not None:
        if not 1 <= pick <= len(advice.builds):
            raise InputError(f"--pick {pick}: the advice lists {len(advice.builds)} build(s)")
        save_plan(advised_plan(advice.builds[pick - 1], goal), save)
        if not json:
            text += f"\nSaved build {pick} as {save}: rackplanner check {save}"
    return text
