"""Parameter counts and KV-cache size recomputed from an LLM's architecture.

The counts follow the weight matrices of a decoder-only transformer as Hugging Face
``transformers`` builds them from ``config.json``:

- embeddings: ``vocab × hidden``, plus an LM head of the same size unless the model ties
  them (``tie_word_embeddings``);
- attention per layer: q ``hidden × heads × head_dim``, k and v ``hidden × kv_heads × head_dim``
  each, o ``heads × head_dim × hidden``; latent attention (DeepSeek MLA) uses its low-rank
  projections instead; full-attention layers may have their own head width and KV heads
  and reuse the keys as values (Gemma 4), and value heads may be narrower (MiMo-V2);
- a layer-wise search's result (Nemotron NAS): layers without attention, each layer's own
  MLP width, blocks replaced by one ``hidden × hidden`` map;
- MLP per layer: ``3 × hidden × intermediate`` when gated (SwiGLU/GeGLU), ``2 ×`` otherwise;
  a mixture-of-experts layer holds ``experts`` such MLPs plus shared experts and a
  ``hidden × experts`` router;
- norms: two per layer and a final one, ``hidden`` weights each;
- Yuan 2.0's localized filtering: ``2 × hidden²`` convolution weights per layer;
- linear-attention layers (Gated DeltaNet, Mamba): their mixer's weights, as the
  importer computed them, in place of attention;
- a vision encoder, when the config has one, in the total but never active.

Biases and rotary tables are left out: they are well under 1% for the models in the
catalog. Multi-token-prediction modules are counted apart (``mtp_parameter_count_b``),
as publishers do.
"""

from __future__ import annotations

from rackplanner.core.catalog.parts import LlmModel


def _mlp_params(model: LlmModel, width: int) -> int:
    matrices = 3 if model.mlp_gated else 2
    return matrices * model.hidden_size * width


def attention_dims(model: LlmModel, *, full: bool = True) -> tuple[int, int]:
    """(KV heads, head width) of the full-attention layers, or with ``full=False`` of the
    sliding-window ones; they differ only where the model says so (Gemma 4, MiMo-V2)."""
    if full:
        return model.full_attention_kv_heads or model.kv_heads, model.full_attention_head_dim or model.head_dim
    return model.kv_heads, model.head_dim


def _attention_params(model: LlmModel, *, full: bool = True) -> int:
    hidden, heads = model.hidden_size, model.attention_heads
    if model.kv_lora_rank is None:
        kv_heads, head_dim = attention_dims(model, full=full)
        value_dim = model.attention_value_dim or head_dim
        # q (and the output gate beside it, Qwen3-Next), k; v unless the keys serve as values; o.
        q_width = (2 if model.attention_output_gate else 1) * heads * head_dim
        no_values = model.shared_kv or (full and model.full_attention_values_from_keys)
        values = 0 if no_values else kv_heads * value_dim
        total = hidden * (q_width + kv_heads * head_dim + values)
        if model.q_lora_rank is not None:
            # down-projection, its norm, up-projection in place of q_proj
            rank = model.q_lora_rank
            total += hidden * rank + rank + rank * q_width - hidden * q_width
        return total + _output_params(model, heads * value_dim) + _indexer_params(model)
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
    return q + kv_down + kv_up + o + _indexer_params(model)


def _output_params(model: LlmModel, width: int) -> int:
    """o_proj from the heads' ``width`` back to hidden, or DeepSeek-V4's grouped low-rank
    one: each group of heads down to output_lora_rank, then all groups up to hidden."""
    if model.output_lora_rank is None:
        return width * model.hidden_size
    return width * model.output_lora_rank + (model.output_groups or 1) * model.output_lora_rank * model.hidden_size


def _indexer_params(model: LlmModel) -> int:
    """DeepSeek-V3.2's lightning indexer: queries from the query latent, one key, its
    LayerNorm and a weight per head (DeepSeek's inference/model.py, class Indexer)."""
    if model.indexer_heads is None or model.indexer_head_dim is None:
        return 0
    heads, width = model.indexer_heads, model.indexer_head_dim
    q_in = model.q_lora_rank or model.hidden_size
    return q_in * heads * width + model.hidden_size * width + 2 * width + model.hidden_size * heads


