"""Read a Hugging Face ``config.json`` (a local file, no network) into an ``LlmModel``.

Understands the Llama shape and those that share it (Mistral, Mixtral, Qwen2/Qwen3 and
their MoE variants, Phi-3/4, Gemma 2/3, gpt-oss), DeepSeek-V2/V3 (latent attention, shared
experts, leading dense layers, MTP modules), the hybrid Qwen3-Next and Jamba, models whose
layers differ (Nemotron NAS, Gemma 4, MiMo-V2, Kimi Linear), and multimodal checkpoints
whose text model sits in ``text_config``. The parameter count is
recomputed from the architecture (``core/catalog/llm_shape.py``); every value the file
leaves to transformers' defaults is named in the model's notes.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from rackplanner.core.catalog import llm_shape
from rackplanner.core.catalog.hf import dialects, extras, legacy, towers
from rackplanner.core.catalog.hf.layout import (
    NESTED_TEXT_DEFAULTS,
    TEXT_DEFAULTS,
    attention_layout,
    head_width,
    known_model_type,
    tied_default,
)
from rackplanner.core.catalog.hf.values import ConfigValues
from rackplanner.core.catalog.parts import LlmModel
from rackplanner.core.errors import InputError, describe_validation_error
from rackplanner.core.files import read_json
from rackplanner.core.files import shown as shown_path
from rackplanner.core.ids import slug

_REQUIRED = ("num_hidden_layers", "hidden_size", "num_attention_heads", "vocab_size")

# Encoders Phi-3-vision and Phi-4-multimodal describe by name (a CLIP checkpoint, an audio
# front end) rather than by sizes this import reads.
_UNCOUNTED_ENCODERS = ("img_processor", "audio_processor")

# The config.json key each model field comes from, so a message names what the user's file says.
_CONFIG_KEYS = {
    "layers": "num_hidden_layers",
    "hidden_size": "hidden_size",
    "intermediate_size": "intermediate_size",
    "attention_heads": "num_attention_heads",
    "kv_heads": "num_key_value_heads",
    "head_dim": "head_dim",
    "vocab_size": "vocab_size",
    "max_context": "max_position_embeddings",
    "moe_experts": "num_local_experts",
    "moe_active_experts": "num_experts_per_tok",
    "moe_intermediate_size": "moe_intermediate_size",
    "moe_shared_experts": "n_shared_experts",
    "moe_shared_intermediate_size": "shared_expert_intermediate_size",
    "moe_dense_layers": "first_k_dense_replace",
    "sliding_window": "sliding_window",
    "full_attention_kv_heads": "num_global_key_value_heads",
    "full_attention_head_dim": "global_head_dim",
    "attention_value_dim": "v_head_dim",
    "sparse_attention_top_k": "index_topk",
    "indexer_heads": "index_n_heads",
    "indexer_head_dim": "index_head_dim",
    "params_b": "the parameter count (billions)",
    "active_params_b": "the active parameter count (billions)",
}

# Model types with DeepSeek's sparse attention (a lightning indexer picks index_topk tokens).
_SPARSE_ATTENTION_TYPES = frozenset({"deepseek_v32", "glm_moe_dsa", "deepseek_v4"})
# Attention whose one cached vector per token is both key and value (DeepSeek-V4).
_SHARED_KV_TYPES = frozenset({"deepseek_v4"})

# Model types whose MLP is one up and one down projection (no gate).
_UNGATED_TYPES = frozenset({"nemotron_h", "starcoder2", "phi", "gpt2", "gpt_neox", "opt", "falcon", *legacy.UNGATED})

# A config.json is a few kB; multimodal ones with their processor settings stay under a megabyte.
MAX_CONFIG_BYTES = 4_000_000


def load_hf_config(path: Path, model_id: str | None = None, *, name: str | None = None) -> LlmModel:
    """An ``LlmModel`` from ``config.json``; InputError names a missing or bad key.

    ``name`` ("org/model", as given to ``--hf``) names the model when the file does not.
    """
    raw = read_json(path, what="model config", max_bytes=MAX_CONFIG_BYTES)
    if not isinstance(raw, dict):
        raise InputError(f"{path}: expected a JSON object of model settings")
    top = ConfigValues(raw, path)
    holder = _text_holder(top)
    text = holder.obj("text_config") or holder
    model_type = text.string("model_type") or top.string("model_type") or "unknown"
    model_type = legacy.TYPE_ALIASES.get(model_type, model_type)
    notes = _fill_defaults(text, model_type) + dialects.normalize(text, model_type)
    if text is not top:
        notes += _fill_defaults(text, model_type, NESTED_TEXT_DEFAULTS)
    if not known_model_type(model_type):
        named = "names no model_type" if model_type == "unknown" else f"has model type {model_type!r}, not one"
        notes.append(
            f"the config {named} read here by name: read as a standard decoder (attention and an MLP "
            "in every layer), so layers of its own are not counted"
        )
    data = _model_data(top, text, model_type, notes, name)
    if model_id:
        data["id"] = model_id
    try:
        model = LlmModel.model_validate(data)
        params = llm_shape.parameter_count_b(model)
        active_b = llm_shape.active_parameter_count_b(model) if model.moe_experts else None
        counted: dict[str, Any] = {"params_b": round(params, 3), "active_params_b": active_b}
        if extras.model_name(top) is None and not name:
            size = f"{params / 1000:.3g}T" if params >= 999.5 else f"{params:.3g}B"
            counted["model"] = f"{data['model']} {size}"
            counted["id"] = model_id or slug(counted["model"], "imported-model", dots=True)
        # Validated again with the counts: an absurd shape gives an absurd count, refused here.
        return LlmModel.model_validate({**data, **counted})
    except ValidationError as exc:
        raise InputError(f"{shown_path(path)}: {_in_config_terms(describe_validation_error(exc), text)}") from None
    except (ValueError, ArithmeticError) as exc:
        raise InputError(f"{shown_path(path)}: {_in_config_terms(str(exc), text)}") from None


def _text_holder(top: ConfigValues) -> ConfigValues:
    """Where the text model and its towers sit: an omni model's (Qwen2.5-Omni, Qwen3-Omni)
    thinker_config, which writes the text, else the file itself."""
    return top.obj("thinker_config") or top


def _fill_defaults(
    values: ConfigValues, model_type: str, defaults: dict[str, dict[str, object]] = TEXT_DEFAULTS
) -> list[str]:
    notes = []
    for key, value in defaults.get(model_type, {}).items():
        if key not in values.data:
            values.put(key, value)
            notes.append(f"{values.key(key)} {value} (transformers' default for {model_type})")
    return notes


def _model_data(
    top: ConfigValues, text: ConfigValues, model_type: str, notes: list[str], given_name: str | None
) -> dict[str, Any]:
    block_types = text.data.get("layers_block_type")
    if "num_hidden_layers" not in text.data and isinstance(block_types, list) and block_types:
        # transformers' NemotronHConfig counts the layers from layers_block_type when it is given.
        text.put("num_hidden_layers", len(block_types))
        notes.append(f"{text.key('num_hidden_layers')} {len(block_types)} (the length of layers_block_type)")
    missing = [text.key(key) for key in _REQUIRED if key not in text.data]
    if missing:
        raise InputError(f"{top.path}: config.json lacks {', '.join(missing)}")
    layers = text.integer("num_hidden_layers")
    hidden = text.integer("hidden_size")
    heads = text.integer("num_attention_heads")
    kv_heads = text.opt_int("num_key_value_heads") or heads
    # A dense variant of a MoE family may say 0 experts (Granite 4.0's num_local_experts).
    experts = next(
        (text.integer(key) for key in ("num_local_experts", "n_routed_experts", "num_experts") if text.data.get(key)),
        None,
    )
    if experts is None:
        _refuse_unread_experts(text)
    active = text.opt_int("num_experts_per_tok", "experts_per_token", "num_experts_per_token") if experts else None
    if experts is not None and active is None:
        raise text.error(
            "num_experts_per_tok", "is needed: a mixture-of-experts config names how many experts a token uses"
        )
    intermediate = text.opt_int("intermediate_size", "block_ff_dim")
    moe_width = text.opt_int("moe_intermediate_size")
    if moe_width is None and text.has("intermediate_size_mlp"):
        # Llama 4: intermediate_size is an expert's width, intermediate_size_mlp a dense layer's.
        intermediate, moe_width = text.opt_int("intermediate_size_mlp"), intermediate
    layout = attention_layout(text, model_type, layers, hidden)
    notes.extend(layout.notes)
    intermediate = layout.mlp_width or intermediate
    kv_heads = layout.kv_heads or kv_heads
    if intermediate is None and moe_width is None:
        raise InputError(f"{top.path}: config.json lacks {text.key('intermediate_size')}")
    mla = _latent_attention(text)
    head_dim = mla[0] if mla else head_width(text, hidden, heads)
    tied = text.flag("tie_word_embeddings")
    tied = text.flag("tie_embedding") if tied is None else tied  # LFM2's older key
    tied = _text_holder(top).flag("tie_word_embeddings") if tied is None else tied
    if tied is None:
        tied, note = tied_default(model_type)
        notes.append(note or f"tie_word_embeddings {str(tied).lower()} (transformers' default for {model_type})")
    holder = _text_holder(top)
    vision, audio = holder.obj("vision_config"), holder.obj("audio_config")
    if holder is not top and top.has("talker_config"):
        notes.append(
            "talker_config describes the speech generator beside the thinker: its weights are not counted, "
            "only the thinker's, which writes the text"
        )
    if model_type == "mllama_text_model" and layout.linear_layers and vision is not None:
        image_tokens = towers.mllama_image_tokens(vision)
        layout.linear_state_values = image_tokens * 2 * kv_heads * head_dim
        notes.append(f"the cross-attention cache is counted for one image of {image_tokens:,} tokens")
    if vision is not None:
        notes.extend(_fill_defaults(vision, holder.string("model_type") or model_type, towers.VISION_DEFAULTS))
    if audio is not None and not towers.whisper_like(audio):
        notes.append("audio_config describes an encoder not read here: its weights are left out of the total")
    notes.extend(
        f"{key} names an encoder whose weights are not counted here, so the total leaves it out"
        for key in _UNCOUNTED_ENCODERS
        if holder.has(key) or text.has(key)
    )
    if model_type in _SPARSE_ATTENTION_TYPES and not text.has("index_topk"):
        notes.append(
            f"{model_type} attends sparsely, but the file gives no index_topk: counted as full attention, "
            "so a long context's decode reads more here than it does"
        )
    expert_dtype = text.string("expert_dtype")
    if expert_dtype:
        # DeepSeek-V4 ships its experts in FP4 beside FP8 blocks elsewhere; one format is sized here.
        notes.append(
            f"{text.key('expert_dtype')} {expert_dtype!r} is not read: the experts are sized in the one format "
            "the estimate uses, so a checkpoint whose experts ship smaller is over-counted"
        )
    if text.has("compress_ratios"):
        notes.append(
            f"{text.key('compress_ratios')} is not read: each layer's cache is counted uncompressed, "
            "the most it can need (DeepSeek-V4 keeps one entry per 4 or 128 tokens on most layers)"
        )
    inline = top.obj("quantization_config") or text.obj("quantization_config")
    sibling = extras.sibling_quant_config(top.path)
    quant = inline or sibling
    if inline is not None and sibling is not None:
        notes.append(
            f"both config.json's quantization_config and {extras.MODELOPT_QUANT_FILE} name a format: "
            "config.json's is taken (give --format for the other)"
        )
    named = extras.model_name(top)
    if given_name and "/" in given_name:
        named = (given_name.split("/")[0], given_name.split("/")[-1])
    # With no name in the file, the architecture and (below) the size name the model.
    vendor, model = named or ("unknown", extras.architecture_name(top))
    data: dict[str, Any] = {
        "id": slug(model, "imported-model", dots=True),
        "vendor": vendor,
        "model": model,
        "source": [f"{top.path} (Hugging Face config.json)"],
        "family": model_type,
        "params_b": 1.0,  # replaced by the recomputed count
        "layers": layout.mixer_layers or layers,
        "mlp_layers": layout.mlp_layers,
        "mlp_gated": model_type not in _UNGATED_TYPES,
        "hidden_size": hidden,
        "intermediate_size": intermediate or moe_width,
        "attention_heads": heads,
        "kv_heads": kv_heads,
        "head_dim": head_dim,
        "vocab_size": text.integer("vocab_size"),
        "max_context": text.opt_int("max_position_embeddings", "seq_length") or 4096,
        "tie_word_embeddings": tied,
        "sliding_window": layout.sliding_window,
        "sliding_window_layers": layout.sliding_layers or None,
        "chunked_attention": layout.chunked,
        "linear_attention_layers": layout.linear_layers or None,
        "linear_mixer_params": layout.linear_mixer_params,
        "parallel_mixer_layers": layout.parallel_mixer_layers,
        "linear_state_values": layout.linear_state_values,
        "attention_free_layers": layout.attention_free_layers,
        "mlp_widths": layout.mlp_widths,
        "linear_replacement_params": layout.linear_replacement_params,
        **_full_attention_dims(text, mla is not None),
        "attention_output_gate": layout.attention_output_gate,
        "mtp_layers": extras.mtp_layers(text),
        "vision_params": towers.vision_params(vision, hidden, holder) if vision else None,
        "audio_params": towers.audio_params(audio, hidden, holder) if audio and towers.whisper_like(audio) else None,
        "shipped_format": extras.shipped_format(quant) if quant else None,
        "notes": "; ".join(notes) or None,
    }
    if text.has("index_topk"):
        # DeepSeek-V3.2's sparse attention (DeepseekV32 config: index_topk, index_n_heads, index_head_dim).
        data.update(
            sparse_attention_top_k=text.integer("index_topk"),
            indexer_heads=text.integer("index_n_heads"),
            indexer_head_dim=text.integer("index_head_dim"),
        )
    if mla:
        data.update(
            q_lora_rank=text.opt_int("q_lora_rank"), kv_lora_rank=mla[1], qk_rope_head_dim=mla[2], v_head_dim=mla[3]
        )
    elif model_type in _SHARED_KV_TYPES:
        # DeepSeek-V4 (its inference model.py): wq_a/wq_b through q_lora_rank, one wkv vector that
        # is both key and value, wo_a per o_groups group down to o_lora_rank, then wo_b.
        data.update(
            q_lora_rank=text.opt_int("q_lora_rank"),
            shared_kv=True,
            output_lora_rank=text.opt_int("o_lora_rank"),
            output_groups=text.opt_int("o_groups"),
        )
    if experts is not None:
        data.update(_moe(text, model_type, layers, experts, active, moe_width, layout.dense_layers_override))
    return data


def _full_attention_dims(text: ConfigValues, mla: bool) -> dict[str, Any]:
    """Full-attention layers shaped apart (the dialects put each model's settings under these
    keys): their own head width (global_head_dim) and KV heads (num_global_key_value_heads),
    values from the keys' projection (attention_k_eq_v); value heads of v_head_dim where
    standard attention's differ from its key heads (MiMo-V2)."""
    return {
        "full_attention_head_dim": text.opt_int("global_head_dim"),
        "full_attention_kv_heads": text.opt_int("num_global_key_value_heads"),
        "full_attention_values_from_keys": bool(text.flag("attention_k_eq_v")),
        "attention_value_dim": None if mla else text.opt_int("v_head_dim"),
    }


