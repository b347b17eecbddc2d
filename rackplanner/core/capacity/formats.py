"""Weight formats by id and their exact storage cost.

Bits per weight are computed from each format's block layout (``layouts.py``: ggml types
from the gguf package's tables; NF4, GPTQ/AWQ, FP8 and FP4 from their documented blocks),
never typed in. llama.cpp presets mix block types per tensor; the rules of its quantizer
are applied to the model's tensor classes (``llama_quants.py``).
"""

from __future__ import annotations

from dataclasses import replace

from rackplanner.core.capacity.layouts import (
    F16,
    F32,
    FP8,
    FP8_BLOCK_128,
    INT8_ROW,
    MXFP4,
    NF4,
    NF4_DQ,
    NVFP4,
    Q8_0,
    BlockLayout,
    MixTraits,
    Shares,
    TensorClass,
    WeightFormat,
    ggml,
    gptq_int,
)
from rackplanner.core.capacity.llama_quants import llama_cpp_formats
from rackplanner.core.capacity.shape import TensorGroups, tensor_groups, total_params
from rackplanner.core.catalog.parts import LlmModel
from rackplanner.core.errors import InputError, unknown

GGML_COMMON_H = "https://github.com/ggml-org/llama.cpp/blob/master/ggml/src/ggml-common.h"


def _nvfp4_mlp(traits: MixTraits) -> dict[TensorClass, Shares]:
    """The MLP's and experts' tensors in NVFP4 (the rest in the format's base layout)."""
    return {"ffn_gate_up": ((1.0, NVFP4),), "ffn_down": ((1.0, NVFP4),)}


def _other_formats() -> list[WeightFormat]:
    fp16_ends = ("token_embd", "output")
    formats = [
        WeightFormat("fp32", "FP32", F32),
        WeightFormat("fp16", "FP16", F16),
        WeightFormat("bf16", "BF16", F16),
        WeightFormat("fp8", "FP8 (E4M3, per-tensor scale)", FP8, family="fp8"),
        WeightFormat(
            "fp8-block",
            "FP8 (E4M3, FP32 scale per 128×128 block)",
            FP8_BLOCK_128,
            fp16_classes=fp16_ends,
            family="fp8",
            source="DeepSeek-V3 config.json quantization_config: fmt e4m3, weight_block_size [128, 128]",
        ),
        WeightFormat("int8", "INT8 (LLM.int8, FP32 scale per row)", INT8_ROW, family="int"),
        WeightFormat(
            "nvfp4",
            "NVFP4 (E2M1, FP8 scale per 16)",
            NVFP4,
            fp16_classes=fp16_ends,
            family="fp4",
            source="NVIDIA Blackwell NVFP4: 16-value micro-blocks with an E4M3 scale and an FP32 tensor scale",
        ),
        WeightFormat(
            "nvfp4-fp8-attn",
            "NVFP4 MLP and experts, FP8 attention, BF16 embeddings and head (ModelOpt mixed precision)",
            FP8,
            fp16_classes=fp16_ends,
            family="fp4",
            mix=_nvfp4_mlp,
            source="NVIDIA ModelOpt MIXED_PRECISION exports (quantized_layers): MLP NVFP4, attention FP8",
        ),
        WeightFormat(
            "mxfp4-bf16",
            "MXFP4 MoE experts, BF16 elsewhere (gpt-oss as shipped)",
            F16,
            family="fp4",
            expert_layout=MXFP4,
            source="gpt-oss config.json quantization_config quant_method mxfp4; OCP MX spec: 32 E2M1 + E8M0 scale",
        ),
        WeightFormat("nf4", "bitsandbytes NF4", NF4, fp16_classes=fp16_ends, family="nf4"),
        WeightFormat("nf4-dq", "bitsandbytes NF4, double quantization", NF4_DQ, fp16_classes=fp16_ends, family="nf4"),
    ]
    for bits in (4, 8):
        # MLX affine quantization: an FP16 scale and an FP16 bias per group of 64 (mx.quantize defaults).
        formats.append(
            WeightFormat(
                f"mlx-{bits}bit",
                f"MLX {bits}-bit (group 64)",
                BlockLayout(bits, block=64, block_bits=32),
                family="mlx",
                source="https://ml-explore.github.io/mlx/build/html/python/_autosummary/mlx.core.quantize.html",
            )
        )
    for method in ("gptq", "awq"):
        for bits in (4, 8) if method == "gptq" else (4,):
            for group in (32, 64, 128):
                formats.append(
                    WeightFormat(
                        f"{method}-int{bits}-g{group}",
                        f"{method.upper()} {bits}-bit, group {group}",
                        gptq_int(bits, group),
                        fp16_classes=fp16_ends,
                        family="int",
                    )
                )
    return formats


