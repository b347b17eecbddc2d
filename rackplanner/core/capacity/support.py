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

# NVIDIA compute capability by architecture (CUDA's table).
COMPUTE_CAPABILITY = {
    "Kepler": 3.7,
    "Maxwell": 5.2,
    "Pascal": 6.0,
    "Volta": 7.0,
    "Turing": 7.5,
    "Ampere": 8.0,
    "Ada Lovelace": 8.9,
    "Hopper": 9.0,
    "Blackwell": 10.0,
    "Blackwell sm_12x": 12.0,
}
# The lowest compute capability each kind of weight format runs at in a serving runtime.
_MIN_CC = (
    (lambda f: f.family == "fp8", 7.5, "FP8 weights"),
    (lambda f: f.id.startswith("awq-"), 7.5, "AWQ weights"),
    (lambda f: f.id == "nvfp4", 10.0, "NVFP4 weights"),
)


def unsupported(runtime: Runtime, fmt: WeightFormat, hw: Hardware) -> str | None:
    """Why ``runtime`` cannot run ``fmt`` on ``hw``'s GPUs, or None when it can (or is not known not to)."""
    if runtime_class(runtime.id) != "server" or hw.kind != "gpu" or hw.vendor != "nvidia":
        return None
    cc = COMPUTE_CAPABILITY.get(hw.arch)
    if cc is None:
        return None
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
    if runtime_class(runtime.id) != "server" or hw.kind != "gpu" or hw.vendor == "nvidia" or not quantized:
        return None
    return (
        f"whether {runtime.label} runs {fmt.label} on {hw.arch} GPUs is not checked "
        "(the catalog's support table covers NVIDIA GPUs only)"
    )
