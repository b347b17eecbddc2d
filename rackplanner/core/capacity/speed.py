"""How fast: decode (bandwidth-bound, roofline at batch), prefill (compute-bound).

One decode step reads the active weights once for the whole batch plus every sequence's
KV cache, and does 2 FLOP per active parameter per sequence: its time is the larger of
the memory time and the compute time (the roofline), plus the runtime's fixed costs and,
under tensor parallelism, two all-reduces per layer over the link between the GPUs; under
pipeline parallelism the stages work on different micro-batches at once; under a row split
(rowsplit.py) the GPUs read their rows of each matrix at once and the activations travel.
"""

from __future__ import annotations

from dataclasses import dataclass

from rackplanner.core.capacity import constants as k
from rackplanner.core.capacity.fitted import (
    Calibration,
    allreduce_latency,
    current,
    decode_efficiency,
    fixed_pass_s,
    fp8_prefill_factor,
    host_efficiency,
    prefill_efficiency,
    prefill_expert_overhead,
    prefill_request_overhead,
    row_sync_cost,
)
from rackplanner.core.capacity.formats import WeightFormat, active_weight_bytes, weight_bytes
from rackplanner.core.capacity.hardware import Hardware
from rackplanner.core.capacity.rowsplit import PEER_MAX_BATCH, RowSplit, row_split
from rackplanner.core.capacity.runtime import LLAMA_CPP_UBATCH, Runtime, tensor_parallel_degree
from rackplanner.core.capacity.shape import active_params, tensor_groups
from rackplanner.core.catalog.llm_shape import (
    attention_score_flops,
    indexer_scanned_tokens,
    kv_read_values,
    moe_layer_count,
)
from rackplanner.core.catalog.parts import LlmModel


def on_fp8_peak(hw: Hardware, fmt: WeightFormat, runtime: Runtime) -> bool:
    """Whether a server runs the prompt's GEMMs on the FP8 tensor peak."""
    return fmt.family == "fp8" and not runtime.own_kernels_per_gpu and bool(hw.fp8_tflops_per_device)


def peak_tflops(hw: Hardware, fmt: WeightFormat, runtime: Runtime) -> float | None:
    """The tensor peak prefill runs at: FP8 where the weights and activations are FP8 and a
    server runtime runs FP8 GEMMs (vLLM, TensorRT-LLM, SGLang); for llama.cpp on GPUs, the
    rate its prompt GEMMs run at on each maker's backend (below); else dense FP16."""
    if on_fp8_peak(hw, fmt, runtime):
        return hw.fp8_tflops_per_device
    if runtime.own_kernels_per_gpu and hw.kind == "gpu" and hw.int8_tops_per_device:
        if hw.vendor == "nvidia" and (fmt.family == "gguf" or (fmt.family == "float" and fmt.id != "fp32")):
            # FP16/BF16 weights go through cuBLAS with FP16 accumulation (CUBLAS_COMPUTE_16F in
            # ggml-cuda's mul_mat_cublas): on NVIDIA tensor cores that rate is half the INT8 one
            # (GA102/AD102/Blackwell whitepapers; GeForce sheets quote the half-rate FP32-accumulate
            # figure as "FP16"). Quantized weights go through MMQ's INT8 MMA on q8_1 activations
            # (ggml-cuda/mmq.cuh) and are measured at alike TFLOP/s, so both scale with it.
            return hw.int8_tops_per_device / 2
        if hw.vendor == "intel" and (fmt.family == "gguf" or (fmt.family == "float" and fmt.id != "fp32")):
            # ggml-sycl has MMQ switched off for every type (ggml_sycl_supports_mmq returns
            # false, "TODO: accuracy issues in MMQ"): a prompt's weights are dequantized to FP16
            # for a oneDNN GEMM, which runs on XMX at the FP16 rate, half the INT8 one (Arc Pro
            # B60 sheet: 98.3 TFLOPS FP16, 196.61 TOPS INT8).
            return hw.fp16_tensor_tflops_per_device or hw.int8_tops_per_device / 2
        if fmt.family == "gguf":
            # Elsewhere MMQ's INT8 dot products (DP4A, WMMA) are the quantized path's rate.
            return hw.int8_tops_per_device
    return hw.tflops_per_device


