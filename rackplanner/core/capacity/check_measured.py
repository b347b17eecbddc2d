"""Your own measurements against the shipped estimate: ``rackplanner calibrate MINE.csv --check``.

Nothing is fitted: each row is estimated with the constants the package ships, as
``rackplanner estimate`` would, and compared with what was measured and with the error band
the estimate states for that hardware ("typically ±12%, 90% within ±30%"). A handful of rows
cannot be cross-validated (leaving one source out of one source leaves nothing), but they can
say whether the stated bands hold on your machine.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rackplanner.core.capacity.calibration import (
    MAX_MEASURED_BYTES,
    MeasuredPoint,
    PointError,
    check_points,
    evaluate,
    hardware_of,
    load_points,
)
from rackplanner.core.capacity.estimate import get_model
from rackplanner.core.capacity.fitted import Calibration, ErrorBand, current, error_band
from rackplanner.core.capacity.llama_bench import bench_points, is_llama_bench, read_bench, source_place
from rackplanner.core.capacity.measured_range import beyond
from rackplanner.core.catalog.hf import load_hf_config
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Gpu
from rackplanner.core.errors import InputError
from rackplanner.core.files import read_text


@dataclass(frozen=True)
class BenchMachine:
    """The machine llama-bench ran on, as the estimate's options name it."""

    gpu: str | None = None
    count: int = 1
    cpu: str | None = None
    sockets: int = 1
    system: str | None = None
    model: str | None = None
    config: Path | None = None  # a Hugging Face config.json for a model the catalog lacks
    runtime: str = "llama.cpp"

    def given(self) -> bool:
        """Whether any option naming llama-bench's run was given."""
        return bool(self.gpu or self.cpu or self.system or self.model or self.config)

    def hardware(self, catalog: Catalog) -> tuple[str, int, bool]:
        """The hardware id, how many of it, and whether it is a GPU."""
        named = [name for name in (self.gpu, self.cpu, self.system) if name]
        if len(named) != 1:
            raise InputError("give one of --gpu, --cpu and --system for llama-bench output")
        hardware = named[0]
        count = self.count if self.gpu else self.sockets if self.cpu else 1
        return hardware, count, self.gpu is not None and isinstance(catalog.get(hardware), Gpu)


def _bench_points(
    path: Path, text: str, catalog: Catalog, machine: BenchMachine | None
) -> tuple[list[MeasuredPoint], list[str], Catalog]:
    """llama-bench's results on ``machine`` as points, the rows not checked and why, and the
    catalog with ``--config``'s model in it."""
    if machine is None:
        raise InputError(
            f"{path}: llama-bench output does not name the machine in catalog terms: "
            "give --gpu ID [--count N], --system ID or --cpu ID [--sockets N]"
        )
    rows = read_bench(text, path)
    hardware, count, gpu = machine.hardware(catalog)
    model = machine.model
    if machine.config is not None:
        if model is not None:
            raise InputError("name llama-bench's model with --model or --config, not both")
        imported = load_hf_config(machine.config)
        catalog = dataclasses.replace(catalog, parts={**catalog.parts, imported.id: imported})
        model = imported.id
    points, skipped = bench_points(
        rows, catalog, path, hardware=hardware, count=count, model=model, runtime=machine.runtime, gpu=gpu
    )
    check_points(points, catalog, path, places=[source_place(p, path) for p in points])
    if not points:
        raise InputError(
            f"{path}: none of its {len(rows)} llama-bench result(s) can be checked: "
            + "; ".join(skipped[:4])
            + (f"; and {len(skipped) - 4} more" if len(skipped) > 4 else "")
        )
    return points, skipped, catalog


