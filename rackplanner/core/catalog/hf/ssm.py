"""Attention and state-space hybrids: the Mamba-2 mixers of Nemotron-H, Granite 4.0 and
Falcon-H1, their weights and the fixed state each keeps per sequence (transformers'
Mamba2Mixer and its FalconH1 and GraniteMoeHybrid variants)."""

from __future__ import annotations

from dataclasses import dataclass

from rackplanner.core.catalog.hf.layout_record import Layout
from rackplanner.core.catalog.hf.values import ConfigValues


def nemotron_h(cfg: ConfigValues, layers: int, hidden: int) -> Layout:
    """Nemotron-H: one block kind per character of hybrid_override_pattern, M a Mamba-2
    mixer, * attention, - an MLP, E a mixture-of-experts MLP (Nemotron 3). Counted as
    (mixers) layers, MLPs in as many of them, the dense ones first."""
    pattern = cfg.string("hybrid_override_pattern") or _block_type_pattern(cfg)
    if len(pattern) != layers or set(pattern) - set("M*-E"):
        raise cfg.error("hybrid_override_pattern", f"must have one of M, *, - or E per layer ({layers} layers)")
    mamba, dense, moe = pattern.count("M"), pattern.count("-"), pattern.count("E")
    keys = ("mamba_num_heads", "mamba_head_dim", "n_groups", "ssm_state_size", "conv_kernel", "use_conv_bias")
    layout = _mamba2_layout(cfg, hidden, keys, mamba)
    layout.mixer_layers, layout.mlp_layers = mamba + pattern.count("*"), dense + moe
    if moe:
        layout.dense_layers_override = dense
    kinds = f"{dense} MLP" + (f", {moe} mixture-of-experts" if moe else "")
    layout.notes = [f"{layers} blocks: {mamba} Mamba-2, {pattern.count('*')} attention, {kinds}"]
    return layout


# Nemotron 3's later configs name each block in layers_block_type instead of a pattern string.
_BLOCK_TYPE_LETTERS = {"mamba": "M", "attention": "*", "mlp": "-", "moe": "E"}


def _block_type_pattern(cfg: ConfigValues) -> str:
    """hybrid_override_pattern's letters for a ``layers_block_type`` list (Nemotron 3 Ultra)."""
    kinds = cfg.str_list("layers_block_type") or []
    unknown = sorted({kind for kind in kinds if kind not in _BLOCK_TYPE_LETTERS})
    if unknown:
        raise cfg.error("layers_block_type", f"has block kinds not known here: {', '.join(unknown[:4])}")
    return "".join(_BLOCK_TYPE_LETTERS[kind] for kind in kinds)


def _mamba2_layout(cfg: ConfigValues, hidden: int, keys: tuple[str, ...], mamba_layers: int) -> Layout:
    """``mamba_layers`` Mamba-2 mixers (transformers' Mamba2Mixer) with their weights and
    fixed state, their sizes under ``keys``: heads, head width, groups, state size, conv
    kernel, conv bias flag."""
    heads, head_dim, groups, state_dim, kernel = (cfg.integer(key) for key in keys[:5])
    inner = heads * head_dim
    shape = _Mixer(hidden, inner, heads, groups, state_dim, kernel, cfg.flag(keys[5]) is not False, gated_norm=True)
    return Layout(linear_layers=mamba_layers, linear_mixer_params=shape.weights(), linear_state_values=shape.state())


@dataclass(frozen=True)
class _Mixer:
    """One Mamba-2 mixer's sizes: in_proj to the gate, x/B/C and dt, a depthwise convolution
    over x/B/C, dt_bias/A_log/D per head, an optional gated norm, out_proj."""

    hidden: int
    inner: int
    heads: int
    groups: int
    state_dim: int
    kernel: int
    conv_bias: bool
    gated_norm: bool

    @property
    def conv_channels(self) -> int:
        return self.inner + 2 * self.groups * self.state_dim

    def weights(self) -> int:
        return (
            self.hidden * (self.inner + self.conv_channels + self.heads)
            + self.conv_channels * (self.kernel + (1 if self.conv_bias else 0))
            + 3 * self.heads
            + (self.inner if self.gated_norm else 0)
            + self.inner * self.hidden
        )

    def state(self) -> int:
        """Values one sequence keeps: the SSM state of every head and the convolution's window."""
        return self.inner * self.state_dim + self.conv_channels * self.kernel


def falcon_h1(cfg: ConfigValues, layers: int, hidden: int) -> Layout:
    """Falcon-H1 (transformers' FalconH1Config): every layer runs attention and a Mamba-2 mixer
    side by side on the same input, then an MLP, so each layer keeps its KV cache and a state.
    The mixer's inner width is mamba_d_ssm; a file without it is read as mamba_n_heads x
    mamba_d_head, the width the mixer's heads must add up to (the class's own default, 1024,
    would not match them). The gated norm is there only with mamba_rms_norm."""
    heads, head_dim = cfg.integer("mamba_n_heads"), cfg.integer("mamba_d_head")
    notes = []
    if cfg.has("mamba_d_ssm"):
        inner = cfg.integer("mamba_d_ssm")
    else:
        inner = heads * head_dim
        notes.append(f"{cfg.key('mamba_d_ssm')} read as mamba_n_heads x mamba_d_head ({inner:,}): the file lacks it")
    groups, state_dim = cfg.opt_int("mamba_n_groups") or 1, cfg.integer("mamba_d_state")
    conv_bias, gated_norm = cfg.flag("mamba_conv_bias") is not False, bool(cfg.flag("mamba_rms_norm"))
    shape = _Mixer(hidden, inner, heads, groups, state_dim, cfg.opt_int("mamba_d_conv") or 4, conv_bias, gated_norm)
    layout = Layout(
        linear_mixer_params=shape.weights(), linear_state_values=shape.state(), parallel_mixer_layers=layers
    )
    layout.notes = [f"{layers} layers, each with attention and a Mamba-2 mixer side by side and an MLP", *notes]
    return layout


def granite_hybrid(cfg: ConfigValues, layers: int, hidden: int) -> Layout:
    """Granite 4.0's hybrids (transformers' GraniteMoeHybridConfig): ``layer_types`` names a
    Mamba-2 mixer or attention for each layer, and every layer has an MLP (the shared MLP,
    and experts beside it when the model has them)."""
    types = cfg.str_list("layer_types")
    if types is None or len(types) != layers or set(types) - {"mamba", "attention"}:
        raise cfg.error("layer_types", f"must name mamba or attention for each of the {layers} layers")
    mamba = types.count("mamba")
    keys = ("mamba_n_heads", "mamba_d_head", "mamba_n_groups", "mamba_d_state", "mamba_d_conv", "mamba_conv_bias")
    layout = _mamba2_layout(cfg, hidden, keys, mamba)
    layout.notes = [f"{layers} layers: {mamba} Mamba-2, {layers - mamba} attention, an MLP in each"]
    return layout
