"""The parts of a config.json beyond the text decoder's layers: the format a pre-quantized
checkpoint ships in, multi-token-prediction modules and the model's name (its encoders are
in towers.py)."""

from __future__ import annotations

from pathlib import Path

from rackplanner.core.catalog.hf.values import ConfigValues
from rackplanner.core.errors import InputError, show_value
from rackplanner.core.files import read_json
from rackplanner.core.files import shown as shown_path

# A ModelOpt file lists the modules it left unquantized: a few hundred kB for a large MoE.
MAX_QUANT_FILE_BYTES = 8_000_000

# Every format id shipped_format can give; a test checks each is a capacity format.
SHIPPED_FORMATS = frozenset(
    {
        "mxfp4-bf16",
        "fp8",
        "fp8-block",
        "nvfp4",
        "nvfp4-fp8-attn",
        "int8",
        "nf4",
        "nf4-dq",
        *(
            f"{method}-int{bits}-g{group}"
            for method, bits in (("gptq", 4), ("gptq", 8), ("awq", 4))
            for group in (32, 64, 128)
        ),
    }
)


def shipped_format(quant: ConfigValues) -> str:
    """The capacity format id of a ``quantization_config``; InputError when unknown."""
    method = (quant.string("quant_method") or "").lower()
    producer = quant.data.get("producer")
    if not method and (quant.has("quant_algo") or (isinstance(producer, dict) and producer.get("name") == "modelopt")):
        method = "modelopt"  # ModelOpt exports name quant_algo and their producer, not always the method
    if method == "mxfp4":
        return "mxfp4-bf16"  # gpt-oss: MXFP4 experts, everything else in BF16
    if method == "fp8":
        return "fp8-block" if quant.has("weight_block_size") else "fp8"
    if method in ("gptq", "awq"):
        bits = quant.opt_int("bits", "w_bit")
        group = quant.data.get("group_size", quant.data.get("q_group_size"))
        return _grouped(quant, method, bits, group)
    if method == "bitsandbytes":
        if quant.flag("load_in_4bit"):
            return "nf4-dq" if quant.flag("bnb_4bit_use_double_quant") else "nf4"
        return "int8"
    if method == "modelopt":
        given = quant.string("quant_algo")
        if given is None:
            raise quant.error("quant_algo", "is missing or null: name the format (FP8 or NVFP4)")
        algo = given.upper()
        if algo in ("FP8", "NVFP4"):
            return algo.lower()
        if algo == "MIXED_PRECISION":
            return _modelopt_mixed(quant)
        raise quant.error(
            "quant_algo", f"{show_value(algo, 30)} is not a format known here (FP8, NVFP4 or MIXED_PRECISION)"
        )
    if method == "compressed-tensors":
        return _compressed_tensors(quant)
    known = "mxfp4, fp8, gptq, awq, bitsandbytes, modelopt, compressed-tensors"
    if not method:
        raise quant.error("quant_method", f"is missing, so how the weights are stored is not known (one of {known})")
    raise quant.error("quant_method", f"{show_value(method, 30)} is not a format known here ({known})")


# ModelOpt's per-module algorithms, by the bytes a weight takes (W4A16_NVFP4 stores NVFP4
# weights and leaves the activations in 16 bits; MXFP8 is FP8 with a scale per 32).
_MODELOPT_WEIGHTS = {"NVFP4": "nvfp4", "W4A16_NVFP4": "nvfp4", "NVFP4_AWQ": "nvfp4", "FP8": "fp8", "MXFP8": "fp8"}
# Module names of a decoder's MLP and experts (transformers' and Mixtral/MiniMax's w1-w3).
_MLP_NAMES = ("mlp", "experts", "gate_proj", "up_proj", "down_proj", "gate_up_proj", ".w1", ".w2", ".w3", "fc1", "fc2")


def _modelopt_mixed(quant: ConfigValues) -> str:
    """A ModelOpt MIXED_PRECISION export: the format per module in ``quantized_layers``.
    NVIDIA's checkpoints put the MLP and experts in NVFP4 and attention in FP8."""
    layers = quant.data.get("quantized_layers")
    if not isinstance(layers, dict) or not layers:
        raise quant.error("quantized_layers", "must map each quantized module to its quant_algo (MIXED_PRECISION)")
    mlp: list[str] = []
    rest: list[str] = []
    for name, spec in layers.items():
        algo = str(spec.get("quant_algo", "")).upper() if isinstance(spec, dict) else ""
        weights = _MODELOPT_WEIGHTS.get(algo)
        if weights is None:
            raise quant.error(
                "quantized_layers", f"{show_value(name, 60)}: quant_algo {show_value(algo, 20)} is not known here"
            )
        if name.endswith(("lm_head", "embed_tokens")):
            continue
        (mlp if any(part in name for part in _MLP_NAMES) else rest).append(weights)
    # The MLP's format is that of most of its modules (a few shared experts may differ).
    mlp_format = max(set(mlp), key=mlp.count) if mlp else None
    rest_format = max(set(rest), key=rest.count) if rest else mlp_format
    if mlp_format == rest_format and mlp_format is not None:
        return mlp_format
    if (mlp_format, rest_format) == ("nvfp4", "fp8"):
        return "nvfp4-fp8-attn"
    raise quant.error(
        "quantized_layers", f"{mlp_format} MLP with {rest_format} attention is a mix not known here; give --format"
    )


