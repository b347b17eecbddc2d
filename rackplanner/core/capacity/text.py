"""Plain-text and JSON views of capacity results, for the ``estimate``/``capacity`` commands."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from rackplanner.core.capacity.estimate import Estimate, TableRow
from rackplanner.core.capacity.failures import (
    CHECKPOINT_BYTES_PER_PARAM,
    GPUS_PER_HOST,
    failure_budget,
    format_failure_budget,
)
from rackplanner.core.capacity.fitted import (
    Calibration,
    ErrorBand,
    current,
    device_run_notes,
    error_band_key,
    thin_class_notes,
)
from rackplanner.core.capacity.hardware import Hardware, from_cpu, from_gpu, from_machine, from_unified_system
from rackplanner.core.capacity.layouts import WeightFormat
from rackplanner.core.capacity.measured_range import UNMEASURED_MARK_NOTE, table_notes
from rackplanner.core.capacity.model_shape import format_model_shape
from rackplanner.core.capacity.runtime import get_runtime
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import LlmModel
from rackplanner.core.errors import InputError
from rackplanner.core.files import strict_json
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.model import Machine, Plan

# The JSON fields the README documents; they keep their names and meaning.
STABLE_FIELDS = (
    "fits",
    "weights_gb",
    "kv_cache_gb",
    "total_gb",
    "decode_tokens_per_s",
    "prefill_tokens_per_s",
    "max_context",
)


def plan_machine(path: Path, catalog: Catalog, name: str | None) -> Machine:
    """The machine ``name`` (id or name) of a plan; the only one when ``name`` is None."""
    return _plan_and_machine(path, catalog, name)[1]


def _plan_and_machine(path: Path, catalog: Catalog, name: str | None) -> tuple[Plan, Machine]:
    plan = load_plan(path, catalog)
    known = ", ".join(m.id for m in plan.machines) or "none"
    if name is None:
        if len(plan.machines) != 1:
            raise InputError(f"{path}: give --machine (machines: {known})")
        return plan, plan.machines[0]
    for machine in plan.machines:
        if name in (machine.id, machine.name):
            return plan, machine
    raise InputError(f"{path}: no machine {name!r} (machines: {known})")


def resolve_hardware(
    catalog: Catalog,
    *,
    gpu: str | None = None,
    count: int = 1,
    cpu: str | None = None,
    sockets: int = 1,
    plan: Path | None = None,
    machine: str | None = None,
    system: str | None = None,
    ram_gb: float | None = None,
) -> Hardware:
    """Exactly one of a GPU id, a CPU id, a unified-memory machine id or a plan file names the hardware."""
    given = [x for x in (gpu, cpu, system, plan) if x is not None]
    if len(given) != 1:
        raise InputError("name the hardware with exactly one of --gpu ID, --cpu ID, --system ID or --plan PLAN")
    if ram_gb is not None and cpu is None:
        raise InputError("--ram-gb goes with --cpu (a plan's RAM comes from its DIMMs)")
    if count != 1 and gpu is None:
        raise InputError("--count goes with --gpu (CPUs take --sockets; a system or a plan has its own)")
    if sockets != 1 and cpu is None:
        raise InputError("--sockets goes with --cpu")
    if system is not None:
        return from_unified_system(catalog, system)
    if gpu is not None:
        return from_gpu(catalog, gpu, count)
    if cpu is not None:
        if ram_gb is not None and not 0 < ram_gb <= 1_000_000:  # also refuses nan and inf
            raise InputError(f"--ram-gb must be more than 0 and at most 1,000,000 GB (got {ram_gb})")
        return from_cpu(catalog, cpu, sockets, ram_gb=ram_gb)
    assert plan is not None
    return from_machine(plan_machine(plan, catalog, machine), catalog)


def estimate_json(est: Estimate) -> dict[str, Any]:
    """The estimate as JSON data, the README's stable fields first."""
    data = est.model_dump(mode="json")
    return {**{key: data[key] for key in STABLE_FIELDS}, **data}


def _after(depth: int) -> str:
    return f" after {depth:,} already in the cache" if depth else ""


