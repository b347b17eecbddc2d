"""Speed figures of the core, printed (not asserted): ``python -m rackplanner.benchmark``."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from rackplanner.core import edits
from rackplanner.core.catalog import BUILTIN_CATALOG_DIR, load_catalog
from rackplanner.core.fit import check_machine
from rackplanner.core.planfile import load_plan
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


if __name__ == "__main__":
    main()
