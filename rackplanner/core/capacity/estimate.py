"""One call for everything the capacity panel and ``rackplanner estimate`` show."""

from __future__ import annotations

from pydantic import BaseModel

from rackplanner.core.capacity.classes import runtime_class
from rackplanner.core.capacity.fitted import (
    Calibration,
    ErrorBand,
    current,
    device_run_notes,
    error_band,
    is_widest_class,
    thin_class_notes,
)
from rackplanner.core.capacity.formats import (
    WeightFormat,
    bits_per_weight,
    get_format,
    kv_cache_refusal,
    kv_element_bytes,
    table_formats,
)
from rackplanner.core.capacity.hardware import Hardware
from rackplanner.core.capacity.limits import MOST, check_positive
from rackplanner.core.capacity.measured_range import range_notes, row_mark
from rackplanner.core.capacity.memory import MemoryFit, memory_fit
from rackplanner.core.capacity.model_shape import ModelShape, model_shape
from rackplanner.core.capacity.runtime import Runtime, get_runtime, with_ubatch
from rackplanner.core.capacity.speed import (
    SpeedInputs,
    best_batch,
    decode_step_s,
    prefill_tokens_per_s,
    requests_per_s,
)
from rackplanner.core.capacity.support import format_refusal, support_unknown, unsupported
from rackplanner.core.capacity.training import TrainingLimits, training_limits
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import LlmModel
from rackplanner.core.errors import InputError, unknown

LAYER_SPLIT_NOTE = "layer split: the model spreads over the GPUs but they take turns, so decode is one GPU's speed"
ROW_SPLIT_NOTE = (
    "row split: the GPUs read their rows of each weight matrix at once, but every matrix waits on "
    "each GPU and prompts copy their activations between GPUs; CUDA and ROCm builds from June 2026 "
    "no longer have it (ggml-org/llama.cpp#24216: -sm tensor replaces it)"
)


class Estimate(BaseModel):
    """Fit and speed of one model in one format on one piece of hardware."""

    hardware: str
    model: str
    format: str
    runtime: str
    batch: int
    context: int
    kv_cache_precision: str
    bits_per_weight: float
    fits: bool
    weights_gb: float
    kv_cache_gb: float
    activations_gb: float
    overhead_gb: float
    total_gb: float
    capacity_gb: float
    free_gb: float
    offload_fraction: float
    max_context: int
    max_batch: int
    tensor_parallel: int
    pipeline_stages: int
    decode_tokens_per_s: float | None
    decode_tokens_per_s_batch1: float | None
    best_batch: int | None
    best_batch_tokens_per_s: float | None
    prefill_tokens_per_s: float | None
    prompt_tokens: int
    # Tokens already in the cache when the prompt comes (a chat's history): its attention
    # reads them, so a prompt after a long history runs slower.
    prompt_depth: int = 0
    # Prompt tokens one pass takes (llama.cpp's -ub; the servers' token budget per step).
    prompt_pass_tokens: int | None = None
    time_to_first_token_s: float | None
    concurrent_at_target: int | None
    requests_per_s_at_target: float | None
    target_tokens_per_s_per_user: float
    training: TrainingLimits | None = None
    model_shape: ModelShape | None = None
    gpu_layers: int | None = None
    # Cross-validated error of estimates like this one, and the classes the constants came from.
    decode_error: ErrorBand | None = None
    prefill_error: ErrorBand | None = None
    # The figures ("decode", "prefill", "best batch") no measured run of this class covered:
    # a model smaller or larger, a longer context, a larger batch (measured_range.py).
    outside_measured: list[str] = []
    calibration_classes: str = ""
    # Why there is no speed when there is none (the fit, or a figure the estimate lacks).
    no_speed_reason: str | None = None
    assumptions: list[str] = []
    notes: list[str] = []


def get_model(catalog: Catalog, model_id: str) -> LlmModel:
    """The catalog LLM with this id, or InputError listing the known ids."""
    model = catalog.get_as(model_id, LlmModel)
    if model is None:
        known = sorted(m.id for m in catalog.of_kind(LlmModel))
        raise unknown("model", model_id, known, "`rackplanner catalog llm`")
    return model