def _sockets_gain(cal: Calibration, hw: Hardware) -> float:
    """Bandwidth multiple of ``hw.devices`` CPU sockets: each further socket adds its
    NUMA-scaled share (fitted), all of it when no multi-socket point was measured."""
    scaling = 1.0 if cal.numa_scaling is None else cal.numa_scaling
    return 1 + scaling * (hw.devices - 1)


@dataclass(frozen=True)
class SpeedInputs:
    """Everything per model, format and hardware that the step-time formulas need,
    worked out once so that a batch search costs a few multiplications per step."""

    model: LlmModel
    hw: Hardware
    runtime: Runtime
    active_bytes: float
    held_bytes: float
    active_params: float
    # The output head's share of active_params: a prompt computes logits for its last token only.
    head_params: float
    kv_value_bytes: float
    offload_fraction: float
    tp: int
    pp: int
    mem_bytes_per_s: float
    host_bytes_per_s: float
    flops_per_s: float
    fixed_step_s: float
    # Fixed seconds of one prefill pass and the most prompt tokens a pass takes.
    fixed_prefill_pass_s: float = 0.0
    # A row split's fixed cost per split matrix, 128-token chunk and further GPU.
    row_sync_s: float = 0.0
    prefill_chunk_tokens: int = LLAMA_CPP_UBATCH
    # Fixed seconds a served request waits for its first token beyond its prompt's passes.
    prefill_request_s: float = 0.0
    # One all-reduce's (or pipeline hand-over's) latency beyond its bytes over the link.
    allreduce_latency_s: float = 0.0
    # The fitted shares used above and the classes they were fitted on (fitted.py).
    decode_eff: float = 1.0
    prefill_eff: float = 1.0
    host_eff: float = 1.0
    decode_class: str = ""
    prefill_class: str = ""
    # llama.cpp's row split over several GPUs, if that is the runtime.
    rows: RowSplit | None = None
    # How much slower a prompt's attention runs than its GEMMs: FlashAttention multiplies
    # FP16 with FP32 accumulation whatever the weights' format, so against a GEMM peak of
    # INT8 (llama.cpp's quantized types) or FP8 its rate is the FP16 tensor peak's, at the
    # class's 16-bit share.
    attention_slowdown: float = 1.0

    @classmethod
    def build(
        cls,
        model: LlmModel,
        fmt: WeightFormat,
        hw: Hardware,
        runtime: Runtime,
        *,
        kv_bytes: float = 2.0,
        offload_fraction: float = 0.0,
        calibration: Calibration | None = None,
    ) -> SpeedInputs:
        embd = model.vocab_size * model.hidden_size * fmt.bits_by_class(model.hidden_size)["token_embd"] / 8
        cal = calibration or current()
        tp = tensor_parallel_degree(model, hw, runtime)
        # GPUs under a layer split take turns, so one GPU's bandwidth counts; CPU sockets
        # each read their share, less what crossing NUMA nodes costs.
        parallel = tp if hw.kind == "gpu" else _sockets_gain(cal, hw)
        decode_eff, decode_class = decode_efficiency(cal, hw, runtime.id)
        mem = decode_eff * hw.mem_bw_gbs_per_device * k.GB * parallel
        host_eff = host_efficiency(cal)
        host = host_eff * (hw.host_bw_gbs or 0.0) * k.GB
        tflops = peak_tflops(hw, fmt, runtime)
        prefill_eff, prefill_class = prefill_efficiency(cal, hw, runtime.id)
        gemm_share = 1.0  # of the class's share: what FP8 GEMMs reach of the FP8 peak
        if on_fp8_peak(hw, fmt, runtime):
            fp8_factor = fp8_prefill_factor(cal.prefill_fp8_factor, hw, runtime.id)
            gemm_share = fp8_factor
            prefill_eff *= fp8_factor
            prefill_class += f" x{fp8_factor:.2f} on the FP8 peak"
        flops = prefill_eff * tflops * 1e12 * parallel if tflops else float("inf")
        hops = hw.devices - 1 if runtime.split == "layer" and hw.kind == "gpu" else 0
        rows = row_split(model, hw, runtime, quantized=fmt.family == "gguf")
        # Attention runs at the class's share of the FP16 peak, not at the FP8 GEMMs' share.
        fp16 = hw.fp16_tensor_tflops_per_device
        slowdown = gemm_share * tflops / fp16 if tflops and fp16 else 1.0
        return cls(
            model=model,
            hw=hw,
            runtime=runtime,
            active_bytes=active_weight_bytes(model, fmt),
            held_bytes=weight_bytes(model, fmt) - embd,
            active_params=active_params(model),
            head_params=tensor_groups(model, active=True).output,
            kv_value_bytes=kv_bytes,
            offload_fraction=offload_fraction,
            tp=tp,
            pp=hw.devices if runtime.split == "pipeline" and hw.kind == "gpu" else 1,
            mem_bytes_per_s=mem,
            host_bytes_per_s=host,
            flops_per_s=flops,
            attention_slowdown=slowdown,
            fixed_step_s=fixed_pass_s(
                cal, hw, runtime.id, model.layers, moe_layer_count(model), hops, rows.syncs if rows else 0
            ),
            fixed_prefill_pass_s=(
                prefill_expert_overhead(cal, hw, runtime.id) * moe_layer_count(model) * (model.moe_experts or 0)
            ),
            prefill_chunk_tokens=runtime.prefill_chunk_tokens,
            row_sync_s=row_sync_cost(cal, runtime.id) if rows else 0.0,
            prefill_request_s=prefill_request_overhead(cal, runtime.id),
            allreduce_latency_s=allreduce_latency(cal, runtime.id),
            decode_eff=decode_eff,
            prefill_eff=prefill_eff,
            host_eff=host_eff,
            decode_class=decode_class,
            prefill_class=prefill_class,
            rows=rows,
        )

    def weights_read(self, batch: int) -> float:
        """Weight bytes one step reads: a batch of a MoE model touches more experts."""
        m = self.model
        if not (m.moe_experts and m.moe_active_experts) or batch == 1 or m.moe_active_experts >= m.moe_experts:
            return self.active_bytes  # dense, one sequence, or every expert active anyway
        share = m.moe_active_experts / m.moe_experts
        touched = 1 - (1 - share) ** batch
        expert_bytes = self.held_bytes - self.active_bytes
        return self.active_bytes + expert_bytes * (touched - share) / (1 - share)

    def attention_flops(self, context: int, *, prompt: bool = False) -> float:
        """QK^T and AV of one token decoded at ``context`` (or, with ``prompt``, the mean
        token of a prompt that long) over the layers that attend to its past, and a sparse
        layer's indexer scoring every cached token."""
        m = self.model
        indexer = 2 * (m.indexer_heads or 0) * (m.indexer_head_dim or 0)
        scanned = indexer_scanned_tokens(m, context, prompt=prompt)
        return attention_score_flops(m, context, prompt=prompt) + indexer * scanned

    def kv_read_bytes(self, context: int) -> float:
        """KV cache and recurrent state one sequence reads per decode step at ``context``."""
        return kv_read_values(self.model, context) * self.kv_value_bytes