def _passes(est: Estimate) -> str:
    """ " in passes of 2,048 tokens" when the prompt's pass size is not the runtime's default."""
    size = est.prompt_pass_tokens
    if size is None or size == get_runtime(est.runtime).prefill_chunk_tokens:
        return ""
    # A pass never holds more than the prompt (llama.cpp caps -ub at the context).
    return f" in passes of {min(size, est.prompt_tokens or size):,} tokens"


def _derived_sentence(names: list[str]) -> str:
    """ " Its INT8, FP16 and FP8 tensor peaks are derived ..." (empty when none is)."""
    if not names:
        return ""
    listed = f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else names[0]
    verb = "peaks are" if len(names) > 1 else "peak is"
    return f" Its {listed} tensor {verb} derived from its architecture's other cards, not its sheet."


def trust_note(hw: Hardware, runtime_id: str = "llama.cpp") -> str:
    """How far speeds on hardware like ``hw`` are off, held out: "Decode typically ±11% ...",
    and what its own few measured runs say when they were too few to fit (``runtime_id``'s)."""
    cal = current()
    return _trust_bands(cal, hw) + _thin_sentences(cal, hw, runtime_id)


def _thin_sentences(cal: Calibration, hw: Hardware, runtime_id: str) -> str:
    label = get_runtime(runtime_id).label
    notes = thin_class_notes(cal, hw, label, runtime_id) + device_run_notes(cal, hw, label, runtime_id)
    return "".join(f" {note[0].upper()}{note[1:]}." for note in notes)


_MAKERS = {"nvidia": "NVIDIA", "amd": "AMD", "apple": "Apple", "intel": "Intel"}


def _band_label(key: str) -> str:
    """ "NVIDIA gpu-gddr" for the band class key "gpu-gddr|nvidia"; "all" for all hardware."""
    band, _, maker = key.partition("|")
    return f"{_MAKERS.get(maker, maker)} {band}" if maker else band


def _trust_bands(cal: Calibration, hw: Hardware) -> str:
    parts: list[str] = []
    keys: list[str] = []
    for metric in ("decode", "prefill"):
        key = error_band_key(cal, hw, metric)
        if key is None:
            continue
        band = cal.error_bands[f"{metric}|{key}"]
        # Each figure says whose runs it comes from when that differs from the first one's.
        whose = f" on {_band_label(key)} hardware" if keys and key != keys[0] else ""
        parts.append(f"{metric} typically ±{band.median:.0%} (90% within ±{band.p90:.0%}){whose}")
        keys.append(key)
    # A prompt speed on a peak no sheet gave is said beside its error, not only in a tooltip.
    peaks = _derived_sentence(hw.derived_peaks)
    if not parts:
        return "Speeds: no measurement of this kind of hardware, so their error is unknown." + peaks
    held_out = f"tested on published runs held out from the fit: {', '.join(parts)}."
    return f"Speeds on {_band_label(keys[0])} hardware, {held_out}{peaks}"


def _band(band: ErrorBand | None, outside: bool = False) -> str:
    """ ", typically ±12%" from a cross-validated error band; where no measured run covered the
    figure, the band is other runs' and the note says why."""
    if band is None:
        return ", error unknown (no measurement of this class)"
    beyond = ", outside the measured runs (see the notes)" if outside else ""
    return f", typically ±{band.median:.0%} (90% within ±{band.p90:.0%}){beyond}"


def _rate(value: float | None, unit: str = "tokens/s") -> str:
    return "-" if value is None else f"{value:,.1f} {unit}"


