"""Inference runtimes, because the runtime changes the answer.

A layer split (llama.cpp) spreads a model's layers over the GPUs: it holds a bigger model
but the GPUs take turns, so decode is no faster than one GPU. Tensor parallelism (vLLM,
TensorRT-LLM) splits every matrix: all GPUs read their share at once, and each layer pays
two all-reduces over the link between them. Pipeline parallelism (vLLM's
pipeline_parallel_size) gives each GPU a run of layers and keeps several batches in flight:
with at least as many sequences as stages every GPU works; with fewer, stages idle (the
pipeline bubble), and a single sequence decodes at one GPU's speed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rackplanner.core.capacity import constants as k
from rackplanner.core.capacity.hardware import Hardware
from rackplanner.core.catalog.parts import LlmModel
from rackplanner.core.errors import unknown


@dataclass(frozen=True)
class Runtime:
    id: str
    label: str
    split: Literal["layer", "tensor", "pipeline"]
    # Fixed decode cost per layer per step, and per step.
    layer_overhead_s: float
    step_overhead_s: float
    gpu_only: bool
    # Can keep some layers in system RAM and run them on the CPU.
    cpu_offload: bool


RUNTIMES: dict[str, Runtime] = {
    r.id: r
    for r in (
        Runtime("llama.cpp", "llama.cpp (layer split)", "layer", k.LLAMA_CPP_LAYER_OVERHEAD_S, 0.0, False, True),
        Runtime("vllm", "vLLM (tensor parallel)", "tensor", 0.0, k.TP_SERVER_STEP_OVERHEAD_S, True, False),
        Runtime(
            "tensorrt-llm", "TensorRT-LLM (tensor parallel)", "tensor", 0.0, k.TP_SERVER_STEP_OVERHEAD_S, True, False
        ),
        Runtime("vllm-pp", "vLLM (pipeline parallel)", "pipeline", 0.0, k.TP_SERVER_STEP_OVERHEAD_S, True, False),
    )
}


def get_runtime(runtime_id: str) -> Runtime:
    """The runtime with this id, or InputError listing the known ids."""
    runtime = RUNTIMES.get(runtime_id.lower())
    if runtime is None:
        raise unknown("runtime", runtime_id, list(RUNTIMES), "--help")
    return runtime


def tensor_parallel_degree(model: LlmModel, hw: Hardware, runtime: Runtime) -> int:
    """GPUs a tensor-parallel runtime splits over: the most that divide the KV heads."""
    if runtime.split != "tensor" or hw.kind != "gpu":
        return 1
    return max(d for d in range(1, hw.devices + 1) if model.kv_heads % d == 0 and model.attention_heads % d == 0)
