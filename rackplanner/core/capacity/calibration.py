"""Estimates against published measurements: the error table the calibration test prints.

The measurements live in a CSV (``tests/data/measured.csv``), one published data point a
row: hardware (catalog id) and count, model, format, runtime, batch, context, metric
(``decode_tokens_per_s`` or ``prefill_tokens_per_s``), measured value, the memory speed
of the measured system where it differs from the CPU's rating, and the source.
"""

from __future__ import annotations

import csv
import io
import re
import statistics
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from rackplanner.core import files
from rackplanner.core.capacity.estimate import estimate, get_model
from rackplanner.core.capacity.fitted import Calibration, current
from rackplanner.core.capacity.formats import KV_CACHE_BYTES, WeightFormat, get_format, sized_format
from rackplanner.core.capacity.hardware import Hardware, from_cpu, from_gpu, from_unified_system
from rackplanner.core.capacity.runtime import get_runtime, runtime_of_release, with_ubatch
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Cpu, Gpu, LlmModel, UnifiedSystem
from rackplanner.core.errors import InputError, closest_ids, describe_validation_error

METRICS = ("decode_tokens_per_s", "prefill_tokens_per_s")


class MeasuredPoint(BaseModel):
    point: str
    hardware: str
    count: int = Field(ge=1, le=100_000)
    model: str
    format: str
    runtime: str
    batch: int = Field(ge=1, le=1_000_000)
    context: int = Field(ge=1, le=100_000_000)
    metric: str
    # Tokens per second as measured: a zero, negative or infinite rate is a typo.
    value: float = Field(gt=0, le=1e9, allow_inf_nan=False)
    mem_mts: int | None = Field(default=None, gt=0, le=100_000)
    source: str
    notes: str = ""
    # When it was measured: 2025, 2025-08 or 2025-08-14.
    date: str = ""
    runtime_version: str = ""
    hardware_detail: str = ""
    backend: str = ""
    # The independent source (thread, site, publisher) the row belongs to.
    source_group: str = ""
    # The KV cache's precision in the run (fp16 unless the source says fp8, q8_0 ...).
    kv_cache: str = "fp16"
    # Where a server's time to first token was taken: by a client of its API, which pays the
    # server's fixed cost per request, or inside the engine (TensorRT-LLM's gptSessionBenchmark).
    ttft_timed: Literal["client", "engine"] = "client"
    # llama.cpp's -ub of the run (prompt tokens per pass), when it was not the default 512.
    ubatch: int | None = Field(default=None, ge=1, le=1_000_000)
    # Tokens already cached when a prompt came (llama-bench's pp512 @ d4096): its context is
    # depth + prompt.
    depth: int = Field(default=0, ge=0, le=100_000_000)
    # The weights file's real size (llama-bench's size column), when it is known: the format
    # keeps its mix of tensor sizes and is scaled to it, as `estimate --weights-gib` does.
    weights_gib: float | None = Field(default=None, gt=0, le=1e6, allow_inf_nan=False)

    @field_validator("date")
    @classmethod
    def _a_date(cls, value: str) -> str:
        if value and not re.fullmatch(r"\d{4}(-\d{2}(-\d{2})?)?", value):
            raise ValueError("give the date as YYYY, YYYY-MM or YYYY-MM-DD")
        return value

    @model_validator(mode="after")
    def _engine_of_release(self) -> MeasuredPoint:
        # vLLM before 0.8 ran another engine, with its own fixed cost per step; llama.cpp
        # before 2024-01 split several GPUs by rows. (Multi-socket CPU rows of that era
        # would need their runtime named: a row split runs on GPUs only.)
        self.runtime = runtime_of_release(self.runtime, self.runtime_version, self.date, self.count)
        return self

    @model_validator(mode="after")
    def _depth_within_context(self) -> MeasuredPoint:
        if self.depth >= self.context:
            raise ValueError(f"depth {self.depth} leaves no prompt in a context of {self.context}")
        return self

    def weight_format(self, model: LlmModel) -> WeightFormat:
        """The row's format, sized to its file when the row gives the file's size."""
        fmt = get_format(self.format)
        return sized_format(model, fmt, self.weights_gib) if self.weights_gib else fmt

    @property
    def prompt(self) -> int:
        """Prompt tokens of a prefill row: its context less what was cached before."""
        return self.context - self.depth

    @property
    def metric_kind(self) -> Literal["decode", "prefill"]:
        """decode or prefill: which of the estimate's speeds the row measures."""
        return "decode" if self.metric.startswith("decode") else "prefill"

    @property
    def group(self) -> str:
        return self.source_group or self.source

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


MAX_MEASURED_BYTES = 20_000_000


