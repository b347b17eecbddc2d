"""Configs that name the usual settings their own way, rewritten to the usual keys.

DBRX keeps its sizes under MosaicML's names (``d_model``, ``n_layers``, and the attention
and MoE settings in ``attn_config`` / ``ffn_config``: transformers' DbrxConfig). Hunyuan's
MoE configs give the experts per token, the expert width and the shared experts as one
value per layer (``moe_topk``, ``moe_intermediate_size``, ``num_shared_expert``). ERNIE 4.5's
MoE configs say ``moe_num_experts``, ``moe_k`` and which layers are MoE by a start, an end
and an interval (transformers' Ernie4_5_MoeConfig). Granite 4.0 names its shared MLP's width
``shared_intermediate_size``. Snowflake Arctic runs a dense residual MLP beside its experts.
Configs of the first open models (Falcon, MPT, BLOOM, ChatGLM) are read by ``legacy``.
Each key read under another name is said in the notes; a key the file already has is kept.
"""

from __future__ import annotations

from collections.abc import Callable

from rackplanner.core.catalog.hf import legacy, nas
from rackplanner.core.catalog.hf.values import ConfigValues
from rackplanner.core.errors import show_value

# DBRX: (where, its key) -> the usual key.
_DBRX_KEYS = {
    ("", "d_model"): "hidden_size",
    ("", "n_layers"): "num_hidden_layers",
    ("", "n_heads"): "num_attention_heads",
    ("", "max_seq_len"): "max_position_embeddings",
    ("attn_config", "kv_n_heads"): "num_key_value_heads",
    ("ffn_config", "ffn_hidden_size"): "intermediate_size",
    ("ffn_config", "moe_num_experts"): "num_local_experts",
    ("ffn_config", "moe_top_k"): "num_experts_per_tok",
}
_HUNYUAN_TYPES = frozenset({"hunyuan", "hunyuan_v1_moe"})
# Hunyuan's per-layer lists -> the usual key.
_HUNYUAN_LISTS = {
    "moe_topk": "num_experts_per_tok",
    "moe_intermediate_size": "moe_intermediate_size",
    "num_shared_expert": "n_shared_experts",
}


_ERNIE_TYPES = frozenset({"ernie4_5_moe"})
_ERNIE_KEYS = {
    "moe_num_experts": "num_experts",
    "moe_k": "num_experts_per_tok",
    "moe_num_shared_experts": "n_shared_experts",
}


# Gemma 4's small models (E2B/E4B) and Gemma 3n add per-layer embeddings and share KV caches
# across layers; neither is modelled, so those files are refused by key (Gemma 3n's
# per-layer intermediate_size list would otherwise be refused as a bad number).
_GEMMA4_TYPES = frozenset({"gemma4", "gemma4_text"})
_PER_LAYER_EMBEDDING_TYPES = _GEMMA4_TYPES | {"gemma3n", "gemma3n_text"}
_GEMMA4_UNMODELLED = {
    "hidden_size_per_layer_input": "adds per-layer embeddings (Gemma 4 E2B/E4B, Gemma 3n), which are not modelled here",
    "num_kv_shared_layers": "shares KV caches between layers, which is not modelled here",
}

# MiMo-V2: sliding-window layers with heads of their own (swa_*), beside full-attention ones.
MIMO_V2_TYPES = frozenset({"mimo_v2", "mimo_v2_flash"})


# Keys of layouts not modelled here, and why: read as a standard decoder they would be sized
# wrong with no sign of it, so they are refused. Nemotron NAS reads block_configs (hf/nas.py).
_UNMODELLED = {
    "block_configs": "gives each layer its own attention and MLP (Nemotron NAS / DeciLM), read only for model type "
    "nemotron-nas",
}


def normalize(values: ConfigValues, model_type: str) -> list[str]:
    """Rewrite ``values`` to the usual keys for the model types above; the notes say what was
    read. InputError for a layout that is not modelled."""
    legacy.refuse_unmodelled(values, model_type)
    unmodelled = dict(_UNMODELLED)
    if model_type in nas.MODEL_TYPES:
        unmodelled.pop("block_configs")
    if model_type in _PER_LAYER_EMBEDDING_TYPES:
        unmodelled.update(_GEMMA4_UNMODELLED)
    for key, why in unmodelled.items():
        if values.data.get(key) not in (None, False, 0, []):
            raise values.error(key, why)
    dialect = _DIALECTS.get(model_type)
    return dialect(values) if dialect else []


