"""llama.cpp's row split (``--split-mode row``, the only multi-GPU mode before January 2024).

Every 2D weight matrix is cut by rows over the GPUs, so each GPU reads its share of those
weights at once (decode gains their bandwidth), while the main GPU keeps everything else:
the KV cache, attention and the other small ops (llama.h: main_gpu is "used for small tensors
and intermediate results"). Routed experts are not split ("Splits only dense weights across
GPUs", ggml-org/llama.cpp#22729): each stays whole on one GPU, so their reads take turns as
under a layer split. For each split matrix the main GPU copies the activations to every
further GPU, as q8_1 where the kernel takes them so (quantized weights) and F32 where it
does not, and gathers the F32 slices back (``ggml_cuda_op_mul_mat``). Measured: the layer
split became llama.cpp's default in ggml-org/llama.cpp#4766 (2024-01-12) because of "faster
pp ... (slower tg than row split)". Peer access between GPUs is enabled only for
batches of at most ``GGML_CUDA_PEER_MAX_BATCH_SIZE`` (128) tokens, so a prompt's micro-batch
of 512 tokens is copied through host memory. A split matrix takes its activations 128 tokens
at a time (``MUL_MAT_SRC1_COL_STRIDE``), and each such chunk costs a fixed time per further GPU
(copies launched, an event waited for), fitted as ``row_sync_s``.

Whether the activations go as q8_1 or F32 follows the GEMM a GPU runs at that many tokens
(``ggml_cuda_should_use_mmq``): since ggml-org/llama.cpp#8075 (merged 2024-06-24) NVIDIA GPUs
take MMQ at every size except the V100, which has FP16 tensor cores but no INT8 MMQ and takes
cuBLAS from 64 tokens (``MMQ_DP4A_MAX_BATCH_SIZE``); before it, any GPU with FP16 tensor cores
took cuBLAS above 32 tokens (``MMQ_MAX_BATCH_SIZE``). GPUs without ``__dp4a`` (the P100's
GP100, compute capability 6.0, and older) take cuBLAS for the split (dense) matrices. Other
makers' choice depends on the architecture and the type and is not modelled: their
activations are taken as q8_1.
"""

from __future__ import annotations

from dataclasses import dataclass

from rackplanner.core.capacity.hardware import Hardware
from rackplanner.core.capacity.runtime import Runtime
from rackplanner.core.capacity.shape import tensor_groups
from rackplanner.core.catalog import llm_shape
from rackplanner.core.catalog.parts import LlmModel

# Bytes per activation value: F32, or q8_1 (36 bytes per block of 32 values; ggml's
# block_q8_1 holds two halves and 32 int8s) for the copies in to quantized weights.
F32_BYTES = 4
Q8_1_BYTES = 36 / 32
# Above this many tokens per pass ggml-cuda turns peer access off (GGML_CUDA_PEER_MAX_BATCH_SIZE).
PEER_MAX_BATCH = 128
# Tokens of a split matrix's input handled at a time, each chunk waiting on every further GPU.
CHUNK_TOKENS = 128
# The most tokens MMQ takes on a V100 since #8075 (ne11 < MMQ_DP4A_MAX_BATCH_SIZE = 64), and on
# any GPU with FP16 tensor cores before it (MMQ_MAX_BATCH_SIZE = 32).
VOLTA_MMQ_MAX_TOKENS = 63
LEGACY_MMQ_MAX_TOKENS = 32
# Compute capabilities: FP16 tensor cores (Volta), INT8 tensor-core MMQ (Turing), __dp4a (Pascal GP10x).
FP16_MMA_CC, INT8_MMA_CC, DP4A_CC = 7.0, 7.5, 6.1


