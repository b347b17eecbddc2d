"""What the capacity panel draws on top of the estimates: decode speed against batch size
with its roofline knee, a rack's machines as independent servers, training over their GPUs.

The curve and the knee use the step-time formulas of ``speed`` (a step takes the larger of
its memory time and its compute time); the knee is the batch where the two are equal, so
below it decode is bandwidth-bound and adding sequences is almost free, above it the rate
levels off at what the device computes (001_1caa315e8577a206.txt, the FLOP/byte table).
"""

from __future__ import annotations

from dataclasses import replace

from pydantic import BaseModel

from rackplanner.core.capacity import constants as k
from rackplanner.core.capacity.estimate import DEFAULT_RUNTIME, TableRow, capacity_table
from rackplanner.core.capacity.failures import CHECKPOINT_BYTES_PER_PARAM, FailureBudget, failure_budget
from rackplanner.core.capacity.formats import FORMATS, WeightFormat, get_format
from rackplanner.core.capacity.hardware import Hardware, from_machine
from rackplanner.core.capacity.memory import memory_fit
from rackplanner.core.capacity.runtime import get_runtime
from rackplanner.core.capacity.shape import total_params
from rackplanner.core.capacity.speed import (
    SpeedInputs,
    decode_flops_per_token,
    decode_tokens_per_s,
    peak_tflops,
    row_split_unread_bytes,
)
from rackplanner.core.capacity.training import TrainingLimits, time_to_train_s, training_limits
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import LlmModel
from rackplanner.core.errors import InputError
from rackplanner.core.plan.cache import ContentCache
from rackplanner.core.plan.model import Plan

# Batch sizes the curve spans: one sequence up to the most a server batches at once.
CURVE_MAX_BATCH = k.MAX_BATCH_SEQUENCES


class BatchCurve(BaseModel):
    """Decode tokens/s (all sequences together) for batch 1..``batches[-1]`` at one context."""

    model: str
    format: str
    hardware: str
    runtime: str
    context: int
    batches: list[int]
    tokens_per_s: list[float]
    # Sequences of ``context`` tokens whose KV cache memory holds (the curve goes on beyond, for shape).
    max_batch: int
    # Batch where a step's compute time reaches its memory time; None when it never does
    # (no TFLOP/s figure, or the KV cache traffic grows as fast as the compute).
    knee_batch: float | None
    # The same at the device's peak TFLOP/s and bandwidth (the spec sheet's ridge point).
    peak_knee_batch: float | None
    # Peak dense TFLOP/s over memory bandwidth of one device: the roofline's ridge point.
    device_flop_per_byte: float | None
    # The same ratio at the achieved shares of TFLOP/s and bandwidth the estimates use: where
    # the modelled curve actually bends.
    effective_flop_per_byte: float | None
    # Decode tokens/s no batch can exceed: the achieved TFLOP/s over the FLOP per token.
    compute_ceiling_tokens_per_s: float | None
    offload_fraction: float


def speed_inputs(
    model: LlmModel, fmt: WeightFormat | str, hw: Hardware, *, runtime: str | None = None, context: int = 4096
) -> tuple[SpeedInputs, int, int] | None:
    """The speed inputs ``capacity_table`` uses for this row, its context and max batch; None if it does not fit."""
    fmt = get_format(fmt) if isinstance(fmt, str) else fmt
    rt = get_runtime(runtime or DEFAULT_RUNTIME)
    ctx = min(context, model.max_context)
    fit = memory_fit(model, fmt, hw, rt, context=ctx)
    if not fit.fits:
        return None
    return SpeedInputs.build(model, fmt, hw, rt, offload_fraction=fit.offload_fraction), ctx, fit.max_batch


def _memory_s(s: SpeedInputs, batch: float, context: int) -> float:
    # The memory side of speed.decode_step_s's max(), for a real-valued batch.
    moved = s.weights_read(batch) - row_split_unread_bytes(s) + batch * s.kv_read_bytes(context)  # type: ignore[arg-type]
    if s.offload_fraction and s.host_bytes_per_s:
        return (1 - s.offload_fraction) * moved / s.mem_bytes_per_s + s.offload_fraction * moved / s.host_bytes_per_s
    return moved / s.mem_bytes_per_s


def _compute_s(s: SpeedInputs, batch: float, context: int) -> float:
    return batch * decode_flops_per_token(s, context) / s.flops_per_s


def knee_batch(s: SpeedInputs, context: int, limit: float = 1e6) -> float | None:
    """The batch where one decode step's compute time equals its memory time (bisection)."""
    if s.flops_per_s == float("inf"):
        return None

    def excess(b: float) -> float:
        return _compute_s(s, b, context) - _memory_s(s, b, context)

    if excess(1.0) >= 0:
        return 1.0 * s.pp
    if excess(limit) < 0:
        return None
    low, high = 1.0, limit
    for _ in range(100):
        mid = (low + high) / 2
        if excess(mid) < 0:
            low = mid
        else:
            high = mid
        if high - low < 1e-3:
            break
    # Pipeline stages each take batch / stages sequences at a time: the knee is per stage.
    return high * s.pp