# llama.cpp runs everywhere (GPUs, CPUs, Apple SoCs, with CPU offload): the default runtime.
DEFAULT_RUNTIME = "llama.cpp"


def estimate(
    model: LlmModel,
    fmt: WeightFormat | str,
    hw: Hardware,
    *,
    runtime: Runtime | str | None = None,
    batch: int = 1,
    context: int = 4096,
    kv_cache: str = "fp16",
    prompt: int | None = None,
    output_tokens: int = 256,
    target_tokens_per_s: float = 20.0,
    with_training: bool = True,
    calibration: Calibration | None = None,
    gpu_layers: int | None = None,
    prompt_depth: int = 0,
    ubatch: int | None = None,
) -> Estimate:
    """Memory fit, decode/prefill speed and (optionally) training limits; ``gpu_layers``
    is llama.cpp's -ngl, the layers kept in VRAM, ``ubatch`` its -ub, the prompt tokens
    one pass takes."""
    fmt = get_format(fmt) if isinstance(fmt, str) else fmt
    rt = get_runtime(runtime or DEFAULT_RUNTIME) if not isinstance(runtime, Runtime) else runtime
    if ubatch is not None:
        rt = with_ubatch(rt, ubatch)
    check_positive("batch", batch)
    check_positive("context", context)
    if target_tokens_per_s <= 0:
        raise InputError(f"target tokens/s must be positive (got {target_tokens_per_s})")
    prompt_tokens = min(context, 512) if prompt is None else prompt
    check_positive("prompt", prompt_tokens)
    if not 0 <= prompt_depth <= MOST["context"]:
        raise InputError(f"depth must be from 0 to {MOST['context']:,} tokens (got {prompt_depth:,})")
    if prompt_depth + prompt_tokens > context:
        raise InputError(
            f"a {prompt_tokens:,}-token prompt after {prompt_depth:,} cached tokens needs a context of "
            f"{prompt_depth + prompt_tokens:,}; give --context {prompt_depth + prompt_tokens} or more"
        )
    notes: list[str] = []
    if model.max_context and context > model.max_context:
        notes.append(
            f"context {context:,} is beyond the {model.max_context:,} tokens {model.model} was made for: "
            "the memory and speed are worked out, but the model may not answer well that far"
        )
    if not rt.runs_on(hw.kind, hw.vendor):
        raise InputError(rt.refusal(hw.label))
    refusal = format_refusal(rt, fmt) or unsupported(rt, fmt, hw)
    if refusal is not None:
        raise InputError(refusal)
    if fmt.id == "mxfp4" and not model.moe_experts:
        notes.append(
            "llama.cpp's MXFP4 (llama-quantize MXFP4_MOE) puts only a MoE model's expert weights in MXFP4: "
            f"{model.model} has no experts, so every tensor is Q8_0"
        )
    unchecked = support_unknown(rt, fmt, hw)
    kv_bytes = kv_element_bytes(kv_cache)
    kv_refusal = kv_cache_refusal(kv_cache, runtime_class(rt.id))
    if kv_refusal is not None:
        raise InputError(kv_refusal)
    fit = memory_fit(
        model, fmt, hw, rt, batch=batch, context=context, kv_bytes_per_value=kv_bytes, gpu_layers=gpu_layers
    )
    notes.extend(fit.notes)
    if unchecked is not None:
        notes.append(unchecked)
    speeds = _speeds(
        model,
        fmt,
        hw,
        rt,
        fit,
        batch,
        context,
        kv_bytes,
        (prompt_tokens, prompt_depth),
        output_tokens,
        target_tokens_per_s,
        calibration,
    )
    no_speed_reason = None
    if speeds is None and fit.fits and fit.offload_fraction:
        no_speed_reason = "the bandwidth of the system RAM holding layers is unknown; give the machine with --plan"
    elif speeds is None:
        no_speed_reason = "the catalog lacks this hardware's bandwidth or it does not fit"
    if no_speed_reason is not None:
        notes.append(f"no speed: {no_speed_reason}")
    tp_degree = speeds[0].tp if speeds else 1
    if rt.split == "tensor" and hw.devices > 1 and tp_degree < hw.devices:
        notes.append(f"tensor parallelism over {tp_degree} of {hw.devices} GPUs (the KV heads must divide evenly)")
    if rt.split == "pipeline" and hw.kind == "gpu" and hw.devices > 1:
        notes.append(
            f"pipeline parallel over {hw.devices} GPUs: with fewer than {hw.devices} sequences in flight "
            "stages sit idle (the pipeline bubble)"
        )
    if rt.split == "layer" and hw.kind == "gpu" and hw.devices > 1:
        notes.append(LAYER_SPLIT_NOTE)
    if rt.split == "row" and hw.kind == "gpu" and hw.devices > 1:
        notes.append(ROW_SPLIT_NOTE)
    s_in, dec, dec1, bb, pf, ttft, conc, rps = speeds if speeds else (None, None, None, None, None, None, None, None)
    outside: dict[str, str] = {}
    cal = calibration or current()
    if s_in is not None:
        untested = _untested_class_notes(s_in, rt, hw)
        notes.extend(untested)
        notes.extend(thin_class_notes(cal, hw, rt.label, rt.id))
        notes.extend(device_run_notes(cal, hw, rt.label, rt.id))
        outside = range_notes(
            cal,
            hw,
            rt.id,
            rt.label,
            model,
            context=context,
            batch=batch,
            best_batch=bb[0] if bb else None,
            untested_said=bool(untested),
        )
        notes.extend(note for note in outside.values() if note)
    classes = f"decode {s_in.decode_class}, prefill {s_in.prefill_class}" if s_in is not None else ""
    return Estimate(
        hardware=hw.label,
        model=model.id,
        format=fmt.id,
        runtime=rt.id,
        batch=batch,
        context=context,
        kv_cache_precision=kv_cache.lower(),
        bits_per_weight=bits_per_weight(model, fmt),
        fits=fit.fits,
        weights_gb=fit.weights_gb,
        kv_cache_gb=fit.kv_cache_gb,
        activations_gb=fit.activations_gb,
        overhead_gb=fit.overhead_gb,
        total_gb=fit.total_gb,
        capacity_gb=fit.capacity_gb,
        free_gb=fit.free_gb,
        offload_fraction=fit.offload_fraction,
        max_context=fit.max_context,
        max_batch=fit.max_batch,
        tensor_parallel=tp_degree,
        pipeline_stages=speeds[0].pp if speeds else 1,
        decode_tokens_per_s=dec,
        decode_tokens_per_s_batch1=dec1,
        best_batch=bb[0] if bb else None,
        best_batch_tokens_per_s=bb[1] if bb else None,
        prefill_tokens_per_s=pf,
        prompt_tokens=prompt_tokens,
        prompt_depth=prompt_depth,
        prompt_pass_tokens=rt.prefill_chunk_tokens,
        time_to_first_token_s=ttft,
        concurrent_at_target=conc,
        requests_per_s_at_target=rps,
        target_tokens_per_s_per_user=target_tokens_per_s,
        training=training_limits(model, hw) if with_training else None,
        model_shape=model_shape(model, context, kv_bytes),
        gpu_layers=gpu_layers,
        decode_error=error_band(cal, hw, "decode"),
        prefill_error=error_band(cal, hw, "prefill"),
        calibration_classes=classes,
        assumptions=list(hw.assumptions),
        no_speed_reason=no_speed_reason,
        notes=notes,
        outside_measured=list(outside),
    )


