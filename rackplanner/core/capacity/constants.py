"""Named constants of the capacity model, each with where it comes from.

The fitted ones (achieved shares of bandwidth and peak, fixed costs) live in
``fitted_constants.json``; this module holds the physical and documented ones.
"""

from __future__ import annotations

GB = 1e9  # results and bandwidths are decimal GB (10^9 bytes), as spec sheets give bandwidth
# Memory is built from chips of binary size: a "24 GB" card holds 24 GiB (nvidia-smi lists
# 24576 MiB) and a "32 GB" DIMM 32 GiB, so a catalog capacity in GB counts 2^30 bytes.
MEMORY_GB_BYTES = 2**30

# Achieved shares of bandwidth and tensor peak, and the runtimes' fixed costs per layer,
# step, hop and all-reduce, are fitted to published measurements: fitted_constants.json, written by
# `rackplanner calibrate tests/data/measured.csv --write` (fit.py, fitted.py).

# Most sequences a server batches at once: vLLM's default max_num_seqs
# up to v0.6 (https://docs.vllm.ai/en/v0.6.3.post1/models/engine_args.html: "--max-num-seqs ... Default: 256").
MAX_BATCH_SEQUENCES = 256

# --- memory ---------------------------------------------------------------------------
# CUDA context, cuBLAS workspace and allocator slack per GPU.
GPU_RUNTIME_OVERHEAD_GB = 0.8
# vLLM reserves this share of VRAM (gpu_memory_utilization default 0.9) and fills the
# rest with weights and KV cache.
VLLM_GPU_MEMORY_UTILIZATION = 0.90
# Apple GPUs can wire about 75% of unified memory (recommendedMaxWorkingSetSize; ~70% on
# 32 GB, ~78% on larger machines, per github.com/XiongjieDai/GPU-Benchmarks-on-LLM-Inference).
SOC_GPU_MEMORY_FRACTION = 0.75
# Operating system and runtime share of a CPU server's RAM kept free.
CPU_RAM_RESERVED_GB = 4.0
# Activations and logits of one decode step are small next to weights and KV cache: a
# scratch buffer per sequence of this many hidden-size FP32 vectors.
ACTIVATION_VECTORS_PER_SEQUENCE = 64

# --- CPU compute -----------------------------------------------------------------------
# FP32 FLOP per cycle per core when the catalog gives none: two 256-bit FMA units (AVX2,
# Haswell and Zen 2 onward) = 2 × 8 lanes × 2 = 32; two 512-bit units (AVX-512 Xeons) = 64.
AVX2_FP32_FLOP_PER_CYCLE = 32
AVX512_FP32_FLOP_PER_CYCLE = 64
# Zen 4 runs AVX-512 on its two 256-bit FMA pipes, each 512-bit instruction split over them
# ("double-pumping", numberworld.org's Zen 4 and Zen 5 AVX-512 teardowns, A. J. Yee), so it
# does AVX2's 32 FP32 FLOP per cycle; Zen 5 widened the pipes to 512 bits. The seed's
# Ryzen 7000 figures agree: Ryzen 7 7800X3D 1.3 TFLOPS = 8 cores x 32 x 5.0 GHz.
DOUBLE_PUMPED_AVX512_FAMILIES = frozenset(
    {"EPYC 9004", "EPYC 8004", "EPYC 4004", "Ryzen 7000", "Ryzen 8000", "Threadripper 7000", "Threadripper PRO 7000WX"}
)

# --- training ----------------------------------------------------------------------------
# Mixed-precision AdamW: fp16 weight copy, fp32 master weight, gradient, two moments:
# 18 bytes per parameter (000_2736fecfd42346e5.txt: 7B -> 126 GB).
ADAMW_MIXED_BYTES_PER_PARAM = 18.0
# Llama 3 pre-training: 419 unexpected interruptions, 148 of them GPU failures, in 54 days
# on 16,384 H100s (003_fdb6d644ec457317.txt).
LLAMA3_INTERRUPTIONS = 419
LLAMA3_GPU_FAILURES = 148
LLAMA3_DAYS = 54
LLAMA3_GPUS = 16384
DEFAULT_MFU = 0.40
