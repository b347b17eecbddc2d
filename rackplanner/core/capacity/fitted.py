"""The capacity model's fitted constants and how an estimate finds the one for its hardware.

``fitted_constants.json`` is written by ``rackplanner calibrate --write`` from the published
measurements (tests/data/measured.csv) and read here; a test checks that the file is what a
fresh fit gives. Each constant belongs to a class of hardware and runtime; a class the
measurements do not cover uses the next wider one (memory technology -> its family -> all
hardware for that runtime -> everything), and the estimate says which class it used.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from pydantic import BaseModel

from rackplanner.core.capacity.classes import OWN_STEP_COST, prefill_runtime_classes, runtime_class, tech_family
from rackplanner.core.capacity.hardware import Hardware

ANY = "any"


class ErrorBand(BaseModel):
    """Leave-one-source-out error of a class of estimates: median and 90th percentile |error|."""

    points: int
    median: float
    p90: float


class ThinClass(BaseModel):
    """Measured runs of a class too few to fit it (its estimates take a wider class's share):
    their median of measured / estimated, over how many points from how many sources."""

    ratio: float
    points: int
    sources: int


class MeasuredRange(BaseModel):
    """What the measured runs of a hardware band and runtime class covered: the models' active
    parameters, the longest context and the largest batch, over how many runs and sources."""

    min_active_params_b: float
    max_active_params_b: float
    max_context: int
    max_batch: int
    points: int
    sources: int
    # The chip makers whose devices ran them (Hardware.vendor): a maker's software stack is
    # its own, so another maker's runs do not vouch for it. Empty in older constants files.
    makers: list[str] = []


class Calibration(BaseModel):
    """Fitted constants by class key ``"<class>|<runtime class>"``."""

    # Achieved share of memory bandwidth while decoding, by memory technology.
    decode_bw_efficiency: dict[str, float]
    # Fixed decode cost per layer per token, by runtime class and device kind.
    layer_overhead_s: dict[str, float]
    # Fixed cost per decode step (CUDA-graph servers), by runtime class.
    step_overhead_s: dict[str, float]
    # Fixed decode cost of each mixture-of-experts layer beyond a dense one (routing,
    # gathering tokens per expert, the grouped expert GEMMs), by runtime class.
    moe_layer_s: dict[str, float] = {}
    # Extra cost per token for each hand-over between GPUs of a layer split.
    hop_s: dict[str, float]
    # Latency of one all-reduce between tensor-parallel GPUs (launch and sync, beyond the
    # bytes over the link), by runtime class; also a pipeline hand-over's latency.
    allreduce_latency_s: dict[str, float] = {}
    # Fixed cost of one weight matrix of a row split (llama.cpp -sm row) on each further GPU:
    # the activations copied in, the slice copied back, an event waited for; by runtime class.
    row_sync_s: dict[str, float] = {}
    # Achieved share of the tensor peak while prefilling, by architecture.
    prefill_tflops_efficiency: dict[str, float]
    # Share of its class's prefill share (fitted on 16-bit prompts) that a prompt run on the
    # FP8 tensor peak reaches of that peak, by runtime class: FP8 GEMMs quantize their
    # activations, and attention and the other kernels do not speed up.
    prefill_fp8_factor: dict[str, float] = {}
    # Fixed cost of one prompt pass per expert of each MoE layer (an expert's GEMM is its own
    # kernel, or on a CPU its own op that every thread joins), by runtime class and device kind.
    prefill_expert_s: dict[str, float] = {}
    # Fixed time to first token of one served request beyond its prompt pass's compute
    # (queueing, scheduling, tokenizing: whatever the measured harnesses count), by runtime
    # class; it weighs on short prompts only.
    prefill_request_s: dict[str, float] = {}
    # Share of a further CPU socket's bandwidth that a decode gains (NUMA); None: no points.
    numa_scaling: float | None = None
    # Cross-validated error by "decode|<class>" / "prefill|<class>" (class: gpu-hbm, gpu-gddr, unified, cpu, all).
    error_bands: dict[str, ErrorBand] = {}
    # By "decode|<memory>|<runtime class>" / "prefill|<architecture>|<runtime class>": runs of
    # hardware whose class has too few of them to be fitted, and how far the estimate is off.
    thin_classes: dict[str, ThinClass] = {}
    # By "decode|<band class>|<runtime class>" / "prefill|...": what the measured runs covered
    # (measured_range.py); an estimate outside it says its error band is other runs'.
    measured_ranges: dict[str, MeasuredRange] = {}
    # By "decode|<device id>|<devices>|<runtime class>" / "prefill|...": the runs of that very
    # hardware (one device model, that many of them) and how far the fitted estimate is off them.
    device_runs: dict[str, ThinClass] = {}
    points: int = 0
    sources: int = 0


def _first(table: dict[str, float], keys: list[str]) -> tuple[float, str]:
    for key in keys:
        if key in table:
            return table[key], key
    raise KeyError(keys[-1])


def decode_keys(hw: Hardware, runtime_id: str) -> list[str]:
    """Decode classes to look a bandwidth share up in, narrowest first. A device of several
    dies (an M2 Ultra) has its own class beside its single-die siblings' (an M2 Max), not
    under it: in llama.cpp discussion 4167 the M2 Ultra decodes Llama 2 7B Q4_0 at 1.4 times
    the M2 Max's speed on twice its bandwidth, so neither may set the other's share."""
    rt = runtime_class(runtime_id)
    tech = hw.mem_tech
    own = tech if hw.dies == 1 else f"{tech} {hw.dies}-die"
    return [f"{own}|{rt}", f"{tech_family(tech)}|{rt}", f"{ANY}|{rt}", f"{ANY}|{ANY}"]


def _prefill_levels(hw: Hardware) -> list[str]:
    # GeForce, workstation and datacenter sheets quote different tensor rates (FP32 vs FP16
    # accumulate), so the product class splits an architecture first. An architecture with
    # too few points falls back to GPUs of its product class before its maker's: in the
    # 2026-11 fit, llama.cpp's prompt kernels reach a far smaller share of a datacenter part's
    # peak (V100 5%, H100 15%, A100 29%) than of a GeForce card's (37-49%) in every
    # architecture measured.
    by_class = [f"{hw.device_class}-{hw.kind}"] if hw.kind == "gpu" else []
    return [f"{hw.arch} {hw.device_class}", hw.arch, *by_class, f"{hw.vendor}-{hw.kind}", hw.kind]


def is_widest_class(key: str) -> bool:
    """Whether a constant's class is one that any hardware falls back to (``any|server``),
    or for prefill any device of a kind (``gpu|llama.cpp``): no narrower class measured it."""
    return key.split("|")[0] in (ANY, "gpu", "cpu", "soc")


def prefill_keys(hw: Hardware, runtime_id: str) -> list[str]:
    """Prefill classes to look a constant up in: narrowest hardware first, at each level the
    runtime's own class before the one it falls back to (the device matters more than the fork)."""
    runtimes = prefill_runtime_classes(runtime_id)
    keys = [f"{level}|{rt}" for level in _prefill_levels(hw) for rt in runtimes]
    return [*keys, *(f"{ANY}|{rt}" for rt in runtimes), f"{ANY}|{ANY}"]


def prefill_fit_keys(hw: Hardware, runtime_id: str) -> list[str]:
    """The classes a measured prefill point informs: its own runtime's only."""
    rt = prefill_runtime_classes(runtime_id)[0]
    return [*(f"{level}|{rt}" for level in _prefill_levels(hw)), f"{ANY}|{rt}", f"{ANY}|{ANY}"]


def decode_efficiency(cal: Calibration, hw: Hardware, runtime_id: str) -> tuple[float, str]:
    """(share of bandwidth, the class it was fitted on) for decoding on ``hw``."""
    return _first(cal.decode_bw_efficiency, decode_keys(hw, runtime_id))


def prefill_efficiency(cal: Calibration, hw: Hardware, runtime_id: str) -> tuple[float, str]:
    """(share of tensor peak, the class it was fitted on) for prefill on ``hw``."""
    return _first(cal.prefill_tflops_efficiency, prefill_keys(hw, runtime_id))


def fp8_prefill_factor(factors: dict[str, float], hw: Hardware, runtime_id: str) -> float:
    """The share of its 16-bit prefill share a prompt reaches of ``hw``'s FP8 peak: the fitted
    factor of the runtime class, but never so low that FP8 GEMMs run slower than 16-bit ones."""
    fp8, bf16 = hw.fp8_tflops_per_device, hw.tflops_per_device
    floor = min(bf16 / fp8, 1.0) if fp8 and bf16 else 0.0
    return max(factors.get(runtime_class(runtime_id), 1.0), floor)


def host_efficiency(cal: Calibration) -> float:
    """Share of the host's DDR bandwidth that layers kept in system RAM are read at."""
    return _first(cal.decode_bw_efficiency, ["DDR5|llama.cpp", "DDR|llama.cpp", f"{ANY}|llama.cpp", f"{ANY}|{ANY}"])[0]


def layer_overhead(cal: Calibration, hw: Hardware, runtime_id: str) -> float:
    rt = runtime_class(runtime_id)
    return _first(cal.layer_overhead_s, [f"{rt}|{hw.kind}", f"{rt}|{ANY}", f"{ANY}|{ANY}"])[0]


def _by_runtime(table: dict[str, float], runtime_id: str) -> float:
    """A cost fitted per runtime class; a class the fit never saw costs nothing."""
    return _first({ANY: 0.0, **table}, [runtime_class(runtime_id), ANY])[0]


def step_overhead(cal: Calibration, runtime_id: str) -> float:
    """The runtime class's cost per step, plus a runtime's own where it pays more (classes.OWN_STEP_COST)."""
    own = cal.step_overhead_s.get(runtime_id.lower(), 0.0) if runtime_id.lower() in OWN_STEP_COST else 0.0
    return _by_runtime(cal.step_overhead_s, runtime_id) + own


def moe_layer_overhead(cal: Calibration, hw: Hardware, runtime_id: str) -> float:
    """The runtime class's fixed cost per MoE layer on this kind of device."""
    rt = runtime_class(runtime_id)
    return _first({ANY: 0.0, **cal.moe_layer_s}, [f"{rt}|{hw.kind}", rt, ANY])[0]


def prefill_expert_overhead(cal: Calibration, hw: Hardware, runtime_id: str) -> float:
    keys = [f"{rt}|{hw.kind}" for rt in prefill_runtime_classes(runtime_id)]
    return _first({ANY: 0.0, **cal.prefill_expert_s}, [*keys, ANY])[0]


def prefill_request_overhead(cal: Calibration, runtime_id: str) -> float:
    return _by_runtime(cal.prefill_request_s, runtime_id)


def hop_cost(cal: Calibration, runtime_id: str) -> float:
    return _by_runtime(cal.hop_s, runtime_id)


def allreduce_latency(cal: Calibration, runtime_id: str) -> float:
    return _by_runtime(cal.allreduce_latency_s, runtime_id)


def row_sync_cost(cal: Calibration, runtime_id: str) -> float:
    return _by_runtime(cal.row_sync_s, runtime_id)


def fixed_pass_s(
    cal: Calibration, hw: Hardware, runtime_id: str, layers: int, moe_layers: int, hops: int, row_syncs: int = 0
) -> float:
    """Fixed seconds of one forward pass (kernel launches and syncs per layer and per step,
    hand-overs of a layer split, split matrices of a row split): a decode step pays it, and
    so does each prompt pass."""
    return (
        layer_overhead(cal, hw, runtime_id) * layers
        + moe_layer_overhead(cal, hw, runtime_id) * moe_layers
        + step_overhead(cal, runtime_id)
        + hops * hop_cost(cal, runtime_id)
        + row_syncs * row_sync_cost(cal, runtime_id)
    )


def band_class(hw: Hardware) -> str:
    """The error-band class of ``hw``: gpu-hbm, gpu-gddr, unified or cpu."""
    if hw.kind == "cpu":
        return "cpu"
    if hw.kind == "soc":
        return "unified"
    return "gpu-hbm" if tech_family(hw.mem_tech) == "HBM" else "gpu-gddr"


def band_keys(hw: Hardware) -> list[str]:
    """``hw``'s error-band classes, narrowest first: its class of its chip maker's (the
    maker's software stack sets how far runs stray: CUDA, ROCm, Metal), then the class.
    Calibrations store a maker's band only where it is wider than its class's (error_bands.py)."""
    return [f"{band_class(hw)}|{hw.vendor}", band_class(hw)]


def error_band_key(cal: Calibration, hw: Hardware, metric: str) -> str | None:
    """The band class whose held-out error ``hw`` gets for ``metric``: its maker's where the
    calibration has one, else its class's, else all hardware's."""
    return next((key for key in [*band_keys(hw), "all"] if f"{metric}|{key}" in cal.error_bands), None)


def error_band(cal: Calibration, hw: Hardware, metric: str) -> ErrorBand | None:
    """The cross-validated error for ``metric`` (decode or prefill) on hardware like ``hw``."""
    key = error_band_key(cal, hw, metric)
    return cal.error_bands[f"{metric}|{key}"] if key else None


FITTED_FILE = "fitted_constants.json"


@cache
def current() -> Calibration:
    """The constants shipped with the package."""
    text = resources.files("rackplanner.core.capacity").joinpath(FITTED_FILE).read_text(encoding="utf-8")
    return Calibration.model_validate(json.loads(text))


def thin_class_key(hw: Hardware, runtime_id: str, metric: str) -> str:
    """The class a run's own few measurements are grouped by: its memory technology (decode),
    its architecture (prefill), with its runtime class."""
    if metric == "decode":
        return f"decode|{decode_keys(hw, runtime_id)[0]}"
    return f"prefill|{hw.arch}|{prefill_runtime_classes(runtime_id)[0]}"


def _runs(found: ThinClass, kind: str, where: str) -> str:
    """ "2 published llama.cpp decode runs on <where> (1 source) ran at 1.62 x what this estimate gives for them"."""
    runs = "run" if found.points == 1 else "runs"
    sources = "source" if found.sources == 1 else "sources"
    return (
        f"{found.points} published {kind} {runs} on {where} ({found.sources} {sources}) ran at {found.ratio:.2f} x "
        "what this estimate gives for them"
    )


def device_key(hw: Hardware, runtime_id: str, metric: str) -> str:
    """The key of the runs of ``hw`` itself: its device id, how many, the runtime class."""
    return f"{metric}|{hw.device_id}|{hw.devices}|{runtime_class(runtime_id)}"


def device_run_notes(cal: Calibration, hw: Hardware, runtime_label: str, runtime_id: str) -> list[str]:
    """What published runs of this very hardware say, where they stray from the estimate by
    more than its class's typical held-out error (a class's constants fit its devices unevenly:
    the CUDA scoreboard's H100 SXM decoded Llama 2 7B at 1.6 times what HBM3's share, set
    mostly by MI300X runs, gives it). Classes with a thin-class note already say theirs."""
    notes = []
    for metric, what in (("decode", "decode"), ("prefill", "prompt")):
        found = cal.device_runs.get(device_key(hw, runtime_id, metric))
        band = error_band(cal, hw, metric)
        if found is None or band is None or cal.thin_classes.get(thin_class_key(hw, runtime_id, metric)):
            continue
        if abs(1 / found.ratio - 1) <= band.median:
            continue
        notes.append(
            f"measured: {_runs(found, f'{runtime_label} {what}', 'this very hardware')}; "
            "the estimate keeps its class's fitted constants"
        )
    return notes


def thin_class_notes(cal: Calibration, hw: Hardware, runtime_label: str, runtime_id: str) -> list[str]:
    """What the few measured runs of ``hw``'s class say about its estimate, when there are any."""
    notes = []
    for metric, what in (("decode", "decode"), ("prefill", "prompt")):
        found = cal.thin_classes.get(thin_class_key(hw, runtime_id, metric))
        if found is None:
            continue
        where = hw.mem_tech if metric == "decode" else hw.arch
        notes.append(
            f"few measurements: {_runs(found, f'{runtime_label} {what}', f'{where} hardware')}, too few "
            "to fit a class of their own"
        )
    return notes