def _speeds(
    model: LlmModel,
    fmt: WeightFormat,
    hw: Hardware,
    rt: Runtime,
    fit: MemoryFit,
    batch: int,
    context: int,
    kv_bytes: float,
    prompt_at: tuple[int, int],
    output_tokens: int,
    target: float,
    calibration: Calibration | None,
) -> tuple[SpeedInputs, float, float, tuple[int, float], float | None, float | None, int | None, float | None] | None:
    if not fit.fits or (fit.offload_fraction and not hw.host_bw_gbs):
        return None  # layers in RAM of unknown bandwidth: their speed is unknown
    s = SpeedInputs.build(
        model, fmt, hw, rt, kv_bytes=kv_bytes, offload_fraction=fit.offload_fraction, calibration=calibration
    )
    dec = batch / decode_step_s(s, batch, context)
    dec1 = 1 / decode_step_s(s, 1, context)
    bb = best_batch(s, context, max(fit.max_batch, 1))
    if s.flops_per_s == float("inf"):
        # No tensor peak in the catalog: prefill is unknown, not infinitely fast.
        return s, dec, dec1, bb, None, None, None, None
    prompt, depth = prompt_at
    pf = prefill_tokens_per_s(s, prompt, depth)
    # The prompt pass's last logits give the first token: no decode step before it.
    ttft = prompt / pf
    conc, rps = requests_per_s(
        s,
        prompt=prompt,
        output=output_tokens,
        target_tokens_per_s=target,
        context=context,
        max_batch=max(fit.max_batch, 1),
        prefill_tps=pf,
    )
    return s, dec, dec1, bb, pf, ttft, conc, rps


