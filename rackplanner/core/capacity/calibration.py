"""Estimates against published measurements: the error table the calibration test prints.

The measurements live in a CSV (``tests/data/measured.csv``), one published data point a
row: hardware (catalog id) and count, model, format, runtime, batch, context, metric
(``decode_tokens_per_s`` or ``prefill_tokens_per_s``), measured value, the memory speed
of the measured system where it differs from the CPU's rating, and the source.
"""

from __future__ import annotations

import csv
import statistics
from pathlib import Path

from pydantic import BaseModel

from rackplanner.core.capacity.estimate import estimate, get_model
from rackplanner.core.capacity.hardware import Hardware, from_cpu, from_gpu
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Cpu
from rackplanner.core.errors import InputError

METRICS = ("decode_tokens_per_s", "prefill_tokens_per_s")


class MeasuredPoint(BaseModel):
    point: str
    hardware: str
    count: int
    model: str
    format: str
    runtime: str
    batch: int
    context: int
    metric: str
    value: float
    mem_mts: int | None = None
    source: str
    notes: str = ""

    @property
    def is_report(self) -> bool:
        """A figure from a reference document's prose, not a benchmark table."""
        return self.source.startswith("seed ")


class PointError(BaseModel):
    point: MeasuredPoint
    estimated: float | None
    relative_error: float | None  # (estimate - measured) / measured


class ErrorTable(BaseModel):
    rows: list[PointError]

    @property
    def errors(self) -> list[float]:
        return [abs(r.relative_error) for r in self.rows if r.relative_error is not None]

    @property
    def median(self) -> float:
        return statistics.median(self.errors)

    @property
    def worst(self) -> PointError:
        return max((r for r in self.rows if r.relative_error is not None), key=lambda r: abs(r.relative_error or 0))


def load_points(path: Path) -> list[MeasuredPoint]:
    """The measured points of a CSV; InputError names the line of a bad row."""
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    points = []
    for number, row in enumerate(rows, start=2):
        data = {key: value for key, value in row.items() if value != ""}
        try:
            point = MeasuredPoint.model_validate(data)
        except ValueError as exc:
            raise InputError(f"{path}: line {number}: {exc}") from None
        if point.metric not in METRICS:
            raise InputError(f"{path}: line {number}: metric {point.metric!r} is not one of {', '.join(METRICS)}")
        points.append(point)
    return points


def hardware_of(point: MeasuredPoint, catalog: Catalog) -> Hardware:
    """The point's hardware: CPU sockets (at the measured memory speed) or GPUs."""
    if catalog.get_as(point.hardware, Cpu) is not None:
        return from_cpu(catalog, point.hardware, point.count, mem_speed_mts=point.mem_mts)
    return from_gpu(catalog, point.hardware, point.count)


def evaluate(points: list[MeasuredPoint], catalog: Catalog) -> ErrorTable:
    """Estimate every point's setup and compare with its measured value."""
    rows = []
    for point in points:
        est = estimate(
            get_model(catalog, point.model),
            point.format,
            hardware_of(point, catalog),
            runtime=point.runtime,
            batch=point.batch,
            context=point.context,
            prompt=point.context,
            with_training=False,
        )
        value = getattr(est, point.metric)
        error = None if value is None else (value - point.value) / point.value
        rows.append(PointError(point=point, estimated=value, relative_error=error))
    return ErrorTable(rows=rows)


def format_table(table: ErrorTable) -> str:
    """One line per point (measured, estimate, relative error) and the median and worst."""
    lines = [f"{'point':<30} {'metric':<8} {'measured':>10} {'estimate':>10} {'error':>8}"]
    for row in table.rows:
        metric = "decode" if row.point.metric.startswith("decode") else "prefill"
        est = f"{row.estimated:10.1f}" if row.estimated is not None else f"{'no fit':>10}"
        err = f"{row.relative_error:+8.0%}" if row.relative_error is not None else f"{'-':>8}"
        lines.append(f"{row.point.point:<30} {metric:<8} {row.point.value:10.1f} {est} {err}")
    worst = table.worst
    lines.append(
        f"{len(table.errors)} points: median |error| {table.median:.1%}, worst {abs(worst.relative_error or 0):.1%} "
        f"({worst.point.point})"
    )
    return "\n".join(lines)


