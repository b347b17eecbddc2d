"""Parameter counts by tensor class, on top of ``core/catalog/llm_shape.py``.

Quantization mixes (llama.cpp's *_K_M) store some tensor classes in a bigger block type,
so the weight size needs the parameters of the classes its rules name
(``llama_tensor_get_type`` in llama.cpp's src/llama-quant.cpp): the token embedding, the
output head, the attention projections, the MLP gate/up and down projections, and which
share of the MLP is routed experts (MXFP4 files keep only those in 4 bits). Norms and
routers are "other". Entries without ``intermediate_size`` fall back to ``params_b``.
"""

from __future__ import annotations

from dataclasses import dataclass

from rackplanner.core.catalog import llm_shape
from rackplanner.core.catalog.parts import LlmModel


@dataclass(frozen=True)
class TensorGroups:
    """Parameters (all layers) by the classes quantization mixes distinguish."""

    token_embd: float
    output: float
    attn_v: float
    attn_output: float
    ffn_down: float
    other: float
    attn_q: float = 0.0
    attn_k: float = 0.0
    ffn_gate_up: float = 0.0
    # Share of ffn_down and of ffn_gate_up that belongs to routed experts.
    expert_share: float = 0.0

    @property
    def total(self) -> float:
        return sum(self.as_dict().values())

    def as_dict(self) -> dict[str, float]:
        return {
            "token_embd": self.token_embd,
            "output": self.output,
            "attn_q": self.attn_q,
            "attn_k": self.attn_k,
            "attn_v": self.attn_v,
            "attn_output": self.attn_output,
            "ffn_gate_up": self.ffn_gate_up,
            "ffn_down": self.ffn_down,
            "other": self.other,
        }


def _llm_counts(model: LlmModel) -> tuple[float, float]:
    """(total, active) parameters as llm_shape recomputes them, else the stated sizes."""
    try:
        return llm_shape.parameter_count_b(model) * 1e9, llm_shape.active_parameter_count_b(model) * 1e9
    except ValueError:
        return model.params_b * 1e9, (model.active_params_b or model.params_b) * 1e9


def _embeddings(model: LlmModel) -> tuple[float, float]:
    """(one embedding table, tables held): the output head shares the table when tied."""
    embd = float(model.vocab_size * model.hidden_size)
    return embd, embd * (1 if model.tie_word_embeddings else 2)


def total_params(model: LlmModel) -> float:
    """Parameters held in memory (every expert of a MoE model)."""
    return tensor_groups(model).total


def active_params(model: LlmModel) -> float:
    """Parameters one token multiplies with: the layers it routes through and the output
    head, not the embedding lookup."""
    return tensor_groups(model, active=True).total


def kv_bytes(model: LlmModel, bytes_per_element: float, context: int) -> float:
    """KV cache (and recurrent state) of one sequence of ``context`` tokens, all layers:
    2 × kv_heads × head_dim × bytes per token for each layer that still holds it."""
    return llm_shape.kv_cache_values(model, context) * bytes_per_element


def longest_context(model: LlmModel, bytes_per_element: float, room_bytes: float) -> int:
    """The longest context (up to the model's) whose cache fits in ``room_bytes``."""
    if room_bytes <= 0 or kv_bytes(model, bytes_per_element, 1) > room_bytes:
        return 0
    low, high = 1, model.max_context
    if kv_bytes(model, bytes_per_element, high) <= room_bytes:
        return high
    while high - low > 1:  # the cache only grows with context
        mid = (low + high) // 2
        low, high = (mid, high) if kv_bytes(model, bytes_per_element, mid) <= room_bytes else (low, mid)
    return low


# Groups per model object (a capacity table asks for each model once per format); the
# entry keeps the model alive, so an id is never reused while its entry exists.
_GROUPS: dict[int, tuple[LlmModel, TensorGroups, TensorGroups]] = {}


def tensor_groups(model: LlmModel, *, active: bool = False) -> TensorGroups:
    """Parameters by tensor class; ``active`` counts what one token reads (no embedding
    table, only its routed experts)."""
    cached = _GROUPS.get(id(model))
    if cached is None or cached[0] is not model:
        if len(_GROUPS) > 1024:
            _GROUPS.clear()
        cached = (model, _tensor_groups(model, active=False), _tensor_groups(model, active=True))
        _GROUPS[id(model)] = cached
    return cached[2] if active else cached[1]


def _tensor_groups(model: LlmModel, *, active: bool) -> TensorGroups:
    h = model.hidden_size
    embd, held = _embeddings(model)
    total, active_total = _llm_counts(model)
    body = (active_total if active else total) - held
    if active:
        token_embd, output = 0.0, embd
    else:
        token_embd, output = embd, (0.0 if model.tie_word_embeddings else embd)
    # The dense MLP's width is needed only where there is a dense MLP: a model whose every
    # layer routes to experts (Qwen3-30B-A3B) is split by class without it.
    all_moe = model.moe_experts is not None and model.moe_intermediate_size is not None and not model.moe_dense_layers
    if model.intermediate_size is None and not all_moe:
        return TensorGroups(token_embd, output, 0.0, 0.0, 0.0, body)
    standard_attention = model.kv_lora_rank is None
    attn_q = attn_k = attn_v = attn_output = 0.0
    if standard_attention:
        q_width = 2 if model.attention_output_gate else 1
        for layers, full in zip(llm_shape.attention_layer_kinds(model), (True, False), strict=True):
            kv_heads, head_dim = llm_shape.attention_dims(model, full=full)
            value_dim = model.attention_value_dim or head_dim
            attn_q += float(layers * h * model.attention_heads * head_dim * q_width)
            attn_k += float(layers * h * kv_heads * head_dim)
            attn_v += (
                0.0 if full and model.full_attention_values_from_keys else float(layers * h * kv_heads * value_dim)
            )
            attn_output += float(layers * model.attention_heads * value_dim * h)
    routed = 0.0
    if model.moe_experts is None:
        ffn_down = float(llm_shape.dense_mlp_width_sum(model) * h)
    else:
        dense = model.moe_dense_layers or 0
        experts = (model.moe_active_experts or 0) if active else model.moe_experts
        width = model.moe_intermediate_size or model.intermediate_size or 0
        shared_width = model.moe_shared_intermediate_size or width
        moe_layers = llm_shape.moe_layer_count(model)
        routed = float(moe_layers * experts * width * (model.moe_latent_size or h))
        shared = float(moe_layers * (model.moe_shared_experts or 0) * shared_width * h)
        ffn_down = float(dense * (model.intermediate_size or 0) * h) + routed + shared
    gate_up = ffn_down * (2 if model.mlp_gated else 1)
    other = max(body - attn_q - attn_k - attn_v - attn_output - ffn_down - gate_up, 0.0)
    return TensorGroups(
        token_embd,
        output,
        attn_v,
        attn_output,
        ffn_down,
        other,
        attn_q=attn_q,
        attn_k=attn_k,
        ffn_gate_up=gate_up,
        expert_share=routed / ffn_down if ffn_down else 0.0,
    )
