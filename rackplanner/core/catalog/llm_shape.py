"""Parameter counts and KV-cache size recomputed from an LLM's architecture.

The counts follow the weight matrices of a decoder-only transformer as Hugging Face
``transformers`` builds them from ``config.json``:

- embeddings: ``vocab × hidden``, plus an LM head of the same size unless the model ties
  them (``tie_word_embeddings``);
- attention per layer: q ``hidden × heads × head_dim``, k and v ``hidden × kv_heads × head_dim``
  each, o ``heads × head_dim × hidden``; latent attention (DeepSeek MLA) uses its low-rank
  projections instead;
- MLP per layer: ``3 × hidden × intermediate`` when gated (SwiGLU/GeGLU), ``2 ×`` otherwise;
  a mixture-of-experts layer holds ``experts`` such MLPs plus shared experts and a
  ``hidden × experts`` router;
- norms: two per layer and a final one, ``hidden`` weights each;
- Yuan 2.0's localized filtering: ``2 × hidden²`` convolution weights per layer.

Biases, rotary tables and vision towers are left out: they are well under 1% for the
text models in the catalog (a multimodal checkpoint's stated size can include a vision
encoder of a few hundred million parameters).
"""

from __future__ import annotations

from rackplanner.core.catalog.parts import LlmModel


def _mlp_params(model: LlmModel, width: int) -> int:
    matrices = 3 if model.mlp_gated else 2
    return matrices * model.hidden_size * width


def _attention_params(model: LlmModel) -> int:
    hidden, heads = model.hidden_size, model.attention_heads
    if model.kv_lora_rank is None:
        q_and_o = 2 * hidden * heads * model.head_dim
        k_and_v = 2 * hidden * model.kv_heads * model.head_dim
        return q_and_o + k_and_v
    # Latent attention: the validator guarantees the three MLA fields come together.
    assert model.qk_rope_head_dim is not None and model.v_head_dim is not None
    qk_nope = model.head_dim - model.qk_rope_head_dim
    if model.q_lora_rank is None:
        q = hidden * heads * model.head_dim
    else:
        # down-projection, its norm, up-projection
        q = hidden * model.q_lora_rank + model.q_lora_rank + model.q_lora_rank * heads * model.head_dim
    kv_down = hidden * (model.kv_lora_rank + model.qk_rope_head_dim) + model.kv_lora_rank
    kv_up = model.kv_lora_rank * heads * (qk_nope + model.v_head_dim)
    o = heads * model.v_head_dim * hidden
    return q + kv_down + kv_up + o


def _intermediate(model: LlmModel) -> int:
    if model.intermediate_size is None:
        raise ValueError(f"{model.id}: intermediate_size is unknown, the parameter count cannot be recomputed")
    return model.intermediate_size


def _layer_counts(model: LlmModel) -> tuple[int, int]:
    """(dense layers, MoE layers)."""
    if model.moe_experts is None:
        return model.layers, 0
    dense = model.moe_dense_layers or 0
    return dense, model.layers - dense


def _params(model: LlmModel, experts_counted: int, input_embedding: bool = True) -> int:
    hidden = model.hidden_size
    # A tied table is also the LM head, so it stays even when the input side is left out.
    tables = 1 if model.tie_word_embeddings or not input_embedding else 2
    embeddings = model.vocab_size * hidden * tables
    per_layer = _attention_params(model) + 2 * hidden
    if model.localized_filtering:
        # two convolutions with hidden x hidden/2 x kernel 2 weights each, and their norm
        per_layer += 2 * hidden * hidden + hidden
    dense_layers, moe_layers = _layer_counts(model)
    total = embeddings + hidden + model.layers * per_layer
    if dense_layers:
        total += dense_layers * _mlp_params(model, _intermediate(model))
    if moe_layers:
        assert model.moe_experts is not None
        expert_width = model.moe_intermediate_size or _intermediate(model)
        experts = experts_counted + (model.moe_shared_experts or 0)
        router = hidden * model.moe_experts
        total += moe_layers * (experts * _mlp_params(model, expert_width) + router)
    return total


def parameter_count_b(model: LlmModel) -> float:
    """Total parameters in billions, recomputed from the architecture fields.

    Llama-2-7B gives 6.74, Llama-3.1-8B 8.03, Mixtral-8x7B 46.7 (every expert counted).
    Raises ValueError when intermediate_size is unknown.
    """
    return _params(model, model.moe_experts or 0) / 1e9


def active_parameter_count_b(model: LlmModel, *, count_input_embedding: bool = True) -> float:
    """Parameters used per token in billions: only the routed experts of MoE layers.

    Publishers differ on the input embedding, which is a table lookup rather than a
    matrix product: Mistral and Qwen count it (Mixtral-8x7B gives 12.9), OpenAI and
    DeepSeek leave it out (gpt-oss-20b gives 3.6 with count_input_embedding=False).
    A tied table doubles as the LM head and is always counted. Equal to
    parameter_count_b for a dense model when the input embedding is counted.
    """
    experts = model.moe_active_experts if model.moe_experts is not None else 0
    assert experts is not None
    return _params(model, experts, count_input_embedding) / 1e9


def kv_cache_values_per_token(model: LlmModel) -> int:
    """Cached values per token summed over all layers (multiply by bytes per element).

    Standard attention caches a key and a value per KV head: 2 × layers × kv_heads × head_dim.
    Latent attention caches one compressed vector and the shared RoPE key instead:
    layers × (kv_lora_rank + qk_rope_head_dim). Sliding-window layers are counted as full
    attention, the worst case at long context.
    """
    if model.kv_lora_rank is not None:
        assert model.qk_rope_head_dim is not None
        return model.layers * (model.kv_lora_rank + model.qk_rope_head_dim)
    return 2 * model.layers * model.kv_heads * model.head_dim
