"""The encoders a multimodal config.json holds beside its text model: vision towers and
their projectors (SigLIP/CLIP, SigLIP2, Pixtral, Llama 3.2 Vision, Qwen-VL, Kimi's MoonViT)
and Whisper-style audio encoders. Their weights are held in memory and never read to
decode a text token."""

from __future__ import annotations

from rackplanner.core.catalog.hf.values import ConfigValues
from rackplanner.core.errors import show_value

# transformers' defaults for the vision settings a Qwen-VL config may leave out
# (Qwen2VLVisionConfig, Qwen2_5_VLVisionConfig), by the checkpoint's model_type.
VISION_DEFAULTS: dict[str, dict[str, object]] = {
    "qwen2_vl": {
        "depth": 32,
        "embed_dim": 1280,
        "hidden_size": 3584,
        "hidden_act": "quick_gelu",
        "mlp_ratio": 4,
        "patch_size": 14,
        "spatial_merge_size": 2,
        "temporal_patch_size": 2,
    },
    "qwen2_5_vl": {
        "depth": 32,
        "hidden_size": 3584,
        "hidden_act": "silu",
        "intermediate_size": 3420,
        "patch_size": 14,
        "spatial_merge_size": 2,
        "temporal_patch_size": 2,
        "out_hidden_size": 3584,
    },
}