def allreduce_count(s: SpeedInputs) -> int:
    """All-reduces of one forward pass: two per layer under tensor parallelism."""
    return 2 * s.model.layers if s.tp > 1 and s.hw.link_gbs else 0


def allreduce_s(s: SpeedInputs, tokens: int) -> float:
    """Two all-reduces per layer of ``tokens`` hidden-size FP16 vectors over the TP group."""
    count, link_gbs = allreduce_count(s), s.hw.link_gbs
    if not count or not link_gbs:
        return 0.0
    message = tokens * s.model.hidden_size * 2
    ring = 2 * (s.tp - 1) / s.tp * message / (link_gbs * k.GB)
    return count * (s.allreduce_latency_s + ring)


def step_bytes(s: SpeedInputs, batch: int, context: int) -> float:
    """Bytes the busiest GPU reads in a decode step: weights (a row split's further GPUs read
    their rows) and every sequence's KV cache."""
    return s.weights_read(batch) - row_split_unread_bytes(s) + batch * s.kv_read_bytes(context)


def link_s(s: SpeedInputs, tokens: int) -> float:
    """Seconds a pass of ``tokens`` tokens spends between GPUs, and copying for them: tensor
    parallelism's all-reduces, a row split's copies and its FP16 copies of the weights."""
    return allreduce_s(s, tokens) + row_transfer_s(s, tokens) + row_dequant_s(s, tokens)


def row_dequant_s(s: SpeedInputs, tokens: int) -> float:
    """Seconds a row split's cuBLAS path spends dequantizing the main GPU's rows to FP16 for
    each 128-token chunk of a pass: their quantized bytes read, FP16 written and read back,
    streamed at the memory's peak (the fitted decode share is not known to the fit yet)."""
    chunks = s.rows.dequantized_chunks(tokens) if s.rows else 0
    if not chunks or s.rows is None:
        return 0.0
    share = s.rows.split_share / s.rows.devices
    fp16_bytes = 2 * s.active_params * share
    return chunks * (s.active_bytes * share + 2 * fp16_bytes) / (s.hw.mem_bw_gbs_per_device * k.GB)


