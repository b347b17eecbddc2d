"""Kimi Linear (model type ``kimi_linear``): Kimi Delta Attention (KDA) layers beside MLA ones.

``linear_attn_config`` names the layers of each kind, numbered from 1 (``kda_layers``,
``full_attn_layers``), and the KDA mixer's heads, head width and short-convolution kernel.
A KDA mixer as SGLang's and vLLM's ``KimiDeltaAttention`` build it: q, k and v projections
``heads × head_dim`` wide, each with a depthwise short convolution; a low-rank forget gate
(``f_a``, ``f_b``) and output gate (``g_a``, ``g_b``) through ``head_dim``; a per-head step
``b_proj``, ``A_log`` and a per-channel ``dt_bias``; a gated RMS norm of ``head_dim`` and
``o_proj``. Its state per sequence: a ``head_dim × head_dim`` matrix per head and the
convolutions' last ``kernel - 1`` inputs.
"""

from __future__ import annotations

from dataclasses import dataclass

from rackplanner.core.catalog.hf.values import ConfigValues

MODEL_TYPES = frozenset({"kimi_linear"})


@dataclass
class KdaLayers:
    layers: int  # how many layers are KDA
    mixer_params: int  # weights of one KDA mixer
    state_values: int  # values one sequence keeps in one KDA layer


def _layer_numbers(cfg: ConfigValues, key: str, layers: int) -> set[int]:
    numbers = cfg.layer_indexes(key, layers, first=1)
    if numbers is None:
        raise cfg.error(key, f"is needed: it names layers from 1 to {layers}")
    return set(numbers)


def kda_layers(cfg: ConfigValues, layers: int, hidden: int) -> KdaLayers:
    """The KDA layers of a Kimi Linear config; InputError naming the key that cannot be read."""
    linear = cfg.obj("linear_attn_config")
    if linear is None:
        raise cfg.error("linear_attn_config", "is needed: it names the KDA and full-attention layers")
    kda = _layer_numbers(linear, "kda_layers", layers)
    full = _layer_numbers(linear, "full_attn_layers", layers)
    if kda & full or len(kda | full) != layers:
        raise linear.error("kda_layers", f"and full_attn_layers must name each of the {layers} layers once")
    heads, head_dim = linear.integer("num_heads"), linear.integer("head_dim")
    kernel = linear.integer("short_conv_kernel_size")
    width = heads * head_dim
    weights = (
        4 * hidden * width  # q, k, v, o
        + 2 * (hidden * head_dim + head_dim * width)  # forget and output gates, low rank
        + 3 * kernel * width  # short convolutions on q, k, v
        + hidden * heads  # b_proj
        + heads  # A_log
        + width  # dt_bias
        + head_dim  # gated output norm
    )
    state = heads * head_dim * head_dim + 3 * width * (kernel - 1)
    return KdaLayers(layers=len(kda), mixer_params=weights, state_values=state)
