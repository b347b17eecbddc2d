"""How a tensor is stored (block layouts) and what a weight format is made of.

ggml's block sizes come from the ``gguf`` package's ``GGML_QUANT_SIZES`` table (weights
per block and bytes per block, as llama.cpp's ggml-common.h defines the structs), so every
llama.cpp type is read, not retyped. Formats from other tools (bitsandbytes NF4, GPTQ/AWQ,
FP8 with block scales, NVFP4) are built from their documented layouts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType


@dataclass(frozen=True)
class BlockLayout:
    """How one quantized tensor is stored.

    ``element_bits`` per weight, plus ``block_bits`` (scale, zero or min) per ``block``
    weights, plus ``super_bits`` per ``super_block`` weights, plus ``second_bits`` per
    ``second_group`` blocks (double quantization's FP32 scale of the FP8 block scales).
    ``block`` 0 means one scale per row of ``hidden_size`` weights. A ggml type carries its
    name (``ggml_type``) and its whole block in ``element_bits`` (bytes × 8 / weights).
    """

    element_bits: float
    block: int = 0
    block_bits: float = 0.0
    super_block: int = 0
    super_bits: float = 0.0
    second_group: int = 0
    second_bits: float = 0.0
    ggml_type: str = ""
    # Weights a row must be a multiple of (ggml blocks); 1 for plain floats.
    row_multiple: int = 1

    def bits_per_weight(self, row: int = 4096) -> float:
        block = self.block or row
        bits = self.element_bits
        if self.block_bits:
            bits += self.block_bits / block
        if self.super_block:
            bits += self.super_bits / self.super_block
        if self.second_group:
            bits += self.second_bits / (block * self.second_group)
        return bits

    def scale_bits_per_weight(self, row: int = 4096) -> float:
        """Storage beyond the quantized elements (scales, zeros, mins), bits per weight."""
        return self.bits_per_weight(row) - self.element_bits


def ggml(type_name: str) -> BlockLayout:
    """The layout of a ggml tensor type by name (``Q4_K``, ``IQ4_XS``, ``MXFP4`` ...)."""
    weights, size_bytes = GGML_QUANT_SIZES[GGMLQuantizationType[type_name]]
    return BlockLayout(size_bytes * 8 / weights, ggml_type=type_name, row_multiple=weights)


# A tensor whose rows are not a multiple of the type's block falls back to a type with
# 32-weight blocks (tensor_type_fallback in llama.cpp's src/llama-quant.cpp), else F16.
_FALLBACK = {
    **dict.fromkeys(("IQ1_S", "IQ1_M", "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ3_XXS", "IQ3_S", "IQ4_XS"), "IQ4_NL"),
    **dict.fromkeys(("Q2_K", "Q3_K", "TQ1_0", "TQ2_0"), "Q4_0"),
    "Q4_K": "Q5_0",
    "Q5_K": "Q5_1",
    "Q6_K": "Q8_0",
}


def fitted_to_row(layout: BlockLayout, row: int) -> BlockLayout:
    """The layout llama.cpp actually stores a tensor with ``row`` input weights in."""
    if row % layout.row_multiple == 0:
        return layout
    fallback = ggml(_FALLBACK.get(layout.ggml_type, "F16"))
    return fallback if row % fallback.row_multiple == 0 else ggml("F16")


F32 = ggml("F32")
F16 = ggml("F16")
FP8 = BlockLayout(8)
# DeepSeek-V3's FP8 checkpoints: E4M3 weights with one FP32 scale per 128 × 128 block
# (quantization_config weight_block_size [128, 128]).
FP8_BLOCK_128 = BlockLayout(8, block=128 * 128, block_bits=32)
INT8_ROW = BlockLayout(8, block=0, block_bits=32)  # LLM.int8: one FP32 scale per row
Q8_0 = ggml("Q8_0")
Q4_0 = ggml("Q4_0")
Q6_K = ggml("Q6_K")
Q5_K = ggml("Q5_K")
Q4_K = ggml("Q4_K")
Q3_K = ggml("Q3_K")
Q2_K = ggml("Q2_K")
MXFP4 = ggml("MXFP4")
# NVIDIA NVFP4: E2M1 elements, an FP8 (E4M3) scale per 16 and an FP32 scale per tensor.
NVFP4 = BlockLayout(4, block=16, block_bits=8)
# bitsandbytes NF4: FP32 absmax per 64 weights; with double quantization the absmax values
# are stored as FP8 with one FP32 scale per 256 of them (003_fdb6d644ec457317.txt).
NF4 = BlockLayout(4, block=64, block_bits=32)
NF4_DQ = BlockLayout(4, block=64, block_bits=8, second_group=256, second_bits=32)


def gptq_int(bits: int, group: int) -> BlockLayout:
    """GPTQ/AWQ: fp16 scale and a packed zero point of ``bits`` bits per ``group`` weights."""
    return BlockLayout(bits, block=group, block_bits=16 + bits)


def gptq_int4(group: int) -> BlockLayout:
    """GPTQ/AWQ 4-bit: fp16 scale and a packed 4-bit zero point per group of ``group`` weights."""
    return gptq_int(4, group)


TensorClass = str
TENSOR_CLASSES: tuple[TensorClass, ...] = (
    "token_embd",
    "output",
    "attn_q",
    "attn_k",
    "attn_v",
    "attn_output",
    "ffn_gate_up",
    "ffn_down",
    "other",
)
Shares = tuple[tuple[float, BlockLayout], ...]


@dataclass(frozen=True)
class MixTraits:
    """What llama.cpp's mix rules look at: layer count, query heads per KV head, experts,
    the rows the tensors have, and the share of the MLP held by routed experts."""

    layers: int = 32
    gqa: int = 1
    experts: int = 0
    hidden: int = 4096
    attn_width: int = 4096
    ffn_width: int = 4096
    expert_share: float = 0.0
    tied_embeddings: bool = False

    def row_of(self, tensor: TensorClass) -> int:
        if tensor == "ffn_down":
            return self.ffn_width
        if tensor == "attn_output":
            return self.attn_width
        return self.hidden


Mix = Callable[[MixTraits], dict[TensorClass, Shares]]


@dataclass(frozen=True)
class WeightFormat:
    """A way to store a model's weights: a base layout and per-tensor-class exceptions."""

    id: str
    label: str
    base: BlockLayout
    # Tensors left in FP16 by the tool (embeddings and output head of GPTQ/AWQ/NF4 files).
    fp16_classes: tuple[TensorClass, ...] = ()
    # float, fp8, int (GPTQ/AWQ/LLM.int8), gguf (llama.cpp files), nf4, fp4 (MXFP4/NVFP4)
    family: str = "float"
    source: str = ""
    # Model-dependent bumps (llama.cpp's rules look at GQA, experts, layer count).
    mix: Mix | None = None
    # Routed experts stored in their own layout (MXFP4 checkpoints), the rest in ``base``.
    expert_layout: BlockLayout | None = None
    # Every class's bits times this: a mixed-precision file sized to its real bytes (formats.sized_format).
    size_scale: float = 1.0

    def bits_by_class(self, row: int, traits: MixTraits | None = None) -> dict[TensorClass, float]:
        """Average bits per weight of each tensor class, for rows of ``row`` weights."""
        traits = traits or MixTraits(hidden=row, attn_width=row, ffn_width=row)
        return _bits_by_class(self, row, traits)

    def layout_of(self, tensor: TensorClass, traits: MixTraits | None = None) -> Shares:
        traits = traits or MixTraits()
        if tensor in self.fp16_classes:
            return ((1.0, F16),)
        bumped = self.mix(traits).get(tensor, ()) if self.mix else ()
        if self.expert_layout is not None and tensor in ("ffn_down", "ffn_gate_up") and not bumped:
            bumped = ((traits.expert_share, self.expert_layout),)
        rest = 1.0 - sum(share for share, _ in bumped)
        return (*bumped, (rest, self.base)) if rest > 1e-9 else bumped


_BITS: dict[tuple[str, int, MixTraits], dict[TensorClass, float]] = {}


def _bits_by_class(fmt: WeightFormat, row: int, traits: MixTraits) -> dict[TensorClass, float]:
    key = (f"{fmt.id}*{fmt.size_scale!r}", row, traits)
    cached = _BITS.get(key)
    if cached is None:
        if len(_BITS) > 4096:
            _BITS.clear()
        cached = {
            tensor: sum(
                share * fitted_to_row(layout, traits.row_of(tensor)).bits_per_weight(row)
                for share, layout in fmt.layout_of(tensor, traits)
            )
            * fmt.size_scale
            for tensor in TENSOR_CLASSES
        }
        _BITS[key] = cached
    return cached
