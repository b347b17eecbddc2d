"""Weight formats and their exact storage cost.

Bits per weight are computed from each format's block layout (quantized element bits,
block size, the scale and zero/min stored per block, a super-block header, a second-level
scale for double quantization), never typed in. llama.cpp's *_K_M files mix block types
per tensor; the mix rules of its quantizer are applied to the model's tensor classes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rackplanner.core.capacity.shape import tensor_groups, total_params
from rackplanner.core.catalog.parts import LlmModel
from rackplanner.core.errors import InputError, unknown

# ggml block layouts: ggml/src/ggml-common.h (block_q8_0, block_q4_0, block_q2_K ... block_q6_K).
GGML_COMMON_H = "https://github.com/ggml-org/llama.cpp/blob/master/ggml/src/ggml-common.h"
# Which tensors a *_K_M mix bumps to a bigger type: llama_tensor_get_type in src/llama-quant.cpp.
LLAMA_QUANT_CPP = "https://github.com/ggml-org/llama.cpp/blob/master/src/llama-quant.cpp"


@dataclass(frozen=True)
class BlockLayout:
    """How one quantized tensor is stored.

    ``element_bits`` per weight, plus ``block_bits`` (scale, zero or min) per ``block``
    weights, plus ``super_bits`` per ``super_block`` weights (the fp16 d/dmin of k-quants),
    plus ``second_bits`` per ``second_group`` blocks (double quantization's FP32 scale of
    the FP8 block scales). ``block`` 0 means one scale per row of ``hidden_size`` weights.
    """

    element_bits: float
    block: int = 0
    block_bits: float = 0.0
    super_block: int = 0
    super_bits: float = 0.0
    second_group: int = 0
    second_bits: float = 0.0

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


F32 = BlockLayout(32)
F16 = BlockLayout(16)
FP8 = BlockLayout(8)
INT8_ROW = BlockLayout(8, block=0, block_bits=32)  # LLM.int8: one FP32 scale per row
Q8_0 = BlockLayout(8, block=32, block_bits=16)  # 32 int8 + fp16 d = 34 bytes
Q4_0 = BlockLayout(4, block=32, block_bits=16)  # 16 bytes of nibbles + fp16 d = 18 bytes
Q6_K = BlockLayout(6, block=16, block_bits=8, super_block=256, super_bits=16)  # 210 bytes / 256
Q5_K = BlockLayout(5, block=32, block_bits=12, super_block=256, super_bits=32)  # 176 bytes / 256
Q4_K = BlockLayout(4, block=32, block_bits=12, super_block=256, super_bits=32)  # 144 bytes / 256
Q3_K = BlockLayout(3, block=16, block_bits=6, super_block=256, super_bits=16)  # 110 bytes / 256
Q2_K = BlockLayout(2, block=16, block_bits=8, super_block=256, super_bits=32)  # 84 bytes / 256
# bitsandbytes NF4: FP32 absmax per 64 weights; with double quantization the absmax values
# are stored as FP8 with one FP32 scale per 256 of them (003_fdb6d644ec457317.txt).
NF4 = BlockLayout(4, block=64, block_bits=32)
NF4_DQ = BlockLayout(4, block=64, block_bits=8, second_group=256, second_bits=32)


def gptq_int4(group: int) -> BlockLayout:
    """GPTQ/AWQ 4-bit: fp16 scale and a packed 4-bit zero point per group of ``group`` weights."""
    return BlockLayout(4, block=group, block_bits=16 + 4)


TensorClass = str
TENSOR_CLASSES: tuple[TensorClass, ...] = ("token_embd", "output", "attn_v", "attn_output", "ffn_down", "other")
_BITS_BY_CLASS: dict[tuple[str, int], dict[TensorClass, float]] = {}


@dataclass(frozen=True)
class WeightFormat:
    """A way to store a model's weights: a base layout and per-tensor-class exceptions."""

    id: str
    label: str
    base: BlockLayout
    # Tensor class -> list of (share of layers, layout) for the bumped share.
    bumps: dict[TensorClass, tuple[tuple[float, BlockLayout], ...]] = field(default_factory=dict)
    # Tensors left in FP16 by the tool (embeddings and output head of GPTQ/AWQ/NF4 files).
    fp16_classes: tuple[TensorClass, ...] = ()
    # float, fp8, int (GPTQ/AWQ/LLM.int8), gguf (llama.cpp files), nf4 (bitsandbytes)
    family: str = "float"
    source: str = ""

    def bits_by_class(self, row: int) -> dict[TensorClass, float]:
        """Average bits per weight of each tensor class, for rows of ``row`` weights."""
        key = (self.id, row)
        cached = _BITS_BY_CLASS.get(key)
        if cached is None:
            cached = {
                tensor: sum(share * layout.bits_per_weight(row) for share, layout in self.layout_of(tensor))
                for tensor in TENSOR_CLASSES
            }
            _BITS_BY_CLASS[key] = cached
        return cached

    def layout_of(self, tensor: TensorClass) -> tuple[tuple[float, BlockLayout], ...]:
        if tensor in self.fp16_classes:
            return ((1.0, F16),)
        bumped = self.bumps.get(tensor, ())
        rest = 1.0 - sum(share for share, _ in bumped)
        return (*bumped, (rest, self.base)) if rest > 1e-9 else bumped


