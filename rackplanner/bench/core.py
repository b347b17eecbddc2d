"""Speed of the core: opening and analysing generated rows, one edit and what it recomputes, the capacity table."""

from __future__ import annotations

import gc
from collections.abc import Callable
from functools import partial
from pathlib import Path

from rackplanner.bench.table import Figure, Report, timed
from rackplanner.core.analysis import analyse_plan
from rackplanner.core.catalog.loading import BUILTIN_CATALOG_DIR, Catalog, load_catalog
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.generate import generate_row
from rackplanner.core.plan.model import Plan
from rackplanner.gui.heap import settle_heap

SIZES = (1, 10, 50)
EXAMPLES = BUILTIN_CATALOG_DIR.parent / "resources" / "examples"
CORE = "core"
# Targets from the speed issue, for the 50-rack row (seconds).
OPEN_TARGET_S = 1.0
ANALYSIS_TARGET_S = 0.3
EDIT_TARGET_S = 0.016


def write_rows(folder: Path, sizes: tuple[int, ...] = SIZES) -> dict[int, Path]:
    """Generated rows of each size saved as plan files (seed 1), as a user would open them."""
    paths = {}
    for racks in sizes:
        path = folder / f"row-{racks}.json"
        path.write_text(generate_row(racks, seed=1).model_dump_json(), encoding="utf-8")
        paths[racks] = path
    return paths


def core_figures(report: Report, paths: dict[int, Path], repeat: int) -> None:
    for racks, path in paths.items():
        catalog = load_catalog(include_user=False)
        target = OPEN_TARGET_S if racks == 50 else None
        report.add(
            Figure(
                CORE,
                f"open (load + validate) a {racks}-rack plan",
                timed(partial(load_plan, path, catalog), repeat),
                target,
            )
        )
        report.add(
            Figure(
                CORE,
                f"full analysis of a {racks}-rack plan, nothing cached",
                _cold_analysis(path, repeat),
                ANALYSIS_TARGET_S if racks == 50 else None,
                note="every topology, fit rule, rack layout, rack power and network",
            )
        )
        for label, edit in _edits(racks).items():
            report.add(
                Figure(
                    CORE,
                    f"{label} in the {racks}-rack plan + re-analysis",
                    _edit_times(path, edit, repeat),
                    EDIT_TARGET_S if racks == 50 else None,
                    note="only what the edit touched is recomputed",
                )
            )
    _growth(report, tuple(paths))
    _capacity(report, repeat)
    _advise(report, repeat)


def _cold_analysis(path: Path, repeat: int) -> list[float]:
    """A new catalog each run: every cache (they are per catalog) starts empty."""
    state: dict[str, object] = {}

    def setup() -> None:
        catalog = load_catalog(include_user=False)
        state["catalog"], state["plan"] = catalog, load_plan(path, catalog)
        # As in a process that has just opened the plan: the earlier runs' garbage is not
        # left for this run's collections to walk.
        gc.collect()

    return timed(lambda: analyse_plan(state["plan"], state["catalog"]), repeat, setup=setup)  # type: ignore[arg-type]


# An edit is given the plan, the catalog and the run number; each run edits another machine or
# uses another value, so no cache can hold the answer from an earlier run.
Edit = Callable[[Plan, Catalog, int], Plan]


def _machine(plan: Plan, run: int) -> str:
    return plan.machines[(run * 7) % len(plan.machines)].id


def _move_gpu(plan: Plan, catalog: Catalog, run: int) -> Plan:
    return edits.move_card(plan, machine=_machine(plan, run), from_slot="gpu7", to_slot="gpu8", catalog=catalog).plan


def _power_limit(plan: Plan, catalog: Catalog, run: int) -> Plan:
    # 200.25 W and up, a quarter watt apart: within every generated GPU's range, never repeated.
    watts = 200.25 + 0.25 * run
    return edits.set_power_limit(plan, machine=_machine(plan, run), slot="gpu2", watts=watts, catalog=catalog).plan


def _move_server(plan: Plan, catalog: Catalog, run: int) -> Plan:
    # Generated racks are full from U1 to U32 and hold switches at U41-U42: U33-U36 is free.
    source = plan.racks[run % len(plan.racks)]
    target = plan.racks[(run + 1) % len(plan.racks)]
    server = next(d.id for d in source.devices if d.machine)
    return edits.move_device(plan, rack=source.id, device=server, to_rack=target.id, position_u=33).plan


