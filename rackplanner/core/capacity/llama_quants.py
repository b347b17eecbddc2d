"""llama.cpp's file types (``llama-quantize`` presets) as weight formats.

Each preset stores most tensors in one ggml type and bumps some tensor classes to bigger
types by rules that look at the model: ``llama_tensor_get_type_impl`` in
https://github.com/ggml-org/llama.cpp/blob/master/src/llama-quant.cpp (base type per
preset: ``llama_ftype_get_default_type`` there). The rules are applied by tensor class and
share of layers; a Falcon-specific branch is left out, and an importance matrix is assumed
only where the type requires one (IQ1/IQ2/IQ3_XXS), as llama-quantize does by default.
"""

from __future__ import annotations

from functools import partial

from rackplanner.core.capacity.layouts import (
    BlockLayout,
    MixTraits,
    Shares,
    TensorClass,
    WeightFormat,
    ggml,
)

LLAMA_QUANT_CPP = "https://github.com/ggml-org/llama.cpp/blob/master/src/llama-quant.cpp"

# Preset -> base ggml type (llama_ftype_get_default_type).
BASE_TYPE = {
    "Q4_0": "Q4_0",
    "Q4_1": "Q4_1",
    "Q5_0": "Q5_0",
    "Q5_1": "Q5_1",
    "Q8_0": "Q8_0",
    "Q2_K": "Q2_K",
    "Q2_K_S": "Q2_K",
    "Q3_K_S": "Q3_K",
    "Q3_K_M": "Q3_K",
    "Q3_K_L": "Q3_K",
    "Q4_K_S": "Q4_K",
    "Q4_K_M": "Q4_K",
    "Q5_K_S": "Q5_K",
    "Q5_K_M": "Q5_K",
    "Q6_K": "Q6_K",
    "IQ1_S": "IQ1_S",
    "IQ1_M": "IQ1_M",
    "IQ2_XXS": "IQ2_XXS",
    "IQ2_XS": "IQ2_XS",
    "IQ2_S": "IQ2_XS",
    "IQ2_M": "IQ2_S",
    "IQ3_XXS": "IQ3_XXS",
    "IQ3_XS": "IQ3_S",
    "IQ3_S": "IQ3_S",
    "IQ3_M": "IQ3_S",
    "IQ4_NL": "IQ4_NL",
    "IQ4_XS": "IQ4_XS",
    "TQ1_0": "TQ1_0",
    "TQ2_0": "TQ2_0",
    "MXFP4_MOE": "MXFP4",
}
_LOW_IQ = ("IQ2_XXS", "IQ2_XS", "IQ1_S", "IQ2_S", "IQ2_M", "IQ1_M")


def _use_more_bits(i: int, n: int) -> bool:
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def more_bits_share(layers: int) -> float:
    """Share of layers llama.cpp's use_more_bits picks (about half)."""
    return sum(_use_more_bits(i, layers) for i in range(layers)) / layers