def format_estimate(est: Estimate) -> str:
    """The estimate as the text report ``rackplanner estimate`` prints."""
    lines = [
        f"{est.model} as {est.format} ({est.bits_per_weight:.2f} bits/weight) on {est.hardware}, {est.runtime}",
        f"  batch {est.batch}, context {est.context:,} tokens, KV cache {est.kv_cache_precision}",
        "",
        *(format_model_shape(est.model_shape, est.context) if est.model_shape else []),
        "",
        f"Fit: {'fits' if est.fits else 'does NOT fit'}",
        f"  weights      {est.weights_gb:8.2f} GB",
        f"  KV cache     {est.kv_cache_gb:8.2f} GB",
        f"  activations  {est.activations_gb:8.2f} GB",
        f"  overhead     {est.overhead_gb:8.2f} GB",
        f"  total        {est.total_gb:8.2f} GB of {est.capacity_gb:.2f} GB  (free {est.free_gb:.2f} GB)",
        f"  max context at batch 1: {est.max_context:,} tokens; max batch at {est.context:,}: {est.max_batch}",
    ]
    if est.offload_fraction:
        lines.append(f"  CPU offload: {est.offload_fraction:.0%} of the weights in system RAM")
    lines += ["", "Speed:"]
    if est.decode_tokens_per_s is None:
        # A model that fits can still lack a speed (the RAM holding offloaded layers unknown).
        reason = est.no_speed_reason if est.fits and est.no_speed_reason else "does not fit"
        lines.append(f"  no speed ({reason})")
    else:
        decode_out, prefill_out = ("decode" in est.outside_measured), ("prefill" in est.outside_measured)
        prefill = (
            f"  prefill: {_rate(est.prefill_tokens_per_s)}{_band(est.prefill_error, prefill_out)}; "
            f"time to first token for {est.prompt_tokens:,} prompt tokens{_after(est.prompt_depth)}{_passes(est)}: "
            f"{est.time_to_first_token_s or 0:.2f} s"
            if est.prefill_tokens_per_s is not None
            else "  prefill: unknown, so not estimated (the catalog gives no tensor peak for this hardware)"
        )
        lines += [
            f"  decode, batch {est.batch}: {_rate(est.decode_tokens_per_s)}{_band(est.decode_error, decode_out)}"
            + (f" ({_rate(est.decode_tokens_per_s_batch1)} at batch 1)" if est.batch != 1 else ""),
            f"  decode, best batch {est.best_batch}: {_rate(est.best_batch_tokens_per_s)}"
            + (" (no measured run at such a batch; see the notes)" if "best batch" in est.outside_measured else ""),
            prefill,
            f"  at {est.target_tokens_per_s_per_user:g} tokens/s per user: "
            + (
                f"{est.concurrent_at_target} concurrent, {est.requests_per_s_at_target or 0:.2f} requests/s"
                if est.concurrent_at_target is not None
                # Requests per second count each request's prompt pass, which is not estimated.
                else "unknown, as prefill is"
            ),
        ]
        if est.calibration_classes:
            lines.append(f"  fitted on: {est.calibration_classes} (rackplanner calibrate)")
        if est.tensor_parallel > 1:
            lines.append(f"  tensor parallel over {est.tensor_parallel} GPUs")
    if est.training is not None:
        t = est.training
        lines += ["", f"Training ({t.gpus} GPU{'s' if t.gpus > 1 else ''}, sequence {t.seq:,}, micro-batch 1):"]
        for m in t.methods:
            lines.append(
                f"  {m.method:<7} {m.gb_per_gpu:8.1f} GB/GPU with full recomputation "
                f"({m.gb_per_gpu_no_recompute:.1f} without): {'fits' if m.fits else 'too big'}; "
                f"weights and optimizer state allow {m.largest_params_b:,.1f}B"
            )
        if t.hours_per_billion_tokens is not None:
            lines.append(f"  {t.hours_per_billion_tokens:,.1f} hours per billion tokens at {t.mfu:.0%} MFU")
        lines.append(
            f"  expected interruptions: {t.interruptions_per_day:.4f}/day "
            f"({t.gpu_failures_per_day:.4f} GPU failures/day, Llama 3 rates)"
        )
        if est.model_shape is not None:
            hosts = max(1, math.ceil(t.gpus / GPUS_PER_HOST))
            budget = failure_budget(t.gpus, hosts, est.model_shape.params_b * 1e9 * CHECKPOINT_BYTES_PER_PARAM)
            lines.append(
                f"  failure budget ({hosts} host(s) of up to {GPUS_PER_HOST} GPUs): {format_failure_budget(budget)}"
            )
    for note in [*est.assumptions, *est.notes]:
        lines.append(f"Note: {note}")
    return "\n".join(lines)