def _edits(racks: int) -> dict[str, Edit]:
    chosen: dict[str, Edit] = {"move a GPU": _move_gpu, "change a GPU power limit": _power_limit}
    if racks > 1:
        chosen["move a server to another rack"] = _move_server
    return chosen


def _edit_times(path: Path, edit: Edit, repeat: int) -> list[float]:
    """The edit and the whole plan's re-analysis, on a plan already analysed (as the app holds it)."""
    catalog = load_catalog(include_user=False)
    base = load_plan(path, catalog)
    analyse_plan(base, catalog)
    settle_heap()  # as the app does once a plan is open
    runs = iter(range(repeat))
    state: dict[str, Plan] = {}

    def setup() -> None:
        run = next(runs)
        plan = base
        if edit is _move_gpu:
            # Free GPU slot 8 and give the machine a power limit no other run uses (untimed).
            machine = _machine(plan, run)
            plan = edits.remove_card(plan, machine=machine, slot="gpu8").plan
            plan = edits.set_power_limit(
                plan, machine=machine, slot="gpu1", watts=151 + 0.5 * run, catalog=catalog
            ).plan
        analyse_plan(plan, catalog)
        state["plan"], state["run"] = plan, run  # type: ignore[assignment]

    def run_edit() -> None:
        analyse_plan(edit(state["plan"], catalog, state["run"]), catalog)  # type: ignore[arg-type]

    return timed(run_edit, repeat, setup=setup)


def _growth(report: Report, sizes: tuple[int, ...]) -> None:
    """How open, analysis and one edit grow with the plan (per rack for the first two)."""
    print(f"\ngrowth from {' to '.join(map(str, sizes))} racks (medians):")
    for what, per_rack in (
        ("open (load + validate)", True),
        ("full analysis", True),
        ("change a GPU power limit", False),
    ):
        found = [
            next((f for f in report.figures if f.label.startswith(what) and f" {n}-rack " in f.label), None)
            for n in sizes
        ]
        medians = [f.median for f in found if f is not None]
        if len(medians) != len(sizes):
            continue
        shown = " -> ".join(f"{m * 1000:.1f} ms" for m in medians)
        if per_rack:
            each = " -> ".join(f"{m / n * 1000:.2f} ms" for m, n in zip(medians, sizes, strict=True))
            print(f"  {what}: {shown}; per rack {each} (linear or better when per rack does not rise)")
        else:
            print(f"  {what}: {shown}; x{medians[-1] / medians[0]:.1f} for x{sizes[-1] // sizes[0]} the racks")
    print()


def _capacity(report: Report, repeat: int) -> None:
    from rackplanner.core.capacity.estimate import capacity_table
    from rackplanner.core.capacity.formats import FORMATS
    from rackplanner.core.capacity.hardware import from_machine
    from rackplanner.core.catalog.parts import LlmModel

    catalog = load_catalog(include_user=False)
    machine = load_plan(EXAMPLES / "home-rig-2x3090.json", catalog).machines[0]
    hw = from_machine(machine, catalog)
    cells = len(catalog.of_kind(LlmModel)) * len(FORMATS)
    runs = timed(lambda: capacity_table(catalog, hw, only_fitting=False), repeat)
    # 50 ms: the capacity issue's target for the whole table on one machine.
    report.add(Figure(CORE, f"capacity table of one machine ({cells} model x format cells)", runs, 0.05))


def _advise(report: Report, repeat: int) -> None:
    from rackplanner.core.advise.goal import Goal
    from rackplanner.core.advise.search import advise
    from rackplanner.core.capacity.estimate import get_model

    catalog = load_catalog(include_user=False)
    goals = {
        "home rig, 120 V / 15 A, $6,000": Goal(
            model=get_model(catalog, "llama-3.3-70b"), format="q4_k_m", context=32768,
            tokens_per_s=20, budget_usd=6000, circuit_v=120, circuit_a=15,
        ),
        "colo rack, 50 users, 17 kW": Goal(
            model=get_model(catalog, "qwen3-32b"), format="fp8", users=50, tokens_per_s_per_user=20, rack_kw=17,
        ),
    }  # fmt: skip
    for name, goal in goals.items():
        runs = timed(partial(advise, catalog, goal), repeat)
        # 2 s: the advisor issue's target for a full search.
        report.add(Figure(CORE, f"advise: full search ({name})", runs, 2.0))