def _formats() -> dict[str, WeightFormat]:
    return {f.id: f for f in (*_other_formats(), *llama_cpp_formats())}


FORMATS: dict[str, WeightFormat] = _formats()

# Element size of the KV cache by its precision id.
KV_CACHE_BYTES: dict[str, float] = {
    "fp32": 4.0,
    "fp16": 2.0,
    "bf16": 2.0,
    "fp8": 1.0,
    "q8_0": Q8_0.bits_per_weight() / 8,
    # llama.cpp's other -ctk/-ctv types (common/arg.cpp's kv_cache_types), by their ggml blocks.
    **{name: ggml(name.upper()).bits_per_weight() / 8 for name in ("q4_0", "q4_1", "q5_0", "q5_1", "iq4_nl")},
}
# llama.cpp's spellings of the float types.
KV_CACHE_ALIASES = {"f32": "fp32", "f16": "fp16"}
# Quantized caches each kind of runtime keeps: llama.cpp its ggml block types, the servers and
# MLX an FP8 cache (vLLM's and SGLang's --kv-cache-dtype fp8, TensorRT-LLM's FP8 KV cache).
_GGML_KV = frozenset({"q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "iq4_nl"})


def kv_cache_refusal(kv_precision: str, runtime_class: str) -> str | None:
    """Why a runtime of this class keeps no KV cache at this precision, or None."""
    kv = KV_CACHE_ALIASES.get(kv_precision.lower(), kv_precision.lower())
    if runtime_class == "llama.cpp" and kv == "fp8":
        return "llama.cpp has no FP8 KV cache: its quantized caches are q8_0, q4_0, q4_1, q5_0, q5_1 and iq4_nl"
    if runtime_class != "llama.cpp" and kv in _GGML_KV:
        return f"a {kv} KV cache is llama.cpp's; this runtime quantizes its cache to fp8"
    return None


def get_format(format_id: str) -> WeightFormat:
    """The format with this id (case-insensitive), or InputError listing the known ids."""
    fmt = FORMATS.get(format_id.lower())
    if fmt is None:
        raise unknown("weight format", format_id, list(FORMATS), "`rackplanner estimate --help`")
    return fmt


def kv_element_bytes(kv_precision: str) -> float:
    """Bytes per cached K or V value at this precision (fp16 2, fp8 1, q8_0 1.0625)."""
    try:
        lowered = kv_precision.lower()
        return KV_CACHE_BYTES[KV_CACHE_ALIASES.get(lowered, lowered)]
    except KeyError:
        raise InputError(f"unknown KV cache precision {kv_precision!r} (known: {', '.join(KV_CACHE_BYTES)})") from None


def weight_bytes(model: LlmModel, fmt: WeightFormat) -> float:
    """Bytes of all weights of ``model`` stored in ``fmt`` (every expert held)."""
    return _bytes(model, fmt, active=False)


def active_weight_bytes(model: LlmModel, fmt: WeightFormat) -> float:
    """Bytes read to produce one token: everything but the embedding table, MLP experts
    scaled by active/total experts."""
    return _bytes(model, fmt, active=True)


def bits_per_weight(model: LlmModel, fmt: WeightFormat) -> float:
    """Average bits per parameter of the whole file, mixes and FP16 tensors included."""
    return weight_bytes(model, fmt) * 8 / total_params(model)


# A real weights file's average bits per parameter must lie in this range (IQ1_S is 1.56).
SIZED_BITS_RANGE = (1.0, 32.0)
_GIB = 2**30


def sized_format(model: LlmModel, fmt: WeightFormat, file_gib: float) -> WeightFormat:
    """``fmt`` with every tensor class scaled so the weights come to ``file_gib`` GiB.

    For files whose per-tensor mix no preset describes (dynamic GGUFs such as Unsloth's
    UD-Q2_K_XL, imatrix mixes): the file's real size fixes the bytes read and held, while
    ``fmt`` keeps the relative sizes of the tensor classes.
    """
    if not 0 < file_gib < 1e6:  # also refuses nan and inf
        raise InputError(f"--weights-gib must be more than 0 and under 1,000,000 (got {file_gib})")
    preset = weight_bytes(model, fmt)
    bits = file_gib * _GIB * 8 / total_params(model)
    low, high = SIZED_BITS_RANGE
    if not low <= bits <= high:
        raise InputError(
            f"--weights-gib {file_gib:g}: that is {bits:.2f} bits per weight for {model.id}'s "
            f"{total_params(model) / 1e9:.1f}B parameters; a weights file holds {low:g} to {high:g}"
        )
    return replace(
        fmt,
        id=f"{fmt.id}@{file_gib:g}GiB",
        label=f"{fmt.label}, sized to a {file_gib:g} GiB file",
        size_scale=fmt.size_scale * file_gib * _GIB / preset,
    )


def mix_traits(model: LlmModel, groups: TensorGroups) -> MixTraits:
    """What a format's mix rules need to know of ``model``."""
    return MixTraits(
        layers=model.layers,
        gqa=max(1, model.attention_heads // max(1, model.kv_heads)),
        experts=model.moe_experts or 0,
        hidden=model.hidden_size,
        attn_width=model.attention_heads * model.head_dim,
        ffn_width=(model.moe_intermediate_size if model.moe_experts else None) or model.intermediate_size or 4096,
        expert_share=round(groups.expert_share, 4),
        tied_embeddings=model.tie_word_embeddings,
    )


def _bytes(model: LlmModel, fmt: WeightFormat, *, active: bool) -> float:
    groups = tensor_groups(model, active=active)
    bits = fmt.bits_by_class(model.hidden_size, mix_traits(model, groups))
    return sum(params * bits[tensor] for tensor, params in groups.as_dict().items()) / 8


def scale_overhead_bytes(params: float, layout: BlockLayout, row: int = 4096) -> float:
    """Bytes of scales/zeros for ``params`` weights in ``layout`` (NF4, 100B -> 6.25 GB)."""
    return params * layout.scale_bits_per_weight(row) / 8


# What the capacity tables list per runtime class: the files people download for it (every
# format stays available by id). MoE-only formats are offered for MoE models only.
_TABLE_FORMATS: dict[str, tuple[str, ...]] = {
    "llama.cpp": ("fp16", "q8_0", "q6_k", "q5_k_m", "q4_k_m", "q4_0", "iq4_xs", "q3_k_m", "q2_k", "mxfp4"),
    "server": ("bf16", "fp8", "awq-int4-g128", "gptq-int4-g128", "nvfp4", "mxfp4-bf16"),
    "mlx": ("bf16", "mlx-8bit", "mlx-4bit", "mxfp4"),
}
_MOE_ONLY = frozenset({"mxfp4", "mxfp4-bf16"})


def table_formats(runtime_class: str, model: LlmModel) -> list[WeightFormat]:
    """The formats a capacity table lists for ``model`` under a runtime class."""
    ids = _TABLE_FORMATS.get(runtime_class, _TABLE_FORMATS["llama.cpp"])
    return [FORMATS[f] for f in ids if model.moe_experts or f not in _MOE_ONLY]
