"""Speed figures of the core, printed (not asserted): ``python -m rackplanner.benchmark``."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from rackplanner.core import edits
from rackplanner.core.catalog import BUILTIN_CATALOG_DIR, Catalog, load_catalog
from rackplanner.core.fit import check_machine
from rackplanner.core.generate import generate_row
from rackplanner.core.mounting import rack_layout
from rackplanner.core.plan import Plan
from rackplanner.core.planfile import load_plan
from rackplanner.core.rackpower import rack_power
from rackplanner.core.topology import _derive, derive_topology

EXAMPLES = BUILTIN_CATALOG_DIR.parent / "resources" / "examples"


def _median_ms(run: Callable[[], object], repeat: int = 7) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    start = time.perf_counter()
    catalog = load_catalog(include_user=False)
    print(f"load catalog ({len(catalog)} parts): {(time.perf_counter() - start) * 1000:.1f} ms")
    plan = load_plan(EXAMPLES / "sys-4028gr-trt2-8gpu.json", catalog)
    server = plan.machines[0]
    # Distinct machines (renamed copies) so the content cache cannot answer.
    fleet = [server.model_copy(update={"name": f"node {i}"}) for i in range(1000)]
    single = _median_ms(lambda: _derive(server, catalog), repeat=201)
    print(f"derive topology, one 8-GPU machine (median of 201): {single:.3f} ms")
    cold = _median_ms(lambda: [_derive(m, catalog) for m in fleet], repeat=3)
    print(f"derive topology, 1,000 distinct 8-GPU machines: {cold:.0f} ms ({cold / 1000:.3f} ms each)")
    for m in fleet:
        derive_topology(m, catalog)
    warm = _median_ms(lambda: [derive_topology(m, catalog) for m in fleet], repeat=3)
    print(f"the same 1,000 again, answered from the content cache: {warm:.0f} ms ({warm / 1000:.3f} ms each)")
    freed = edits.remove_card(plan, machine=server.id, slot="gpu8").plan
    moved = edits.move_card(freed, machine=server.id, from_slot="gpu1", to_slot="gpu8", catalog=catalog)
    edited = moved.plan.machines[0]
    again = _median_ms(lambda: _derive(edited, catalog), repeat=51)
    print(f"re-derive after one edit (move a GPU): {again:.3f} ms (only the touched machine)")
    fit = _median_ms(lambda: check_machine(server, catalog, _derive(server, catalog)), repeat=51)
    print(f"fit rules + topology (uncached), one 8-GPU server: {fit:.3f} ms")
    _rack_figures(catalog)
    _capacity_figures(catalog)



def _analyse_racks(plan: Plan, catalog: Catalog) -> None:
    for rack in plan.racks:
        rack_layout(plan, rack.id, catalog)
        rack_power(plan, rack.id, catalog)


def _rack_figures(catalog: Catalog) -> None:
    """Power and mounting of a 50-rack row, cold and after one edit (only the touched rack recomputes)."""
    row = generate_row(50, seed=1)
    servers = len(row.machines)
    cold = _median_ms(lambda: _analyse_racks(generate_row(50, seed=1), catalog), repeat=3)
    print(f"power + mounting, 50 racks ({servers} servers), nothing cached: {cold:.0f} ms")
    _analyse_racks(row, catalog)
    target = row.machines[0]
    limits = iter(range(100, 10_000))

    def one_edit() -> None:
        edit = edits.set_power_limit(
            row, machine=target.id, slot="gpu1", watts=float(next(limits) % 90 + 150), catalog=catalog
        )
        _analyse_racks(edit.plan, catalog)

    again = _median_ms(one_edit, repeat=21)
    print(f"power + mounting of all 50 racks after one power-limit edit: {again:.2f} ms (one rack recomputes)")


def _capacity_figures(catalog: Catalog) -> None:
    """The capacity table (every catalog model x every weight format) for one machine."""
    from rackplanner.core.capacity.estimate import capacity_table
    from rackplanner.core.capacity.formats import FORMATS
    from rackplanner.core.capacity.hardware import from_machine
    from rackplanner.core.parts import LlmModel

    machine = load_plan(EXAMPLES / "home-rig-2x3090.json", catalog).machines[0]
    hw = from_machine(machine, catalog)
    cells = len(catalog.of_kind(LlmModel)) * len(FORMATS)
    table = _median_ms(lambda: capacity_table(catalog, hw, only_fitting=False), repeat=7)
    print(f"capacity table, {cells} model x format cells on one 2-GPU machine: {table:.1f} ms")


if __name__ == "__main__":
    main()
