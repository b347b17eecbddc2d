"""The classes the calibration groups hardware by: memory technology and architecture.

Decode is bandwidth-bound, and how much of its bandwidth a device reaches depends on the
memory technology (HBM stacks next to the die, GDDR on the board, LPDDR shared with a
CPU, DDR DIMMs behind a memory controller) and on the runtime. Prefill is compute-bound,
and its share of the tensor peak depends on the architecture and the runtime's kernels.
When the measurements do not cover a class, the next wider one stands in for it.
"""

from __future__ import annotations

import re

# Memory technology -> its family, the fallback when a technology has too few points.
TECH_FAMILY = {
    "HBM2": "HBM",
    "HBM2e": "HBM",
    "HBM3": "HBM",
    "HBM3e": "HBM",
    "GDDR5": "GDDR",
    "GDDR6": "GDDR",
    "GDDR6X": "GDDR",
    "GDDR7": "GDDR",
    "LPDDR5": "LPDDR",
    "LPDDR5X": "LPDDR",
    "DDR3": "DDR",
    "DDR4": "DDR",
    "DDR5": "DDR",
}

# Runtime id -> the class it is calibrated in (ollama and LM Studio run llama.cpp).
RUNTIME_CLASS = {
    "llama.cpp": "llama.cpp",
    "llama.cpp-row": "llama.cpp",
    "llama.cpp-row-cublas": "llama.cpp",
    # Decode is bandwidth-bound and the fork reads the same GGUF tensors: llama.cpp's class.
    "ik_llama.cpp": "llama.cpp",
    "mlx": "mlx",
    "vllm": "server",
    "vllm-v0": "server",
    "vllm-pp": "server",
    "sglang": "server",
    "tensorrt-llm": "server",
    "tgi": "server",
}


# Runtimes that pay a fixed cost per decode step beyond their class's: vLLM's V0 engine
# schedules, prepares inputs and detokenizes between GPU steps on the same process; V1 (the
# default from 0.8.0, vllm-project/vllm#13726) overlaps them. AccelMark measured Qwen2.5
# 0.5B on one A100 80 GB at 261 tokens/s in vLLM 0.7.3 and 546 in 0.20.1.
OWN_STEP_COST = {"vllm-v0"}


def memory_tech(mem_type: str | None) -> str:
    """``HBM3e``, ``GDDR6X``, ``LPDDR5X``, ``DDR5`` ... from a catalog mem_type, else ``unknown``."""
    if not mem_type:
        return "unknown"
    text = mem_type.strip()
    for tech in sorted(TECH_FAMILY, key=len, reverse=True):
        if text.upper().startswith(tech.upper()):
            return tech
    return "unknown"


def tech_family(tech: str) -> str:
    return TECH_FAMILY.get(tech, "unknown")


# Blackwell comes in two SM generations: the datacenter dies (GB100/GB110, compute capability
# 10.x, with tcgen05 tensor cores) and the GeForce/workstation dies (GB20x, 12.0) with the
# DGX Spark's GB10 (12.1: Strata docs, cited in catalog/unified-system.yaml), which share one
# tensor-core design and so one prompt class.
BLACKWELL_SM12 = "Blackwell sm_12x"
# The GPU generation of SoCs whose chip name does not say it.
SOC_GPU_ARCHITECTURE = {"gb10": BLACKWELL_SM12}


def architecture(text: str | None) -> str:
    """The architecture without its die name: ``Ampere (GA102)`` -> ``Ampere``; Blackwell's
    datacenter die (GB100/GB10x) is told apart from the GeForce/workstation dies (GB20x)."""
    if not text:
        return "unknown"
    die = re.search(r"\((\w+)\)", text)
    name = re.sub(r"\s*\(.*\)", "", text).strip()
    if name == "Blackwell" and die and die.group(1).upper().startswith("GB2"):
        return BLACKWELL_SM12
    return name or "unknown"


# NVIDIA compute capability by architecture (CUDA's table), and the dies that differ from
# their architecture's: GP100 (P100) is 6.0 without __dp4a, the other Pascal dies 6.1; the
# GA10x dies are 8.6 beside GA100's 8.0.
COMPUTE_CAPABILITY = {
    "Kepler": 3.7,
    "Maxwell": 5.2,
    "Pascal": 6.1,
    "Volta": 7.0,
    "Turing": 7.5,
    "Ampere": 8.0,
    "Ada Lovelace": 8.9,
    "Hopper": 9.0,
    "Blackwell": 10.0,
    BLACKWELL_SM12: 12.0,
}
DIE_COMPUTE_CAPABILITY = {"GP100": 6.0, "GA102": 8.6, "GA103": 8.6, "GA104": 8.6, "GA106": 8.6, "GA107": 8.6}


def compute_capability(architecture_text: str | None) -> float | None:
    """An NVIDIA GPU's compute capability from its catalog architecture (``Pascal (GP100)``)."""
    die = re.search(r"\((\w+)\)", architecture_text or "")
    if die and die.group(1).upper() in DIE_COMPUTE_CAPABILITY:
        return DIE_COMPUTE_CAPABILITY[die.group(1).upper()]
    return COMPUTE_CAPABILITY.get(architecture(architecture_text))


def runtime_class(runtime_id: str) -> str:
    return RUNTIME_CLASS.get(runtime_id.lower(), runtime_id.lower())


# Runtimes whose prompt kernels are their own, so prefill is calibrated apart, falling back
# to the class they share for decode.
OWN_PREFILL_CLASS = {"ik_llama.cpp"}


# Runtimes that run a MoE layer's experts as one GEMM each in a prompt pass (ggml's
# mul_mat_id), so each expert costs a kernel's fixed time; vLLM's fused MoE kernel and MLX's
# gather_qmm take every expert in one kernel.
KERNEL_PER_EXPERT = {"llama.cpp", "llama.cpp-row", "llama.cpp-row-cublas", "ik_llama.cpp"}


def prefill_runtime_classes(runtime_id: str) -> list[str]:
    """The runtime classes prefill constants are looked up in, most specific first."""
    rt = runtime_id.lower()
    base = runtime_class(rt)
    return [rt, base] if rt in OWN_PREFILL_CLASS else [base]


def chip_architecture(chip: str, vendor: str) -> str:
    """An SoC's GPU generation: ``M2 Ultra`` -> ``Apple M2``, ``GB10`` -> Blackwell sm_12x;
    other chips as named."""
    known = SOC_GPU_ARCHITECTURE.get(chip.strip().lower())
    if known:
        return known
    match = re.match(r"M(\d)\b", chip.strip())
    if match and vendor.lower() == "apple":
        return f"Apple M{match.group(1)}"
    return chip.strip() or "unknown"


def chip_vendor(chip: str, vendor: str) -> str:
    """Who made an SoC's GPU (a Framework or GMKtec box runs AMD's)."""
    text = chip.lower()
    if re.match(r"m\d\b", text) or vendor.lower() == "apple":
        return "apple"
    if "ryzen" in text or "radeon" in text:
        return "amd"
    if text.startswith("gb") or "nvidia" in vendor.lower():
        return "nvidia"
    return vendor.lower()
