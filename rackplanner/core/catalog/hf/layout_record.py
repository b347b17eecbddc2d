"""What a config's layers are made of, as the layout readers (layout.py, ssm.py) find it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Layout:
    """How many layers do what, and the assumptions made reading it."""

    sliding_window: int | None = None
    sliding_layers: int = 0
    chunked: bool = False  # the windowed layers attend within fixed chunks (Llama 4)
    linear_layers: int = 0
    linear_mixer_params: int | None = None
    linear_state_values: int | None = None
    attention_output_gate: bool = False
    dense_layers_override: int | None = None  # Jamba: MoE every other layer
    mixer_layers: int | None = None  # Nemotron-H: blocks with attention or Mamba
    parallel_mixer_layers: int | None = None  # Falcon-H1: a Mamba-2 mixer beside each attention
    mlp_layers: int | None = None  # Nemotron-H: MLP-only blocks
    mlp_width: int | None = None  # LFM2: the MLP's width after its own adjustment
    # Nemotron NAS: each layer's kept blocks (hf/nas.py).
    kv_heads: int | None = None
    attention_free_layers: int | None = None
    mlp_widths: list[int] | None = None
    linear_replacement_params: int | None = None
    notes: list[str] = field(default_factory=list)