def at_peak(s: SpeedInputs) -> SpeedInputs:
    """The same inputs at the devices' peak TFLOP/s and bandwidth (no achieved-share factors)."""
    return replace(
        s,
        flops_per_s=s.flops_per_s / s.prefill_eff,
        mem_bytes_per_s=s.mem_bytes_per_s / s.decode_eff,
        host_bytes_per_s=s.host_bytes_per_s / s.host_eff,
    )


def decode_curve(
    model: LlmModel,
    fmt: WeightFormat | str,
    hw: Hardware,
    *,
    runtime: str | None = None,
    context: int = 4096,
    max_batch: int = CURVE_MAX_BATCH,
) -> BatchCurve | None:
    """Decode tokens/s at every batch 1..``max_batch`` (as in ``capacity_table``); None if it does not fit."""
    fmt = get_format(fmt) if isinstance(fmt, str) else fmt
    found = speed_inputs(model, fmt, hw, runtime=runtime, context=context)
    if found is None:
        return None
    s, ctx, memory_batch = found
    batches = list(range(1, max_batch + 1))
    ratio = None
    # The spec-sheet ridge of the peak this format runs at (INT8 for llama.cpp's quantized types).
    peak = peak_tflops(hw, fmt, s.runtime)
    if peak and hw.mem_bw_gbs_per_device:
        ratio = peak * 1e12 / (hw.mem_bw_gbs_per_device * k.GB)
    finite = s.flops_per_s != float("inf")
    return BatchCurve(
        model=model.id,
        format=fmt.id,
        hardware=hw.label,
        runtime=s.runtime.id,
        context=ctx,
        batches=batches,
        tokens_per_s=[decode_tokens_per_s(s, b, ctx) for b in batches],
        max_batch=memory_batch,
        knee_batch=knee_batch(s, ctx),
        peak_knee_batch=knee_batch(at_peak(s), ctx) if finite else None,
        device_flop_per_byte=ratio,
        effective_flop_per_byte=s.flops_per_s / s.mem_bytes_per_s if finite else None,
        compute_ceiling_tokens_per_s=s.flops_per_s / decode_flops_per_token(s, ctx) if finite else None,
        offload_fraction=s.offload_fraction,
    )


# --- a rack of independent servers -------------------------------------------------------


class RackHardware(BaseModel):
    """The machines of a rack the estimates can run on, and those they cannot (with why)."""

    machines: list[str]
    hardware: list[Hardware]
    skipped: list[str]

    @property
    def gpus(self) -> int:
        return sum(h.devices for h in self.hardware if h.kind == "gpu")


def rack_hardware(plan: Plan, rack_id: str, catalog: Catalog) -> RackHardware:
    """Each machine mounted in the rack as estimate hardware, in mounting order."""
    rack = plan.rack(rack_id)
    if rack is None:
        raise KeyError(rack_id)
    machines: list[str] = []
    hardware: list[Hardware] = []
    skipped: list[str] = []
    for device in rack.devices:
        machine = plan.machine(device.machine) if device.machine else None
        if machine is None:
            continue
        try:
            hardware.append(from_machine(machine, catalog))
            machines.append(machine.id)
        except InputError as exc:
            skipped.append(str(exc))
    return RackHardware(machines=machines, hardware=hardware, skipped=skipped)


class RackRow(BaseModel):
    """One model × format over a rack whose machines each run their own copy."""

    model: str
    format: str
    machines: int
    machines_fitting: int
    # Largest memory use on one machine, and the largest CPU-offload share among them.
    total_gb: float
    offload_fraction: float
    max_context: int
    # One request runs on one machine: the fastest machine's batch-1 decode and prefill.
    decode_tokens_per_s: float | None
    prefill_tokens_per_s: float | None
    # Every machine that holds it serving its best batch at once: the sum.
    best_batch_tokens_per_s: float | None
    # Why a machine's speeds lie outside the measured runs (TableRow.unmeasured), "" when none do.
    unmeasured: str = ""


_TABLES: ContentCache[list[TableRow]] = ContentCache(64)


def hardware_key(hw: Hardware) -> str:
    """What the estimates depend on: every figure of the hardware but its label (the machine's name)."""
    return hw.model_dump_json(exclude={"label"})


def cached_capacity_table(
    catalog: Catalog, hw: Hardware, *, runtime: str | None = None, context: int = 4096
) -> list[TableRow]:
    """``capacity_table`` of the fitting rows, remembered per hardware, runtime and context."""
    key = (hardware_key(hw), runtime, context)
    return _TABLES.get(catalog, key, lambda: capacity_table(catalog, hw, runtime=runtime, context=context))


_CURVES: ContentCache[BatchCurve | None] = ContentCache(256)


