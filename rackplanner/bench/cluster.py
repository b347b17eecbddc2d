"""Speed at cluster scale: a 16,384-GPU plan (2,048 DGX H100 in 596 racks) opened, analysed, edited, wired."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

from rackplanner.bench.table import Figure, Report, timed
from rackplanner.core.analysis import PlanAnalysis, analyse_plan
from rackplanner.core.catalog.loading import Catalog, load_catalog
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.model import Plan
from rackplanner.core.rack.cluster_fabric import cluster_fabric
from rackplanner.core.rack.cluster_plan import generate_cluster
from rackplanner.gui.heap import settle_heap

CLUSTER = "cluster"
SERVERS = 2048
# Targets from the cluster-scale issue.
OPEN_TARGET_S = 1.0
ANALYSIS_TARGET_S = 1.0
EDIT_TARGET_S = 0.016
MEMORY_TARGET_MB = 1024
Edit = Callable[[Plan, Catalog, int], Plan]
_MEMORY_PROBE = """
import gc, json, resource, sys
from collections.abc import Callable
from pathlib import Path
from rackplanner.core.analysis import analyse_plan
from rackplanner.core.catalog.loading import Catalog, load_catalog
from rackplanner.core.plan.files import load_plan
catalog = load_catalog(include_user=False)
analyse_plan(load_plan(Path(sys.argv[1]), catalog), catalog)
print(json.dumps(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
"""


def write_cluster(folder: Path) -> Path:
    path = folder / "cluster-16384-gpus.json"
    path.write_text(generate_cluster(SERVERS).model_dump_json(), encoding="utf-8")
    return path


def cluster_figures(report: Report, path: Path, repeat: int) -> None:
    label = f"{SERVERS * 8:,}-GPU plan"
    catalog = load_catalog(include_user=False)
    report.add(Figure(CLUSTER, f"open (load + validate) the {label}", timed(partial(load_plan, path, catalog), repeat),
                      OPEN_TARGET_S))  # fmt: skip
    state: dict[str, object] = {}

    def fresh() -> None:
        new_catalog = load_catalog(include_user=False)
        state["catalog"], state["plan"] = new_catalog, load_plan(path, new_catalog)
        gc.collect()

    runs = timed(lambda: analyse_plan(state["plan"], state["catalog"]), max(3, repeat // 3), setup=fresh)  # type: ignore[arg-type]
    report.add(Figure(CLUSTER, f"full analysis of the {label}, nothing cached", runs, ANALYSIS_TARGET_S,
                      note="every machine, rack and row"))  # fmt: skip
    plan = load_plan(path, catalog)
    before = analyse_plan(plan, catalog)
    settle_heap()  # as the app does once a plan is open
    chosen: dict[str, Edit] = {"change a GPU power limit": _power_limit, "move a server to another rack": _move_server}
    for name, edit in chosen.items():
        runs = _edit_runs(plan, catalog, before, edit, repeat)
        report.add(Figure(CLUSTER, f"{name} in the {label} + re-analysis", runs, EDIT_TARGET_S,
                          note="re-analysis from the previous one: only what the edit touched"))  # fmt: skip
    runs = timed(lambda: cluster_fabric(plan, catalog), max(3, repeat // 3))
    report.add(Figure(CLUSTER, f"fabric of the {label}: 1,280 switches, 49,152 cables wired with lengths", runs,
                      None))  # fmt: skip
    probe = subprocess.run([sys.executable, "-c", _MEMORY_PROBE, str(path)], capture_output=True, text=True, check=True)
    report.add(Figure(CLUSTER, f"peak memory: open and analyse the {label}", [json.loads(probe.stdout)],
                      MEMORY_TARGET_MB, unit="MB", note="a process of its own"))  # fmt: skip


def _power_limit(plan: Plan, catalog: Catalog, run: int) -> Plan:
    machine = plan.machines[(run * 37) % len(plan.machines)].id
    return edits.set_power_limit(plan, machine=machine, slot="sxm2", watts=400.25 + run, catalog=catalog).plan


def _move_server(plan: Plan, catalog: Catalog, run: int) -> Plan:
    # Compute racks hold four 8U DGX from U1 to U32: U33 and up is free in every other one.
    racks = [r for r in plan.racks if any(d.machine for d in r.devices)]
    source, target = racks[(run * 5) % len(racks)], racks[(run * 5 + 1) % len(racks)]
    device = next(d.id for d in source.devices if d.machine)
    return edits.move_device(plan, rack=source.id, device=device, to_rack=target.id, position_u=33).plan


def _edit_runs(plan: Plan, catalog: Catalog, before: PlanAnalysis, edit: Edit, repeat: int) -> list[float]:
    """Each run edits another machine or rack of the analysed plan and re-analyses from ``before``."""
    runs = iter(range(repeat))
    state: dict[str, int] = {}

    def setup() -> None:
        state["run"] = next(runs)

    return timed(lambda: analyse_plan(edit(plan, catalog, state["run"]), catalog, before), repeat, setup=setup)
