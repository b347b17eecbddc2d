"""Inference runtimes, because the runtime changes the answer.

A layer split (llama.cpp) spreads a model's layers over the GPUs: it holds a bigger model
but the GPUs take turns, so decode is no faster than one GPU. Tensor parallelism (vLLM,
TensorRT-LLM) splits every matrix: all GPUs read their share at once, and each layer pays
two all-reduces over the link between them. Pipeline parallelism (vLLM's
pipeline_parallel_size) gives each GPU a run of layers and keeps several batches in flight:
with at least as many sequences as stages every GPU works; with fewer, stages idle (the
pipeline bubble), and a single sequence decodes at one GPU's speed. llama.cpp's row split
(``-sm row``, rowsplit.py) cuts each weight matrix by rows: decode reads them at every GPU's
bandwidth, while prompts pay for copying activations between GPUs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from rackplanner.core.capacity.hardware import Hardware
from rackplanner.core.catalog.parts import LlmModel
from rackplanner.core.errors import InputError, unknown

# Prompt tokens per forward pass: llama.cpp's default micro-batch (n_ubatch 512,
# common/common.h), mlx-lm's generate_step prefill_step_size (2048), and the servers' token
# budget per step (TensorRT-LLM max_num_tokens, vLLM max_num_batched_tokens: 8192).
LLAMA_CPP_UBATCH = 512
# llama.cpp takes -ub up to -b, whose size is the caller's; past this no prompt gains.
MAX_UBATCH = 1_000_000
MLX_PREFILL_STEP = 2048
SERVER_STEP_TOKENS = 8192
LLAMA_CPP_ROW_CUBLAS = "llama.cpp-row-cublas"


@dataclass(frozen=True)
class Runtime:
    id: str
    label: str
    split: Literal["layer", "row", "tensor", "pipeline"]
    # Device kinds it runs on (gpu, cpu, soc) and how to say where it does not.
    kinds: frozenset[str]
    runs_on_text: str
    # Can keep some layers in system RAM and run them on the CPU.
    cpu_offload: bool
    # The makers whose devices it runs on (None: any maker's).
    vendors: frozenset[str] | None = None
    # Prompt tokens one forward pass takes at most: each pass pays the fixed costs of its
    # kernels once, so a short prompt pays them over fewer tokens.
    prefill_chunk_tokens: int = SERVER_STEP_TOKENS
    # Unified-memory machines whose GPU maker it runs on (the DGX Spark's GB10 runs vLLM,
    # SGLang and TensorRT-LLM); None: the ``kinds`` and ``vendors`` rule alone.
    soc_vendors: frozenset[str] | None = None
    # A llama.cpp build from before MMQ became the default on tensor-core GPUs (#8075).
    cublas_prompts: bool = False

    @property
    def own_kernels_per_gpu(self) -> bool:
        """llama.cpp's splits (layer, row): its own GEMM kernels on each GPU and a fixed
        buffer per GPU, where the servers run cuBLAS-class FP8 GEMMs and reserve a share."""
        return self.split in ("layer", "row")

    def runs_on(self, kind: str, vendor: str | None = None) -> bool:
        """Whether it runs on a device of ``kind`` (gpu, cpu, soc) from ``vendor``."""
        if kind == "soc" and self.soc_vendors is not None:
            return vendor is not None and vendor.lower() in self.soc_vendors
        if self.vendors is not None and vendor is not None and vendor.lower() not in self.vendors:
            return False
        return kind in self.kinds

    def refusal(self, hw_label: str) -> str:
        """Why this runtime cannot run on ``hw_label``, with what to choose instead."""
        return f"{self.label} runs on {self.runs_on_text} only; choose llama.cpp for {hw_label}"


_GPU = frozenset({"gpu"})
_NV, _NV_AMD = frozenset({"nvidia"}), frozenset({"nvidia", "amd"})
_NV_TEXT = "GPUs and NVIDIA's unified-memory machines (DGX Spark)"
_SERVER_TEXT = "GPUs and NVIDIA's and AMD's unified-memory machines (DGX Spark, Strix Halo)"
# -sm row: CUDA, ROCm (HIP) and SYCL builds had the split buffer; CUDA's (which HIP builds
# share) went in June 2026 (ggml-org/llama.cpp#24216), SYCL keeps it.
_ROW_SPLIT = Runtime(
    "llama.cpp-row",
    "llama.cpp (row split, -sm row)",
    "row",
    _GPU,
    "NVIDIA, AMD and Intel GPUs",
    False,
    frozenset({"nvidia", "amd", "intel"}),
    prefill_chunk_tokens=LLAMA_CPP_UBATCH,
)

RUNTIMES: dict[str, Runtime] = {
    r.id: r
    for r in (
        Runtime(
            "llama.cpp",
            "llama.cpp (layer split)",
            "layer",
            frozenset({"gpu", "cpu", "soc"}),
            "",
            True,
            prefill_chunk_tokens=LLAMA_CPP_UBATCH,
        ),
        # ikawrakow's llama.cpp fork: the same GGUF files and layer split, its own CPU and
        # MoE prompt kernels (repacked quants, fused experts).
        Runtime(
            "ik_llama.cpp",
            "ik_llama.cpp (layer split)",
            "layer",
            frozenset({"gpu", "cpu"}),
            "GPUs and CPUs",
            True,
            prefill_chunk_tokens=LLAMA_CPP_UBATCH,
        ),
        _ROW_SPLIT,
        # The same before ggml-org/llama.cpp#8075 (merged 2024-06-24): prompts over 32 tokens
        # ran through cuBLAS on any GPU with FP16 tensor cores (rowsplit.q8_1_max_tokens).
        replace(
            _ROW_SPLIT,
            id=LLAMA_CPP_ROW_CUBLAS,
            label="llama.cpp (row split, builds before 25 June 2024: prompts through cuBLAS)",
            cublas_prompts=True,
        ),
        # vLLM builds for the DGX Spark (CUDA, sm_121) and for Strix Halo (ROCm, gfx1151).
        Runtime("vllm", "vLLM (tensor parallel)", "tensor", _GPU, _SERVER_TEXT, False, soc_vendors=_NV_AMD),
        Runtime("vllm-v0", "vLLM before 0.8 (V0 engine, tensor parallel)", "tensor", _GPU, "GPUs", False),
        Runtime("sglang", "SGLang (tensor parallel)", "tensor", _GPU, _NV_TEXT, False, soc_vendors=_NV),
        Runtime("tensorrt-llm", "TensorRT-LLM (tensor parallel)", "tensor", _GPU, _NV_TEXT, False, soc_vendors=_NV),
        # Hugging Face's Text Generation Inference: shards every matrix over the GPUs (num_shard).
        Runtime("tgi", "TGI (tensor parallel)", "tensor", _GPU, "GPUs", False),
        Runtime("vllm-pp", "vLLM (pipeline parallel)", "pipeline", _GPU, "GPUs", False),
        Runtime(
            "mlx",
            "MLX (Apple silicon)",
            "layer",
            frozenset({"soc"}),
            "Apple silicon",
            False,
            frozenset({"apple"}),
            prefill_chunk_tokens=MLX_PREFILL_STEP,
        ),
    )
}


# vLLM releases before this one ran the V0 engine by default (V1 from 0.8.0:
# vllm-project/vllm#13726).
VLLM_V1_DEFAULT_FROM = (0, 8)
# llama.cpp split every multi-GPU model by rows until ggml-org/llama.cpp#4766 (ggml-backend
# integration) added --split-mode and made the layer split the default. Its merge commit
# e7e4df0 is dated 2024-01-12 by ggml-ci's run of it; its build number is not in a source read
# here: b1833 is taken (b1786 of 2024-01-07 predates it), and no measured row has a build
# between b1786 and b1988, so nothing fitted rests on the exact number.
LLAMA_CPP_LAYER_SPLIT_FROM_BUILD = 1833
LLAMA_CPP_LAYER_SPLIT_FROM_DATE = "2024-01-13"
# MMQ became the default on GPUs with tensor cores in ggml-org/llama.cpp#8075, merged
# 2024-06-24; its build number is not in a source read here, so only a date measured tells.
LLAMA_CPP_MMQ_DEFAULT_FROM_DATE = "2024-06-25"


def runtime_of_release(runtime_id: str, version: str, date: str = "", gpus: int = 1) -> str:
    """The runtime a measured release ran: vLLM before 0.8 is ``vllm-v0``; llama.cpp on
    several GPUs before the layer split (by its build number, else, for an unnamed build, by
    a date measured that is surely before it) is ``llama.cpp-row``, and a row split measured
    surely before MMQ became the default is ``llama.cpp-row-cublas``; the rest as named. A
    version that gives no number is taken as the runtime named."""
    ran = _llama_cpp_split(runtime_id, version, date, gpus)
    if ran == "llama.cpp-row" and date and _surely_before(date, LLAMA_CPP_MMQ_DEFAULT_FROM_DATE):
        return LLAMA_CPP_ROW_CUBLAS
    return ran


def _surely_before(date: str, day: str) -> bool:
    """Whether ``date`` (YYYY, YYYY-MM or YYYY-MM-DD) is surely before ``day`` (YYYY-MM-DD)."""
    return date < day if len(date) >= len(day) else date < day[: len(date)]


def _llama_cpp_split(runtime_id: str, version: str, date: str, gpus: int) -> str:
    rt = runtime_id.lower()
    found = re.search(r"(\d+)\.(\d+)", version)
    if rt == "vllm" and found and (int(found[1]), int(found[2])) < VLLM_V1_DEFAULT_FROM:
        return "vllm-v0"
    if rt == "llama.cpp" and gpus > 1:
        build = re.search(r"\bb(\d{3,5})\b", version)
        if build:
            return "llama.cpp-row" if int(build[1]) < LLAMA_CPP_LAYER_SPLIT_FROM_BUILD else runtime_id
        day_known = len(date) >= len(LLAMA_CPP_LAYER_SPLIT_FROM_DATE)
        unnamed = not version or version.lower().startswith("unknown")
        if unnamed and date and (date < LLAMA_CPP_LAYER_SPLIT_FROM_DATE if day_known else date[:7] < "2024-01"):
            return "llama.cpp-row"
    return runtime_id


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


def with_ubatch(runtime: Runtime, ubatch: int) -> Runtime:
    """``runtime`` taking ``ubatch`` prompt tokens a pass (llama.cpp's -ub / --ubatch-size)."""
    if not runtime.own_kernels_per_gpu:
        raise InputError(
            f"--ubatch is llama.cpp's -ub (prompt tokens per pass); {runtime.label} schedules its own prompt chunks"
        )
    if isinstance(ubatch, bool) or not isinstance(ubatch, int) or not 1 <= ubatch <= MAX_UBATCH:
        raise InputError(f"ubatch must be a whole number from 1 to {MAX_UBATCH:,} (got {ubatch})")
    return replace(runtime, prefill_chunk_tokens=ubatch)
