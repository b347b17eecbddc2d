"""Read a Hugging Face ``config.json`` (a local file, no network) into an ``LlmModel``.

Understands the Llama shape and those that share it (Mistral, Mixtral, Qwen2/Qwen3 and
their MoE variants) and DeepSeek-V2/V3 (latent attention, shared experts, leading dense
layers). The parameter count is recomputed from the architecture (``core/catalog/llm_shape.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from rackplanner.core.catalog import llm_shape
from rackplanner.core.catalog.parts import LlmModel
from rackplanner.core.errors import InputError, describe_validation_error, show_value
from rackplanner.core.files import read_json
from rackplanner.core.files import shown as shown_path
from rackplanner.core.ids import slug

_REQUIRED = ("num_hidden_layers", "hidden_size", "num_attention_heads", "vocab_size")


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
    "moe_dense_layers": "first_k_dense_replace",
    "params_b": "the parameter count",
    "active_params_b": "the active parameter count",
}


def _int(config: dict[str, Any], key: str, path: Path) -> int:
    value = config[key]
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise InputError(f"{shown_path(path)}: {key} must be a positive whole number (found {show_value(value, 40)})")
    return value


def _opt_int(config: dict[str, Any], path: Path, *keys: str) -> int | None:
    for key in keys:
        if config.get(key) is not None:
            return _int(config, key, path)
    return None


def _count_or_none(config: dict[str, Any], path: Path, key: str) -> int | None:
    """A count where 0 means none (DeepSeek writes first_k_dense_replace: 0)."""
    return None if config.get(key) in (None, 0) else _int(config, key, path)


# A config.json is a few kB; multimodal ones with their processor settings stay under a megabyte.
MAX_CONFIG_BYTES = 4_000_000


def load_hf_config(path: Path, model_id: str | None = None) -> LlmModel:
    """An ``LlmModel`` from ``config.json``; InputError names a missing or bad key."""
    config = read_json(path, what="model config", max_bytes=MAX_CONFIG_BYTES)
    if not isinstance(config, dict):
        raise InputError(f"{path}: expected a JSON object of model settings")
    if isinstance(config.get("text_config"), dict):
        config = {**config["text_config"], **{k: v for k, v in config.items() if k != "text_config"}}
    missing = [key for key in _REQUIRED if key not in config]
    if missing:
        raise InputError(f"{path}: config.json lacks {', '.join(missing)}")
    layers = _int(config, "num_hidden_layers", path)
    hidden = _int(config, "hidden_size", path)
    heads = _int(config, "num_attention_heads", path)
    kv_heads = _opt_int(config, path, "num_key_value_heads") or heads
    experts = _opt_int(config, path, "num_local_experts", "n_routed_experts", "num_experts")
    active = _opt_int(config, path, "num_experts_per_tok")
    if experts is not None and active is None:
        raise InputError(f"{path}: a mixture-of-experts config needs num_experts_per_tok")
    intermediate = _opt_int(config, path, "intermediate_size")
    moe_width = _opt_int(config, path, "moe_intermediate_size")
    if intermediate is None and moe_width is None:
        raise InputError(f"{path}: config.json lacks intermediate_size")
    kv_lora = _opt_int(config, path, "kv_lora_rank")
    if kv_lora is not None:
        rope = _opt_int(config, path, "qk_rope_head_dim")
        nope = _opt_int(config, path, "qk_nope_head_dim")
        v_head = _opt_int(config, path, "v_head_dim")
        if rope is None or nope is None or v_head is None:
            raise InputError(f"{path}: latent attention needs qk_rope_head_dim, qk_nope_head_dim and v_head_dim")
        head_dim = rope + nope
    else:
        rope = v_head = None
        head_dim = _opt_int(config, path, "head_dim") or max(1, hidden // heads)
    name = str(config.get("_name_or_path") or path.parent.name or path.stem)
    data: dict[str, Any] = {
        "id": model_id or slug(name.split("/")[-1], "imported-model", dots=True),
        "vendor": name.split("/")[0] if "/" in name else "unknown",
        "model": name.split("/")[-1],
        "source": [f"{path} (Hugging Face config.json)"],
        "family": str(config.get("model_type", "unknown")),
        "params_b": 1.0,  # replaced below by the recomputed count
        "layers": layers,
        "hidden_size": hidden,
        "intermediate_size": intermediate or moe_width,
        "attention_heads": heads,
        "kv_heads": kv_heads,
        "head_dim": head_dim,
        "vocab_size": _int(config, "vocab_size", path),
        "max_context": _opt_int(config, path, "max_position_embeddings", "seq_length") or 4096,
        "moe_experts": experts,
        "moe_active_experts": active if experts else None,
        "moe_intermediate_size": moe_width if experts else None,
        "moe_shared_experts": _count_or_none(config, path, "n_shared_experts") if experts else None,
        "moe_dense_layers": _count_or_none(config, path, "first_k_dense_replace") if experts else None,
        "tie_word_embeddings": bool(config.get("tie_word_embeddings", False)),
        "q_lora_rank": _opt_int(config, path, "q_lora_rank"),
        "kv_lora_rank": kv_lora,
        "qk_rope_head_dim": rope,
        "v_head_dim": v_head,
    }
    try:
        model = LlmModel.model_validate(data)
        params = llm_shape.parameter_count_b(model)
        active_b = llm_shape.active_parameter_count_b(model) if experts else None
        # Validated again with the counts: an absurd shape gives an absurd count, refused here.
        return LlmModel.model_validate({**data, "params_b": round(params, 3), "active_params_b": active_b})
    except ValidationError as exc:
        raise InputError(f"{shown_path(path)}: {_in_config_terms(describe_validation_error(exc))}") from None
    except (ValueError, ArithmeticError) as exc:
        raise InputError(f"{shown_path(path)}: {_in_config_terms(str(exc))}") from None


def _in_config_terms(message: str) -> str:
    """A model-field message with the config.json keys the user's file has."""
    for field, key in sorted(_CONFIG_KEYS.items(), key=lambda kv: -len(kv[0])):
        message = message.replace(f"{field}:", f"{key}:").replace(f"{field} ", f"{key} ")
    return message