def cached_decode_curve(
    catalog: Catalog, model: LlmModel, format_id: str, hw: Hardware, *, runtime: str | None = None, context: int = 4096
) -> BatchCurve | None:
    """``decode_curve`` of a catalog model, remembered per model, format, hardware, runtime and context."""
    key = (model.id, format_id, hardware_key(hw), runtime, context)
    return _CURVES.get(catalog, key, lambda: decode_curve(model, format_id, hw, runtime=runtime, context=context))


_RACK_TABLES: ContentCache[list[RackRow]] = ContentCache(16)


def rack_capacity_table(
    catalog: Catalog, hardware: list[Hardware], *, runtime: str | None = None, context: int = 4096
) -> list[RackRow]:
    """Catalog models × formats that fit at least one machine of the rack, machines as independent servers."""
    key = (tuple(hardware_key(hw) for hw in hardware), runtime, context)
    return _RACK_TABLES.get(catalog, key, lambda: _rack_capacity_table(catalog, hardware, runtime, context))


def _rack_capacity_table(
    catalog: Catalog, hardware: list[Hardware], runtime: str | None, context: int
) -> list[RackRow]:
    # Racks hold many identical servers: one table per distinct configuration, counted.
    groups: dict[str, tuple[Hardware, int]] = {}
    for hw in hardware:
        key = hardware_key(hw)
        first, count = groups.get(key, (hw, 0))
        groups[key] = (first, count + 1)
    found: dict[tuple[str, str], list[tuple[TableRow, int]]] = {}
    for hw, count in groups.values():
        for row in cached_capacity_table(catalog, hw, runtime=runtime, context=context):
            found.setdefault((row.model, row.format), []).append((row, count))
    result = []
    # Model by model, formats in their usual order (as capacity_table lists them).
    rank = {f: i for i, f in enumerate(FORMATS)}
    for pair in sorted(found, key=lambda mf: (mf[0], rank.get(mf[1], len(rank)))):
        rows = found[pair]
        decode = [r.decode_tokens_per_s for r, _ in rows if r.decode_tokens_per_s is not None]
        prefill = [r.prefill_tokens_per_s for r, _ in rows if r.prefill_tokens_per_s is not None]
        best = [r.best_batch_tokens_per_s * n for r, n in rows if r.best_batch_tokens_per_s is not None]
        result.append(
            RackRow.model_construct(
                model=pair[0],
                format=pair[1],
                machines=len(hardware),
                machines_fitting=sum(n for _, n in rows),
                total_gb=max(r.total_gb for r, _ in rows),
                offload_fraction=max(r.offload_fraction for r, _ in rows),
                max_context=max(r.max_context for r, _ in rows),
                decode_tokens_per_s=max(decode) if decode else None,
                prefill_tokens_per_s=max(prefill) if prefill else None,
                best_batch_tokens_per_s=sum(best) if best else None,
                unmeasured=next((r.unmeasured for r, _ in rows if r.unmeasured), ""),
            )
        )
    return result


# --- training ------------------------------------------------------------------------------


class TrainingPlan(BaseModel):
    """Training limits over some GPUs, and the time and interruptions of a run of ``tokens``."""

    gpus: int
    machines: int
    limits: TrainingLimits
    tokens: float
    mfu: float
    tflops_total: float | None
    days: float | None
    interruptions: float | None
    failures: FailureBudget | None = None


def training_plan(
    model: LlmModel, hardware: list[Hardware], *, tokens: float, mfu: float = k.DEFAULT_MFU
) -> TrainingPlan | None:
    """Train ``model`` on ``tokens`` over every GPU of ``hardware`` (one machine, or a rack sharded
    across machines; each GPU counted with the smallest memory among them). None without GPUs."""
    gpu_hw = [h for h in hardware if h.kind == "gpu"]
    if not gpu_hw:
        return None
    if tokens <= 0 or not 0 < mfu <= 1:
        raise InputError("tokens must be positive and MFU between 0 and 100%")
    gpus = sum(h.devices for h in gpu_hw)
    smallest = min(gpu_hw, key=lambda h: h.mem_gb_per_device)
    limits = training_limits(model, smallest, gpus=gpus, mfu=mfu)
    assert limits is not None  # GPU hardware always has limits
    tflops = None
    if all(h.tflops_per_device for h in gpu_hw):
        tflops = sum((h.tflops_per_device or 0.0) * h.devices for h in gpu_hw)
    days = time_to_train_s(model, tokens, tflops, mfu) / 86400 if tflops else None
    return TrainingPlan(
        gpus=gpus,
        machines=len(gpu_hw),
        limits=limits,
        tokens=tokens,
        mfu=mfu,
        tflops_total=tflops,
        days=days,
        interruptions=limits.interruptions_per_day * days if days is not None else None,
        failures=failure_budget(gpus, len(gpu_hw), total_params(model) * CHECKPOINT_BYTES_PER_PARAM),
    )