def _untested_class_notes(s: SpeedInputs, rt: Runtime, hw: Hardware) -> list[str]:
    """Say so when a share comes from every device's fit: no measured run of this runtime
    on this memory (decode) or device family (prefill), so the error band is other runs'."""
    untested = [
        metric for metric, cls in (("decode", s.decode_class), ("prefill", s.prefill_class)) if is_widest_class(cls)
    ]
    if not untested:
        return []
    return [
        f"no published {rt.label} run on hardware like {hw.label} was fitted for {' or '.join(untested)}: "
        f"its share is the widest class's ({s.decode_class if 'decode' in untested else s.prefill_class}), "
        "so the error band given is not this kind's"
    ]


class TableRow(BaseModel):
    model: str
    format: str
    fits: bool
    total_gb: float
    offload_fraction: float
    max_context: int
    decode_tokens_per_s: float | None
    best_batch_tokens_per_s: float | None
    prefill_tokens_per_s: float | None
    # Why the row's speeds lie outside what the calibration's runs measured ("" when inside).
    unmeasured: str = ""


def capacity_table(
    catalog: Catalog,
    hw: Hardware,
    *,
    runtime: str | None = None,
    context: int = 4096,
    formats: list[str] | None = None,
    only_fitting: bool = True,
) -> list[TableRow]:
    """Every catalog model × format on ``hw``: which fit at ``context`` and how fast."""
    check_positive("context", context)
    rows: list[TableRow] = []
    rt = get_runtime(runtime or DEFAULT_RUNTIME)
    if not rt.runs_on(hw.kind, hw.vendor):
        raise InputError(rt.refusal(hw.label))
    chosen = [get_format(f) for f in formats] if formats else None
    cal = current()
    for model in sorted(catalog.of_kind(LlmModel), key=lambda m: m.id):
        ctx = min(context, model.max_context)
        for fmt in chosen or table_formats(runtime_class(rt.id), model):
            if unsupported(rt, fmt, hw) is not None:
                continue
            fit = memory_fit(model, fmt, hw, rt, context=ctx)
            if only_fitting and not fit.fits:
                continue
            decode = best = prefill = None
            if fit.fits:
                s = SpeedInputs.build(model, fmt, hw, rt, offload_fraction=fit.offload_fraction)
                decode = 1 / decode_step_s(s, 1, ctx)
                best = best_batch(s, ctx, max(fit.max_batch, 1))[1]
                prefill = prefill_tokens_per_s(s, min(ctx, 512))
            rows.append(
                TableRow.model_construct(
                    model=model.id,
                    format=fmt.id,
                    fits=fit.fits,
                    total_gb=fit.total_gb,
                    offload_fraction=fit.offload_fraction,
                    max_context=fit.max_context,
                    decode_tokens_per_s=decode,
                    best_batch_tokens_per_s=best,
                    prefill_tokens_per_s=prefill,
                    unmeasured=row_mark(cal, hw, rt.id, model, ctx) if fit.fits else "",
                )
            )
    return rows