def _refuse_unread_experts(text: ConfigValues) -> None:
    """A config that counts experts under a key not read here would be sized as a dense
    model, far too small (ERNIE 4.5's moe_num_experts read that way gave 3.35B for 21.8B):
    refuse it, naming the key."""
    for key, value in text.data.items():
        named = "expert" in key.lower() or key.lower().startswith("moe_")
        counts = isinstance(value, int) and not isinstance(value, bool) and value > 1
        if named and (counts or (isinstance(value, list) and value and isinstance(value[0], int))):
            raise text.error(
                key,
                "describes experts, but no expert count is read here (num_local_experts, n_routed_experts or "
                "num_experts): sized as a dense model, the total would leave them out",
            )


def _latent_attention(text: ConfigValues) -> tuple[int, int, int, int] | None:
    """(head_dim, kv_lora_rank, qk_rope_head_dim, v_head_dim) of DeepSeek's MLA."""
    kv_lora = text.opt_int("kv_lora_rank")
    if kv_lora is None:
        return None
    rope, nope, v_head = (text.opt_int(k) for k in ("qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim"))
    if rope is None or nope is None or v_head is None:
        raise InputError(f"{text.path}: latent attention needs qk_rope_head_dim, qk_nope_head_dim and v_head_dim")
    return rope + nope, kv_lora, rope, v_head


