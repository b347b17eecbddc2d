"""Does a model fit: weights + KV cache + activations + runtime overhead against memory.

GPUs hold the model split over their VRAM; a CPU server holds it in RAM; llama.cpp can
keep the layers that do not fit in VRAM in system RAM (CPU offload). MoE models hold
every expert.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from rackplanner.core.capacity import constants as k
from rackplanner.core.capacity.formats import WeightFormat, weight_bytes
from rackplanner.core.capacity.hardware import Hardware
from rackplanner.core.capacity.limits import check_positive
from rackplanner.core.capacity.runtime import LLAMA_CPP_UBATCH, Runtime, tensor_parallel_degree
from rackplanner.core.capacity.shape import kv_bytes, longest_context
from rackplanner.core.catalog.parts import LlmModel
from rackplanner.core.errors import InputError


@dataclass(frozen=True)
class MemoryFit:
    """Memory needed and available, GB (an intermediate: ``Estimate`` carries it to users)."""

    fits: bool
    weights_gb: float
    kv_cache_gb: float
    activations_gb: float
    overhead_gb: float
    total_gb: float
    capacity_gb: float
    free_gb: float
    per_device_gb: float
    kv_gb_per_token: float
    max_context: int
    max_batch: int
    # Share of the weights kept in system RAM (llama.cpp CPU offload); 0 when all in VRAM.
    offload_fraction: float = 0.0
    notes: list[str] = field(default_factory=list)


def _activations_bytes(model: LlmModel, batch: int, ubatch_tokens: int = LLAMA_CPP_UBATCH) -> float:
    # Compute buffer of one llama.cpp prefill micro-batch (hidden states, MLP intermediate, logits)
    # plus a small scratch per sequence during decode.
    ubatch = ubatch_tokens * (4 * model.hidden_size + (model.intermediate_size or 4 * model.hidden_size))
    logits = ubatch_tokens * model.vocab_size
    scratch = batch * k.ACTIVATION_VECTORS_PER_SEQUENCE * model.hidden_size
    return (ubatch + logits + scratch) * 4


def usable_gb(hw: Hardware, runtime: Runtime, devices: int | None = None) -> tuple[float, float]:
    """(memory for weights, cache and activations; overhead reserved), whole machine, GB."""
    total = hw.mem_gb_per_device * (devices or hw.devices)
    if hw.kind != "gpu":
        return total, 0.0
    if not runtime.own_kernels_per_gpu:
        overhead = (1 - k.VLLM_GPU_MEMORY_UTILIZATION) * total
    else:
        overhead = k.GPU_RUNTIME_OVERHEAD_GB * (devices or hw.devices)
    return total - overhead, overhead


def memory_fit(
    model: LlmModel,
    fmt: WeightFormat,
    hw: Hardware,
    runtime: Runtime,
    *,
    batch: int = 1,
    context: int = 4096,
    kv_bytes_per_value: float = 2.0,
    gpu_layers: int | None = None,
) -> MemoryFit:
    """Weights, KV cache, activations and overhead against the hardware's memory.

    ``gpu_layers`` (llama.cpp's -ngl) puts that many layers in VRAM and the rest, with
    their KV cache, in system RAM; without it llama.cpp's offload covers what does not fit.
    """
    check_positive("batch", batch)
    check_positive("context", context)
    notes: list[str] = []
    weights = weight_bytes(model, fmt) / k.GB
    per_seq = kv_bytes(model, kv_bytes_per_value, context) / k.GB
    kv = per_seq * batch
    # Tensor parallelism uses only as many GPUs as divide the heads evenly.
    used = tensor_parallel_degree(model, hw, runtime) if runtime.split == "tensor" else hw.devices
    # llama.cpp's compute buffer grows with -ub; the servers' activations sit in their reserve.
    ubatch = runtime.prefill_chunk_tokens if runtime.own_kernels_per_gpu else LLAMA_CPP_UBATCH
    # With causal attention llama.cpp holds a pass to the context (n_batch <= n_ctx, n_ubatch
    # <= n_batch in llama_context's constructor), so a -ub above it buys no larger buffer.
    ubatch = min(ubatch, context)
    act = _activations_bytes(model, batch, ubatch) / k.GB
    if hw.kind == "gpu":
        act *= used  # each GPU holds its own compute buffer
    room, overhead = usable_gb(hw, runtime, used)
    needed = weights + kv + act
    offload = 0.0
    fits = needed <= room
    if gpu_layers is not None:
        offload, fits = _layers_in_ram(model, hw, runtime, gpu_layers, weights + kv, act, room)
        if offload and hw.host_ram_gb is None:
            notes.append("system RAM is unknown, so whether it holds the layers kept there is not checked (use --plan)")
        notes.append(
            f"--gpu-layers {gpu_layers}: {min(gpu_layers, model.layers)} of {model.layers} layers in VRAM, "
            f"{offload:.0%} of the weights and KV cache in system RAM"
        )
    elif not fits and runtime.cpu_offload and hw.kind == "gpu" and hw.host_ram_gb:
        # llama.cpp keeps the layers that do not fit in VRAM (and their KV cache) in RAM.
        spill = needed - room
        host_room = hw.host_ram_gb - k.CPU_RAM_RESERVED_GB
        if spill <= host_room and spill < weights:
            offload = spill / weights
            fits = True
            notes.append(f"{offload:.0%} of the weights stay in system RAM and run on the CPU (CPU offload)")
    if runtime.split == "row" and hw.kind == "gpu" and used > 1:
        # Where a row split keeps the KV cache depends on the build: llama-server's help of
        # 2024-01 puts it on the main GPU (ollama#2190), yet a 2026 build ran Llama 70B at a
        # 65,536-token depth on 4 x 24 GB (ggml-org/llama.cpp#19378), which one GPU cannot
        # hold. So the fit is the layer split's, and the note says what older builds need.
        main_free = (room - weights - act) / used
        main_context = longest_context(model, kv_bytes_per_value, main_free * k.GB / batch) if main_free > 0 else 0
        notes.append(
            f"row split: builds that keep the whole KV cache on the main GPU (llama.cpp of 2024) "
            f"hold {main_context:,} tokens at batch {batch}"
        )
    if context > model.max_context:
        notes.append(f"context {context:,} is beyond the model's {model.max_context:,} tokens")
    capacity = room + overhead
    total = needed + overhead
    # The limits do not hang on --batch: the longest context is one sequence's (its scratch,
    # not the batch's), and each further sequence of the largest batch brings its own scratch.
    devices = used if hw.kind == "gpu" else 1
    act_none = _activations_bytes(model, 0, ubatch) / k.GB * devices
    scratch = _activations_bytes(model, 1, ubatch) / k.GB * devices - act_none
    free_for_kv, free_for_one = room - weights - act_none, room - weights - act_none - scratch
    if gpu_layers is not None and offload:
        # The KV cache splits as the layers do: each side holds its share of it.
        host_free = (hw.host_ram_gb or math.inf) - k.CPU_RAM_RESERVED_GB - weights * offload
        gpu_free = room - weights * (1 - offload)
        if offload < 1:
            free_for_kv = min(host_free / offload, (gpu_free - act_none) / (1 - offload))
            free_for_one = min(host_free / offload, (gpu_free - act_none - scratch) / (1 - offload))
        else:
            free_for_kv = free_for_one = host_free
    elif offload and hw.host_ram_gb:
        # With layers in RAM, VRAM and RAM together hold what the weights leave to the cache.
        free_for_kv = hw.host_ram_gb - k.CPU_RAM_RESERVED_GB - (weights + act_none - room)
        free_for_one = free_for_kv - scratch
    if math.isfinite(free_for_kv):
        max_context = longest_context(model, kv_bytes_per_value, free_for_one * k.GB)
        max_batch = math.floor(free_for_kv / (per_seq + scratch)) if free_for_kv > 0 else 0
    else:
        # Every layer in RAM whose size is not known: nothing bounds the cache here.
        max_context, max_batch = model.max_context, k.MAX_BATCH_SEQUENCES
        notes.append("the KV cache is all in system RAM, whose size is unknown: its limits are not checked")
    return MemoryFit(
        fits=fits,
        weights_gb=weights,
        kv_cache_gb=kv,
        activations_gb=act,
        overhead_gb=overhead,
        total_gb=total,
        capacity_gb=capacity,
        free_gb=capacity - total,
        per_device_gb=total / used,
        kv_gb_per_token=per_seq / context,
        offload_fraction=offload,
        max_context=max(max_context, 0),
        max_batch=max(max_batch, 0),
        notes=notes,
    )


def _layers_in_ram(
    model: LlmModel, hw: Hardware, runtime: Runtime, gpu_layers: int, held_gb: float, act_gb: float, room_gb: float
) -> tuple[float, bool]:
    """(share of weights and KV in system RAM, whether both sides hold their share)."""
    if gpu_layers < 0:
        raise InputError(f"--gpu-layers must be 0 or more (got {gpu_layers})")
    if hw.kind != "gpu":
        raise InputError(
            f"--gpu-layers splits layers between a GPU's VRAM and system RAM; {hw.label} "
            + ("has one memory for both" if hw.kind == "soc" else "has no GPU")
        )
    if runtime.split == "row":
        raise InputError(
            "--gpu-layers with a row split (llama.cpp -sm row -ngl N) is not modelled: "
            "estimate the layer split (--runtime llama.cpp) for a partial offload"
        )
    if not runtime.cpu_offload:
        raise InputError(
            f"--gpu-layers splits layers between VRAM and system RAM in llama.cpp's layer split "
            f"(--runtime llama.cpp or ik_llama.cpp), not in {runtime.label}"
        )
    in_ram = 1 - min(gpu_layers, model.layers) / model.layers
    fits = held_gb * (1 - in_ram) + act_gb <= room_gb
    if hw.host_ram_gb is not None:
        fits = fits and held_gb * in_ram <= max(hw.host_ram_gb - k.CPU_RAM_RESERVED_GB, 0.0)
    return in_ram, fits
