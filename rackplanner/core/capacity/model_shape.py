"""What a model is, as derived from its architecture: the figures ``estimate`` prints
under "Model" so that a user can check an imported config was read as they expect."""

from __future__ import annotations

from pydantic import BaseModel

from rackplanner.core.capacity import constants as k
from rackplanner.core.catalog import llm_shape
from rackplanner.core.catalog.parts import LlmModel


class ModelShape(BaseModel):
    """Derived shape of one model at one context."""

    name: str
    family: str
    params_b: float
    active_params_b: float | None
    # The same without the embedding table and the LM head, as Z.ai and MiniMax quote it.
    active_body_params_b: float | None = None
    text_params_b: float
    vision_params_b: float | None
    audio_params_b: float | None
    mtp_params_b: float | None
    layers: int
    full_attention_layers: int
    sliding_window_layers: int
    sliding_window: int | None
    chunked_attention: bool
    sparse_attention_top_k: int | None
    linear_attention_layers: int
    attention_free_layers: int = 0
    parallel_mixer_layers: int = 0
    # The full-attention layers' own KV heads and head width, where they differ from the
    # sliding-window layers' (Gemma 4), and whether their values are their keys.
    full_attention_dims: tuple[int, int] | None = None
    full_attention_values_from_keys: bool = False
    kv_bytes_per_token: float  # what each further token adds, at the KV precision
    kv_gb_per_sequence: float  # at the estimate's context, windows and states included
    shipped_format: str | None
    import_notes: str | None


def model_shape(model: LlmModel, context: int, kv_bytes_per_value: float) -> ModelShape:
    """The derived figures of ``model`` with a KV cache of ``kv_bytes_per_value`` bytes a value."""
    try:
        params = llm_shape.parameter_count_b(model)
        text = llm_shape.text_parameter_count_b(model)
        active = llm_shape.active_parameter_count_b(model) if model.moe_experts else None
        mtp = llm_shape.mtp_parameter_count_b(model) or None
        body = llm_shape.active_body_parameter_count_b(model) if model.moe_experts else None
    except ValueError:  # catalog entries without intermediate_size keep their stated sizes
        params, text, active, mtp, body = model.params_b, model.params_b, model.active_params_b, None, None
    full, windowed = llm_shape.attention_layer_kinds(model)
    full_dims = llm_shape.attention_dims(model)
    own_dims = full_dims != llm_shape.attention_dims(model, full=False) and windowed > 0
    return ModelShape(
        name=f"{model.vendor} {model.model}" if model.vendor != "unknown" else model.model,
        family=model.family,
        params_b=params,
        active_params_b=active,
        active_body_params_b=body,
        text_params_b=text,
        vision_params_b=(model.vision_params / 1e9) if model.vision_params else None,
        audio_params_b=(model.audio_params / 1e9) if model.audio_params else None,
        mtp_params_b=mtp,
        layers=model.layers,
        full_attention_layers=full,
        sliding_window_layers=windowed,
        sliding_window=model.sliding_window,
        chunked_attention=model.chunked_attention,
        sparse_attention_top_k=model.sparse_attention_top_k,
        linear_attention_layers=model.linear_attention_layers or 0,
        attention_free_layers=model.attention_free_layers or 0,
        parallel_mixer_layers=model.parallel_mixer_layers or 0,
        full_attention_dims=full_dims if own_dims else None,
        full_attention_values_from_keys=model.full_attention_values_from_keys,
        kv_bytes_per_token=llm_shape.kv_cache_values_per_token(model) * kv_bytes_per_value,
        kv_gb_per_sequence=llm_shape.kv_cache_values(model, context) * kv_bytes_per_value / k.GB,
        shipped_format=model.shipped_format,
        import_notes=model.notes if model.source and "config.json" in model.source[0] else None,
    )


def format_model_shape(shape: ModelShape, context: int) -> list[str]:
    """The "Model:" lines of the estimate report."""
    active = f", {shape.active_params_b:,.2f}B active per token" if shape.active_params_b else ""
    if shape.active_params_b and shape.active_body_params_b:
        active += f" ({shape.active_body_params_b:,.2f}B without the embedding and output tables)"
    encoders = [
        f"{b:.2f}B of them {kind}"
        for b, kind in ((shape.vision_params_b, "a vision encoder"), (shape.audio_params_b, "an audio encoder"))
        if b
    ]
    vision = f" ({', '.join(encoders)})" if encoders else ""
    full = f"{shape.full_attention_layers} full attention"
    if shape.sparse_attention_top_k:
        full = (
            f"{shape.full_attention_layers} sparse attention (each token attends to the "
            f"{shape.sparse_attention_top_k:,} its indexer picks; the cache holds every token)"
        )
    if shape.full_attention_dims:
        kv_heads, head_dim = shape.full_attention_dims
        shared = ", values from the keys' projection" if shape.full_attention_values_from_keys else ""
        full += f" ({kv_heads} KV heads of {head_dim}{shared})"
    kinds = [full]
    if shape.sliding_window_layers:
        if shape.chunked_attention:
            kinds.append(f"{shape.sliding_window_layers} chunked attention ({shape.sliding_window:,}-token chunks)")
        else:
            kinds.append(f"{shape.sliding_window_layers} sliding window of {shape.sliding_window:,} tokens")
    if shape.linear_attention_layers:
        kinds.append(f"{shape.linear_attention_layers} with a fixed-size state instead of a KV cache")
    if shape.attention_free_layers:
        kinds.append(f"{shape.attention_free_layers} without attention (no KV cache)")
    if shape.parallel_mixer_layers:
        kinds.append(f"{shape.parallel_mixer_layers} with a fixed-size-state mixer beside their attention")
    lines = [
        f"Model: {shape.name} ({shape.family}): {shape.params_b:,.2f}B parameters{vision}{active}",
        f"  {shape.layers} layers: {', '.join(kinds)}",
        f"  KV cache {shape.kv_bytes_per_token / 1024:,.1f} KiB per further token; "
        f"{shape.kv_gb_per_sequence:,.2f} GB for one sequence of {context:,} tokens",
    ]
    if shape.mtp_params_b:
        lines.append(
            f"  multi-token prediction: {shape.mtp_params_b:,.1f}B more parameters in the checkpoint, "
            "loaded only for speculative decoding"
        )
    if shape.shipped_format:
        lines.append(f"  shipped pre-quantized as {shape.shipped_format} (quantization_config)")
    if shape.import_notes:
        lines.append(f"  read with: {shape.import_notes}")
    return lines