def _moe(
    text: ConfigValues,
    model_type: str,
    layers: int,
    experts: int,
    active: int | None,
    width: int | None,
    dense_override: int | None,
) -> dict[str, Any]:
    dense = text.count_or_none("first_k_dense_replace")
    only_dense = text.layer_indexes("mlp_only_layers", layers)
    if only_dense:
        dense = len(only_dense)
    # Qwen2-MoE's decoder_sparse_step, Llama 4's interleave_moe_layer_step: every step-th layer.
    step = text.opt_int("decoder_sparse_step", "interleave_moe_layer_step")
    if step and step > 1:
        dense = layers - len([i for i in range(layers) if (i + 1) % step == 0])
    if isinstance(text.data.get("moe_layer_freq"), list):
        dense = text.layer_flags("moe_layer_freq", layers).count(0)  # MiMo-V2: 1 for experts
    moe_layers = text.layer_indexes("moe_layers", layers)
    if moe_layers:
        dense = layers - len(moe_layers)
    if dense_override is not None:
        dense = dense_override
    # Kimi Linear and Bailing say num_shared_experts.
    shared = text.count_or_none("n_shared_experts") or text.count_or_none("num_shared_experts")
    # 0 means no shared expert (Qwen3-Coder-480B-A35B writes shared_expert_intermediate_size: 0).
    shared_width = text.count_or_none("shared_expert_intermediate_size") or text.count_or_none(
        "moe_shared_expert_intermediate_size"
    )
    if shared_width and not shared:
        shared = 1  # Qwen2-MoE / Qwen3-Next: one shared expert of its own width
    if model_type == "llama4_text" and not shared:
        shared = 1  # Llama 4's MoE block: the routed experts and one shared expert of their width
    return {
        "moe_experts": experts,
        "moe_active_experts": active,
        "moe_intermediate_size": width,
        "moe_shared_experts": shared,
        "moe_shared_intermediate_size": shared_width,
        "moe_latent_size": text.opt_int("moe_latent_size"),
        "moe_dense_layers": dense or None,
    }


def _in_config_terms(message: str, text: ConfigValues) -> str:
    """A model-field message with the config.json keys the user's file has; a head width the
    file does not give is said to be worked out."""
    prefix = text.prefix
    for field, key in sorted(_CONFIG_KEYS.items(), key=lambda kv: -len(kv[0])):
        message = message.replace(f"{field}:", f"{prefix}{key}:").replace(f"{field} ", f"{prefix}{key} ")
    if not text.has("head_dim"):
        # Only the bare key: global_head_dim and qk_rope_head_dim are the file's own.
        derived = "head_dim (hidden_size / num_attention_heads):"
        message = re.sub(rf"(?<![\w.]){re.escape(prefix)}head_dim:", derived, message)
    return message