def _row_work_share(s: SpeedInputs) -> float:
    return s.rows.read_share() if s.rows else 1.0


def row_split_unread_bytes(s: SpeedInputs) -> float:
    """Weight bytes of a step that the further GPUs of a row split read, not the main one."""
    return s.active_bytes * (1 - _row_work_share(s))


def row_transfer_s(s: SpeedInputs, tokens: int) -> float:
    """Seconds a pass of ``tokens`` tokens spends copying a row split's activations: over the
    GPUs' link while peer access is on, else (and with no link) through host memory, which
    each byte crosses twice."""
    if s.rows is None:
        return 0.0
    link_gbs = s.hw.link_gbs if tokens <= PEER_MAX_BATCH and s.hw.link_kind in ("NVLink", "PCIe P2P") else None
    link_gbs = link_gbs or (s.hw.host_link_gbs or 0.0) / 2
    if not link_gbs:
        return 0.0
    return tokens * s.rows.transfer_bytes_per_token(tokens) / (link_gbs * k.GB)


def _hop_s(s: SpeedInputs, tokens: float) -> float:
    """Hand ``tokens`` hidden-size FP16 vectors from one pipeline stage to the next."""
    if not s.hw.link_gbs:
        return 0.0
    return s.allreduce_latency_s + tokens * s.model.hidden_size * 2 / (s.hw.link_gbs * k.GB)


def _pipeline_step_s(s: SpeedInputs, batch: int, context: int) -> float:
    """Steady state with min(batch, stages) micro-batches in flight: one token for every
    sequence per ``stages`` stage times; fewer micro-batches than stages leave GPUs idle."""
    p = s.pp
    micro_batches = min(batch, p)
    micro = batch / micro_batches
    weights = s.weights_read(max(1, round(micro))) / p
    mem_s = (weights + micro * s.kv_read_bytes(context) / p) / s.mem_bytes_per_s
    compute_s = micro * decode_flops_per_token(s, context) / p / s.flops_per_s
    stage = max(mem_s, compute_s) + _hop_s(s, micro)
    return p * stage + s.fixed_step_s


def decode_step_s(s: SpeedInputs, batch: int, context: int) -> float:
    """Seconds for one decode step producing one token for each of ``batch`` sequences."""
    if s.pp > 1:
        return _pipeline_step_s(s, batch, context)
    moved = step_bytes(s, batch, context)
    if s.offload_fraction and s.host_bytes_per_s:
        mem_s = (1 - s.offload_fraction) * moved / s.mem_bytes_per_s + s.offload_fraction * moved / s.host_bytes_per_s
    else:
        mem_s = moved / s.mem_bytes_per_s
    compute_s = batch * decode_flops_per_token(s, context) / s.flops_per_s
    return max(mem_s, compute_s) + s.fixed_step_s + row_chunk_waits_s(s, batch) + link_s(s, batch)


def row_chunk_waits_s(s: SpeedInputs, tokens: int) -> float:
    """A row split's waits beyond the first 128-token chunk of a pass (the step's fixed cost
    counts one chunk per split matrix and further GPU)."""
    return (s.rows.pass_syncs(tokens) - s.rows.syncs) * s.row_sync_s if s.rows else 0.0


def decode_flops_per_token(s: SpeedInputs, context: int) -> float:
    """FLOPs the busiest GPU does per decoded token at ``context``: the active weights (a row
    split's main GPU its rows only) and attention over the cache."""
    return 2 * s.active_params * _row_work_share(s) + s.attention_flops(context)


def decode_tokens_per_s(s: SpeedInputs, batch: int, context: int) -> float:
    """Generated tokens per second over a batch of ``batch`` sequences."""
    return batch / decode_step_s(s, batch, context)


def prompt_attention_flops(s: SpeedInputs, prompt: int, depth: int = 0) -> float:
    """Attention FLOPs of the mean token of a prompt of ``prompt`` tokens that follows
    ``depth`` tokens already in the cache (a chat's history, llama-bench's -d): the prompt's
    share of a prompt ``depth + prompt`` long, n x mean(n) summed over its tokens."""
    if depth <= 0:
        return s.attention_flops(prompt, prompt=True)
    whole = depth + prompt
    return (whole * s.attention_flops(whole, prompt=True) - depth * s.attention_flops(depth, prompt=True)) / prompt