def _intermediate(model: LlmModel) -> int:
    if model.intermediate_size is None:
        raise ValueError(f"{model.id}: intermediate_size is unknown, the parameter count cannot be recomputed")
    return model.intermediate_size


def _layer_counts(model: LlmModel) -> tuple[int, int]:
    """(layers with a dense MLP, MoE layers)."""
    if model.mlp_widths is not None:
        return len(model.mlp_widths), 0
    mlps = model.mlp_layers or model.layers
    if model.moe_experts is None:
        return mlps, 0
    dense = model.moe_dense_layers or 0
    return dense, mlps - dense


def _moe_layer_params(model: LlmModel, experts_counted: int) -> int:
    assert model.moe_experts is not None
    expert_width = model.moe_intermediate_size or _intermediate(model)
    shared_width = model.moe_shared_intermediate_size or expert_width
    shared = (model.moe_shared_experts or 0) * _mlp_params(model, shared_width)
    router = model.hidden_size * model.moe_experts
    latent = model.moe_latent_size
    if latent is None:
        return experts_counted * _mlp_params(model, expert_width) + shared + router
    matrices = 3 if model.mlp_gated else 2
    projections = 2 * model.hidden_size * latent
    return experts_counted * matrices * latent * expert_width + projections + shared + router


def _body_params(model: LlmModel, experts_counted: int) -> int:
    """The decoder layers: token mixers, norms and MLPs."""
    hidden = model.hidden_size
    linear = model.linear_attention_layers or 0
    per_layer = 2 * hidden
    if model.localized_filtering:
        # two convolutions with hidden x hidden/2 x kernel 2 weights each, and their norm
        per_layer += 2 * hidden * hidden + hidden
    full, windowed = attention_layer_kinds(model)
    total = model.layers * per_layer + full * _attention_params(model) + windowed * _attention_params(model, full=False)
    mixers = linear + (model.parallel_mixer_layers or 0)
    total += mixers * (model.linear_mixer_params or 0) + (model.linear_replacement_params or 0)
    dense_layers, moe_layers = _layer_counts(model)
    if dense_layers:
        total += model.hidden_size * (3 if model.mlp_gated else 2) * dense_mlp_width_sum(model)
    if moe_layers:
        total += moe_layers * _moe_layer_params(model, experts_counted)
    return total


def _params(model: LlmModel, experts_counted: int, input_embedding: bool = True) -> int:
    hidden = model.hidden_size
    # A tied table is also the LM head, so it stays even when the input side is left out.
    tables = 1 if model.tie_word_embeddings or not input_embedding else 2
    embeddings = model.vocab_size * hidden * tables
    return embeddings + hidden + _body_params(model, experts_counted)


def parameter_count_b(model: LlmModel) -> float:
    """Total parameters in billions, recomputed from the architecture fields.

    Llama-2-7B gives 6.74, Llama-3.1-8B 8.03, Mixtral-8x7B 46.7 (every expert counted).
    Raises ValueError when intermediate_size is unknown.
    """
    encoders = (model.vision_params or 0) + (model.audio_params or 0)
    return (_params(model, model.moe_experts or 0) + encoders) / 1e9


def dense_mlp_width_sum(model: LlmModel) -> int:
    """The dense MLPs' widths summed over the layers that have one."""
    if model.mlp_widths is not None:
        return sum(model.mlp_widths)
    return _layer_counts(model)[0] * _intermediate(model)


def dense_mlp_layers(model: LlmModel) -> int:
    """Layers with a dense (not mixture-of-experts) MLP."""
    return _layer_counts(model)[0]


def moe_layer_count(model: LlmModel) -> int:
    """Layers whose MLP is a mixture of experts (0 for a dense model)."""
    return _layer_counts(model)[1]


def text_parameter_count_b(model: LlmModel) -> float:
    """Total parameters of the language model alone, without a vision encoder."""
    return _params(model, model.moe_experts or 0) / 1e9


