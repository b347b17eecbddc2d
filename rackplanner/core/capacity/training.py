"""What a machine (or a rack of them) can train, and how long and how reliably.

Memory per GPU = weights and optimizer state (mixed-precision AdamW: 18 bytes per
parameter, 000_2736fecfd42346e5.txt), sharded by ZeRO stage / FSDP, plus activations by
the per-layer formula of Korthikanti et al. 2022 ("Reducing Activation Recomputation in
Large Transformer Models", https://arxiv.org/abs/2205.05198): s·b·h·(34 + 5·a·s/h) bytes
without recomputation, 34·s·b·h with selective and 2·s·b·h with full recomputation.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from rackplanner.core.capacity import constants as k
from rackplanner.core.capacity.formats import F16, NF4_DQ
from rackplanner.core.capacity.hardware import Hardware
from rackplanner.core.capacity.shape import active_params, total_params
from rackplanner.core.catalog.parts import LlmModel
from rackplanner.core.errors import InputError

Method = Literal["ddp", "zero-1", "zero-2", "fsdp", "lora", "qlora"]
Recompute = Literal["none", "selective", "full"]
METHODS: tuple[Method, ...] = ("ddp", "zero-1", "zero-2", "fsdp", "lora", "qlora")

# The 18 bytes: fp16 weights 2, fp32 master weights 4, fp32 gradients 4, Adam moments 4 + 4.
_WEIGHTS_FP16 = 2.0
_MASTER = 4.0
_GRADS = 4.0
_MOMENTS = 8.0
LORA_RANK = 16


def adamw_bytes(params: float) -> float:
    """Mixed-precision AdamW state before activations: 18 bytes per parameter."""
    return k.ADAMW_MIXED_BYTES_PER_PARAM * params


def state_bytes_per_param(method: Method, gpus: int) -> float:
    """Weight and optimizer bytes each GPU holds per model parameter."""
    if gpus < 1:
        raise InputError(f"GPU count must be at least 1 (got {gpus})")
    if method == "ddp":
        return k.ADAMW_MIXED_BYTES_PER_PARAM
    if method == "zero-1":
        return _WEIGHTS_FP16 + _GRADS + (_MASTER + _MOMENTS) / gpus
    if method == "zero-2":
        return _WEIGHTS_FP16 + (_GRADS + _MASTER + _MOMENTS) / gpus
    if method == "fsdp":
        return k.ADAMW_MIXED_BYTES_PER_PARAM / gpus
    if method == "lora":
        return F16.bits_per_weight() / 8  # frozen FP16 base; adapters counted separately
    return NF4_DQ.bits_per_weight() / 8  # QLoRA: frozen NF4 base with double quantization


def lora_params(model: LlmModel, rank: int = LORA_RANK) -> float:
    """Adapter parameters for rank ``rank`` on every linear layer of the attention and MLP."""
    h = model.hidden_size
    q = model.attention_heads * model.head_dim
    kv = model.kv_heads * model.head_dim
    inter = model.intermediate_size or 4 * h
    per_layer = (h + q) + 2 * (h + kv) + (q + h) + 2 * (h + inter) + (inter + h)
    return rank * per_layer * model.layers


def activation_bytes_per_layer(
    seq: int, micro_batch: int, hidden: int, heads: int, recompute: Recompute, tp: int = 1
) -> float:
    """Korthikanti et al. 2022, FP16 activations of one transformer layer."""
    sbh = seq * micro_batch * hidden
    if recompute == "full":
        return 2 * sbh
    if recompute == "selective":
        return 34 * sbh / tp
    return sbh * (34 + 5 * heads * seq / hidden) / tp


def activation_bytes(model: LlmModel, seq: int, micro_batch: int, recompute: Recompute) -> float:
    """All layers plus the FP32 logits of the loss."""
    per_layer = activation_bytes_per_layer(seq, micro_batch, model.hidden_size, model.attention_heads, recompute)
    return per_layer * model.layers + 4 * seq * micro_batch * model.vocab_size


class MethodLimit(BaseModel):
    method: Method
    gb_per_gpu: float
    gb_per_gpu_no_recompute: float
    fits: bool
    largest_params_b: float


class TrainingLimits(BaseModel):
    gpus: int
    seq: int
    micro_batch: int
    methods: list[MethodLimit]
    hours_per_billion_tokens: float | None
    mfu: float
    interruptions_per_day: float
    gpu_failures_per_day: float


def memory_per_gpu_gb(
    model: LlmModel, method: Method, gpus: int, *, seq: int, micro_batch: int, recompute: Recompute
) -> float:
    """Weights, optimizer state (sharded per ``method``), adapters and activations per GPU."""
    params = total_params(model)
    state = state_bytes_per_param(method, gpus) * params
    if method in ("lora", "qlora"):
        state += adamw_bytes(lora_params(model))
    return (state + activation_bytes(model, seq, micro_batch, recompute)) / k.GB


def time_to_train_s(model: LlmModel, tokens: float, tflops_total: float, mfu: float = k.DEFAULT_MFU) -> float:
    """6 × active params × tokens FLOP at ``mfu`` of the GPUs' dense TFLOP/s."""
    if tokens <= 0 or mfu <= 0 or tflops_total <= 0:
        raise InputError("tokens, MFU and TFLOP/s must be positive")
    return 6 * active_params(model) * tokens / (tflops_total * 1e12 * mfu)


def interruptions_per_day(gpus: int) -> tuple[float, float]:
    """(all unexpected interruptions, GPU failures) per day, scaled from the Llama 3 run."""
    per_gpu_day = 1 / (k.LLAMA3_GPUS * k.LLAMA3_DAYS)
    return gpus * k.LLAMA3_INTERRUPTIONS * per_gpu_day, gpus * k.LLAMA3_GPU_FAILURES * per_gpu_day


def training_limits(
    model: LlmModel,
    hw: Hardware,
    *,
    gpus: int | None = None,
    seq: int = 2048,
    micro_batch: int = 1,
    mfu: float = k.DEFAULT_MFU,
) -> TrainingLimits | None:
    """Per method: memory per GPU (full recomputation, and none), whether it fits and the
    largest model (parameters) its weights and optimizer state allow. ``gpus`` spans
    several machines of a rack."""
    if hw.kind != "gpu":
        return None
    n = gpus or hw.devices
    usable = hw.mem_gb_per_device - k.GPU_RUNTIME_OVERHEAD_GB
    limits = []
    for method in METHODS:
        full = memory_per_gpu_gb(model, method, n, seq=seq, micro_batch=micro_batch, recompute="full")
        none = memory_per_gpu_gb(model, method, n, seq=seq, micro_batch=micro_batch, recompute="none")
        largest = usable * k.GB / state_bytes_per_param(method, n) / 1e9
        limits.append(
            MethodLimit(
                method=method,
                gb_per_gpu=full,
                gb_per_gpu_no_recompute=none,
                fits=full <= usable,
                largest_params_b=largest,
            )
        )
    hours = None
    if hw.tflops_per_device:
        hours = time_to_train_s(model, 1e9, hw.tflops_per_device * n, mfu) / 3600
    interrupts, failures = interruptions_per_day(n)
    return TrainingLimits(
        gpus=n,
        seq=seq,
        micro_batch=micro_batch,
        methods=limits,
        hours_per_billion_tokens=hours,
        mfu=mfu,
        interruptions_per_day=interrupts,
        gpu_failures_per_day=failures,
    )
