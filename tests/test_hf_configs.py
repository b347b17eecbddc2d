"""Real Hugging Face config.json files (tests/data/hf, sources in SOURCES.md there): the
published parameter counts within 1% and a KV cache that follows the attention layout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rackplanner.core.capacity.formats import get_format
from rackplanner.core.capacity.model_shape import format_model_shape, model_shape
from rackplanner.core.catalog import llm_shape
from rackplanner.core.catalog.hf import load_hf_config
from rackplanner.core.catalog.hf.towers import vision_params
from rackplanner.core.catalog.hf.values import ConfigValues
from rackplanner.core.errors import InputError

HF = Path(__file__).parent / "data" / "hf"

# (folder, published total in billions, published active or None, whether the publisher
# counts the input embedding as active). Figures and where they are published: SOURCES.md.
PUBLISHED = [
    ("llama-3.1-8b", 8.03, None, True),  # Meta model card
    ("llama-3.1-70b-instruct", 70.6, None, True),  # HF page safetensors count
    ("qwen2.5-7b", 7.61, None, True),  # Qwen2.5 card: "Number of Parameters: 7.61B"
    ("qwen3-8b", 8.2, None, True),  # Qwen3-8B card
    ("qwen3-14b", 14.8, None, True),  # Qwen3-14B card: "Number of Parameters: 14.8B"
    ("qwen3-32b-fp8", 32.8, None, True),  # Qwen3-32B-FP8 card
    ("qwen3-30b-a3b", 30.5, "3.3", True),  # Qwen3-30B-A3B card: 30.5B total, 3.3B activated
    ("qwen3-30b-a3b-fp8", 30.5, "3.3", True),
    ("mixtral-8x7b", 46.7, "12.9", True),  # Mistral AI: 46.7B total, 12.9B active
    ("gemma-2-9b-it", 9.2417, None, True),  # 9,241,705,984 from the checkpoint's index
    ("gemma-3-27b-it", 27.433, None, True),  # Gemma 3 report: 417M + 1,416M + 25,600M
    ("qwen2.5-vl-7b-instruct", 8.29, None, True),  # HF page safetensors count, vision tower included
    ("voxtral-mini-3b-2507", 4.68, None, True),  # HF page safetensors count, audio encoder included
    ("llama-3.2-90b-vision-instruct", 88.8, None, True),  # Meta's card: "90B (88.8)", image encoder included
    ("gpt-oss-20b", 20.9, "3.6", False),  # gpt-oss model card: 20.9B total, 3.6B active
    ("gpt-oss-120b", 116.8, "5.1", False),  # gpt-oss model card: 116.8B total, 5.1B active
    ("deepseek-v3", 671, "37", False),  # DeepSeek-V3 report: 671B total, 37B activated
    ("deepseek-r1", 671, "37", False),  # DeepSeek-R1 card: 671B total, 37B activated
    ("phi-4", 14.7, None, True),  # HF page safetensors count
    ("qwen3-next-80b-a3b-thinking", 80, "3.9", True),  # NVIDIA NIM card: 80B total, 3.9B active
    ("nemotron-h-56b-base-8k", 56, None, True),  # NVIDIA card: "56B model parameters"
    ("llama-4-scout-17b-16e", 109, "17", True),  # Meta's Llama 4 card: 17B activated, 109B total
    ("qwen3.5-397b-a17b", 397, "17", True),  # the model's name: 397B total, 17B activated
    ("smollm3-3b", 3.0751, None, True),  # 3,075,098,624 from the checkpoint's index
    ("hunyuan-a13b", 80, "13", True),  # Tencent's README: 80B total, 13B active
    ("dbrx", 132, "36", True),  # Databricks' README: 132B total, 36B active
    ("llava-1.5-7b-hf", 7.0634, None, True),  # 14,126,854,144 bytes of FP16 in the index
    ("devstral-small-2507", 23.5724, None, True),  # total_parameters in the checkpoint's index
    ("cogito-v1-preview-qwen-14b", 14.7659, None, True),  # 29,531,895,808 bytes of BF16 in the index
    ("lfm2-1.2b", 1.1703, None, True),  # LiquidAI's card: 1,170,340,608
    # LatentMoE: 512 routed experts of 1024 -> 2688 -> 1024 behind a 4096 <-> 1024 projection.
    ("nemotron-3-super-120b-a12b-fp8", 120, "12", False),  # the model's name: 120B, 12B active
    ("qwen3-coder-480b-a35b-instruct", 480, "35", True),  # Qwen: 480B total, 35B activated
    # Nemotron 3 Ultra names its 108 blocks in layers_block_type and gives no num_hidden_layers.
    ("nemotron-3-ultra-550b-a55b", 550, "55", False),  # the model's name: 550B, 55B active
    ("qwen3.6-35b-a3b-nvfp4", 35, "3", True),  # the model's name: 35B total, 3B active
]


@pytest.mark.parametrize(("folder", "total_b", "active_b", "embedding_active"), PUBLISHED)
def test_published_parameter_counts(folder: str, total_b: float, active_b: str | None, embedding_active: bool) -> None:
    model = load_hf_config(HF / folder / "config.json")
    assert model.params_b == pytest.approx(total_b, rel=0.01)
    if active_b is not None:
        active = llm_shape.active_parameter_count_b(model, count_input_embedding=embedding_active)
        # Published active counts are rounded ("3.3B", "37B"): within 1% beyond that rounding.
        decimals = len(active_b.partition(".")[2])
        assert abs(active - float(active_b)) <= 0.01 * float(active_b) + 0.5 * 10**-decimals


def _values_at(folder: str, context: int) -> int:
    return llm_shape.kv_cache_values(load_hf_config(HF / folder / "config.json"), context)


def test_gemma_2_alternates_sliding_and_full_layers() -> None:
    # gemma-2-9b-it: 42 layers, 8 KV heads of 256; transformers windows the even layers
    # (21) to sliding_window 4096. At 8,192 tokens: 21 x 8192 + 21 x 4096 tokens a layer.
    per_layer_token = 2 * 8 * 256
    assert _values_at("gemma-2-9b-it", 8192) == (21 * 8192 + 21 * 4096) * per_layer_token
    # Within the window every layer holds every token.
    assert _values_at("gemma-2-9b-it", 2048) == 42 * 2048 * per_layer_token


def test_gemma_3_keeps_one_full_layer_in_six() -> None:
    # gemma-3-27b-it: 62 layers, pattern 6 -> 10 full, 52 windowed to 1,024 tokens;
    # KV heads and head_dim as the file gives them.
    model = load_hf_config(HF / "gemma-3-27b-it" / "config.json")
    assert (model.sliding_window, model.sliding_window_layers) == (1024, 52)
    per_layer_token = 2 * model.kv_heads * model.head_dim
    assert llm_shape.kv_cache_values(model, 131_072) == (10 * 131_072 + 52 * 1024) * per_layer_token
    # The vision tower is in the total (Gemma 3 report: 417M), never active.
    assert model.vision_params is not None and model.vision_params / 1e9 == pytest.approx(0.417, rel=0.02)


def test_gpt_oss_window_of_128_on_half_the_layers() -> None:
    # gpt-oss-120b: 36 layers alternating, window 128, 8 KV heads of 64.
    per_layer_token = 2 * 8 * 64
    assert _values_at("gpt-oss-120b", 131_072) == (18 * 131_072 + 18 * 128) * per_layer_token


def test_qwen3_next_caches_only_its_full_attention_layers() -> None:
    model = load_hf_config(HF / "qwen3-next-80b-a3b-thinking" / "config.json")
    # full_attention_interval 4 of 48 layers: 12 full attention, 36 Gated DeltaNet.
    assert (model.linear_attention_layers, model.layers) == (36, 48)
    # State per DeltaNet layer: 32 value heads x 128 x 128, plus the conv tail of
    # (2 x 16 x 128 + 32 x 128) channels x (kernel 4 - 1).
    state = 32 * 128 * 128 + (2 * 16 * 128 + 32 * 128) * 3
    per_layer_token = 2 * 2 * 256  # 2 KV heads of 256
    assert llm_shape.kv_cache_values(model, 262_144) == 12 * 262_144 * per_layer_token + 36 * state
    assert llm_shape.kv_cache_values_per_token(model) == 12 * per_layer_token


def test_deepseek_mtp_is_apart_and_fp8_ships_as_blocks() -> None:
    model = load_hf_config(HF / "deepseek-r1" / "config.json")
    assert model.mtp_layers == 1 and model.shipped_format == "fp8-block"
    # DeepSeek-V3 report: the MTP module adds 14B on Hugging Face (685B - 671B), of which
    # the embedding and head copies are 2 x 129,280 x 7,168 = 1.85B.
    assert llm_shape.mtp_parameter_count_b(model) + 1.853 == pytest.approx(14, rel=0.05)


@pytest.mark.parametrize(
    ("folder", "moe_layers"),
    [
        ("deepseek-r1", 58),  # 61 layers, first_k_dense_replace 3 (config.json)
        ("gpt-oss-120b", 36),  # every one of 36 layers routes (config.json)
        ("qwen3-30b-a3b", 48),  # mlp_only_layers [] and decoder_sparse_step 1 (config.json)
        ("qwen3-8b", 0),  # dense
    ],
)
def test_mixture_of_experts_layers_are_counted(folder: str, moe_layers: int) -> None:
    # Each routed layer carries the fitted per-MoE-layer decode cost (fit.py).
    assert llm_shape.moe_layer_count(load_hf_config(HF / folder / "config.json")) == moe_layers


def test_names_come_from_the_config_not_the_folder() -> None:
    # The file has no _name_or_path: the architecture and the size name it.
    model = load_hf_config(HF / "deepseek-r1" / "config.json")
    assert model.model == "DeepseekV3 671B"
    named = load_hf_config(HF / "qwen2.5-7b" / "config.json")
    assert (named.vendor, named.model) == ("Qwen", "Qwen2.5-7B")


def test_pre_quantized_checkpoints_name_their_format() -> None:
    assert load_hf_config(HF / "gpt-oss-20b" / "config.json").shipped_format == "mxfp4-bf16"
    assert load_hf_config(HF / "qwen3-32b-fp8" / "config.json").shipped_format == "fp8-block"
    assert load_hf_config(HF / "qwen3-8b" / "config.json").shipped_format is None
    # NVIDIA's ModelOpt exports name the format in hf_quant_config.json beside config.json.
    assert load_hf_config(HF / "nemotron-3-super-120b-a12b-fp8" / "config.json").shipped_format == "fp8"


def test_modelopt_quant_file_beside_the_config(tmp_path: Path) -> None:
    config = json.loads((HF / "qwen3-8b" / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps(config))
    (tmp_path / "hf_quant_config.json").write_text(json.dumps({"quantization": {"quant_algo": "NVFP4"}}))
    assert load_hf_config(tmp_path / "config.json").shipped_format == "nvfp4"
    (tmp_path / "hf_quant_config.json").write_text(json.dumps({"quantization": {"quant_algo": "W4A8_AWQ"}}))
    with pytest.raises(InputError, match=r"hf_quant_config.json: quant_algo 'W4A8_AWQ' is not a format known"):
        load_hf_config(tmp_path / "config.json")
    (tmp_path / "hf_quant_config.json").write_text("[1, 2]")
    with pytest.raises(InputError, match=r"hf_quant_config.json: quantization must be an object"):
        load_hf_config(tmp_path / "config.json")
    (tmp_path / "hf_quant_config.json").write_text(json.dumps({"quantization": {"quant_algo": None}}))
    with pytest.raises(InputError, match=r"hf_quant_config.json: quant_algo is missing or null"):
        load_hf_config(tmp_path / "config.json")
    # Both files name a format: config.json's is taken, and the model's notes say so.
    (tmp_path / "hf_quant_config.json").write_text(json.dumps({"quantization": {"quant_algo": "NVFP4"}}))
    config["quantization_config"] = json.loads((HF / "qwen3-32b-fp8" / "config.json").read_text())[
        "quantization_config"
    ]
    (tmp_path / "config.json").write_text(json.dumps(config))
    both = load_hf_config(tmp_path / "config.json")
    assert both.shipped_format == "fp8-block"
    assert both.notes is not None and "config.json's is taken" in both.notes
    # A folder of that name was passed over and the model sized as q4_k_m.
    (tmp_path / "hf_quant_config.json").unlink()
    (tmp_path / "hf_quant_config.json").mkdir()
    with pytest.raises(InputError, match=r"hf_quant_config.json: not a file"):
        load_hf_config(tmp_path / "config.json")


def test_gemma_ties_its_head_by_default_and_says_so() -> None:
    model = load_hf_config(HF / "gemma-2-9b-it" / "config.json")
    assert model.tie_word_embeddings
    assert model.notes is not None and "tie_word_embeddings true (transformers' default for gemma2)" in model.notes


def test_llama_4_holds_a_chunk_on_three_layers_in_four() -> None:
    # Llama-4-Scout-17B-16E: no_rope_layers [1, 1, 1, 0] x 12; transformers makes each RoPE
    # layer chunked attention within attention_chunk_size 8,192 and each NoPE layer full.
    # 8 KV heads of 128. At 65,536 tokens: 12 x 65,536 + 36 x 8,192 tokens a layer.
    model = load_hf_config(HF / "llama-4-scout-17b-16e" / "config.json")
    assert (model.sliding_window, model.sliding_window_layers) == (8192, 36)
    per_layer_token = 2 * 8 * 128
    assert llm_shape.kv_cache_values(model, 65_536) == (12 * 65_536 + 36 * 8192) * per_layer_token
    # Every layer is MoE (interleave_moe_layer_step 1): 16 experts of 8,192 and one shared
    # expert of the same width; intermediate_size_mlp (16,384) is a dense layer's width.
    assert (model.moe_experts, model.moe_intermediate_size, model.moe_shared_experts) == (16, 8192, 1)
    assert not model.moe_dense_layers and model.intermediate_size == 16_384


def test_a_chunked_layer_reads_the_tokens_since_its_chunk_began() -> None:
    # Llama 4's chunked attention (transformers' chunked mask): a token at position p sees
    # positions from the last multiple of 8,192 up to p, so the cache above holds a whole
    # chunk at worst, but decoding past the first chunk reads (8,192 + 1) / 2 on average.
    model = load_hf_config(HF / "llama-4-scout-17b-16e" / "config.json")
    assert model.chunked_attention
    assert llm_shape.attended_tokens(model, 4096) == 48 * 4096
    assert llm_shape.attended_tokens(model, 65_536) == 12 * 65_536 + 36 * 4096.5
    # A prompt of two whole chunks: the mean token sees (8,192 + 1) / 2 on a chunked layer
    # and (16,384 + 1) / 2 on a full one.
    assert llm_shape.attended_tokens(model, 16_384, prompt=True) == 12 * 8192.5 + 36 * 4096.5
    # The "Model:" line names the layout.
    lines = format_model_shape(model_shape(model, 8192, 2), 8192)
    assert "12 full attention, 36 chunked attention (8,192-token chunks)" in lines[1]


def test_a_sliding_window_prompt_token_sees_at_most_the_window() -> None:
    # Gemma 2 9B: 21 of 42 layers slide over 4,096 tokens (config.json sliding_window).
    # A prompt of 8,192 tokens: the first 4,096 see 1..4,096 each, the rest 4,096 each,
    # a mean of (4,096 x 4,097 / 2 + 4,096 x 4,096) / 8,192 = 3,072.25.
    model = load_hf_config(HF / "gemma-2-9b-it" / "config.json")
    assert (model.sliding_window, model.sliding_window_layers) == (4096, 21)
    assert llm_shape.attended_tokens(model, 8192, prompt=True) == 21 * 4096.5 + 21 * 3072.25
    assert llm_shape.attended_tokens(model, 8192) == 21 * 8192 + 21 * 4096


def test_kimi_k2_5_counts_its_moonvit_tower_apart_from_the_active_weights() -> None:
    # Kimi K2.5: Kimi K2's text model and a MoonViT-3D tower given by vt_ keys (vLLM's
    # k2vl_vit.py): 27 blocks of 1,152 with a fused biased QKV, a biased 4,304-wide GELU
    # MLP and two layer norms; a 14 x 14 patch embedding, 64 x 64 learned positions and a
    # final norm; a projector of 2 x 2 merged patches (4,608) through a norm and two linear
    # layers into 7,168.
    model = load_hf_config(HF / "kimi-k2.5" / "config.json")
    h, inner, merged, text = 1152, 4304, 4608, 7168
    block = 4 * h * h + 4 * h + 2 * h * inner + inner + h + 4 * h
    embed = 3 * 14 * 14 * h + h + 64 * 64 * h
    projector = 2 * h + merged * merged + merged + merged * text + text
    assert model.vision_params == 27 * block + embed + 2 * h + projector
    # NVIDIA's Kimi K2.5 post: 1T total, 32.86B active (the vision tower is not read per token).
    assert llm_shape.active_parameter_count_b(model) == pytest.approx(32.86, abs=0.005)
    # The text model is Kimi K2's ("1T" on both cards), so the totals differ by the tower.
    k2 = load_hf_config(HF / "kimi-k2-instruct" / "config.json")
    assert model.params_b - k2.params_b == pytest.approx(model.vision_params / 1e9, abs=0.01)


def test_a_qwen2_5_vl_tower_left_to_transformers_defaults_is_counted_and_said() -> None:
    # Nexus-GenV2's config (a Qwen2.5-VL-7B fine-tune) gives the vision tower's width only;
    # transformers fills the rest from Qwen2_5_VLVisionConfig: 32 blocks, a gated SiLU MLP
    # 3,420 wide, 14-pixel patches, 2 x 2 merges into out_hidden_size 3,584.
    model = load_hf_config(HF / "nexus-genv2" / "config.json")
    h, inner, merged, out = 1280, 3420, 5120, 3584
    block = 4 * h * h + 4 * h + 3 * h * inner + inner + h + 4 * h
    embed = 3 * 2 * 14 * 14 * h + h
    merger = 2 * h + merged * merged + merged + merged * out + out
    # The merger alone: 44.57M in a published breakdown of Qwen2.5-VL-7B-Instruct's modules.
    assert merger / 1e6 == pytest.approx(44.57, abs=0.01)
    assert model.vision_params == 32 * block + embed + merger
    # Qwen2.5-VL-7B-Instruct's safetensors count: 8.29B.
    assert model.params_b == pytest.approx(8.29, rel=0.01)
    assert model.notes is not None and "vision_config.depth 32 (transformers' default for qwen2_5_vl)" in model.notes
    # Its text model is Qwen2's, whose window is off (use_sliding_window false).
    assert model.sliding_window_layers is None


def test_a_qwen2_vl_tower_is_as_wide_as_its_embed_dim() -> None:
    # Qwen2-VL's vision_config names the tower's width embed_dim (1,280) and the text width
    # it merges into hidden_size; its MLP is mlp_ratio 4 wide, QuickGELU (two matrices).
    # The Qwen2-VL report (arXiv 2409.12191) gives the tower as 675M for every size.
    vision = {
        "depth": 32,
        "embed_dim": 1280,
        "mlp_ratio": 4,
        "num_heads": 16,
        "hidden_size": 3584,
        "hidden_act": "quick_gelu",
        "patch_size": 14,
        "spatial_merge_size": 2,
        "temporal_patch_size": 2,
    }
    params = vision_params(ConfigValues(vision, HF / "config.json", "vision_config."), 3584)
    assert params / 1e6 == pytest.approx(675, rel=0.01)


def test_lfm2_short_convolutions_hold_a_fixed_state_and_its_mlp_is_adjusted() -> None:
    # LFM2.5-VL-1.6B: 10 of 16 layers are short convolutions with conv_L_cache 3 (no KV
    # cache), 6 attend with 8 KV heads of 64. Lfm2MLP narrows intermediate_size 12,288 to
    # 2/3 (8,192, already a multiple of 256). Its text model is LFM2-1.2B's: 1.17B.
    model = load_hf_config(HF / "lfm2.5-vl-1.6b" / "config.json")
    assert (model.linear_attention_layers, model.intermediate_size) == (10, 8192)
    assert model.tie_word_embeddings
    assert llm_shape.kv_cache_values(model, 4096) - llm_shape.kv_cache_values(model, 0) == 6 * 2 * 8 * 64 * 4096
    assert llm_shape.kv_cache_values(model, 0) == 10 * 2048 * 3
    assert model.vision_params is not None
    assert model.params_b - model.vision_params / 1e9 == pytest.approx(1.17, rel=0.01)


def test_voxtral_counts_its_audio_encoder_as_held_not_read() -> None:
    # Voxtral Mini: a Whisper-style encoder (32 blocks of 1,280, MLP 5,120, 128 mel bins,
    # 1,500 positions) and a projector of four stacked frames into the 3,072-wide text model.
    model = load_hf_config(HF / "voxtral-mini-3b-2507" / "config.json")
    assert model.audio_params is not None
    assert model.audio_params / 1e9 == pytest.approx(0.66, abs=0.01)
    assert llm_shape.active_parameter_count_b(model) == pytest.approx(
        model.params_b - model.audio_params / 1e9, abs=1e-3
    )


def test_llama_3_2_vision_cross_attention_caches_the_image_not_the_text() -> None:
    # Llama 3.2 90B Vision: 100 layers, 20 of them (cross_attention_layers 3, 8, ... 98)
    # attend to the image; 8 KV heads of 128. Text tokens are cached on 80 layers; one image
    # of 4 tiles of (560 / 14)^2 + 1 = 1,601 tokens is cached on the 20.
    model = load_hf_config(HF / "llama-3.2-90b-vision-instruct" / "config.json")
    assert model.linear_attention_layers == 20
    per_layer_token = 2 * 8 * 128
    assert llm_shape.kv_cache_values_per_token(model) == 80 * per_layer_token
    assert llm_shape.kv_cache_values(model, 0) == 20 * 4 * 1601 * per_layer_token


def test_a_qwen_vl_tower_with_shared_keys_and_values_has_narrower_k_and_v() -> None:
    # EXAONE 4.5's tower (a Qwen2.5-VL design) gives num_key_value_heads 8 of 32 heads of
    # 64: k and v are 512 wide, not 2,048, so each block holds 2 x 2,048 x 1,536 weights
    # and 2 x 1,536 biases fewer than with a full QKV.
    tower = {
        "depth": 28,
        "hidden_size": 2048,
        "intermediate_size": 5120,
        "num_heads": 32,
        "hidden_act": "silu",
        "out_hidden_size": 5120,
        "patch_size": 14,
        "spatial_merge_size": 2,
        "temporal_patch_size": 2,
    }
    full = vision_params(ConfigValues(tower, HF / "config.json", "vision_config."), 5120)
    shared = vision_params(
        ConfigValues({**tower, "num_key_value_heads": 8}, HF / "config.json", "vision_config."), 5120
    )
    assert full - shared == 28 * (2 * 2048 * 1536 + 2 * 1536)


def test_llama_4_layer_types_from_newer_transformers_read_alike(tmp_path: Path) -> None:
    # transformers writes layer_types ("chunked_attention" / "full_attention") into newer
    # Llama 4 configs; the chunk is still attention_chunk_size.
    raw = json.loads((HF / "llama-4-scout-17b-16e" / "config.json").read_text())
    text = raw["text_config"]
    text["layer_types"] = ["chunked_attention" if rope else "full_attention" for rope in text.pop("no_rope_layers")]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(raw))
    model = load_hf_config(path)
    assert (model.sliding_window, model.sliding_window_layers) == (8192, 36)
    # Maverick's layout: MoE on every other layer (moe_layers 1, 3, ... 47), dense ones 16,384 wide.
    text["moe_layers"] = list(range(1, 48, 2))
    text["num_local_experts"] = 128
    path.write_text(json.dumps(raw))
    maverick = load_hf_config(path)
    assert maverick.moe_dense_layers == 24
    # Meta's Llama 4 card: Maverick 400B total, 17B activated (here with Scout's vision tower).
    assert maverick.params_b == pytest.approx(400, rel=0.01)


def test_qwen3_5_caches_only_its_full_attention_layers() -> None:
    # Qwen3.5-397B-A17B: layer_types three linear_attention (Gated DeltaNet) to one
    # full_attention over 60 layers; 2 KV heads of 256 on the 15 full layers only.
    model = load_hf_config(HF / "qwen3.5-397b-a17b" / "config.json")
    assert model.linear_attention_layers == 45
    assert llm_shape.kv_cache_values(model, 65_536) - llm_shape.kv_cache_values(model, 0) == 15 * 2 * 2 * 256 * 65_536
    # Its vision tower (27 blocks of 1,152, Qwen3-VL style) is in the total, never active.
    assert model.vision_params is not None and 0.3e9 < model.vision_params < 0.7e9


def test_a_trillion_parameter_config_is_named_in_trillions() -> None:
    # Kimi K2's config has no _name_or_path: the architecture and size name it, and 1,026B
    # reads as 1.03T rather than in exponent notation.
    model = load_hf_config(HF / "kimi-k2-instruct" / "config.json")
    assert model.model == "DeepseekV3 1.03T" and model.id == "deepseekv3-1.03t"
    # Kimi K2 card: "Total Parameters 1T", "Activated Parameters 32B" (both rounded).
    assert 950 <= model.params_b < 1050
    # Counted as DeepSeek-V3 counts its 37B: without the input embedding.
    assert llm_shape.active_parameter_count_b(model, count_input_embedding=False) == pytest.approx(32, abs=0.5 + 0.32)


def test_deepseek_v3_2_sparse_attention_reads_its_top_k() -> None:
    # DeepSeek-V3.2: V3's shape plus a lightning indexer (64 heads of 128) in each of the 61
    # layers; each query attends to the index_topk 2,048 tokens the indexer picks.
    v32 = load_hf_config(HF / "deepseek-v3.2" / "config.json")
    v3 = load_hf_config(HF / "deepseek-v3" / "config.json")
    assert (v32.sparse_attention_top_k, v32.indexer_heads, v32.indexer_head_dim) == (2048, 64, 128)
    # Indexer weights a layer: wq_b 1,536 x 64 x 128, wk 7,168 x 128, k_norm 2 x 128,
    # weights_proj 7,168 x 64 = 13,959,424 (DeepSeek's inference/model.py, class Indexer).
    added = llm_shape.parameter_count_b(v32) - llm_shape.parameter_count_b(v3)
    assert added * 1e9 == pytest.approx(61 * 13_959_424, rel=1e-6)
    # The cache holds every token: MLA's 512 + 64 values and the indexer's key of 128.
    assert llm_shape.kv_cache_values_per_token(v32) == 61 * (576 + 128)
    assert llm_shape.kv_cache_values(v32, 131_072) == 131_072 * 61 * 704
    # A decode step at 131,072 tokens reads the 2,048 picked tokens' MLA values and every
    # token's indexer key; V3 reads every token's MLA values.
    assert llm_shape.kv_read_values(v32, 131_072) == 61 * (2048 * 576 + 131_072 * 128)
    assert llm_shape.kv_read_values(v3, 131_072) == 61 * 131_072 * 576
    # Below top k a sparse layer sees every token, as a full one does.
    assert llm_shape.attended_tokens(v32, 1000) == llm_shape.attended_tokens(v3, 1000) == 61 * 1000
    # A prompt's mean token sees at most 2,048: at 8,192 tokens (2,048 x 2,049 / 2 + 6,144 x
    # 2,048) / 8,192 = 1,792.125 a layer.
    assert llm_shape.attended_tokens(v32, 8192, prompt=True) == pytest.approx(61 * 1792.125)


def test_a_config_of_no_known_model_type_says_how_it_was_read() -> None:
    # CogVLM2 names no model_type (its modelling code is the repository's own): its visual
    # expert layers are not counted, and the shape says the model was read as a plain decoder.
    model = load_hf_config(HF / "cogvlm2-llama3-caption" / "config.json")
    assert "names no model_type read here by name: read as a standard decoder" in (model.notes or "")
    known = load_hf_config(HF / "llama-3.1-8b" / "config.json")
    assert "read here by name" not in (known.notes or "")


def test_granite_4_hybrid_mamba_layers_and_shared_mlp(tmp_path: Path) -> None:
    model = load_hf_config(HF / "granite-4.0-h-350m" / "config.json")
    # layer_types: 28 Mamba-2 mixers and 4 attention layers, an MLP of shared_intermediate_size
    # 2,048 in every one. By hand: tied embedding 100,352 x 768 = 77,070,336; MLPs 32 x 3 x 768
    # x 2,048 = 150,994,944; Mamba-2 mixers 28 x 3,783,056 (in_proj 768 x 3,376, conv 1,792 x 4
    # and its bias, dt/A/D 3 x 48, norm 1,536, out_proj 1,536 x 768) = 105,925,568; attention
    # 4 x 1,572,864 = 6,291,456; RMS norms 65 x 768 = 49,920: 340,332,224.
    assert (model.linear_attention_layers, model.intermediate_size, model.moe_experts) == (28, 2048, None)
    assert llm_shape.parameter_count_b(model) * 1e9 == pytest.approx(340_332_224)
    # KV only in the 4 attention layers: 4 KV heads of 64.
    assert llm_shape.kv_cache_values_per_token(model) == 4 * 2 * 4 * 64
    # A MoE variant (h-tiny's layout): intermediate_size is an expert's width, the shared MLP
    # keeps shared_intermediate_size.
    raw = json.loads((HF / "granite-4.0-h-350m" / "config.json").read_text())
    raw.update(num_local_experts=64, num_experts_per_tok=6, intermediate_size=512)
    (tmp_path / "config.json").write_text(json.dumps(raw))
    moe = load_hf_config(tmp_path / "config.json")
    assert (moe.moe_experts, moe.moe_active_experts, moe.moe_intermediate_size) == (64, 6, 512)
    assert (moe.moe_shared_experts, moe.moe_shared_intermediate_size) == (1, 2048)


def test_a_sparse_attention_model_without_its_top_k_says_so(tmp_path: Path) -> None:
    # aiconfigurator's abridged GLM-5 and DeepSeek-V3.2 copies can leave index_* out.
    raw = json.loads((HF / "deepseek-v3.2" / "config.json").read_text())
    for key in ("index_topk", "index_n_heads", "index_head_dim"):
        raw.pop(key)
    (tmp_path / "config.json").write_text(json.dumps(raw))
    model = load_hf_config(tmp_path / "config.json")
    assert model.sparse_attention_top_k is None
    assert "deepseek_v32 attends sparsely, but the file gives no index_topk" in (model.notes or "")


def test_a_config_cut_inside_a_string_or_with_a_listed_model_type_is_refused(tmp_path: Path) -> None:
    text = (HF / "qwen3-8b" / "config.json").read_text()
    cut = tmp_path / "cut.json"
    cut.write_text(text[: text.index('"model_type"') + 5])
    with pytest.raises(InputError, match=r"a string runs to the end of the file \(truncated\?\)$"):
        load_hf_config(cut)
    listed = tmp_path / "listed.json"
    listed.write_text(json.dumps({**json.loads(text), "model_type": ["qwen3"]}))
    with pytest.raises(InputError, match=r"listed.json: model_type must be a string \(found \['qwen3'\]\)"):
        load_hf_config(listed)


def test_active_count_without_the_tables() -> None:
    # Nemotron-3-Super-120B-A12B: the name's "A12B" is the decoder's active weights; with its
    # two untied 131,072 x 4,096 tables (1.07B) counted the active total is 12.77B.
    model = load_hf_config(HF / "nemotron-3-super-120b-a12b-fp8" / "config.json")
    body = llm_shape.active_body_parameter_count_b(model)
    assert abs(body - 12) <= 0.01 * 12 + 0.5
    tables = 2 * 131_072 * 4_096 / 1e9
    assert body == pytest.approx(llm_shape.active_parameter_count_b(model) - tables)


def test_qwen3_next_without_a_shared_width_takes_transformers_default(tmp_path: Path) -> None:
    # Qwen3NextConfig defaults shared_expert_intermediate_size to 512: a config that leaves it
    # out has a shared expert of that width, not none (it was read as none, silently).
    config = json.loads((HF / "qwen3-next-80b-a3b-thinking" / "config.json").read_text())
    full = load_hf_config(HF / "qwen3-next-80b-a3b-thinking" / "config.json")
    assert config.pop("shared_expert_intermediate_size") == 512
    (tmp_path / "config.json").write_text(json.dumps(config))
    model = load_hf_config(tmp_path / "config.json")
    assert model.params_b == full.params_b
    assert (
        model.notes is not None
        and "shared_expert_intermediate_size 512 (transformers' default for qwen3_next)" in model.notes
    )


def test_a_bad_shared_expert_width_is_named_as_the_file_names_it(tmp_path: Path) -> None:
    # The message named the model's own field (moe_shared_intermediate_size), not the key in the file.
    config = json.loads((HF / "qwen3-next-80b-a3b-thinking" / "config.json").read_text())
    config["shared_expert_intermediate_size"] = 10**15
    (tmp_path / "config.json").write_text(json.dumps(config))
    with pytest.raises(InputError, match=r"config.json: shared_expert_intermediate_size: Input should be less"):
        load_hf_config(tmp_path / "config.json")


def test_a_modelopt_mixed_precision_checkpoint_is_sized_by_module() -> None:
    # nvidia/Qwen3.6-35B-A3B-NVFP4's quantized_layers: the MLP and experts W4A16_NVFP4, the
    # attention and linear-attention projections FP8 (quant_algo MIXED_PRECISION).
    model = load_hf_config(HF / "qwen3.6-35b-a3b-nvfp4" / "config.json")
    assert model.shipped_format == "nvfp4-fp8-attn"
    fmt = get_format("nvfp4-fp8-attn")
    bits = fmt.bits_by_class(model.hidden_size)
    # NVFP4: 4 bits and an 8-bit scale per 16 (4.5, plus the FP32 tensor scale); FP8: 8 bits.
    assert bits["ffn_down"] == pytest.approx(4.5, abs=0.01) and bits["attn_q"] == pytest.approx(8.0, abs=0.01)
    assert bits["token_embd"] == 16.0  # the embeddings stay in BF16 (the file's ignore list)


def test_glm_5_2_sparse_attention_layers_cache_every_token() -> None:
    # GLM-5.2's layer_types names all 78 layers deepseek_sparse_attention: each query reads the
    # indexer's top-k, but the cache keeps every token: per layer the 512-wide latent, the
    # 64-wide RoPE key and the indexer's 128-wide key (kv_lora_rank, qk_rope_head_dim,
    # index_head_dim in the config).
    model = load_hf_config(HF / "glm-5.2-nvfp4" / "config.json")
    assert model.shipped_format == "nvfp4"
    assert llm_shape.kv_cache_values(model, 4096) == 78 * (512 + 64 + 128) * 4096