def mtp_parameter_count_b(model: LlmModel) -> float:
    """Parameters of the multi-token-prediction modules (DeepSeek-V3: one decoder layer
    plus a 2·hidden → hidden projection and two norms each); 0 when there are none."""
    if not model.mtp_layers:
        return 0.0
    hidden = model.hidden_size
    layer = 2 * hidden + _attention_params(model)
    if model.moe_experts is not None:
        layer += _moe_layer_params(model, model.moe_experts)
    else:
        layer += _mlp_params(model, _intermediate(model))
    return model.mtp_layers * (layer + 2 * hidden * hidden + 2 * hidden) / 1e9


def active_parameter_count_b(model: LlmModel, *, count_input_embedding: bool = True) -> float:
    """Parameters used per token in billions: only the routed experts of MoE layers.

    Publishers differ on the input embedding, which is a table lookup rather than a
    matrix product: Mistral and Qwen count it (Mixtral-8x7B gives 12.9), OpenAI and
    DeepSeek leave it out (gpt-oss-20b gives 3.6 with count_input_embedding=False).
    A tied table doubles as the LM head and is always counted. Equal to
    text_parameter_count_b for a dense model when the input embedding is counted.
    """
    experts = model.moe_active_experts if model.moe_experts is not None else 0
    assert experts is not None
    return _params(model, experts, count_input_embedding) / 1e9


def active_body_parameter_count_b(model: LlmModel) -> float:
    """Active parameters without the embedding table and the LM head (the decoder layers
    and the final norm), as Z.ai and MiniMax quote their MoE models' active counts."""
    experts = model.moe_active_experts if model.moe_experts is not None else 0
    assert experts is not None
    return (_body_params(model, experts) + model.hidden_size) / 1e9


def attention_layer_kinds(model: LlmModel) -> tuple[int, int]:
    """(full-attention layers, sliding-window or chunked layers); the rest of the layers
    keep a fixed-size state instead of a KV cache, or have no attention at all."""
    windowed = model.sliding_window_layers or 0
    others = (model.linear_attention_layers or 0) + (model.attention_free_layers or 0)
    return model.layers - windowed - others, windowed


def fixed_state_values(model: LlmModel) -> int:
    """Values one sequence keeps in the fixed-size-state layers (linear attention, Mamba,
    short convolutions, cross-attention to an image), whatever its length."""
    mixers = (model.linear_attention_layers or 0) + (model.parallel_mixer_layers or 0)
    return mixers * (model.linear_state_values or 0)


def attended_tokens_by_kind(model: LlmModel, context: int, *, prompt: bool = False) -> tuple[float, float]:
    """Tokens one token attends to, summed over (the full-attention layers, the windowed
    layers): a token decoded at ``context`` or, with ``prompt``, the mean over a prompt of
    ``context`` tokens. A sliding-window layer sees at most its window; a chunked layer
    sees the tokens since its chunk began, half a chunk on average once past the first
    chunk; a sparse layer its top k, as a window that size would."""
    full, windowed = attention_layer_kinds(model)
    size = model.sliding_window or context
    if context <= 0:
        return 0.0, 0.0
    if prompt:
        seen_full = (context + 1) / 2
        if model.chunked_attention:
            whole, rest = divmod(context, size)
            seen_window = (whole * size * (size + 1) / 2 + rest * (rest + 1) / 2) / context
        else:
            seen_window = _mean_in_window(context, size)
    else:
        seen_full = context
        seen_window = (size + 1) / 2 if model.chunked_attention and context > size else min(context, size)
    top_k = model.sparse_attention_top_k
    if top_k is not None:
        seen_full = _mean_in_window(context, top_k) if prompt else min(context, top_k)
    return full * seen_full, windowed * seen_window


def attended_tokens(model: LlmModel, context: int, *, prompt: bool = False) -> float:
    """Tokens one token attends to, summed over the attention layers (``attended_tokens_by_kind``)."""
    return sum(attended_tokens_by_kind(model, context, prompt=prompt))