def format_capacity_table(hw: Hardware, rows: list[TableRow], context: int, runtime_id: str = "llama.cpp") -> str:
    """The catalog table as text, one model and format a line; † marks speeds no measured run covered."""
    width = max([len(r.model) for r in rows] + [5])
    lines = [
        f"{hw.label}: models that fit at context {context:,} (or the model's maximum)",
        f"{'model':<{width}} {'format':<15} {'GB':>7} {'in RAM':>6} {'max ctx':>9} {'decode t/s':>11} "
        f"{'best batch t/s':>15} {'prefill t/s':>12}",
    ]
    for r in rows:
        offload = f"{r.offload_fraction:.0%}" if r.offload_fraction else "-"
        lines.append(
            f"{r.model:<{width}} {r.format:<15} {r.total_gb:7.1f} {offload:>6} {r.max_context:>9,} "
            f"{r.decode_tokens_per_s or 0:11.1f} {r.best_batch_tokens_per_s or 0:15.1f} "
            f"{r.prefill_tokens_per_s or 0:12.0f}{' †' if r.unmeasured else ''}"
        )
    if not rows:
        lines.append("  no catalog model fits")
    if any(r.offload_fraction for r in rows):
        lines.append("'in RAM': share of the weights llama.cpp keeps in system RAM and runs on the CPU")
    if any(r.unmeasured for r in rows):
        lines.append(f"{UNMEASURED_MARK_NOTE}; rackplanner estimate says which")
    batches = table_notes(current(), hw, runtime_id, get_runtime(runtime_id).label)
    lines += [f"Note: {a}" for a in [*hw.assumptions, *([batches] if rows and batches else [])]]
    return "\n".join(lines)


# The ``rackplanner estimate`` options estimate_command takes (argparse destinations).
ESTIMATE_OPTIONS = (
    "gpu",
    "count",
    "cpu",
    "sockets",
    "ram_gb",
    "system",
    "plan",
    "machine",
    "model",
    "config",
    "hf",
    "gpu_layers",
    "format",
    "weights_gib",
    "batch",
    "context",
    "runtime",
    "kv_cache",
    "prompt",
    "depth",
    "ubatch",
    "json",
)


def resolve_model(
    catalog: Catalog, *, model: str | None = None, config: Path | None = None, hf: str | None = None
) -> LlmModel:
    """The model named by exactly one of a catalog id, a config.json or a Hub id."""
    from rackplanner.core.capacity.estimate import get_model
    from rackplanner.core.catalog.hf import load_hf_config
    from rackplanner.core.catalog.hf.hub import hub_config

    if [model, config, hf].count(None) != 2:
        raise InputError("name the model with exactly one of --model ID, --config config.json or --hf ORG/NAME")
    if model is not None:
        return get_model(catalog, model)
    if config is not None:
        return load_hf_config(config)
    assert hf is not None
    return load_hf_config(hub_config(hf), name=hf)


def _default_format(shipped: str | None, runtime: str, asked: str | None) -> tuple[WeightFormat, str]:
    """The format to estimate (asked, else as shipped, else q4_k_m) and a note when the shipped
    one is passed over because ``runtime`` does not load it."""
    from rackplanner.core.capacity.formats import get_format
    from rackplanner.core.capacity.support import format_refusal

    if asked is not None:
        return get_format(asked), ""
    if shipped is None:
        return get_format("q4_k_m"), ""
    fmt = get_format(shipped)
    if format_refusal(get_runtime(runtime), fmt) is None:
        return fmt, ""
    return get_format("q4_k_m"), (
        f"the checkpoint ships as {fmt.label}, which {runtime} does not load: estimated as q4_k_m, a GGUF "
        f"of it (--format {shipped} --runtime vllm estimates it as shipped)"
    )