def _dbrx(values: ConfigValues) -> list[str]:
    read = []
    for (where, theirs), ours in _DBRX_KEYS.items():
        source = values.obj(where) if where else values
        if source is None or not source.has(theirs) or values.has(ours):
            continue
        values.put(ours, source.integer(theirs))
        read.append(f"{source.key(theirs)} as {ours}")
    return [f"DBRX config: read {', '.join(read)}"] if read else []


def _hunyuan(values: ConfigValues) -> list[str]:
    notes = []
    for theirs, ours in _HUNYUAN_LISTS.items():
        value = values.data.get(theirs)
        if not isinstance(value, list):
            if value is not None and theirs != ours and not values.has(ours):
                values.put(ours, values.integer(theirs, zero_ok=True))
            continue
        whole = all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
        if not value or not whole:
            raise values.error(theirs, f"must list a whole number for each layer (found {show_value(value, 40)})")
        if any(v != value[0] for v in value):
            raise values.error(
                theirs, f"differs between layers, which is not modelled here (found {show_value(value, 40)})"
            )
        values.put(ours, value[0])
        notes.append(f"{values.key(theirs)} {value[0]} on every layer")
    if values.data.get("n_shared_experts") and not values.has("shared_expert_intermediate_size"):
        # HunYuanMLP as the shared expert: intermediate_size wide, times num_shared_expert.
        values.put("shared_expert_intermediate_size", values.integer("intermediate_size"))
    if values.data.get("use_cla"):
        notes.append("cross-layer attention (use_cla) shares each KV cache between layers; counted per layer here")
    return notes


def _ernie(values: ConfigValues) -> list[str]:
    read = []
    for theirs, ours in _ERNIE_KEYS.items():
        if values.has(theirs) and not values.has(ours):
            if isinstance(values.data[theirs], list):
                raise values.error(theirs, "gives experts per modality, which is not modelled here")
            values.put(ours, values.integer(theirs, zero_ok=theirs == "moe_num_shared_experts"))
            read.append(f"{values.key(theirs)} as {ours}")
    if values.has("num_experts") and not values.has("moe_layers"):
        # Ernie4_5_MoeDecoderLayer: MoE where start <= i <= end and (i + 1) % interval == 0.
        layers = values.integer("num_hidden_layers")
        start = values.count_or_none("moe_layer_start_index") or 0
        end = values.data.get("moe_layer_end_index", -1)
        if not isinstance(end, int) or isinstance(end, bool) or not -1 <= end < layers:
            raise values.error("moe_layer_end_index", f"must be a layer number or -1 (found {show_value(end, 20)})")
        end = layers - 1 if end == -1 else end
        step = values.opt_int("moe_layer_interval") or 1
        moe = [i for i in range(start, end + 1) if (i + 1) % step == 0]
        if not moe:
            raise values.error("moe_layer_start_index", "leaves no MoE layer")
        values.put("moe_layers", moe)
        read.append(f"MoE on layers {moe[0]}-{moe[-1]}" + (f" every {step}" if step > 1 else ""))
    return [f"ERNIE 4.5 config: read {', '.join(read)}"] if read else []


def _granite(values: ConfigValues) -> list[str]:
    """Granite 4.0: the shared MLP is shared_intermediate_size wide; intermediate_size is an
    expert's width, so a dense variant's MLP is the shared one alone."""
    if not values.has("shared_intermediate_size"):
        return []
    shared = values.integer("shared_intermediate_size")
    if values.data.get("num_local_experts"):
        values.put("moe_intermediate_size", values.integer("intermediate_size"))
        values.put("shared_expert_intermediate_size", shared)
        return [f"{values.key('shared_intermediate_size')} {shared} as the shared expert"]
    values.put("intermediate_size", shared)
    return [f"{values.key('shared_intermediate_size')} {shared} as the MLP (no experts)"]


def _arctic(values: ConfigValues) -> list[str]:
    """Snowflake Arctic (ArcticDecoderLayer): every moe_layer_frequency-th layer routes to
    experts intermediate_size wide, and with parallel_attn_mlp_res runs a dense residual MLP
    hidden_size wide beside them (ArcticMLP with is_residual_mlp), always active: counted as
    one shared expert."""
    notes = []
    if values.has("num_local_experts") and not values.has("moe_intermediate_size"):
        values.put("moe_intermediate_size", values.integer("intermediate_size"))
    step = values.opt_int("moe_layer_frequency") or 1
    if step > 1 and not values.has("moe_layers"):
        layers = values.integer("num_hidden_layers")
        values.put("moe_layers", [i for i in range(layers) if (i + 1) % step == 0])
        notes.append(f"experts on one layer in {step} ({values.key('moe_layer_frequency')})")
    if values.flag("parallel_attn_mlp_res") and not values.has("shared_expert_intermediate_size"):
        hidden = values.integer("hidden_size")
        values.put("shared_expert_intermediate_size", hidden)
        notes.append(f"the dense residual MLP beside the experts ({hidden:,} wide) counted as a shared expert")
    return notes


