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
of 512 tokens is copied through host memory. Each split matrix also costs a fixed time per
further GPU (copies launched, an event waited for), fitted as ``row_sync_s``.
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


@dataclass(frozen=True)
class RowSplit:
    """What a row split over ``devices`` GPUs changes in a forward pass."""

    devices: int
    # Share of the active parameters whose rows are spread over the GPUs.
    split_share: float
    # Weight matrices split per forward pass; each costs a sync per further GPU.
    matrices: int
    # Activation bytes per token copied to the further GPUs and gathered back.
    transfer_bytes_per_token: float

    @property
    def syncs(self) -> int:
        """Fixed costs one forward pass pays: a split matrix on each further GPU."""
        return self.matrices * (self.devices - 1)

    def read_share(self) -> float:
        """Share of a token's weight work the busiest GPU (the main one) still does."""
        return 1 - self.split_share * (1 - 1 / self.devices)


def row_split(model: LlmModel, hw: Hardware, runtime: Runtime, *, quantized: bool = True) -> RowSplit | None:
    """The row split of ``model`` over ``hw``'s GPUs, or None when nothing is split."""
    if runtime.split != "row" or hw.kind != "gpu" or hw.devices < 2:
        return None
    n, h = hw.devices, model.hidden_size
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
    bytes_in = Q8_1_BYTES if quantized else F32_BYTES
    transfer = (n - 1) * values_in * bytes_in + (n - 1) / n * values_out * F32_BYTES
    matrices = attention_layers * 4 + mlp_layers * (gated + 1) + 1  # + the output head
    return RowSplit(n, split_share, matrices, transfer)
