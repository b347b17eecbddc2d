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
        raise quant.error("quant_algo", f"{show_value(algo, 30)} is not a format known here (FP8 or NVFP4)")
    if method == "compressed-tensors":
        return _compressed_tensors(quant)
    known = "mxfp4, fp8, gptq, awq, bitsandbytes, modelopt, compressed-tensors"
    if not method:
        raise quant.error("quant_method", f"is missing, so how the weights are stored is not known (one of {known})")
    raise quant.error("quant_method", f"{show_value(method, 30)} is not a format known here ({known})")


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
