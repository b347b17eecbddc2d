"""Which layers of a config.json model attend to what: full attention, a sliding window,
or a linear-attention / state-space mixer with a fixed-size state.

The per-model-type rules follow how Hugging Face ``transformers`` builds each model
when the file has no ``layer_types`` list: Gemma 2 and gpt-oss alternate sliding and full
layers starting with a sliding one; Gemma 3 makes every ``sliding_window_pattern``-th layer
(default 6) full; Mistral, Mixtral and Phi-3 window every layer; Qwen2 only with
``use_sliding_window``. Qwen3-Next makes every ``full_attention_interval``-th layer full
attention and the rest Gated DeltaNet; Jamba puts attention at ``attn_layer_offset`` of every
``attn_layer_period`` layers and Mamba elsewhere.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from rackplanner.core.catalog.hf import dialects, kimi_linear, nas, ssm
from rackplanner.core.catalog.hf.layout_record import Layout
from rackplanner.core.catalog.hf.values import ConfigValues

# Model types whose transformers config class ties the LM head to the embedding table
# when the file says nothing, and those whose class does not.
TIED_BY_DEFAULT = frozenset(
    # Starcoder2Config: tie_word_embeddings: bool = True (transformers' configuration_starcoder2.py);
    # MiniCPM3Config: tie_word_embeddings=True (openbmb/MiniCPM3-4B's configuration_minicpm.py).
    {"gemma", "gemma2", "gemma3", "gemma3_text", "cohere", "cohere2", "paligemma", "lfm2", "smollm3", "starcoder2"}
    | {"minicpm3"}
)
UNTIED_BY_DEFAULT = frozenset(
    {
        "llama",
        "mistral",
        "mixtral",
        "mistral3",
        "qwen2",
        "qwen2_moe",
        "qwen3",
        "qwen3_moe",
        "qwen3_next",
        "deepseek_v2",
        "deepseek_v3",
        "gpt_oss",
        "phi3",
        "jamba",
        "olmo2",
        "granite",
        "llama4_text",
    }
)

# Values transformers' config class fills in when a (nested) config leaves them out;
# Gemma 3's published text_config omits several.
TEXT_DEFAULTS: dict[str, dict[str, object]] = {
    "gemma3_text": {
        "vocab_size": 262_208,
        "head_dim": 256,
        "num_key_value_heads": 4,
        "max_position_embeddings": 131_072,
        "sliding_window": 4096,
        "intermediate_size": 9216,
        "num_attention_heads": 8,
    },
    # transformers' Qwen3NextConfig: shared_expert_intermediate_size=512 (read in a copy of
    # configuration_qwen3_next.py, search-index id 67272777314); a file without it has one.
    "qwen3_next": {"shared_expert_intermediate_size": 512},
}

# A multimodal wrapper's text_config may give only what differs from its model type's
# config class (llava-hf's Vicuna: vocabulary and context); transformers fills the rest from
# that class. LlamaConfig's defaults are Llama 2 7B's shape.
NESTED_TEXT_DEFAULTS: dict[str, dict[str, object]] = {
    "llama": {
        "hidden_size": 4096,
        "intermediate_size": 11008,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "vocab_size": 32000,
        "max_position_embeddings": 2048,
    },
}

# Model types with no rule of their own here whose fixtures' counts were checked against a
# published one or by hand (tests/data/hf/SOURCES.md); with the types that have a rule, the
# ones read by name (``known_model_type``).
_CHECKED_TYPES = frozenset(
    {
        "deepseek_v32",
        "deepseek_v4",
        "exaone4",
        "exaone4_5_text",
        "glm4_moe",
        "glm4_moe_lite",
        "glm_moe_dsa",
        "gpt_neox",
        "kimi_k2",
        "kimi_k25",
        "minimax_m2",
        "ministral3",
        "olmo3",
        "olmoe",
        "phi",
        "qwen3_vl_moe_text",
        "qwen3_vl_text",
    }
)

# Hybrids of Gated DeltaNet (linear attention) and gated full attention: Qwen3-Next and
# Qwen3.5, whose text configs use the same linear_* keys.
GATED_DELTANET = frozenset({"qwen3_next", "qwen3_5_text", "qwen3_5_moe_text", "qwen3_5", "qwen3_5_moe"})
_ALTERNATING = frozenset({"gemma2", "gpt_oss"})
_PATTERNED = {"gemma3": 6, "gemma3_text": 6, "cohere2": 4}
# Qwen2-VL and Qwen2.5-VL decode with a Qwen2 text model and its window switch.
_QWEN2_VL = frozenset({"qwen2_vl", "qwen2_vl_text", "qwen2_5_vl", "qwen2_5_vl_text"})
_GATED_WINDOW = frozenset({"qwen2", "qwen2_moe", "qwen3", "qwen3_moe", *_QWEN2_VL})  # need use_sliding_window
_EVERY_LAYER = frozenset({"mistral", "mixtral", "phi3", "starcoder2", *_GATED_WINDOW})


def tied_default(model_type: str) -> tuple[bool, str | None]:
    """(tied?, a note when the model type is unknown and so the default is assumed)."""
    if model_type in TIED_BY_DEFAULT:
        return True, None
    if model_type in UNTIED_BY_DEFAULT:
        return False, None
    return False, (
        f"tie_word_embeddings is not in the file and model type {model_type!r} is not known here: "
        "a separate output head is assumed"
    )


def head_width(cfg: ConfigValues, hidden: int, heads: int) -> int:
    """One attention head's width: head_dim as the config gives it, else hidden / heads."""
    return cfg.opt_int("head_dim", "attention_head_dim") or max(1, hidden // heads)


def attention_layout(cfg: ConfigValues, model_type: str, layers: int, hidden: int) -> Layout:
    """The layout of ``layers`` decoder layers; InputError for a layout this cannot read."""
    own = _OWN_LAYOUTS.get(model_type)
    if own is not None:
        return own(cfg, layers, hidden)
    if cfg.has("hybrid_override_pattern") or cfg.has("layers_block_type"):
        raise cfg.error("model_type", f"{model_type!r} is a hybrid whose layer layout is not known here")
    layout = Layout()
    types = cfg.str_list("layer_types")
    if types is None and model_type == "llama4_text" and cfg.has("attention_chunk_size"):
        types = _llama4_layer_types(cfg, layers)
    if types is not None:
        _from_layer_types(cfg, types, layers, layout)
    elif model_type in GATED_DELTANET:
        interval = cfg.opt_int("full_attention_interval") or 4
        layout.linear_layers = layers - layers // interval
    else:
        _sliding_by_type(cfg, model_type, layers, layout)
    if layout.sliding_layers and types is not None and "chunked_attention" in types:
        layout.sliding_window = cfg.integer("attention_chunk_size") if cfg.has("attention_chunk_size") else None
        if layout.sliding_window is None:
            raise cfg.error("attention_chunk_size", "is needed: layer_types names chunked-attention layers")
        layout.chunked = True
    elif layout.sliding_layers:
        layout.sliding_window = cfg.integer("sliding_window") if cfg.has("sliding_window") else None
        if layout.sliding_window is None:
            raise cfg.error("sliding_window", "is needed: layer_types names sliding-attention layers")
    longest = cfg.opt_int("max_position_embeddings")
    window = layout.sliding_window
    if layout.sliding_layers and not layout.chunked and window and longest and window >= longest:
        # Phi-3.5 writes its whole context as the window: no layer ever slides.
        layout.notes.append(
            f"sliding_window {window:,} is as long as the model's context ({longest:,}): "
            "every layer is counted as full attention"
        )
        layout.sliding_layers, layout.sliding_window = 0, None
    if layout.linear_layers:
        if model_type not in GATED_DELTANET:
            raise cfg.error(
                "layer_types", f"names linear-attention layers of a model type ({model_type!r}) not known here"
            )
        layout.linear_mixer_params, layout.linear_state_values = _gated_deltanet(cfg, hidden)
    if model_type in GATED_DELTANET:
        gate = cfg.flag("attn_output_gate")
        layout.attention_output_gate = True if gate is None else gate
    return layout


def _from_layer_types(cfg: ConfigValues, types: list[str], layers: int, layout: Layout) -> None:
    if len(types) != layers:
        raise cfg.error("layer_types", f"lists {len(types)} layers, but num_hidden_layers is {layers}")
    # DeepSeek sparse attention (GLM-5.2's layer_types) has each query attend to the indexer's
    # top-k cached tokens, but every token stays in the cache: for the KV cache it is full.
    types = ["full_attention" if kind == "deepseek_sparse_attention" else kind for kind in types]
    unknown = sorted(set(types) - {"full_attention", "sliding_attention", "chunked_attention", "linear_attention"})
    if unknown:
        raise cfg.error("layer_types", f"has layer kinds not known here: {', '.join(unknown)}")
    if "sliding_attention" in types and "chunked_attention" in types:
        raise cfg.error("layer_types", "mixes sliding-window and chunked attention, a layout not known here")
    layout.sliding_layers = types.count("sliding_attention") + types.count("chunked_attention")
    layout.linear_layers = types.count("linear_attention")


def _llama4_layer_types(cfg: ConfigValues, layers: int) -> list[str]:
    """Llama 4's layer kinds as transformers derives them: a layer with RoPE (``no_rope_layers``
    1, by default all but every ``no_rope_layer_interval``-th) attends within its chunk."""
    flags = cfg.data.get("no_rope_layers")
    if not flags:  # absent or [] (Maverick): transformers' default
        interval = cfg.opt_int("no_rope_layer_interval") or 4
        flags = [int((i + 1) % interval != 0) for i in range(layers)]
    elif not isinstance(flags, list) or len(flags) != layers or any(f not in (0, 1) for f in flags):
        raise cfg.error("no_rope_layers", f"must list 0 or 1 for each of the {layers} layers")
    return ["chunked_attention" if flag else "full_attention" for flag in flags]


def _sliding_by_type(cfg: ConfigValues, model_type: str, layers: int, layout: Layout) -> None:
    if not cfg.has("sliding_window"):
        return
    if model_type in _ALTERNATING:
        layout.sliding_layers = (layers + 1) // 2
    elif model_type in _PATTERNED:
        pattern = cfg.opt_int("sliding_window_pattern", "_sliding_window_pattern") or _PATTERNED[model_type]
        layout.sliding_layers = layers - layers // pattern
    elif model_type == "deepseek_v4":
        # Its window is kept beside each layer's compressed entries, not instead of a full
        # cache; the import says compress_ratios is not read, so every layer counts in full.
        return
    elif model_type in _EVERY_LAYER:
        if model_type in _GATED_WINDOW and not cfg.flag("use_sliding_window"):
            return
        # Qwen2: only layers from max_window_layers on use the window.
        first = cfg.opt_int("max_window_layers") if model_type in _GATED_WINDOW else None
        layout.sliding_layers = layers - min(first or 0, layers)
    else:
        layout.notes.append(
            f"sliding_window is set but model type {model_type!r} is not known here: every layer is "
            "counted as full attention, the most its KV cache can need"
        )


def _gated_deltanet(cfg: ConfigValues, hidden: int) -> tuple[int, int]:
    """(weights of one Gated DeltaNet mixer, values of its state per sequence): Qwen3-Next."""
    k_heads, v_heads = cfg.integer("linear_num_key_heads"), cfg.integer("linear_num_value_heads")
    k_dim, v_dim = cfg.integer("linear_key_head_dim"), cfg.integer("linear_value_head_dim")
    kernel = cfg.integer("linear_conv_kernel_dim")
    keys, values = k_heads * k_dim, v_heads * v_dim
    conv_channels = 2 * keys + values
    weights = (
        hidden * (2 * keys + 2 * values)  # in_proj_qkvz
        + hidden * 2 * v_heads  # in_proj_ba
        + conv_channels * kernel  # depthwise conv1d
        + 2 * v_heads  # dt_bias, A_log
        + v_dim  # gated RMS norm
        + values * hidden  # out_proj
    )
    state = v_heads * k_dim * v_dim + conv_channels * (kernel - 1)
    return weights, state


def _jamba(cfg: ConfigValues, layers: int, hidden: int) -> Layout:
    """Attention every attn_layer_period layers, Mamba elsewhere; MoE every expert_layer_period."""
    period, offset = cfg.opt_int("attn_layer_period") or 8, _offset(cfg, "attn_layer_offset", 4)
    attention = sum(1 for i in range(layers) if i % period == offset)
    e_period, e_offset = cfg.opt_int("expert_layer_period") or 2, _offset(cfg, "expert_layer_offset", 1)
    moe = sum(1 for i in range(layers) if i % e_period == e_offset)
    inner = (cfg.opt_int("mamba_expand") or 2) * hidden
    state_dim, conv = cfg.opt_int("mamba_d_state") or 16, cfg.opt_int("mamba_d_conv") or 4
    rank_value = cfg.data.get("mamba_dt_rank", "auto")
    rank = math.ceil(hidden / 16) if rank_value == "auto" else cfg.integer("mamba_dt_rank")
    proj_bias = bool(cfg.flag("mamba_proj_bias"))
    conv_bias = cfg.flag("mamba_conv_bias") is not False
    weights = (
        hidden * 2 * inner
        + inner * conv
        + inner * (rank + 2 * state_dim)  # x_proj
        + rank * inner
        + inner  # dt_proj and its bias
        + inner * state_dim
        + inner  # A_log, D
        + inner * hidden  # out_proj
        + rank
        + 2 * state_dim  # dt, B, C norms
        + (2 * inner + hidden if proj_bias else 0)
        + (inner if conv_bias else 0)
    )
    return Layout(
        linear_layers=layers - attention,
        linear_mixer_params=weights,
        linear_state_values=inner * state_dim + inner * conv,
        dense_layers_override=layers - moe,
    )


def _offset(cfg: ConfigValues, key: str, default: int) -> int:
    return cfg.integer(key, zero_ok=True) if cfg.has(key) else default


def _lfm2(cfg: ConfigValues, layers: int, hidden: int) -> Layout:
    """LFM2: attention layers and gated short-convolution layers (``layer_types``, or the older
    ``full_attn_idxs``; transformers' Lfm2Config). A convolution layer keeps the last
    ``conv_L_cache`` inputs instead of a KV cache, and its mixer is in_proj (3 x hidden),
    a depthwise kernel and out_proj. The MLP's width is 2/3 of intermediate_size, scaled and
    rounded up to block_multiple_of when block_auto_adjust_ff_dim is on (the default)."""
    types = cfg.str_list("layer_types")
    if types is None:
        full = cfg.layer_indexes("full_attn_idxs", layers)
        types = ["full_attention" if full is None or i in full else "conv" for i in range(layers)]
    if len(types) != layers or set(types) - {"conv", "full_attention"}:
        raise cfg.error("layer_types", f"must name conv or full_attention for each of the {layers} layers")
    convs, kernel = types.count("conv"), cfg.opt_int("conv_L_cache") or 3
    bias = 5 * hidden if cfg.flag("conv_bias") else 0
    width = cfg.opt_int("intermediate_size", "block_ff_dim")
    if width is not None and cfg.flag("block_auto_adjust_ff_dim") is not False:
        width = int(2 * width / 3)
        # transformers scales and rounds only when the multiplier is not null (default 1.0).
        if cfg.data.get("block_ffn_dim_multiplier", 1.0) is not None:
            multiplier = cfg.ratio("block_ffn_dim_multiplier", below=100) or 1.0
            step = cfg.opt_int("block_multiple_of") or 256
            width = step * -(-int(multiplier * width) // step)
    return Layout(
        linear_layers=convs,
        linear_mixer_params=4 * hidden * hidden + kernel * hidden + bias if convs else None,
        linear_state_values=hidden * kernel if convs else None,
        mlp_width=width,
        notes=[f"{convs} of {layers} layers are short convolutions (LFM2): a {kernel}-token state, no KV cache"],
    )


def _mllama(cfg: ConfigValues, layers: int, hidden: int) -> Layout:
    """Llama 3.2 Vision: the ``cross_attention_layers`` attend to the image's tokens, not
    the text's, so their cache is fixed by the image (set from the vision config) and does
    not grow with the text. Each has q, k, v and o like a self-attention layer, q and k
    norms and two gates."""
    cross = cfg.layer_indexes("cross_attention_layers", layers) or []
    heads = cfg.integer("num_attention_heads")
    kv_heads = cfg.opt_int("num_key_value_heads") or heads
    head_dim = head_width(cfg, hidden, heads)
    mixer = 2 * hidden * heads * head_dim + 2 * hidden * kv_heads * head_dim + 2 * head_dim + 2
    return Layout(
        linear_layers=len(cross),
        linear_mixer_params=mixer if cross else None,
        notes=[f"{len(cross)} of {layers} layers are cross-attention to the image: their cache is the image's"]
        if cross
        else [],
    )


# Model types whose layers follow a layout of their own, read by its function above.
def _nemotron_nas(cfg: ConfigValues, layers: int, hidden: int) -> Layout:
    """Nemotron NAS: what each layer kept, from ``block_configs`` (hf/nas.py)."""
    blocks = nas.read_blocks(cfg, layers, hidden, cfg.integer("num_attention_heads"))
    replaced = blocks.linear_replacements * hidden * hidden
    return Layout(
        kv_heads=blocks.kv_heads,
        attention_free_layers=blocks.attention_free_layers or None,
        mlp_widths=blocks.mlp_widths,
        mlp_width=max(blocks.mlp_widths, default=hidden),
        linear_replacement_params=replaced or None,
        notes=[blocks.summary()],
    )


def _kimi_linear(cfg: ConfigValues, layers: int, hidden: int) -> Layout:
    """Kimi Linear: KDA layers with a fixed state, MLA in the rest (hf/kimi_linear.py)."""
    kda = kimi_linear.kda_layers(cfg, layers, hidden)
    return Layout(
        linear_layers=kda.layers,
        linear_mixer_params=kda.mixer_params,
        linear_state_values=kda.state_values,
        notes=[f"linear_attn_config: {kda.layers} Kimi Delta Attention layers, {layers - kda.layers} MLA"],
    )


def _mimo_v2(cfg: ConfigValues, layers: int, hidden: int) -> Layout:
    """MiMo-V2: hybrid_layer_pattern gives each layer 1 for sliding-window attention, 0 for full."""
    flags = cfg.data.get("hybrid_layer_pattern")
    if (
        not isinstance(flags, list)
        or len(flags) != layers
        or any(f not in (0, 1) or isinstance(f, bool) for f in flags)
    ):
        raise cfg.error("hybrid_layer_pattern", f"must give 0 or 1 for each of the {layers} layers")
    sliding = flags.count(1)
    return Layout(sliding_window=cfg.integer("sliding_window") if sliding else None, sliding_layers=sliding)


_OWN_LAYOUTS: dict[str, Callable[[ConfigValues, int, int], Layout]] = {
    **dict.fromkeys(dialects.MIMO_V2_TYPES, _mimo_v2),
    **dict.fromkeys(kimi_linear.MODEL_TYPES, _kimi_linear),
    **dict.fromkeys(nas.MODEL_TYPES, _nemotron_nas),
    "jamba": _jamba,
    "nemotron_h": ssm.nemotron_h,
    "lfm2": _lfm2,
    "granitemoehybrid": ssm.granite_hybrid,
    "falcon_h1": ssm.falcon_h1,
    "mllama_text_model": _mllama,
}


def known_model_type(model_type: str) -> bool:
    """Whether configs of ``model_type`` are read by name: a rule here (a tie default,
    defaults, a layout, a window rule, a dialect) or a fixture checked against a published
    count. Any other is read as a standard decoder, and the estimate says so."""
    rules = (
        TIED_BY_DEFAULT,
        UNTIED_BY_DEFAULT,
        TEXT_DEFAULTS,
        NESTED_TEXT_DEFAULTS,
        _OWN_LAYOUTS,
        GATED_DELTANET,
        _ALTERNATING,
        _PATTERNED,
        _EVERY_LAYER,
        dialects.MODEL_TYPES,
        _CHECKED_TYPES,
    )
    return any(model_type in rule for rule in rules)