def vision_params(vision: ConfigValues, text_hidden: int, top: ConfigValues | None = None) -> int:
    """Weights of a vision encoder and its projector into the text model.

    SigLIP/CLIP-style towers (Gemma 3, LFM2-VL's SigLIP2 with ``num_patches``): per layer
    q, k, v, o with biases, a two-matrix MLP with biases and two layer norms; patch and
    position embeddings. Pixtral (Mistral 3): bias-free attention and a gated MLP, RMS
    norms, then a 2×2 patch merger and a two-layer projector. ``top`` holds a projector
    given beside the tower (LFM2-VL's ``projector_hidden_size``).
    """
    if vision.has("depth"):
        return _qwen_vl_params(vision)
    if vision.has("vt_hidden_size"):
        return _moonvit_params(vision, text_hidden)
    if vision.string("model_type") == "mllama_vision_model":
        return _mllama_vision_params(vision, text_hidden)
    if vision.string("model_type") == "gemma4_vision":
        return _gemma4_vision_params(vision, text_hidden)
    h, inner = vision.integer("hidden_size"), vision.integer("intermediate_size")
    layers = vision.integer("num_hidden_layers")
    patch, channels = vision.integer("patch_size"), vision.opt_int("num_channels") or 3
    if vision.string("model_type") == "pixtral":
        per_layer = _attention(h, biases=False) + _mlp(h, inner, gated=True, biases=False) + 2 * h
        embed = channels * patch * patch * h + h
        merge = 4 * h * h + h
        projector = _two_linear(h, text_hidden, text_hidden, biases=False)
        return layers * per_layer + embed + merge + projector
    per_layer = _attention(h) + _mlp(h, inner) + 4 * h
    positions = (
        vision.integer("num_patches") if vision.has("num_patches") else (vision.integer("image_size") // patch) ** 2
    )
    embed = channels * patch * patch * h + h + positions * h
    if top is not None and top.has("projector_hidden_size"):
        projector = _lfm2_vl_projector(top, h, text_hidden)
    else:
        projector = h * text_hidden + h  # Gemma 3's input projection and its norm
    return layers * per_layer + embed + 2 * h + projector


def whisper_like(audio: ConfigValues) -> bool:
    """Whether an audio_config describes a Whisper-style encoder ``audio_params`` reads."""
    return any(audio.has(key) for key in ("hidden_size", "d_model"))


def audio_params(audio: ConfigValues, text_hidden: int, top: ConfigValues) -> int:
    """Weights of a Whisper-style audio encoder (Voxtral's ``audio_config``) and its
    projector: two input convolutions over the mel bins, learned positions, blocks with
    biased q, v, o (k without a bias), a two-matrix MLP and two layer norms, a final norm;
    Voxtral projects four stacked frames (intermediate_size wide) through two bias-free
    linear layers into the text width."""
    h = audio.integer("hidden_size") if audio.has("hidden_size") else audio.integer("d_model")
    inner = audio.integer("intermediate_size") if audio.has("intermediate_size") else audio.integer("encoder_ffn_dim")
    layers = audio.integer("num_hidden_layers") if audio.has("num_hidden_layers") else audio.integer("encoder_layers")
    mels, positions = audio.integer("num_mel_bins"), audio.integer("max_source_positions")
    per_layer = _attention(h, biases=False) + 3 * h + _mlp(h, inner) + 4 * h
    stem = mels * h * 3 + h + h * h * 3 + h + positions * h
    projector = _two_linear(inner, text_hidden, text_hidden, biases=False) if top.has("projector_hidden_act") else 0
    return layers * per_layer + stem + 2 * h + projector


def mllama_image_tokens(vision: ConfigValues) -> int:
    """Tokens one image gives Llama 3.2 Vision's cross-attention: every tile's patches and
    its class token."""
    per_tile = (vision.integer("image_size") // vision.integer("patch_size")) ** 2 + 1
    return vision.integer("max_num_tiles") * per_tile


def _mllama_vision_params(vision: ConfigValues, text_hidden: int) -> int:
    """Llama 3.2 Vision's tower: local and global (gated) layers with bias-free attention,
    a biased two-matrix MLP and two layer norms; a bias-free patch embedding, a class
    token, gated positions per tile and aspect ratio, pre and post norms; a projector of
    the concatenated layer outputs (vision_output_dim) into the text width."""
    h, inner = vision.integer("hidden_size"), vision.integer("intermediate_size")
    layers = vision.integer("num_hidden_layers") + (vision.opt_int("num_global_layers") or 0)
    patch, tiles = vision.integer("patch_size"), vision.integer("max_num_tiles")
    ratios = vision.data.get("supported_aspect_ratios", [None] * 8)  # transformers' default: 8
    if not isinstance(ratios, list) or not ratios:
        raise vision.error("supported_aspect_ratios", f"must list the aspect ratios (found {show_value(ratios)})")
    ratio_ids = len(ratios) + 1
    positions = (vision.integer("image_size") // patch) ** 2 + 1
    per_layer = _attention(h, biases=False) + _mlp(h, inner) + 4 * h
    embed = (vision.opt_int("num_channels") or 3) * patch * patch * h + h
    embed += positions * h + ratio_ids * tiles * positions * h + 2 * ratio_ids * tiles * h
    projector = vision.integer("vision_output_dim") * text_hidden + text_hidden
    return layers * per_layer + embed + 4 * h + projector


def _lfm2_vl_projector(top: ConfigValues, h: int, text_hidden: int) -> int:
    """LFM2-VL: patches unshuffled by downsample_factor², an optional layer norm, then two
    linear layers through projector_hidden_size (biases with projector_bias)."""
    merged = h * (top.opt_int("downsample_factor") or 2) ** 2
    width, bias = top.integer("projector_hidden_size"), top.flag("projector_bias") is not False
    norm = 2 * merged if top.flag("projector_use_layernorm") else 0
    return norm + _two_linear(merged, width, text_hidden, biases=bias)


def _qwen_vl_params(vision: ConfigValues) -> int:
    """Qwen2.5-VL / Qwen3-VL / Qwen3.5 towers (``depth`` blocks): a 3-D patch embedding,
    blocks with a fused QKV, biases everywhere and a two-matrix MLP (gated in Qwen2.5-VL),
    learned positions (Qwen3-VL on), and a merger of 2×2 patches into the text width."""
    # Qwen2-VL names the tower's width embed_dim (hidden_size is then the text width it
    # merges into) and its MLP by mlp_ratio.
    qwen2 = vision.has("embed_dim")
    h, layers = vision.integer("embed_dim" if qwen2 else "hidden_size"), vision.integer("depth")
    inner = vision.integer("intermediate_size") if vision.has("intermediate_size") else round(h * _mlp_ratio(vision))
    patch, channels = vision.integer("patch_size"), vision.opt_int("in_channels", "in_chans") or 3
    frames = vision.opt_int("temporal_patch_size") or 2
    # Qwen2.5-VL's blocks run a gated SiLU MLP (three matrices); Qwen3-VL's a GELU one (two).
    gated = vision.string("hidden_act") == "silu" or vision.string("model_type") == "qwen2_5_vl"
    # EXAONE 4.5's tower shares its keys and values among query heads (num_key_value_heads).
    heads = vision.opt_int("num_heads") or 1
    kv = h * (vision.opt_int("num_key_value_heads") or heads) // heads
    per_layer = _attention(h, kv) + _mlp(h, inner, gated=gated) + 4 * h
    embed = channels * frames * patch * patch * h + h + (vision.opt_int("num_position_embeddings") or 0) * h
    merged = h * (vision.opt_int("spatial_merge_size") or 2) ** 2
    out = vision.opt_int("out_hidden_size") or (vision.integer("hidden_size") if qwen2 else h)
    merger = 2 * h + _two_linear(merged, merged, out)
    deepstack = vision.data.get("deepstack_visual_indexes")
    mergers = 1 + (len(deepstack) if isinstance(deepstack, list) else 0)
    return layers * per_layer + embed + mergers * merger


def _mlp_ratio(vision: ConfigValues) -> float:
    ratio = vision.ratio("mlp_ratio", below=1000)
    if ratio is None:
        raise vision.error("mlp_ratio", "is missing (and so is intermediate_size)")
    return ratio


def _gemma4_vision_params(vision: ConfigValues, text_hidden: int) -> int:
    """Gemma 4's vision tower (transformers' Gemma4VisionModel): bias-free attention with
    q/k norms and a gated MLP, four norms per layer; a bias-free patch projection and a
    position table per image axis; one bias-free projection into the text width."""
    h, inner = vision.integer("hidden_size"), vision.integer("intermediate_size")
    layers, patch = vision.integer("num_hidden_layers"), vision.integer("patch_size")
    heads = vision.integer("num_attention_heads")
    head_dim = vision.opt_int("head_dim") or h // heads
    kv = (vision.opt_int("num_key_value_heads") or heads) * head_dim
    attention = 2 * h * heads * head_dim + 2 * h * kv + 2 * head_dim
    per_layer = attention + _mlp(h, inner, gated=True, biases=False) + 4 * h
    embed = 3 * patch * patch * h + 2 * vision.integer("position_embedding_size") * h
    return layers * per_layer + embed + h * text_hidden


def _moonvit_params(vision: ConfigValues, text_hidden: int) -> int:
    """Kimi's MoonViT tower (``vt_`` keys, Kimi K2.5): blocks with a fused QKV and biases, a
    two-matrix GELU MLP and two layer norms; a patch embedding and learned 2-D positions; a
    final norm; then a projector of merged patches (norm, two linear layers) into the text
    width."""
    h, inner = vision.integer("vt_hidden_size"), vision.integer("vt_intermediate_size")
    layers, patch = vision.integer("vt_num_hidden_layers"), vision.integer("patch_size")
    per_layer = _attention(h) + _mlp(h, inner) + 4 * h
    grid = (vision.opt_int("init_pos_emb_height") or 64) * (vision.opt_int("init_pos_emb_width") or 64)
    embed = 3 * patch * patch * h + h + grid * h
    kernel = vision.data.get("merge_kernel_size", [2, 2])
    if not (isinstance(kernel, list) and len(kernel) == 2 and all(_positive_int(v) for v in kernel)):
        raise vision.error("merge_kernel_size", f"must be two positive whole numbers (found {show_value(kernel)})")
    merged = h * kernel[0] * kernel[1]
    projector = 2 * h + _two_linear(merged, merged, text_hidden)
    return layers * per_layer + embed + 2 * h + projector


def _attention(h: int, kv: int | None = None, *, biases: bool = True) -> int:
    """q and o of width ``h``, k and v of width ``kv`` (``h`` unless keys are shared)."""
    kv = h if kv is None else kv
    return 2 * h * h + 2 * h * kv + ((2 * h + 2 * kv) if biases else 0)


def _mlp(h: int, inner: int, *, gated: bool = False, biases: bool = True) -> int:
    """Up (and gate) projections to ``inner`` and the down projection back to ``h``."""
    return (3 if gated else 2) * h * inner + ((inner + h) if biases else 0)


def _two_linear(n_in: int, n_mid: int, n_out: int, *, biases: bool = True) -> int:
    """A projector of two linear layers, ``n_in`` to ``n_mid`` to ``n_out``."""
    return n_in * n_mid + n_mid * n_out + ((n_mid + n_out) if biases else 0)


def _positive_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
