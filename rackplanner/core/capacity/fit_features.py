"""What the capacity fit needs of each measured point: its measured time, the same time at
the device's full bandwidth or tensor peak, and the counts its fixed costs multiply."""

from __future__ import annotations

from dataclasses import dataclass

from rackplanner.core.capacity.calibration import MeasuredPoint, hardware_of
from rackplanner.core.capacity.classes import runtime_class
from rackplanner.core.capacity.estimate import get_model
from rackplanner.core.capacity.fitted import ANY, Calibration
from rackplanner.core.capacity.formats import kv_element_bytes
from rackplanner.core.capacity.hardware import Hardware
from rackplanner.core.capacity.runtime import get_runtime, with_ubatch
from rackplanner.core.capacity.speed import (
    SpeedInputs,
    allreduce_count,
    link_s,
    on_fp8_peak,
    prompt_flops_per_token,
    step_bytes,
)
from rackplanner.core.catalog.llm_shape import moe_layer_count
from rackplanner.core.catalog.loading import Catalog


def _unit_calibration(numa: float | None) -> Calibration:
    """Constants that leave bytes and FLOPs at the devices' peaks and cost nothing fixed."""
    return Calibration(
        decode_bw_efficiency={f"{ANY}|{ANY}": 1.0},
        layer_overhead_s={f"{ANY}|{ANY}": 0.0},
        step_overhead_s={ANY: 0.0},
        hop_s={ANY: 0.0},
        prefill_tflops_efficiency={f"{ANY}|{ANY}": 1.0},
        numa_scaling=numa,
    )


@dataclass
class Features:
    """One measured point reduced to what the fit needs."""

    point: MeasuredPoint
    hw: Hardware
    runtime: str
    seconds: float  # measured: step time (decode) or time per prompt token (prefill)
    at_peak_s: float  # the same at full bandwidth (decode) or full tensor peak (prefill)
    layers: int
    moe_layers: int
    hops: int
    # Seconds known before the shares are fitted, per decode step or per prompt token: the
    # bytes between GPUs (all-reduces, a row split's copies); a prompt token's also take in
    # the all-reduces' latency and its pass's fixed costs once decode is fitted. Then the all-reduces' count
    # (each costs the fitted latency).
    known_s: float
    allreduces: float
    # Prefill: prompt tokens per pass, and experts over the MoE layers (kernels per pass).
    chunk_tokens: int = 1
    experts_over_layers: int = 0
    # Prefill run on the FP8 tensor peak (speed.on_fp8_peak).
    fp8_peak: bool = False
    # Split matrices times further GPUs of a row split's pass, per 128-token chunk (rowsplit.RowSplit).
    row_syncs: int = 0

    @property
    def decode(self) -> bool:
        return self.point.metric == "decode_tokens_per_s"


def features(points: list[MeasuredPoint], catalog: Catalog, numa: float | None = None) -> list[Features]:
    """Fit features of every benchmark point (rounded reports are left to evaluation)."""
    out = []
    unit = _unit_calibration(numa)
    for point in points:
        if point.is_report:
            continue
        hw = hardware_of(point, catalog)
        model = get_model(catalog, point.model)
        runtime = get_runtime(point.runtime)
        if point.ubatch is not None:
            runtime = with_ubatch(runtime, point.ubatch)
        kv = kv_element_bytes(point.kv_cache)
        fmt = point.weight_format(model)
        s = SpeedInputs.build(model, fmt, hw, runtime, kv_bytes=kv, calibration=unit)
        chunk = min(point.prompt, runtime.prefill_chunk_tokens)
        if point.metric == "decode_tokens_per_s":
            b = point.batch
            at_peak = step_bytes(s, b, point.context) / s.mem_bytes_per_s
            compute = b * (2 * s.active_params) / s.flops_per_s
            if compute * 2 > at_peak:  # compute-bound at half the peak: not a bandwidth point
                continue
            seconds, per, pass_tokens = b / point.value, 1, b
            link = link_s(s, b)
        else:
            if s.flops_per_s == float("inf"):
                continue
            at_peak = prompt_flops_per_token(s, point.prompt, point.depth) / s.flops_per_s
            seconds, per, pass_tokens = 1 / point.value, chunk, chunk
            link = link_s(s, per) / per
        hops = hw.devices - 1 if runtime.split == "layer" and hw.kind == "gpu" else 0
        rt = runtime_class(point.runtime)
        moe = moe_layer_count(model)
        experts = moe * (model.moe_experts or 0)
        allreduces = allreduce_count(s) / per
        fp8 = point.metric != "decode_tokens_per_s" and on_fp8_peak(hw, fmt, runtime)
        out.append(
            Features(
                point,
                hw,
                rt,
                seconds,
                at_peak,
                model.layers,
                moe,
                hops,
                link,
                allreduces,
                chunk,
                experts,
                fp8,
                s.rows.pass_syncs(pass_tokens) if s.rows else 0,
            )
        )
    return out