def prompt_flops_per_token(s: SpeedInputs, prompt: int, depth: int = 0) -> float:
    """FLOPs per prompt token: every layer's weights and attention (over ``depth`` cached
    tokens too), the output head once per prompt (llama.cpp, vLLM and TensorRT-LLM compute
    the last token's logits only); under a row split, those the main GPU does."""
    body = s.active_params - s.head_params
    weights = 2 * body + 2 * s.head_params / max(prompt, 1)
    # A row split's GPUs multiply their rows at once: the main GPU's share is what takes time.
    return weights * _row_work_share(s) + prompt_attention_flops(s, prompt, depth) * s.attention_slowdown


def prefill_tokens_per_s(s: SpeedInputs, prompt: int, depth: int = 0) -> float:
    """Prompt tokens per second for a prompt of ``prompt`` tokens after ``depth`` cached
    ones (compute-bound)."""
    flops_per_token = prompt_flops_per_token(s, prompt, depth)
    ubatch = min(prompt, s.prefill_chunk_tokens)
    # Weights are streamed once per micro-batch: a floor that matters on CPUs and tiny prompts
    # (a row split's main GPU streams its rows only).
    mem_per_token = s.held_bytes * _row_work_share(s) / ubatch / s.mem_bytes_per_s
    # A prompt pass launches the same kernels as a decode step, so it pays the step's fixed cost.
    fixed_s = s.fixed_step_s + s.fixed_prefill_pass_s + row_chunk_waits_s(s, ubatch)
    per_token = max(flops_per_token / s.flops_per_s, mem_per_token) + fixed_s / ubatch
    per_token += link_s(s, ubatch) / ubatch
    if s.pp > 1:
        # Chunks of one prompt flow through the stages one after another: c chunks take
        # (c + p - 1) stage times of 1/p of the work each.
        chunks = -(-prompt // ubatch)
        per_token *= (chunks + s.pp - 1) / (chunks * s.pp)
    if s.offload_fraction and s.hw.host_link_gbs:
        # For a prompt batch llama.cpp copies the layers kept in RAM to the GPU over PCIe.
        per_token += s.offload_fraction * s.held_bytes / ubatch / (s.hw.host_link_gbs * k.GB)
    # Paid once per request, not per pass or pipeline stage.
    per_token += s.prefill_request_s / prompt
    return 1 / per_token


def best_batch(s: SpeedInputs, context: int, max_batch: int) -> tuple[int, float]:
    """The batch (up to what memory holds, at most the runtime's sequence cap) with the
    most decode tokens/s. Along the roofline the rate only grows with batch (memory-bound:
    the weights are shared; compute-bound: it levels off), so that is the largest batch, or
    under a row split the largest before its copies change path."""
    batch = max(1, min(max_batch, k.MAX_BATCH_SEQUENCES))
    single = 1 / decode_step_s(s, 1, context)
    if batch == 1:
        return 1, single
    # A row split's step jumps where its copies change path (cuBLAS above the MMQ limit, host
    # memory above the peer-access limit): the batch just below each jump is a candidate too.
    candidates = {batch}
    if s.rows:
        candidates |= {b for b in (s.rows.q8_1_max_tokens, PEER_MAX_BATCH) if b and 1 < b < batch}
    rate, best = max((b / decode_step_s(s, b, context), b) for b in candidates)
    return (best, rate) if rate > single else (1, single)


def requests_per_s(
    s: SpeedInputs,
    *,
    prompt: int,
    output: int,
    target_tokens_per_s: float,
    context: int,
    max_batch: int,
    prefill_tps: float,
) -> tuple[int, float]:
    """Concurrent requests and requests/s while each user still sees ``target_tokens_per_s``."""
    budget = 1 / target_tokens_per_s
    if decode_step_s(s, 1, context) > budget:
        return 0, 0.0
    low, high = 1, max(max_batch, 1)
    if decode_step_s(s, high, context) <= budget:
        low = high
    while high - low > 1:  # step time grows with batch: bisect for the largest within budget
        mid = (low + high) // 2
        if decode_step_s(s, mid, context) <= budget:
            low = mid
        else:
            high = mid
    per_request = output * decode_step_s(s, low, context) + low * prompt / prefill_tps
    return low, low / per_request