def _first(layers: int, den: int) -> float:
    """Share of layers with index below layers/den (integer division, as in C)."""
    return (layers // den) / layers


def _output_type(preset: str, base: BlockLayout, hidden: int) -> str:
    if preset == "MXFP4_MOE" or hidden % base.row_multiple:
        return "Q8_0"
    if preset in (*_LOW_IQ, "IQ3_XXS"):
        return "Q5_K"
    return "Q8_0" if base.ggml_type == "Q8_0" else "Q6_K"


def _token_embd_type(preset: str, base: str) -> str:
    if preset in ("IQ2_XXS", "IQ2_XS", "IQ1_S", "IQ1_M"):
        return "Q2_K"
    if preset in ("IQ2_S", "IQ2_M", "IQ3_XXS"):
        return "IQ3_S"
    if preset in ("TQ1_0", "TQ2_0"):
        return "Q4_K"
    return base


def _attn_v(preset: str, base: str, t: MixTraits) -> Shares:
    gqa4 = t.gqa >= 4
    if preset in _LOW_IQ:
        name = "Q4_K" if gqa4 or t.experts >= 4 else ("IQ3_S" if preset in ("IQ2_S", "IQ2_M") else "Q2_K")
        return ((1.0, ggml(name)),)
    shares: list[tuple[float, str]] = [(1.0, base)]
    if preset == "Q2_K":
        shares = [(1.0, "Q4_K" if gqa4 else "Q3_K")]
    elif (preset == "Q2_K_S" and gqa4) or (preset in ("IQ3_XXS", "IQ3_XS", "IQ3_S") and gqa4) or preset == "IQ3_M":
        shares = [(1.0, "Q4_K")]
    elif preset == "Q3_K_M":
        first = min(2, t.layers) / t.layers
        shares = [(first, "Q5_K"), (1 - first, "Q4_K")]
    elif preset == "Q3_K_L" or (preset in ("IQ4_NL", "IQ4_XS") and gqa4):
        shares = [(1.0, "Q5_K")]
    elif preset in ("Q4_K_M", "Q5_K_M"):
        more = more_bits_share(t.layers)
        shares = [(more, "Q6_K"), (1 - more, base)]
    elif preset == "Q4_K_S":
        first = min(4, t.layers) / t.layers
        shares = [(first, "Q5_K"), (1 - first, base)]
    if t.layers == 80:  # llama.cpp's LLM_TYPE_70B: eight query heads share each V
        shares = [(s, "Q5_K" if name in ("Q3_K", "Q4_K") else name) for s, name in shares]
    if t.experts == 8:
        shares = [(1.0, "Q8_0")]
    return tuple((s, ggml(name)) for s, name in shares if s > 0)


def _ffn_down(preset: str, base: str, t: MixTraits) -> Shares:
    n = t.layers
    if preset in _LOW_IQ:
        low = "IQ3_S" if preset in ("IQ2_S", "IQ2_M") else "Q2_K"
        return ((_first(n, 8), ggml(low)), (1 - _first(n, 8), ggml(base)))
    table: dict[str, list[tuple[float, str]]] = {
        "Q2_K": [(1.0, "Q3_K")],
        "Q2_K_S": [(_first(n, 8), "Q4_K")],
        "Q3_K_M": [(_first(n, 16), "Q5_K"), (1 - _first(n, 16), "Q4_K")],
        "Q3_K_L": [(1.0, "Q5_K")],
        "Q4_K_M": [(more_bits_share(n), "Q6_K")],
        "Q5_K_M": [(more_bits_share(n), "Q6_K")],
        "Q4_K_S": [(_first(n, 8), "Q5_K")],
        "IQ4_NL": [(_first(n, 8), "Q5_K")],
        "IQ4_XS": [(_first(n, 8), "Q5_K")],
    }
    if preset == "IQ3_M":
        share = more_bits_share(n) if t.experts == 8 else _first(n, 8)
        table["IQ3_M"] = [(max(share, _first(n, 8)), "Q4_K")]
    shares = table.get(preset, [])
    rest = 1.0 - sum(s for s, _ in shares)
    return tuple((s, ggml(name)) for s, name in (*shares, (rest, base)) if s > 1e-9)


def _attn_output(preset: str, base: str, t: MixTraits) -> Shares:
    if t.experts == 8:
        bumped = preset in (
            *("Q2_K", "IQ3_XS", "IQ3_XXS", "Q3_K_S", "Q3_K_M", "IQ4_NL"),
            *("Q4_K_S", "Q4_K_M", "IQ3_S", "IQ3_M", "IQ4_XS", *_LOW_IQ),
        )
        return ((1.0, ggml("Q5_K" if bumped else base)),)
    names = {"Q2_K": "Q3_K", "IQ3_XXS": "IQ3_S", "Q3_K_M": "Q4_K", "Q3_K_L": "Q5_K", "IQ3_M": "Q4_K"}
    names.update({"IQ1_S": "IQ2_XXS", "IQ1_M": "IQ2_XXS", "IQ2_S": "IQ3_S", "IQ2_M": "IQ3_S"})
    return ((1.0, ggml(names.get(preset, base))),)


def _attn_qk(preset: str, base: str, t: MixTraits, *, key: bool) -> Shares:
    if key and t.experts == 8 and preset not in _LOW_IQ:
        return ((1.0, ggml("Q8_0")),)
    if key and t.experts == 8:
        return ((1.0, ggml("Q4_K")),)
    names = {"IQ3_XS": "IQ3_XXS", "IQ3_XXS": "IQ2_S"}
    return ((1.0, ggml(names.get(preset, base))),)


def _gate_up(preset: str, base: str, t: MixTraits) -> Shares:
    if preset != "IQ3_XS":
        return ((1.0, ggml(base)),)
    n = t.layers
    middle = (7 * n // 8 - n // 8) / n
    return ((middle, ggml("IQ3_XXS")), (1 - middle, ggml(base)))


def _mixture(preset: str, t: MixTraits) -> dict[TensorClass, Shares]:
    base_name = BASE_TYPE[preset]
    base = ggml(base_name)
    output = ((1.0, ggml(_output_type(preset, base, t.hidden))),)
    if preset == "MXFP4_MOE":
        # Routed experts in MXFP4, every other tensor in Q8_0.
        experts = ((t.expert_share, base), (1 - t.expert_share, ggml("Q8_0")))
        rest = ((1.0, ggml("Q8_0")),)
        mix = {name: rest for name in ("attn_q", "attn_k", "attn_v", "attn_output", "other")}
        token = output if t.tied_embeddings else rest
        return {**mix, "token_embd": token, "output": output, "ffn_down": experts, "ffn_gate_up": experts}
    token = output if t.tied_embeddings else ((1.0, ggml(_token_embd_type(preset, base_name))),)
    return {
        "token_embd": token,
        "output": output,
        "attn_q": _attn_qk(preset, base_name, t, key=False),
        "attn_k": _attn_qk(preset, base_name, t, key=True),
        "attn_v": _attn_v(preset, base_name, t),
        "attn_output": _attn_output(preset, base_name, t),
        "ffn_gate_up": _gate_up(preset, base_name, t),
        "ffn_down": _ffn_down(preset, base_name, t),
    }


def llama_cpp_formats() -> list[WeightFormat]:
    """One format per llama-quantize preset, ids in lower case (q4_k_m, iq4_xs, mxfp4)."""
    formats = []
    for preset, base in BASE_TYPE.items():
        fid = "mxfp4" if preset == "MXFP4_MOE" else preset.lower()
        label = "llama.cpp MXFP4 (MoE experts; Q8_0 elsewhere)" if preset == "MXFP4_MOE" else f"llama.cpp {preset}"
        formats.append(
            WeightFormat(fid, label, ggml(base), family="gguf", source=LLAMA_QUANT_CPP, mix=partial(_mixture, preset))
        )
    return formats