def load_points(path: Path, text: str | None = None) -> list[MeasuredPoint]:
    """The measured points of a CSV (``text``, when the caller has read it); InputError names
    the line of a bad row."""
    if text is None:
        # A measurement file is a few thousand rows; a huge one is refused before it is read whole.
        text = files.read_text(path, what="measurements", max_bytes=MAX_MEASURED_BYTES)
    try:
        rows = list(csv.DictReader(io.StringIO(text, newline="")))
    except csv.Error as exc:
        raise InputError(f"{path}: cannot read the measurements ({exc})") from None
    if not rows:
        raise InputError(f"{path}: no measurement rows under the header")
    points = []
    for number, row in enumerate(rows, start=2):
        # Cells beyond the header's columns come under the key None: not a field.
        data = {key: value for key, value in row.items() if key is not None and value != ""}
        try:
            point = MeasuredPoint.model_validate(data)
        except ValidationError as exc:
            raise InputError(f"{path}: line {number}: {describe_validation_error(exc)}") from None
        if point.metric not in METRICS:
            raise InputError(f"{path}: line {number}: metric {point.metric!r} is not one of {', '.join(METRICS)}")
        if point.kv_cache.lower() not in KV_CACHE_BYTES:
            known = ", ".join(KV_CACHE_BYTES)
            raise InputError(f"{path}: line {number}: kv_cache {point.kv_cache!r} is not one of {known}")
        points.append(point)
    return points


def check_points(points: list[MeasuredPoint], catalog: Catalog, path: Path, *, places: list[str] | None = None) -> None:
    """Every point's hardware, model, format and runtime are known and go together;
    InputError names the line (as load_points read them, from line 2, unless ``places`` says)."""
    default = [f"line {n}" for n in range(2, len(points) + 2)]
    for place, point in zip(places or default, points, strict=True):
        try:
            hw = hardware_of(point, catalog)
            model = get_model(catalog, point.model)
            fmt = point.weight_format(model)
            runtime = get_runtime(point.runtime)
            if point.ubatch is not None:
                with_ubatch(runtime, point.ubatch)
            estimate(model, fmt, hw, runtime=runtime, batch=1, context=1, kv_cache=point.kv_cache, with_training=False)
        except InputError as exc:
            raise InputError(f"{path}: {place} ({point.point}): {exc}") from None


def hardware_of(point: MeasuredPoint, catalog: Catalog) -> Hardware:
    """The point's hardware: CPU sockets (at the measured memory speed), a unified-memory
    machine, or GPUs."""
    if catalog.get(point.hardware) is None:
        known = [part.id for kind in (Gpu, Cpu, UnifiedSystem) for part in catalog.of_kind(kind)]
        close = closest_ids(point.hardware, known)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise InputError(
            f"unknown hardware {point.hardware!r}: no GPU, CPU or unified-memory machine in the catalog has "
            f"this id (add your own with --catalog DIR){hint}"
        )
    cpu = catalog.get_as(point.hardware, Cpu)
    if cpu is not None:
        # Speed does not depend on RAM size; a CPU without a stated maximum gets room to fit.
        ram_gb = None if cpu.max_memory_gb is not None else 4096.0 * point.count
        return from_cpu(catalog, point.hardware, point.count, ram_gb=ram_gb, mem_speed_mts=point.mem_mts)
    if catalog.get_as(point.hardware, UnifiedSystem) is not None:
        return from_unified_system(catalog, point.hardware)
    return from_gpu(catalog, point.hardware, point.count)


def evaluate(points: list[MeasuredPoint], catalog: Catalog, *, calibration: Calibration | None = None) -> ErrorTable:
    """Estimate every point's setup and compare with its measured value."""
    rows = []
    served = calibration or current()
    in_engine = served.model_copy(update={"prefill_request_s": {}})
    for point in points:
        model = get_model(catalog, point.model)
        est = estimate(
            model,
            point.weight_format(model),
            hardware_of(point, catalog),
            runtime=point.runtime,
            batch=point.batch,
            context=point.context,
            prompt=point.prompt,
            prompt_depth=point.depth,
            kv_cache=point.kv_cache,
            ubatch=point.ubatch,
            with_training=False,
            calibration=in_engine if point.ttft_timed == "engine" else served,
        )
        value = getattr(est, point.metric)
        error = None if value is None else (value - point.value) / point.value
        rows.append(PointError(point=point, estimated=value, relative_error=error))
    return ErrorTable(rows=rows)


def format_table(table: ErrorTable) -> str:
    """One line per point (measured, estimate, relative error) and the median and worst."""
    lines = [f"{'point':<30} {'metric':<8} {'measured':>10} {'estimate':>10} {'error':>8}"]
    for row in table.rows:
        metric = row.point.metric_kind
        est = f"{row.estimated:10.1f}" if row.estimated is not None else f"{'no fit':>10}"
        err = f"{row.relative_error:+8.0%}" if row.relative_error is not None else f"{'-':>8}"
        lines.append(f"{row.point.point:<30} {metric:<8} {row.point.value:10.1f} {est} {err}")
    worst = table.worst
    lines.append(
        f"{len(table.errors)} points: median |error| {table.median:.1%}, worst {abs(worst.relative_error or 0):.1%} "
        f"({worst.point.point})"
    )
    return "\n".join(lines)
