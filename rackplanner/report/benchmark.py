"""How long the bill of materials export takes: ``python -m rackplanner.report.benchmark [RACKS]``.

The target is a 10-rack row (80 eight-GPU servers) written as PDF and CSV in under 3 s.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from rackplanner.core.catalog import load_catalog
from rackplanner.core.generate import generate_row
from rackplanner.report.export import ensure_application, export_report

TARGET_S = 3.0


def time_export(racks: int, folder: Path) -> tuple[float, int]:
    """Seconds to export a generated row of ``racks`` racks (catalog loaded, caches cold), and its pages."""
    catalog = load_catalog(include_user=False)
    plan = generate_row(racks, seed=1)
    ensure_application()
    start = time.perf_counter()
    result = export_report(plan, catalog, pdf=folder / "bench.pdf", csv=folder / "bench.csv")
    elapsed = time.perf_counter() - start
    return elapsed, result.pdf.pages if result.pdf else 0


def main() -> None:
    racks = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    with tempfile.TemporaryDirectory() as folder:
        elapsed, pages = time_export(racks, Path(folder))
    verdict = "ok" if racks != 10 or elapsed < TARGET_S else f"over the {TARGET_S:g} s target"
    print(f"export of {racks} racks: {pages} pages in {elapsed:.2f} s ({verdict})")


if __name__ == "__main__":
    main()