class FittedConstants(BaseModel):
    """Class-wide values the measurements support; constants.py carries them rounded."""

    gpu_decode_bw_efficiency: float
    llama_cpp_layer_overhead_s: float
    prefill_tflops_efficiency: dict[str, float]
    tp_server_step_overhead_s: float | None
    points_used: int


def fit_constants(points: list[MeasuredPoint], catalog: Catalog) -> FittedConstants:
    """Least-squares fit of 1/decode = bytes / (eff × bandwidth) + layers × overhead over
    every llama.cpp GPU decode point at batch 1 (minimising relative error), the median
    achieved TFLOP/s share per device class over the prefill points, and the median
    leftover step time of the tensor-parallel decode points. Rounded reports rather than
    benchmark runs (the seed's "about 20 tokens/s") are checked against, not fitted to."""
    from rackplanner.core.capacity.formats import get_format
    from rackplanner.core.capacity.runtime import get_runtime
    from rackplanner.core.capacity.speed import SpeedInputs, _allreduce_s

    rows: list[tuple[float, float]] = []
    prefill: dict[str, list[float]] = {}
    tp_points: list[tuple[SpeedInputs, MeasuredPoint, float]] = []
    used = 0
    for point in points:
        if point.is_report:
            continue
        hw = hardware_of(point, catalog)
        model = get_model(catalog, point.model)
        s = SpeedInputs.build(model, get_format(point.format), hw, get_runtime(point.runtime))
        if point.metric == "prefill_tokens_per_s" and hw.tflops_per_device:
            flops = 2 * s.active_params + s.attention_flops(point.context / 2)
            achieved = point.value * flops / (hw.tflops_per_device * 1e12)
            prefill.setdefault(hw.device_class, []).append(achieved)
            used += 1
            continue
        if point.metric != "decode_tokens_per_s" or point.batch != 1 or hw.kind != "gpu":
            continue
        seconds_at_full_bw = (s.weights_read(1) + point.context * s.kv_token_bytes) / (
            hw.mem_bw_gbs_per_device * 1e9 * s.tp
        )
        if s.runtime.split == "tensor":
            tp_points.append((s, point, seconds_at_full_bw))
            continue
        y = 1 / point.value
        rows.append((seconds_at_full_bw / y, model.layers / y))
        used += 1
    inv_eff, overhead = _least_squares(rows)
    if overhead < 0:
        inv_eff, overhead = sum(r[0] for r in rows) / sum(r[0] ** 2 for r in rows), 0.0
    eff = 1 / inv_eff
    leftovers = [1 / p.value - t / eff - _allreduce_s(s, 1) for s, p, t in tp_points]
    return FittedConstants(
        gpu_decode_bw_efficiency=eff,
        llama_cpp_layer_overhead_s=overhead,
        prefill_tflops_efficiency={cls: statistics.median(v) for cls, v in sorted(prefill.items())},
        tp_server_step_overhead_s=statistics.median(leftovers) if leftovers else None,
        points_used=used + len(tp_points),
    )


def _least_squares(rows: list[tuple[float, float]]) -> tuple[float, float]:
    """Solve min Σ (a·x1 + c·x2 − 1)² for (a, c) by the normal equations."""
    s11 = sum(x1 * x1 for x1, _ in rows)
    s12 = sum(x1 * x2 for x1, x2 in rows)
    s22 = sum(x2 * x2 for _, x2 in rows)
    b1 = sum(x1 for x1, _ in rows)
    b2 = sum(x2 for _, x2 in rows)
    det = s11 * s22 - s12 * s12
    if det == 0:
        raise InputError("calibration points do not determine both bandwidth efficiency and overhead")
    return (b1 * s22 - b2 * s12) / det, (s11 * b2 - s12 * b1) / det
