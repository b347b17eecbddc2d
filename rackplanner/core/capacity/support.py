"""Which weight formats a serving runtime runs on which NVIDIA GPUs.

From vLLM's quantization supported-hardware table (v0.9.2,
https://docs.vllm.ai/en/v0.9.2/features/quantization/supported_hardware.html) and its FP8
page (FP8 W8A8 from compute capability 8.9; weight-only W8A16 through FP8 Marlin from 7.5),
and NVIDIA Transformer Engine's support matrix (NVFP4 from Blackwell, compute capability 10).
Other vendors' GPUs are not checked: the table's columns for them change between releases.
"""

from __future__ import annotations

from rackplanner.core.capacity.classes import runtime_class
from rackplanner.core.capacity.hardware import Hardware
from rackplanner.core.capacity.layouts import WeightFormat
from rackplanner.core.capacity.runtime import Runtime

# The lowest compute capability each kind of weight format runs at in a serving runtime.
_MIN_CC = (
    (lambda f: f.family == "fp8", 7.5, "FP8 weights"),
    (lambda f: f.id.startswith("awq-"), 7.5, "AWQ weights"),
    (lambda f: f.id.startswith("nvfp4"), 10.0, "NVFP4 weights"),
)


# vLLM's own floor: "GPU: compute capability 7.0 or higher (e.g., V100, T4, RTX20xx, A100,
# L4, H100, etc.)" in its installation docs from v0.3.3 to v0.14.0 (7.5 from v0.21.0).
VLLM_MIN_CC = 7.0
VLLM_RUNTIMES = frozenset({"vllm", "vllm-v0", "vllm-pp"})


def unsupported(runtime: Runtime, fmt: WeightFormat, hw: Hardware) -> str | None:
    """Why ``runtime`` cannot run ``fmt`` on ``hw``'s GPUs, or None when it can (or is not known not to)."""
    if runtime_class(runtime.id) != "server" or hw.kind != "gpu" or hw.vendor != "nvidia":
        return None
    cc = hw.compute_capability
    if cc is None:
        return None
    if runtime.id in VLLM_RUNTIMES and cc < VLLM_MIN_CC:
        return (
            f"vLLM runs on NVIDIA GPUs of compute capability {VLLM_MIN_CC:.1f} or later (its installation "
            f"docs); {hw.label} ({hw.arch}) is {cc:.1f}: use llama.cpp"
        )
    for applies, lowest, what in _MIN_CC:
        if applies(fmt) and cc < lowest:
            return (
                f"{runtime.label} runs {what} on NVIDIA GPUs of compute capability {lowest:g} or later; "
                f"{hw.label} ({hw.arch}) is {cc:g}: choose another format"
            )
    return None


def support_unknown(runtime: Runtime, fmt: WeightFormat, hw: Hardware) -> str | None:
    """A note when whether ``runtime`` runs ``fmt`` on ``hw`` is not checked (not an NVIDIA GPU)."""
    quantized = fmt.family in ("fp8", "int", "fp4", "nf4") or fmt.id.startswith(("awq-", "gptq-"))
    if runtime_class(runtime.id) != "server" or hw.kind == "cpu" or hw.vendor == "nvidia" or not quantized:
        return None
    # A quantized format a server has no kernel for on a GPU still runs, far slower, by
    # a fallback path: kyuz0/amd-strix-halo-vllm-toolboxes#10 saw gpt-oss-120b (MXFP4) at
    # 7.9 tokens/s in vLLM on a Ryzen AI Max+ 395, where llama.cpp decodes it at 34-57
    # (tests/data/measured.csv).
    return (
        f"whether {runtime.label} runs {fmt.label} on {hw.arch} GPUs at full speed is not checked "
        "(the catalog's support table covers NVIDIA GPUs only); without a kernel for it, it runs "
        "several times slower than estimated"
    )


# The weight formats each runtime loads, by format family (formats.py). llama.cpp and its
# fork read GGUF files and plain floats; MLX its own quantization (affine 4/8-bit, and the
# microscaling modes: mlx.core.quantize's mxfp4 and nvfp4) and GGUF's Q4_0, Q4_1 and Q8_0
# (mlx.core.load); TensorRT-LLM loads no GGUF, MLX or bitsandbytes checkpoint. The other
# servers load most formats (vLLM's GGUF loading is experimental); MLX's files are Apple's.
_LLAMA_CPP = frozenset({"llama.cpp", "llama.cpp-row", "llama.cpp-row-cublas", "ik_llama.cpp"})
_MLX_GGUF = frozenset({"q4_0", "q4_1", "q8_0", "mxfp4"})


def format_refusal(runtime: Runtime, fmt: WeightFormat) -> str | None:
    """Why ``runtime`` cannot load weights in ``fmt`` at all, or None."""
    rid = runtime.id.lower()
    if rid != "mlx" and fmt.family == "mlx":
        return f"{fmt.label} files are MLX's (Apple silicon): use --runtime mlx, or another format"
    # gpt-oss converted to GGUF as shipped keeps MXFP4 experts and BF16 elsewhere
    # (convert_hf_to_gguf.py; llama.cpp#15396 ran such a 12.83 GiB gpt-oss-20b file).
    if rid in _LLAMA_CPP and fmt.family not in ("gguf", "float") and fmt.id != "mxfp4-bf16":
        return (
            f"{runtime.label} loads GGUF files (q4_k_m, q8_0, mxfp4 ...) and fp16/bf16/fp32 weights, "
            f"not {fmt.label}: choose a GGUF format, or a server runtime (--runtime vllm) for this checkpoint"
        )
    if rid == "mlx" and not (fmt.family in ("mlx", "float", "fp4") or fmt.id in _MLX_GGUF):
        return (
            f"{runtime.label} loads MLX quantizations (mlx-4bit, mlx-8bit, mxfp4), GGUF Q4_0/Q4_1/Q8_0 and "
            f"plain floats, not {fmt.label}"
        )
    if rid == "tensorrt-llm" and fmt.family in ("gguf", "nf4"):
        return f"TensorRT-LLM does not load {fmt.label}: choose fp8, nvfp4, an AWQ/GPTQ checkpoint or bf16"
    return None