def _grouped(quant: ConfigValues, method: str, bits: int | None, group: object) -> str:
    fmt = f"{method}-int{bits}-g{group}"
    if fmt not in SHIPPED_FORMATS:
        raise quant.error(
            "bits",
            f"{bits} with group_size {show_value(group, 20)} has no {method.upper()} format here "
            "(4 or 8 bits in groups of 32, 64 or 128); give --format",
        )
    return fmt


def _compressed_tensors(quant: ConfigValues) -> str:
    groups = quant.obj("config_groups")
    scheme = next(iter(groups.data.values()), None) if groups else None
    weights = scheme.get("weights") if isinstance(scheme, dict) else None
    if not isinstance(weights, dict):
        raise quant.error("config_groups", "has no weights scheme to read the format from")
    bits, kind, group = weights.get("num_bits"), weights.get("type"), weights.get("group_size")
    if kind == "float" and bits == 8:
        return "fp8-block" if weights.get("strategy") == "block" else "fp8"
    if kind == "float" and bits == 4:
        return "nvfp4"
    if kind == "int" and bits == 8 and group is None:
        return "int8"
    if kind == "int" and isinstance(bits, int):
        return _grouped(quant, "gptq", bits, group)
    raise quant.error(
        "config_groups", f"weights of {show_value(bits, 10)}-bit {show_value(kind, 10)} are not known here"
    )


# NVIDIA's ModelOpt exports write the format beside config.json, not in it.
MODELOPT_QUANT_FILE = "hf_quant_config.json"


def sibling_quant_config(config_path: Path) -> ConfigValues | None:
    """The ``quantization`` block of a ModelOpt ``hf_quant_config.json`` next to the config,
    read as a ``quantization_config`` of method modelopt; None when there is no such file."""
    path = config_path.parent / MODELOPT_QUANT_FILE
    if path.exists() and not path.is_file():
        raise InputError(f"{shown_path(path)}: not a file (a ModelOpt quantization config is a JSON file)")
    if not path.is_file():
        return None
    raw = read_json(path, what="quantization config", max_bytes=MAX_QUANT_FILE_BYTES)
    block = raw.get("quantization") if isinstance(raw, dict) else None
    if not isinstance(block, dict):
        raise InputError(f"{shown_path(path)}: quantization must be an object naming quant_algo")
    return ConfigValues({"quant_method": "modelopt", **block}, path)


def mtp_layers(cfg: ConfigValues) -> int | None:
    """Multi-token-prediction modules (DeepSeek-V3 num_nextn_predict_layers, Qwen3-Next)."""
    for key in ("num_nextn_predict_layers", "mtp_num_hidden_layers"):
        if cfg.has(key):
            return cfg.count_or_none(key)
    return None


def model_name(top: ConfigValues) -> tuple[str, str] | None:
    """(vendor, model) from ``_name_or_path``, else from the architecture, never the file."""
    name = (top.string("_name_or_path") or "").replace("\\", "/").rstrip("/")
    parts = [p for p in name.split("/") if p and p not in (".", "..")]
    # A snapshot in the Hub's cache (.../models--Org--Name/snapshots/<commit>) or a local
    # mirror of huggingface.co/Org/Name: the folder names the model, the commit does not.
    cached = next((p.split("--") for p in parts if p.startswith("models--") and p.count("--") >= 2), None)
    if cached:
        return cached[1], "--".join(cached[2:])
    if "huggingface.co" in parts[:-2]:
        at = len(parts) - 1 - parts[::-1].index("huggingface.co")
        return parts[at + 1], parts[at + 2]
    if len(parts) >= 2 and not name.startswith(("/", ".", "~")):
        return parts[-2], parts[-1]
    if parts:
        return "unknown", parts[-1]
    return None


def architecture_name(top: ConfigValues) -> str:
    """ "Qwen3" from ``architectures: ["Qwen3ForCausalLM"]``, else the model type."""
    arch = (top.str_list("architectures") or [""])[0] or top.string("model_type") or "model"
    name = arch.removesuffix("ForCausalLM").removesuffix("ForConditionalGeneration").rstrip("_")
    return name or arch