def estimate_command(
    catalog: Catalog,
    *,
    gpu: str | None = None,
    count: int = 1,
    cpu: str | None = None,
    sockets: int = 1,
    ram_gb: float | None = None,
    system: str | None = None,
    plan: Path | None = None,
    machine: str | None = None,
    model: str | None = None,
    config: Path | None = None,
    hf: str | None = None,
    gpu_layers: int | None = None,
    format: str | None = None,
    weights_gib: float | None = None,
    batch: int = 1,
    context: int = 4096,
    runtime: str = "llama.cpp",
    kv_cache: str = "fp16",
    prompt: int | None = None,
    depth: int = 0,
    ubatch: int | None = None,
    json: bool = False,
) -> str:
    """What ``rackplanner estimate`` prints: the text report, or JSON with the stable fields first."""
    from rackplanner.core.capacity.estimate import estimate
    from rackplanner.core.capacity.formats import sized_format

    llm = resolve_model(catalog, model=model, config=config, hf=hf)
    hw = resolve_hardware(
        catalog,
        gpu=gpu,
        count=count,
        cpu=cpu,
        sockets=sockets,
        system=system,
        plan=plan,
        machine=machine,
        ram_gb=ram_gb,
    )
    # A pre-quantized checkpoint is estimated as shipped unless a format is asked for, or
    # the runtime cannot load it (llama.cpp and an FP8 checkpoint: a GGUF of it is what runs).
    fmt, instead = _default_format(llm.shipped_format, runtime, format)
    if weights_gib is not None:
        fmt = sized_format(llm, fmt, weights_gib)
    est = estimate(
        llm,
        fmt,
        hw,
        runtime=runtime,
        batch=batch,
        context=context,
        kv_cache=kv_cache,
        prompt=prompt,
        gpu_layers=gpu_layers,
        prompt_depth=depth,
        ubatch=ubatch,
    )
    if instead:
        est.notes.insert(0, instead)
    from rackplanner.core.capacity.cost import format_ownership
    from rackplanner.core.capacity.plan_training import format_plan_training, plan_training
    from rackplanner.core.capacity.purchase import ownership_of, purchase_of_machine, purchase_of_parts

    whole = None
    if plan is not None:
        loaded, found = _plan_and_machine(plan, catalog, machine)
        purchase = purchase_of_machine(catalog, found, loaded.user_prices)
        whole = plan_training(loaded, catalog, llm)
    else:
        purchase = purchase_of_parts(catalog, gpu=gpu, count=count, cpu=cpu, sockets=sockets, system=system)
    cost = ownership_of(purchase, est.decode_tokens_per_s, est.prefill_tokens_per_s)
    if json:
        data = estimate_json(est)
        data["purchase"] = purchase.model_dump(mode="json")
        data["ownership"] = cost.model_dump(mode="json") if cost else None
        data["plan_training"] = whole.model_dump(mode="json") if whole else None
        return strict_json(data)
    lines = ["", f"Cost of ownership ({purchase.covers}; tokens at batch {est.batch}):"]
    if cost is None:
        missing = ", ".join(purchase.unpriced) or "its wall power"
        lines.append(f"  unknown: no price or power for {missing} (give prices with a price list)")
    else:
        lines += [f"  {line}" for line in format_ownership(cost)]
    if whole is not None:
        lines += ["", *format_plan_training(whole)]
    return format_estimate(est) + "\n".join(lines)


def capacity_command(
    catalog: Catalog,
    plan: Path,
    *,
    machine: str | None = None,
    runtime: str = "llama.cpp",
    context: int = 4096,
    as_json: bool = False,
) -> str:
    """What ``rackplanner capacity`` prints: every catalog model × format that fits the machine."""
    from rackplanner.core.capacity.estimate import capacity_table

    hw = from_machine(plan_machine(plan, catalog, machine), catalog)
    rows = capacity_table(catalog, hw, runtime=runtime, context=context)
    if as_json:
        data = {"hardware": hw.label, "assumptions": hw.assumptions, "rows": [r.model_dump() for r in rows]}
        return strict_json(data)
    return format_capacity_table(hw, rows, context, runtime)