def chunks(tokens: int) -> int:
    """128-token chunks a split matrix takes a pass of ``tokens`` tokens in (at least one)."""
    return max(1, -(-tokens // CHUNK_TOKENS))


@dataclass(frozen=True)
class RowSplit:
    """What a row split over ``devices`` GPUs changes in a forward pass."""

    devices: int
    # Share of the active parameters whose rows are spread over the GPUs.
    split_share: float
    # Weight matrices split per forward pass; each costs a sync per further GPU.
    matrices: int
    # Activation values per token copied to the further GPUs (each) and gathered back.
    values_in_per_token: float
    values_out_per_token: float
    # The most tokens a pass may hold for its activations to go as q8_1 (None: any; 0: never).
    q8_1_max_tokens: int | None = None
    # Quantized weights, which the cuBLAS path dequantizes to FP16 for every chunk.
    quantized: bool = True

    @property
    def syncs(self) -> int:
        """Fixed costs a forward pass of up to 128 tokens pays: a split matrix on each further GPU."""
        return self.matrices * (self.devices - 1)

    def pass_syncs(self, tokens: int) -> int:
        """Fixed costs a pass of ``tokens`` tokens pays: one per 128-token chunk of each split matrix."""
        return self.syncs * chunks(tokens)

    def mmq_at(self, tokens: int) -> bool:
        """Whether a pass of ``tokens`` tokens runs MMQ (activations as q8_1), not cuBLAS."""
        return self.q8_1_max_tokens is None or tokens <= self.q8_1_max_tokens

    def dequantized_chunks(self, tokens: int) -> int:
        """Times a pass of ``tokens`` tokens dequantizes each GPU's rows to FP16: once per
        128-token chunk on the cuBLAS path (``ggml_cuda_op_mul_mat_cublas`` runs per chunk)."""
        if not self.quantized or self.mmq_at(tokens):
            return 0
        return chunks(tokens)

    def transfer_bytes_per_token(self, tokens: int = 1) -> float:
        """Activation bytes per token copied in a pass of ``tokens`` tokens: in as q8_1 where MMQ
        takes them, else F32, and the F32 slices gathered back."""
        bytes_in = Q8_1_BYTES if self.mmq_at(tokens) else F32_BYTES
        n = self.devices
        return (n - 1) * self.values_in_per_token * bytes_in + (n - 1) / n * self.values_out_per_token * F32_BYTES

    def read_share(self) -> float:
        """Share of a token's weight work the busiest GPU (the main one) still does."""
        return 1 - self.split_share * (1 - 1 / self.devices)


def q8_1_max_tokens(hw: Hardware, *, quantized: bool, legacy: bool = False) -> int | None:
    """The most tokens of a pass whose activations a row split copies as q8_1 on ``hw``
    (None: any; 0: never), from the GEMM llama.cpp picks; ``legacy``: a build before #8075."""
    if not quantized:
        return 0  # float weights go through cuBLAS, which takes F32 activations
    if hw.vendor != "nvidia":
        return None
    cc = hw.compute_capability
    if cc is None:
        return None
    if cc < DP4A_CC:
        return 0
    if legacy:
        return LEGACY_MMQ_MAX_TOKENS if cc >= FP16_MMA_CC else None
    if FP16_MMA_CC <= cc < INT8_MMA_CC:
        return VOLTA_MMQ_MAX_TOKENS
    return None


def row_split(model: LlmModel, hw: Hardware, runtime: Runtime, *, quantized: bool = True) -> RowSplit | None:
    """The row split of ``model`` over ``hw``'s GPUs, or None when nothing is split."""
    if runtime.split != "row" or hw.kind != "gpu" or hw.devices < 2:
        return None
    h = model.hidden_size
    groups = tensor_groups(model, active=True)
    routed = (groups.ffn_down + groups.ffn_gate_up) * groups.expert_share
    split_share = (groups.total - routed) / groups.total if groups.total else 0.0
    attention_layers = sum(llm_shape.attention_layer_kinds(model))
    mlp_layers = model.layers - llm_shape.moe_layer_count(model)
    if model.moe_shared_experts:
        mlp_layers = model.layers
    gated = 2 if model.mlp_gated else 1
    down = groups.ffn_down * (1 - groups.expert_share)
    gate_up = groups.ffn_gate_up * (1 - groups.expert_share)
    # Values in: q, k and v each copy the hidden state, the output projection its heads; an
    # MLP its gate and up inputs and its down projection's width. Values out: each matrix's rows.
    values_in = attention_layers * 3 * h + groups.attn_output / h + mlp_layers * gated * h + down / h
    values_out = (groups.attn_q + groups.attn_k + groups.attn_v) / h + attention_layers * h + gate_up / h
    values_out += mlp_layers * h
    matrices = attention_layers * 4 + mlp_layers * (gated + 1) + 1  # + the output head
    q8_1 = q8_1_max_tokens(hw, quantized=quantized, legacy=runtime.cublas_prompts)
    return RowSplit(hw.devices, split_share, matrices, values_in, values_out, q8_1, quantized)