# llama.cpp's use_more_bits(i, n): i < n/8 or i >= 7n/8 or (i - n/8) % 3 == 2 -> half the layers.
_MORE_BITS_SHARE = 1 / 8 + 1 / 8 + (6 / 8) / 3
_K = "llama.cpp k-quant"


def _formats() -> dict[str, WeightFormat]:
    out_q6 = ((1.0, Q6_K),)
    lay = (
        WeightFormat("fp32", "FP32", F32),
        WeightFormat("fp16", "FP16", F16),
        WeightFormat("bf16", "BF16", F16),
        WeightFormat("fp8", "FP8 (E4M3, per-tensor scale)", FP8, family="fp8"),
        WeightFormat("int8", "INT8 (LLM.int8, FP32 scale per row)", INT8_ROW, family="int"),
        WeightFormat("q8_0", "llama.cpp Q8_0", Q8_0, family="gguf", source=GGML_COMMON_H),
        WeightFormat(
            "q6_k", "llama.cpp Q6_K", Q6_K, {"output": out_q6}, family="gguf", source=f"{GGML_COMMON_H}; {_K}"
        ),
        WeightFormat(
            "q5_k_m",
            "llama.cpp Q5_K_M",
            Q5_K,
            {
                "attn_v": ((_MORE_BITS_SHARE, Q6_K),),
                "ffn_down": ((_MORE_BITS_SHARE, Q6_K),),
                "output": out_q6,
            },
            family="gguf",
            source=LLAMA_QUANT_CPP,
        ),
        WeightFormat(
            "q4_k_m",
            "llama.cpp Q4_K_M",
            Q4_K,
            {
                "attn_v": ((_MORE_BITS_SHARE, Q6_K),),
                "ffn_down": ((_MORE_BITS_SHARE, Q6_K),),
                "output": out_q6,
            },
            family="gguf",
            source=LLAMA_QUANT_CPP,
        ),
        WeightFormat("q4_0", "llama.cpp Q4_0", Q4_0, {"output": out_q6}, family="gguf", source=GGML_COMMON_H),
        WeightFormat(
            "q3_k_m",
            "llama.cpp Q3_K_M",
            Q3_K,
            {
                "attn_v": ((1.0, Q4_K),),
                "attn_output": ((1.0, Q4_K),),
                "ffn_down": ((1 / 16, Q5_K), (15 / 16, Q4_K)),
                "output": out_q6,
            },
            family="gguf",
            source=LLAMA_QUANT_CPP,
        ),
        WeightFormat(
            "q2_k",
            "llama.cpp Q2_K",
            Q2_K,
            {
                "attn_v": ((1.0, Q3_K),),
                "attn_output": ((1.0, Q3_K),),
                "ffn_down": ((1.0, Q3_K),),
                "output": out_q6,
            },
            family="gguf",
            source=LLAMA_QUANT_CPP,
        ),
        WeightFormat(
            "gptq-int4-g128",
            "GPTQ 4-bit, group 128",
            gptq_int4(128),
            fp16_classes=("token_embd", "output"),
            family="int",
        ),
        WeightFormat(
            "gptq-int4-g32",
            "GPTQ 4-bit, group 32",
            gptq_int4(32),
            fp16_classes=("token_embd", "output"),
            family="int",
        ),
        WeightFormat(
            "awq-int4-g128",
            "AWQ 4-bit, group 128",
            gptq_int4(128),
            fp16_classes=("token_embd", "output"),
            family="int",
        ),
        WeightFormat("nf4", "bitsandbytes NF4", NF4, fp16_classes=("token_embd", "output"), family="nf4"),
        WeightFormat(
            "nf4-dq",
            "bitsandbytes NF4, double quantization",
            NF4_DQ,
            fp16_classes=("token_embd", "output"),
            family="nf4",
        ),
    )
    return {f.id: f for f in lay}


FORMATS: dict[str, WeightFormat] = _formats()

# Element size of the KV cache by its precision id.
KV_CACHE_BYTES: dict[str, float] = {
    "fp32": 4.0,
    "fp16": 2.0,
    "bf16": 2.0,
    "fp8": 1.0,
    "q8_0": Q8_0.bits_per_weight() / 8,
}


def get_format(format_id: str) -> WeightFormat:
    """The format with this id (case-insensitive), or InputError listing the known ids."""
    fmt = FORMATS.get(format_id.lower())
    if fmt is None:
        raise unknown("weight format", format_id, list(FORMATS), "`rackplanner estimate --help`")
    return fmt


def kv_element_bytes(kv_precision: str) -> float:
    """Bytes per cached K or V value at this precision (fp16 2, fp8 1, q8_0 1.0625)."""
    try:
        return KV_CACHE_BYTES[kv_precision.lower()]
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


def _bytes(model: LlmModel, fmt: WeightFormat, *, active: bool) -> float:
    groups = tensor_groups(model, active=active).as_dict()
    bits = fmt.bits_by_class(model.hidden_size)
    return sum(params * bits[tensor] for tensor, params in groups.items()) / 8


def scale_overhead_bytes(params: float, layout: BlockLayout, row: int = 4096) -> float:
    """Bytes of scales/zeros for ``params`` weights in ``layout`` (NF4, 100B -> 6.25 GB)."""
    return params * layout.scale_bits_per_weight(row) / 8
