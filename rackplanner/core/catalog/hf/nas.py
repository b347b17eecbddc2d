"""Nemotron NAS (DeciLM) configs: a layer-wise architecture search's result in ``block_configs``.

Each entry of ``block_configs`` says what one decoder layer kept, as transformers'
remote-code ``modeling_decilm.py`` (and vLLM's ``DeciLMForCausalLM``) build it:

- attention: ``no_op`` drops the block (no weights, no cache); ``replace_with_linear`` puts
  one ``hidden × hidden`` linear map in its place (no cache); otherwise grouped-query
  attention with ``heads / n_heads_in_group`` KV heads;
- ffn: ``no_op`` drops the MLP; ``replace_with_linear`` is one ``hidden × hidden`` map;
  otherwise a gated MLP ``ffn_mult`` wide: ``2 × ffn_mult × hidden / 3``, rounded up to a
  multiple of 256 (``_ffn_mult_to_intermediate_size``).

Llama-3.3-Nemotron-Super-49B keeps attention in 49 of its 80 layers and MLPs of 9 widths;
Llama-3.1-Nemotron-Ultra-253B drops both blocks in 81 of its 162 layers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from rackplanner.core.catalog.hf.values import ConfigValues
from rackplanner.core.errors import show_value

MODEL_TYPES = frozenset({"nemotron-nas", "deci", "deci_lm"})
# Block settings that change what a layer computes in ways not modelled here: read as
# plain attention they would be sized and timed wrong with no sign of it.
_UNMODELLED_ATTENTION = ("window_length", "num_sink_tokens", "sparsify")
_MLP_ROUNDING = 256
_MAX_MLP_WIDTH = 10_000_000  # LlmModel's bound on an MLP width
_MAX_FFN_MULT = 10_000


@dataclass
class NasBlocks:
    """What the search kept, layer by layer."""

    kv_heads: int  # of every attention layer
    attention_layers: int
    attention_free_layers: int  # dropped or replaced by a linear map
    mlp_widths: list[int]  # of the layers that keep an MLP, in layer order
    linear_replacements: int  # blocks (attention or MLP) replaced by a hidden x hidden map

    def summary(self) -> str:
        widths = sorted(set(self.mlp_widths))
        shown = ", ".join(f"{w:,}" for w in widths[:4]) + (" ..." if len(widths) > 4 else "")
        text = (
            f"block_configs: attention in {self.attention_layers} layers, none in {self.attention_free_layers}; "
            f"MLPs in {len(self.mlp_widths)} layers, {len(widths)} widths ({shown})"
        )
        if self.linear_replacements:
            text += f"; {self.linear_replacements} blocks replaced by a linear map"
        return text


def mlp_width(ffn_mult: float, hidden: int) -> int:
    """DeciLM's ``_ffn_mult_to_intermediate_size``."""
    width = int(2 * ffn_mult * hidden / 3)
    return math.ceil(width / _MLP_ROUNDING) * _MLP_ROUNDING


def _block_part(cfg: ConfigValues, blocks: list[Any], index: int, part: str) -> ConfigValues:
    """One entry's ``attention`` or ``ffn`` settings, read as the file's other settings are."""
    entry = blocks[index] if isinstance(blocks[index], dict) else {}
    settings = ConfigValues(entry, cfg.path, f"{cfg.key('block_configs')}[{index}].").obj(part)
    if settings is None:
        raise cfg.error(
            f"block_configs[{index}].{part}", f"must be an object (found {show_value(entry.get(part), 40)})"
        )
    return settings


def read_blocks(cfg: ConfigValues, layers: int, hidden: int, heads: int) -> NasBlocks:
    """The per-layer blocks of ``cfg``; InputError naming the entry and key that cannot be read."""
    blocks = cfg.data.get("block_configs")
    if not isinstance(blocks, list) or len(blocks) != layers:
        found = len(blocks) if isinstance(blocks, list) else show_value(blocks, 20)
        raise cfg.error("block_configs", f"must give one entry per layer ({layers} layers; found {found})")
    kv_heads: set[int] = set()
    free = replaced = 0
    widths: list[int] = []
    for index in range(layers):
        attention = _block_part(cfg, blocks, index, "attention")
        for key in _UNMODELLED_ATTENTION:
            if attention.data.get(key) not in (None, False, 0):
                raise attention.error(key, "changes what the layer attends to, which is not modelled here")
        if attention.flag("no_op"):
            free += 1
        elif attention.flag("replace_with_linear"):
            free, replaced = free + 1, replaced + 1
        else:
            group = attention.integer("n_heads_in_group")
            if heads % group:
                raise attention.error("n_heads_in_group", f"{group} does not divide the {heads} attention heads")
            kv_heads.add(heads // group)
        ffn = _block_part(cfg, blocks, index, "ffn")
        if ffn.data.get("sparsify") not in (None, False, 0):
            raise ffn.error("sparsify", "changes the MLP in a way not modelled here")
        if ffn.flag("no_op"):
            continue
        if ffn.flag("replace_with_linear"):
            replaced += 1
            continue
        ffn_mult = ffn.ratio("ffn_mult", below=_MAX_FFN_MULT)
        if ffn_mult is None:
            raise ffn.error("ffn_mult", "is missing")
        width = mlp_width(ffn_mult, hidden)
        if width > _MAX_MLP_WIDTH:
            raise ffn.error("ffn_mult", f"makes an MLP {width:,} wide, more than {_MAX_MLP_WIDTH:,}")
        widths.append(width)
    if not kv_heads:
        raise cfg.error("block_configs", "drops attention in every layer: the model would attend to nothing")
    if len(kv_heads) > 1:
        raise cfg.error(
            "block_configs",
            f"gives attention layers different KV heads ({sorted(kv_heads)}), which is not modelled here",
        )
    return NasBlocks(
        kv_heads=next(iter(kv_heads)),
        attention_layers=layers - free,
        attention_free_layers=free,
        mlp_widths=widths,
        linear_replacements=replaced,
    )