def _gemma4(values: ConfigValues) -> list[str]:
    """Gemma 4's MoE layers (Gemma4TextDecoderLayer with enable_moe_block) run the dense MLP
    (intermediate_size) beside the routed experts, so it is counted as one shared expert;
    experts per token are ``top_k_experts``. Without the MoE block, the expert keys are unused.
    Its full-attention layers take num_global_key_value_heads only when their values are
    their keys (attention_k_eq_v); otherwise they keep num_key_value_heads."""
    if values.has("num_global_key_value_heads") and not values.flag("attention_k_eq_v"):
        values.put("num_global_key_value_heads", values.opt_int("num_key_value_heads"))
    if not values.flag("enable_moe_block"):
        for key in ("num_experts", "top_k_experts"):
            if values.data.get(key):
                raise values.error(key, "is set, but enable_moe_block is not: which one holds is unclear")
        return []
    for theirs, ours in (
        ("top_k_experts", "num_experts_per_tok"),
        ("expert_intermediate_size", "moe_intermediate_size"),
    ):
        if values.has(theirs) and not values.has(ours):
            values.put(ours, values.integer(theirs))
    dense = values.integer("intermediate_size")
    values.put("shared_expert_intermediate_size", dense)
    return [f"Gemma 4 MoE block: the dense MLP ({dense:,} wide) beside the experts counted as a shared expert"]


def _mimo_v2(values: ConfigValues) -> list[str]:
    """MiMo-V2 (MiMoV2Attention): the sliding-window layers take swa_num_key_value_heads and
    swa_head_dim, the full-attention ones num_key_value_heads and head_dim; both take
    v_head_dim for their values. Rewritten so the sliding layers' settings are the usual
    keys and the full layers' the global_* ones."""
    if not values.has("swa_num_key_value_heads"):
        return []
    heads = values.integer("num_attention_heads")
    if values.has("swa_num_attention_heads") and values.integer("swa_num_attention_heads") != heads:
        raise values.error("swa_num_attention_heads", f"differs from num_attention_heads {heads}: not modelled here")
    if values.has("swa_v_head_dim") and values.opt_int("swa_v_head_dim") != values.opt_int("v_head_dim"):
        raise values.error("swa_v_head_dim", "differs from v_head_dim: not modelled here")
    full_kv, full_width = values.integer("num_key_value_heads"), values.integer("head_dim")
    values.put("num_global_key_value_heads", full_kv)
    values.put("global_head_dim", full_width)
    values.put("num_key_value_heads", values.integer("swa_num_key_value_heads"))
    if values.has("swa_head_dim"):
        values.put("head_dim", values.integer("swa_head_dim"))
    return [f"full-attention layers: {full_kv} KV heads of {full_width}; sliding ones: the swa_* settings"]


def _minicpm3(values: ConfigValues) -> list[str]:
    """MiniCPM3Config: a file without v_head_dim gets hidden_size / num_attention_heads."""
    if values.has("v_head_dim") or not (values.has("hidden_size") and values.has("num_attention_heads")):
        return []
    width = values.integer("hidden_size") // values.integer("num_attention_heads")
    values.put("v_head_dim", width)
    return [f"{values.key('v_head_dim')} {width} (MiniCPM3Config's default: hidden_size / num_attention_heads)"]


_DIALECTS: dict[str, Callable[[ConfigValues], list[str]]] = {
    "dbrx": _dbrx,
    "arctic": _arctic,
    **legacy.DIALECTS,
    "granitemoehybrid": _granite,
    **dict.fromkeys(_HUNYUAN_TYPES, _hunyuan),
    **dict.fromkeys(_ERNIE_TYPES, _ernie),
    **dict.fromkeys(_GEMMA4_TYPES, _gemma4),
    **dict.fromkeys(MIMO_V2_TYPES, _mimo_v2),
    "minicpm3": _minicpm3,
}
# The model types read by a rule here.
MODEL_TYPES = frozenset(_DIALECTS)
