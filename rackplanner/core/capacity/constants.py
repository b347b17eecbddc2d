"""Named constants of the capacity model, each with where it comes from.

Efficiencies (achieved fraction of a device's bandwidth or TFLOP/s) and per-token costs
were fitted once to the measurements in ``tests/data/measured.csv`` as class-wide values
(one number per device class and runtime, the median over that class's points), not
per point; ``tests/test_capacity_calibration.py`` prints how far the estimates land from
every point.
"""

from __future__ import annotations

GB = 1e9  # results and bandwidths are decimal GB (10^9 bytes), as spec sheets give bandwidth
# Memory is built from chips of binary size: a "24 GB" card holds 24 GiB (nvidia-smi lists
# 24576 MiB) and a "32 GB" DIMM 32 GiB, so a catalog capacity in GB counts 2^30 bytes.
MEMORY_GB_BYTES = 2**30

# --- decode: achieved fraction of memory bandwidth ----------------------------------
# GPUs: fitted together with the per-layer overhead below, by least squares over the
# llama.cpp GPU decode points (calibration.fit_constants gives 0.847 and 64 µs).
GPU_DECODE_BW_EFFICIENCY = 0.85
# Unified-memory SoCs (Apple M-series, Metal): one decode point only (M1 Ultra), so the
# GPU value is used rather than a fit to it.
SOC_DECODE_BW_EFFICIENCY = GPU_DECODE_BW_EFFICIENCY
# CPU servers: 995 GB/s read measured of 1,228.8 GB/s theoretical on a 4-socket DDR5-4800
# server (003_fdb6d644ec457317.txt) = 0.81. Not fitted; the one CPU point agrees.
CPU_DECODE_BW_EFFICIENCY = 995 / 1228.8

# --- decode: fixed cost per token -----------------------------------------------------
# Kernel launches, synchronisation and sampling: llama.cpp pays them per layer per token,
# which is what keeps small fast models (7-8B at 4 bits) well below the bandwidth bound.
LLAMA_CPP_LAYER_OVERHEAD_S = 64e-6
# Tensor-parallel servers (vLLM, TensorRT-LLM) capture a step in CUDA graphs: a fixed cost
# per step, the median leftover of the tensor-parallel points (fit: 1.5 ms).
TP_SERVER_STEP_OVERHEAD_S = 1.5e-3
# One all-reduce's latency floor (NCCL ring, small message) per call; not fitted.
ALLREDUCE_LATENCY_S = 20e-6

# --- prefill: achieved fraction of dense FP16 tensor TFLOP/s ---------------------------
# Median per device class over the llama.cpp prefill points. GeForce sheets quote FP16
# with FP32 accumulate (half rate) and llama.cpp's FP16 GEMMs get close to it;
# workstation and datacenter cards quote the full rate and llama.cpp (2023-24) reached
# far less of it on them. The SoC value rests on one M1 Ultra point (against the GPU's
# FP32 figure); CPUs have no prefill point and take the workstation value.
PREFILL_TFLOPS_EFFICIENCY: dict[str, float] = {
    "geforce": 0.79,
    "workstation": 0.32,
    "datacenter": 0.14,
    "soc": 0.66,
    "cpu": 0.32,
}
# vLLM / TensorRT-LLM prefill share of dense TFLOP/s; no prefill point in measured.csv,
# so an assumption (about half of peak is what large GEMMs reach), not a fit.
TP_SERVER_PREFILL_TFLOPS_EFFICIENCY = 0.50

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
# AMX tiles: 1,024 BF16 FLOP per cycle per core (Intel AMX overview, Sapphire Rapids).
AMX_BF16_FLOP_PER_CYCLE = 1024

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
