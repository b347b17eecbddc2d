"""Search complete builds for a goal and keep the Pareto front of price against speed.

Every candidate (``builds.py``) is judged by the same rules as a plan the user drew: the
machine's fit findings (an error rejects it), its power (against the wall circuit or the
rack's budget, at 80%), its price from the price book and the capacity estimate on its own
topology. Cheap bounds (memory, budget) prune first, so the full checks run on few machines.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Iterator

from pydantic import BaseModel

from rackplanner.core.advise.builds import Candidate, server_builds, with_psu, workstation_builds
from rackplanner.core.advise.goal import RACK_UNITS_FOR_SERVERS, Goal
from rackplanner.core.analysis import analyse
from rackplanner.core.capacity.cost import Ownership, ownership
from rackplanner.core.capacity.estimate import LAYER_SPLIT_NOTE, Estimate, estimate
from rackplanner.core.capacity.formats import get_format, weight_bytes
from rackplanner.core.capacity.hardware import Hardware, from_machine, from_unified_system
from rackplanner.core.capacity.layouts import WeightFormat
from rackplanner.core.capacity.measured_range import decode_outside_note
from rackplanner.core.capacity.runtime import get_runtime
from rackplanner.core.capacity.support import format_refusal, support_unknown, unsupported
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Gpu, Server, UnifiedSystem
from rackplanner.core.errors import InputError
from rackplanner.core.machine.fit import Finding
from rackplanner.core.machine.power import machine_power
from rackplanner.core.plan.machine_price import machine_price
from rackplanner.core.plan.model import Machine, Plan

# The result lists at most this many builds (the Pareto front is usually far shorter).
MAX_BUILDS = 12


class Build(BaseModel):
    """One checked build: what to buy, what it costs and draws, how fast it runs."""

    label: str
    platform: str
    machine: Machine | None  # None for a unified-memory system (bought whole)
    system: str | None = None
    gpu: str | None = None
    gpu_count: int = 0
    copies: int = 1  # identical machines needed for the users (one rack)
    price_usd: float
    wall_w: float | None
    runtime: str
    decode_tokens_per_s: float | None  # one user
    users_served: int | None  # at the per-user speed, all copies together
    meets_target: bool
    risk: str
    warnings: list[str] = []
    # Every finding the app shows on the machine ("info: ..." too), as the analysis gives them.
    findings: list[str] = []
    ownership: Ownership | None = None


class Advice(BaseModel):
    builds: list[Build]
    considered: int
    rejected: dict[str, int]
    seconds: float
    notes: list[str] = []


def _runtime(goal: Goal, hw: Hardware, fmt: WeightFormat) -> str:
    if goal.runtime is not None:
        return goal.runtime
    # Many users: a batching server with tensor parallelism; one user: llama.cpp, unless the
    # format is a checkpoint llama.cpp does not load (FP8, NVFP4, AWQ: a server's; MLX's own).
    if goal.users is not None and hw.kind == "gpu":
        return "vllm"
    if format_refusal(get_runtime("llama.cpp"), fmt) is None:
        return "llama.cpp"
    if fmt.family == "mlx" or (hw.kind == "soc" and hw.vendor == "apple"):
        return "mlx"
    return "vllm"


class _Judge:
    """Judges candidates for one goal, caching estimates by hardware."""

    def __init__(self, catalog: Catalog, goal: Goal) -> None:
        self.catalog = catalog
        self.goal = goal
        self.fmt = get_format(goal.format)
        self.weights_gb = weight_bytes(goal.model, self.fmt) / 1e9
        self.rejected: Counter[str] = Counter()
        self._estimates: dict[str, Estimate | None] = {}

    def estimate(self, hw: Hardware, runtime: str) -> Estimate | None:
        key = f"{runtime}|{hw.model_dump_json()}"
        if key not in self._estimates:
            try:
                self._estimates[key] = estimate(
                    self.goal.model,
                    self.fmt,
                    hw,
                    runtime=runtime,
                    context=self.goal.context,
                    target_tokens_per_s=self.goal.per_user_tokens_per_s,
                    with_training=False,
                )
            except InputError:
                self._estimates[key] = None
        return self._estimates[key]

    def arch_of(self, gpu_id: str | None) -> str | None:
        gpu = self.catalog.get_as(gpu_id, Gpu) if gpu_id else None
        return gpu.architecture if gpu else None

    def reject(self, reason: str) -> None:
        self.rejected[reason] += 1

    def _copies(self, est: Estimate) -> tuple[int, int | None] | None:
        """Machines needed for the users (1 for one user) and the users they serve together;
        None (and the reason recorded) when users are asked for and the speed that serves
        them is unknown (no prefill estimate without a compute figure)."""
        per_machine = est.concurrent_at_target
        if self.goal.users is None:
            return 1, per_machine
        if per_machine is None:
            self.reject("prefill unknown (no compute figure in the catalog), so users served not estimated")
            return None
        if not per_machine:
            return 1, 0
        copies = math.ceil(self.goal.users / per_machine)
        return copies, per_machine * copies

    def judge(self, machine: Machine, *, label: str, platform: str, gpu: Gpu, count: int) -> Build | None:
        catalog, goal = self.catalog, self.goal
        if machine.server is None and not machine.psus:
            fitted = with_psu(catalog, machine, machine_power(machine, catalog).recommended_psu_w, goal.allow_used)
            if fitted is None:
                self.reject("no catalog PSU is big enough")
                return None
            machine = fitted
        if machine.server is not None and any(c.slot.startswith("sxm") for c in machine.cards):
            # DGX/HGX systems are sold with their GPUs: only a system price that says it covers
            # them (its quote's includes) can be used, else the GPUs would be counted twice.
            quote = catalog.price_of(machine.server)
            if quote is None or not any(c.part in quote.includes for c in machine.cards):
                self.reject("SXM system sold whole (its price does not say it covers the GPUs)")
                return None
        price, unpriced = machine_price(catalog, machine, goal.allow_used)
        if unpriced:
            self.reject("a part has no price")
            return None
        if goal.budget_usd is not None and price > goal.budget_usd:
            self.reject("over budget")
            return None
        # The plan's own entry point: the findings are exactly what the app would show.
        findings = analyse(Plan(name="advised", machines=[machine]), catalog).machine_findings(machine)
        errors = [f for f in findings if f.severity == "error" and f.code != "wall-circuit"]
        if errors:
            self.reject(f"does not fit ({errors[0].code})")
            return None
        wall_w = machine_power(machine, catalog).wall_max_w
        if goal.circuit_limit_w is not None and wall_w > goal.circuit_limit_w:
            self.reject("over the wall circuit")
            return None
        hw = from_machine(machine, catalog)
        runtime = _runtime(goal, hw, self.fmt)
        if not get_runtime(runtime).runs_on(hw.kind, hw.vendor):
            self.reject(f"{runtime} does not run on these machines")
            return None
        if format_refusal(get_runtime(runtime), self.fmt) is not None:
            self.reject(f"{runtime} does not load {goal.format}")
            return None
        if unsupported(get_runtime(runtime), self.fmt, hw) is not None:
            self.reject(f"{runtime} cannot run {goal.format} on these GPUs")
            return None
        est = self.estimate(hw, runtime)
        if est is None or not est.fits or est.decode_tokens_per_s is None:
            self.reject("model does not fit")
            return None
        server = catalog.get_as(machine.server, Server) if machine.server else None
        sized = self._copies(est)
        if sized is None:
            return None
        copies, served = sized
        if goal.rack_kw is not None and copies * wall_w > goal.rack_kw * 1000:
            self.reject("over the rack's power")
            return None
        if goal.rack_kw is not None and server is not None and copies * server.height_u > RACK_UNITS_FOR_SERVERS:
            self.reject("more servers than a rack holds")
            return None
        return self._build(
            machine, est, findings, label=label, platform=platform, gpu=gpu.id, count=count,
            price=price * copies, wall_w=wall_w * copies, copies=copies, served=served, runtime=runtime,
            support_note=support_unknown(get_runtime(runtime), self.fmt, hw),
        )  # fmt: skip

    def _build(
        self,
        machine: Machine | None,
        est: Estimate,
        findings: list[Finding],
        *,
        label: str,
        platform: str,
        gpu: str | None,
        count: int,
        price: float,
        wall_w: float | None,
        copies: int,
        served: int | None,
        runtime: str,
        system: str | None = None,
        idle_w: float | None = None,
        support_note: str | None = None,
    ) -> Build:
        goal = self.goal
        single = est.decode_tokens_per_s_batch1
        meets = (single or 0) >= goal.tokens_per_s if goal.tokens_per_s is not None else True
        if goal.users is not None:
            meets = (served or 0) >= goal.users
        # A circuit the user named and the build keeps to makes the default 120 V check moot.
        circuit_met = goal.circuit_limit_w is not None
        warnings = [
            f.message for f in findings if f.severity == "warning" and not (circuit_met and f.code == "wall-circuit")
        ]
        if support_note is not None:
            warnings.append(support_note)
        # The goal is a speed: one no run of its kind measured is a risk of the build's own.
        speed_note = decode_outside_note(est.notes)
        if speed_note is not None:
            warnings.append(f"decode speed {speed_note}")
        if goal.rack_kw is not None and machine is not None and machine.server is None:
            warnings.insert(0, "a tower or open frame, not a rack server: its rack space (shelves) is not checked")
        layer_note = LAYER_SPLIT_NOTE if LAYER_SPLIT_NOTE in est.notes else None
        risk = warnings[0] if warnings else (layer_note or "none found")
        cost = ownership(
            price,
            wall_w or 0.0,
            idle_w=idle_w,
            # Tokens as the goal produces them: one user's, or every user's at their speed.
            decode_tokens_per_s=(
                min(served or 0, goal.users) * goal.per_user_tokens_per_s if goal.users is not None else single
            ),
            prefill_tokens_per_s=est.prefill_tokens_per_s,
            gpus=count * copies,
            gpu_architecture=self.arch_of(gpu),
            settings=goal.cost,
        )
        return Build(
            label=label if copies == 1 else f"{copies} x {label}",
            platform=platform,
            machine=machine,
            system=system,
            gpu=gpu,
            gpu_count=count,
            copies=copies,
            price_usd=price,
            wall_w=wall_w,
            runtime=runtime,
            decode_tokens_per_s=single,
            users_served=served,
            meets_target=meets,
            risk=risk,
            warnings=warnings,
            findings=[f"{f.severity}: {f.message}" for f in findings],
            ownership=cost,
        )

    def judge_system(self, system: UnifiedSystem) -> Build | None:
        goal = self.goal
        quote = self.catalog.price_of(system.id)
        if quote is None or (quote.kind == "used" and not goal.allow_used):
            self.reject("a part has no price")
            return None
        if goal.budget_usd is not None and quote.price_usd > goal.budget_usd:
            self.reject("over budget")
            return None
        wall = system.max_power_w
        if goal.circuit_limit_w is not None and wall is not None and wall > goal.circuit_limit_w:
            self.reject("over the wall circuit")
            return None
        hw = from_unified_system(self.catalog, system.id)
        runtime = _runtime(goal, hw, self.fmt)
        if not get_runtime(runtime).runs_on(hw.kind, hw.vendor):
            self.reject(f"{runtime} does not run on these machines")
            return None
        if format_refusal(get_runtime(runtime), self.fmt) is not None:
            self.reject(f"{runtime} does not load {goal.format}")
            return None
        est = self.estimate(hw, runtime)
        if est is None or not est.fits or est.decode_tokens_per_s is None:
            self.reject("model does not fit")
            return None
        sized = self._copies(est)
        if sized is None:
            return None
        copies, served = sized
        build = self._build(
            None, est, [], label=system.model, platform=f"system {system.id}", gpu=None, count=0,
            price=quote.price_usd * copies, wall_w=None if wall is None else wall * copies, copies=copies,
            served=served, runtime=runtime, system=system.id, idle_w=system.idle_power_w,
            support_note=support_unknown(get_runtime(runtime), self.fmt, hw),
        )  # fmt: skip
        if wall is None:
            build.risk = "maximum power unknown, so the circuit is not checked"
        return build


def _candidates(catalog: Catalog, judge: _Judge) -> Iterator[Candidate]:
    goal = judge.goal
    for gpu in catalog.of_kind(Gpu):
        quote = catalog.price_of(gpu.id)
        if quote is None or (quote.kind == "used" and not goal.allow_used):
            judge.reject("a part has no price")
            continue
        # Weights alone must fit the GPUs' memory; the budget must cover the GPUs alone.
        gpu_gb = gpu.vram_gb * 1.073741824
        sources = []
        if goal.kinds is None or "server" in goal.kinds:
            sources.append(server_builds(catalog, gpu, goal.allow_used))
        if goal.kinds is None or "workstation" in goal.kinds:
            sources.append(workstation_builds(catalog, gpu, goal.allow_used))
        for source in sources:
            for cand in source:
                if goal.gpu_count is not None and cand.gpu_count != goal.gpu_count:
                    continue
                if cand.gpu_count * gpu_gb < judge.weights_gb:
                    judge.reject("model does not fit")
                    continue
                if goal.budget_usd is not None and cand.gpu_count * quote.price_usd > goal.budget_usd:
                    judge.reject("over budget")
                    continue
                yield cand


def pareto(builds: list[Build], goal: Goal) -> list[Build]:
    """Builds no other build beats on both price and speed, cheapest first."""

    def speed(b: Build) -> float:
        return float(b.users_served or 0) if goal.users is not None else (b.decode_tokens_per_s or 0.0)

    front: list[Build] = []
    for build in sorted(builds, key=lambda b: (b.price_usd, -speed(b))):
        if not front or speed(build) > speed(front[-1]):
            front.append(build)
    return front


def advise(catalog: Catalog, goal: Goal) -> Advice:
    """Builds meeting ``goal`` (or, when none does, the best there are), Pareto-ranked."""
    started = time.perf_counter()
    judge = _Judge(catalog, goal)
    builds: list[Build] = []
    considered = 0
    for cand in _candidates(catalog, judge):
        considered += 1
        build = judge.judge(
            cand.machine, label=cand.machine.name, platform=cand.platform, gpu=cand.gpu, count=cand.gpu_count
        )
        if build is not None:
            builds.append(build)
    systems = goal.gpu_count is None and (goal.kinds is None or "system" in goal.kinds)
    for system in catalog.of_kind(UnifiedSystem) if systems else []:
        considered += 1
        build = judge.judge_system(system)
        if build is not None:
            builds.append(build)
    meeting = [b for b in builds if b.meets_target]
    notes = []
    if builds and not meeting:
        notes.append("no build meets the speed target; these come closest")
    front = pareto(meeting or builds, goal)[:MAX_BUILDS]
    # Best first: the cheapest build that meets the target leads.
    return Advice(
        builds=front,
        considered=considered,
        rejected=dict(judge.rejected.most_common()),
        seconds=time.perf_counter() - started,
        notes=notes,
    )
