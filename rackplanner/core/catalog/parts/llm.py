"""LLMs as catalog parts: the architecture figures that decide their size, KV cache and speed."""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import Field, model_validator

from rackplanner.core.catalog.parts.base import Part


class LlmModel(Part):
    kind: ClassVar[str] = "llm"

    family: str
    params_b: float = Field(gt=0, le=1e5)
    active_params_b: float | None = Field(default=None, gt=0, le=1e5)
    layers: int = Field(ge=1, le=10_000)
    hidden_size: int = Field(ge=1, le=1_000_000)
    intermediate_size: int | None = Field(default=None, ge=1, le=10_000_000)
    attention_heads: int = Field(ge=1, le=100_000)
    kv_heads: int = Field(ge=1, le=100_000)
    head_dim: int = Field(ge=1, le=100_000)
    vocab_size: int = Field(ge=1, le=10_000_000)
    max_context: int = Field(ge=1, le=100_000_000)
    moe_experts: int | None = Field(default=None, ge=1, le=100_000)
    moe_active_experts: int | None = Field(default=None, ge=1, le=100_000)
    license: str | None = None
    # Architecture details for recomputing the parameter count (core/catalog/llm_shape.py).
    # Defaults describe a Llama-style model: gated (SwiGLU) MLP, separate LM head.
    tie_word_embeddings: bool = False
    mlp_gated: bool = True
    # MoE: width of one routed expert's MLP when it differs from intermediate_size,
    # always-on shared experts of that width, and leading dense layers (DeepSeek's
    # first_k_dense_replace) whose MLP is intermediate_size wide.
    moe_intermediate_size: int | None = Field(default=None, ge=1, le=10_000_000)
    moe_shared_experts: int | None = Field(default=None, ge=1, le=1000)
    moe_dense_layers: int | None = Field(default=None, ge=1, le=10_000)
    # Multi-head latent attention (DeepSeek-V2/V3): head_dim is then the query/key head
    # width (no-RoPE part + RoPE part); the KV cache holds kv_lora_rank + qk_rope_head_dim
    # values per token and layer instead of 2 x kv_heads x head_dim.
    q_lora_rank: int | None = Field(default=None, ge=1, le=1_000_000)
    kv_lora_rank: int | None = Field(default=None, ge=1, le=1_000_000)
    qk_rope_head_dim: int | None = Field(default=None, ge=1, le=100_000)
    v_head_dim: int | None = Field(default=None, ge=1, le=100_000)
    # Yuan 2.0's localized filtering before q/k: two kernel-2 convolutions
    # hidden -> hidden/2 -> hidden, 2 x hidden^2 weights per layer.
    localized_filtering: bool = False
    # Attention layout. Sliding-window layers attend to (and cache) only the last
    # sliding_window tokens (Gemma 2/3, gpt-oss, Mistral 7B v0.1); linear-attention layers
    # (Gated DeltaNet, Mamba) keep a fixed-size recurrent state instead of a growing KV
    # cache, and their token mixer has linear_mixer_params weights in place of attention.
    sliding_window: int | None = Field(default=None, ge=1, le=100_000_000)
    sliding_window_layers: int | None = Field(default=None, ge=1, le=10_000)
    # The windowed layers attend within fixed chunks of sliding_window tokens (Llama 4's
    # chunked attention) instead of a window that slides: a token sees only the tokens
    # since its chunk began.
    chunked_attention: bool = False
    linear_attention_layers: int | None = Field(default=None, ge=1, le=10_000)
    linear_mixer_params: int | None = Field(default=None, ge=1, le=10**12)
    linear_state_values: int | None = Field(default=None, ge=1, le=10**11)
    # Layers whose linear mixer runs beside their attention instead of in its place
    # (Falcon-H1's Mamba-2): each adds linear_mixer_params weights and linear_state_values
    # of state, and keeps its KV cache.
    parallel_mixer_layers: int | None = Field(default=None, ge=1, le=10_000)
    # Layers that have an MLP (dense or experts), when some hybrid blocks are mixer-only
    # (Nemotron-H); of a MoE model's, the first moe_dense_layers are dense.
    mlp_layers: int | None = Field(default=None, ge=1, le=10_000)
    # A layer-wise architecture search's result (Nemotron NAS, DeciLM's block_configs): the
    # MLP width of each layer that has one when they differ (intermediate_size is then the
    # widest), the layers whose attention the search removed (no weights, no cache), and
    # the weights of blocks it replaced by one hidden x hidden linear map (no cache).
    mlp_widths: list[Annotated[int, Field(ge=1, le=10_000_000)]] | None = Field(default=None, max_length=10_000)
    attention_free_layers: int | None = Field(default=None, ge=1, le=10_000)
    linear_replacement_params: int | None = Field(default=None, ge=1, le=10**12)
    # Full-attention layers shaped apart from the sliding-window ones (Gemma 4): their own
    # head width and KV heads, and values that reuse the key projection (no v_proj).
    full_attention_head_dim: int | None = Field(default=None, ge=1, le=100_000)
    full_attention_kv_heads: int | None = Field(default=None, ge=1, le=100_000)
    full_attention_values_from_keys: bool = False
    # Standard attention whose value heads are narrower than its query and key heads
    # (MiMo-V2: 192 and 128); latent attention has its own v_head_dim.
    attention_value_dim: int | None = Field(default=None, ge=1, le=100_000)
    # q_proj also yields a per-channel output gate (Qwen3-Next), doubling its width.
    attention_output_gate: bool = False
    # DeepSeek-V4's attention: q through the q_lora_rank bottleneck without latent KV, one
    # cached vector per token serving as key and value, and an output projection in
    # output_groups groups of heads, each down to output_lora_rank, then up to hidden.
    shared_kv: bool = False
    output_lora_rank: int | None = Field(default=None, ge=1, le=1_000_000)
    output_groups: int | None = Field(default=None, ge=1, le=10_000)
    # Width of the always-on shared expert when it differs from a routed one (Qwen3-Next).
    moe_shared_intermediate_size: int | None = Field(default=None, ge=1, le=10_000_000)
    # Routed experts that work at a narrower latent width (Nemotron 3's LatentMoE): each MoE
    # layer projects the token hidden -> latent before them and back after; the shared
    # expert and the router stay at the hidden width.
    moe_latent_size: int | None = Field(default=None, ge=1, le=10_000_000)
    # Multi-token-prediction modules (DeepSeek-V3's MTP): in the checkpoint, loaded only
    # for speculative decoding, so not in params_b.
    mtp_layers: int | None = Field(default=None, ge=1, le=1000)
    # Vision encoder and projector of a multimodal checkpoint: held in memory, never
    # read to decode a text token.
    vision_params: int | None = Field(default=None, ge=1, le=10**12)
    # An audio encoder and its projector (Voxtral), held and never read per text token alike.
    audio_params: int | None = Field(default=None, ge=1, le=10**12)
    # DeepSeek Sparse Attention (DeepSeek-V3.2): in every full-attention layer a lightning
    # indexer (indexer_heads heads of indexer_head_dim) scores each cached token and the query
    # attends only to the sparse_attention_top_k best; the cache keeps the indexer's key too.
    sparse_attention_top_k: int | None = Field(default=None, ge=1, le=100_000_000)
    indexer_heads: int | None = Field(default=None, ge=1, le=100_000)
    indexer_head_dim: int | None = Field(default=None, ge=1, le=100_000)
    # The weight format a pre-quantized checkpoint ships in (its quantization_config).
    shipped_format: str | None = None

    @model_validator(mode="after")
    def _architecture_is_consistent(self) -> LlmModel:
        if self.attention_heads % self.kv_heads:
            raise ValueError(f"kv_heads {self.kv_heads} does not divide attention_heads {self.attention_heads}")
        if (self.moe_experts is None) != (self.moe_active_experts is None):
            raise ValueError("moe_experts and moe_active_experts go together")
        experts, active = self.moe_experts, self.moe_active_experts
        if experts is not None and active is not None and active > experts:
            raise ValueError(f"moe_active_experts {active} is more than the {experts} experts there are")
        mlps = self.mlp_layers or self.layers
        if self.moe_dense_layers is not None and self.moe_dense_layers >= mlps:
            kind = "MLP layers" if self.mlp_layers is not None else "layers"
            raise ValueError(f"moe_dense_layers {self.moe_dense_layers} leaves no MoE layer of the {mlps} {kind}")
        if self.active_params_b is not None and self.active_params_b > self.params_b:
            raise ValueError(f"active_params_b {self.active_params_b:g} is more than params_b {self.params_b:g}")
        if self.sliding_window_layers is not None and self.sliding_window is None:
            raise ValueError("sliding_window_layers needs sliding_window")
        if self.chunked_attention and self.sliding_window_layers is None:
            raise ValueError("chunked_attention needs sliding_window_layers")
        windowed, linear = self.sliding_window_layers or 0, self.linear_attention_layers or 0
        free = self.attention_free_layers or 0
        if windowed + linear + free > self.layers:
            raise ValueError(
                f"{windowed} sliding-window, {linear} linear-attention and {free} attention-free layers"
                f" are more than the {self.layers} layers"
            )
        if free and free == self.layers:
            raise ValueError(
                f"attention_free_layers {free} leaves none of the {self.layers} layers attending to the past"
            )
        self._check_layer_widths()
        if self.mlp_layers is not None and self.mlp_layers > self.layers:
            raise ValueError(f"mlp_layers {self.mlp_layers} must be at most the {self.layers} layers")
        if linear and self.linear_mixer_params is None:
            raise ValueError("linear_attention_layers needs linear_mixer_params")
        sparse = (self.sparse_attention_top_k, self.indexer_heads, self.indexer_head_dim)
        if any(v is not None for v in sparse) and any(v is None for v in sparse):
            raise ValueError("sparse attention needs sparse_attention_top_k, indexer_heads and indexer_head_dim")
        mla = (self.kv_lora_rank, self.qk_rope_head_dim, self.v_head_dim)
        if any(v is not None for v in mla) and any(v is None for v in mla):
            raise ValueError("latent attention needs kv_lora_rank, qk_rope_head_dim and v_head_dim")
        return self

    def _check_layer_widths(self) -> None:
        if self.full_attention_kv_heads is not None and self.attention_heads % self.full_attention_kv_heads:
            raise ValueError(
                f"full_attention_kv_heads {self.full_attention_kv_heads} does not divide"
                f" attention_heads {self.attention_heads}"
            )
        if self.attention_value_dim is not None and self.kv_lora_rank is not None:
            raise ValueError("attention_value_dim is for standard attention; latent attention sets v_head_dim")
        if self.mlp_widths is None:
            return
        if self.moe_experts is not None or len(self.mlp_widths) > self.layers:
            raise ValueError(f"mlp_widths must give at most the {self.layers} layers of a dense model one width each")
        if self.mlp_layers is not None and self.mlp_layers != len(self.mlp_widths):
            raise ValueError(f"mlp_layers {self.mlp_layers} differs from the {len(self.mlp_widths)} mlp_widths")