def check_report(
    path: Path, catalog: Catalog, calibration: Calibration | None = None, *, machine: BenchMachine | None = None
) -> str:
    """One line per row (measured, estimated, error, the stated band and whether the row is
    inside it), then per metric the median error and how many rows the bands held. llama-bench
    output is read as it comes, on ``machine`` (which it does not name in catalog terms)."""
    cal = calibration or current()
    text = read_text(path, what="measurements", max_bytes=MAX_MEASURED_BYTES)
    skipped: list[str] = []
    bench = is_llama_bench(text)
    if bench:
        points, skipped, catalog = _bench_points(path, text, catalog, machine)
    else:
        if machine is not None:
            raise InputError(
                f"{path}: not llama-bench output (no table with model, test and t/s columns, no avg_ts "
                "results); --gpu, --cpu, --system, --model and --config are for llama-bench output, and a "
                "measurements CSV names its machine and model in each row"
            )
        points = load_points(path, text)
        check_points(points, catalog, path)
    table = evaluate(points, catalog, calibration=cal)
    lines = [
        f"{path}: {len(points)} measurement(s), each estimated with the shipped constants (nothing fitted)",
        f"{'point':<36} {'metric':<8} {'measured':>10} {'estimate':>10} {'error':>7}  stated band",
    ]
    errors: dict[str, list[tuple[float, ErrorBand | None]]] = {"decode": [], "prefill": []}
    unmeasured: list[str] = []
    for row in table.rows:
        point = row.point
        metric = point.metric_kind
        hw = hardware_of(point, catalog)
        band = error_band(cal, hw, metric)
        if row.estimated is None or row.relative_error is None:
            lines.append(f"{point.point[:36]:<36} {metric:<8} {point.value:10.1f} {'no fit':>10} {'-':>7}")
            continue
        error = row.relative_error
        errors[metric].append((abs(error), band))
        if band is None:
            stated = "no band (no held-out error for this hardware)"
        else:
            inside = "inside" if abs(error) <= band.median else "inside the 90% band"
            verdict = inside if abs(error) <= band.p90 else "OUTSIDE"
            stated = f"±{band.median:.0%} (90% within ±{band.p90:.0%}): {verdict}"
        model = get_model(catalog, point.model)
        reasons = beyond(cal, hw, point.runtime, metric, model, context=point.context, batch=point.batch)
        if reasons:
            stated += " †"
            unmeasured += [r for r in reasons if r not in unmeasured]
        lines.append(
            f"{point.point[:36]:<36} {metric:<8} {point.value:10.1f} {row.estimated:10.1f} {error:+7.0%}  {stated}"
        )
    lines.append("")
    for kind, found in errors.items():
        if not found:
            continue
        summary = f"{kind}: {len(found)} row(s), median |error| {statistics.median(e for e, _ in found):.0%}"
        banded = [(e, band) for e, band in found if band is not None]
        if banded:
            in_typical = sum(1 for e, band in banded if e <= band.median)
            in_wide = sum(1 for e, band in banded if e <= band.p90)
            # Were the bands exact, about half the rows would fall within the typical one and
            # nine in ten within the 90% one.
            summary += (
                f"; within the typical band {in_typical} of {len(banded)} (about half would be), "
                f"within the 90% band {in_wide} (about {0.9 * len(banded):.0f} would be)"
            )
        lines.append(summary)
    if skipped:
        lines.append(f"not checked ({len(skipped)}):")
        lines.extend(f"  {line}" for line in skipped)
    if unmeasured:
        lines.append(
            "† beyond what the shipped calibration's runs of that kind covered, so its band is other runs': "
            + "; ".join(f"no published run {reason}" for reason in unmeasured)
        )
    lines.extend(_far_off(table.rows, path if bench else None))
    unestimated = [row.point.point for row in table.rows if row.relative_error is None]
    if unestimated:
        lines.append(f"not estimated (does not fit, or no tensor peak in the catalog): {', '.join(unestimated[:8])}")
    return "\n".join(lines)


# No held-out source strays by a factor of four (the widest 90% band is about +190%), so a
# gap that size says the row ran on something other than what it names.
_FAR_OFF_FACTOR = 4.0


def _far_off(rows: Sequence[PointError], bench_path: Path | None) -> list[str]:
    """A line for rows whose estimate is four times or more off, with what usually causes it.
    llama-bench rows are named with their line, as their names repeat."""

    def name(row: PointError) -> str:
        place = f" ({source_place(row.point, bench_path)})" if bench_path is not None else ""
        return row.point.point + place

    slow = [name(r) for r in rows if r.estimated and r.point.value * _FAR_OFF_FACTOR <= r.estimated]
    fast = [name(r) for r in rows if r.estimated and r.point.value >= r.estimated * _FAR_OFF_FACTOR]
    lines = []
    if slow:
        lines.append(
            f"measured a quarter of the estimate or less ({', '.join(slow[:8])}): more than any runtime "
            "strays; was the run partly on the CPU (layers or KV cache offloaded, a GPU not found), or on "
            "a throttled or shared GPU?"
        )
    if fast:
        lines.append(
            f"measured four times the estimate or more ({', '.join(fast[:8])}): more than any runtime "
            "strays; was the model, format or machine another than the one named?"
        )
    return lines