def attention_score_flops(model: LlmModel, context: int, *, prompt: bool = False) -> float:
    """FLOPs of QK^T and AV for one token (decoded at ``context``, or the mean of a prompt
    that long): 2 x heads x (key width + value width) per attended token, each layer kind
    at its own widths."""
    full_tokens, window_tokens = attended_tokens_by_kind(model, context, prompt=prompt)
    if model.kv_lora_rank is not None:
        return 4 * model.attention_heads * model.head_dim * (full_tokens + window_tokens)
    value_dim = model.attention_value_dim
    full_width, window_width = attention_dims(model)[1], model.head_dim
    # QK^T at the key width, AV at the value width: 2 FLOPs a multiply-add each.
    full = (full_width + (value_dim or full_width)) * full_tokens
    window = (window_width + (value_dim or window_width)) * window_tokens
    return 2 * model.attention_heads * (full + window)


def _mean_in_window(context: int, size: int) -> float:
    """Tokens the mean token of a prompt of ``context`` sees within ``size`` of them."""
    if context <= size:
        return (context + 1) / 2
    return (size * (size + 1) / 2 + (context - size) * size) / context


def indexer_scanned_tokens(model: LlmModel, context: int, *, prompt: bool = False) -> float:
    """Cached tokens a sparse-attention indexer scores for one token (decoded at
    ``context``, or the mean of a prompt that long), summed over the layers: every one."""
    if model.sparse_attention_top_k is None or context <= 0:
        return 0.0
    return attention_layer_kinds(model)[0] * ((context + 1) / 2 if prompt else context)


def _attended_values_per_layer_token(model: LlmModel, *, full: bool = True) -> int:
    if model.kv_lora_rank is not None:
        assert model.qk_rope_head_dim is not None
        return model.kv_lora_rank + model.qk_rope_head_dim
    kv_heads, head_dim = attention_dims(model, full=full)
    if model.shared_kv:
        return kv_heads * head_dim
    return kv_heads * (head_dim + (model.attention_value_dim or head_dim))


def kv_values_per_layer_token(model: LlmModel, *, full: bool = True) -> int:
    """Values one attention layer (a full one, or with ``full=False`` a windowed one)
    caches per token: a key and a value per KV head, or latent attention's compressed
    vector and shared RoPE key; and a sparse-attention indexer's key."""
    return _attended_values_per_layer_token(model, full=full) + (model.indexer_head_dim or 0)


def kv_cache_values(model: LlmModel, context: int) -> int:
    """Cached values of one sequence of ``context`` tokens (multiply by bytes per
    element): the attention layers' KV cache plus the linear layers' fixed state."""
    full, windowed = attention_layer_kinds(model)
    window = min(context, model.sliding_window or context)
    cached = full * context * kv_values_per_layer_token(model)
    cached += windowed * window * kv_values_per_layer_token(model, full=False)
    return cached + fixed_state_values(model)


def kv_read_values(model: LlmModel, context: int) -> float:
    """Cached values one decode step at ``context`` reads (multiply by bytes per element):
    what each attention layer attends to (``attended_tokens_by_kind``), the indexer keys a
    sparse layer scores, and every fixed state. The cache held (``kv_cache_values``) can be
    more: a chunked layer holds a whole chunk, a sparse one every token."""
    full_tokens, window_tokens = attended_tokens_by_kind(model, context)
    attended = full_tokens * _attended_values_per_layer_token(model)
    attended += window_tokens * _attended_values_per_layer_token(model, full=False)
    indexed = indexer_scanned_tokens(model, context) * (model.indexer_head_dim or 0)
    return attended + indexed + fixed_state_values(model)


def kv_cache_values_per_token(model: LlmModel) -> int:
    """Cached values each further token adds at long context, summed over the layers
    that keep every token (multiply by bytes per element).

    Standard attention caches a key and a value per KV head: 2 × layers × kv_heads × head_dim.
    Latent attention caches one compressed vector and the shared RoPE key instead:
    layers × (kv_lora_rank + qk_rope_head_dim). Sliding-window and linear-attention layers
    stop growing once past their window, so only full-attention layers count here.
    """
    return attention_layer_kinds(model)[0] * kv_values_per_layer_token(model)
