"""Configs whose layers differ: Nemotron NAS (DeciLM's block_configs) and Gemma 4 (full
attention layers shaped apart from the sliding ones, an MoE block beside the dense MLP).
Files in tests/data/hf, sources in SOURCES.md there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rackplanner.core.capacity.model_shape import format_model_shape, model_shape
from rackplanner.core.catalog import llm_shape
from rackplanner.core.catalog.hf import load_hf_config
from rackplanner.core.errors import InputError

HF = Path(__file__).parent / "data" / "hf"
SUPER = HF / "llama-3.3-nemotron-super-49b-v1" / "config.json"
GEMMA4 = HF / "gemma-4-26b-a4b" / "config.json"


def _write(tmp_path: Path, raw: dict[str, Any]) -> Path:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(raw))
    return path


def test_nemotron_super_counts_each_layer_as_its_block_config_says() -> None:
    model = load_hf_config(SUPER)
    # block_configs: attention (8 KV heads, n_heads_in_group 8 of 64) in 49 of 80 layers.
    # By hand: attention 49 x (2 x 8,192^2 + 2 x 8,192 x 1,024) = 7,398,752,256; MLP widths
    # (2 x ffn_mult x 8,192 / 3 rounded up to 256) summed: 48 x 28,672 + 2 x 14,336 ...
    # = 1,642,496, x 3 x 8,192 = 40,365,981,696; embeddings 2 x 128,256 x 8,192 =
    # 2,101,346,304; norms 161 x 8,192 = 1,318,912: 49,867,399,168 (the name says 49B).
    assert llm_shape.parameter_count_b(model) * 1e9 == pytest.approx(49_867_399_168)
    assert (model.kv_heads, model.attention_free_layers, model.intermediate_size) == (8, 31, 28_672)
    assert sum(model.mlp_widths or []) == 1_642_496
    # Only the 49 attention layers cache: 49 x 2 x 8 x 128 values a token.
    assert llm_shape.kv_cache_values_per_token(model) == 49 * 2 * 8 * 128
    assert llm_shape.kv_cache_values(model, 1000) == 1000 * 49 * 2 * 8 * 128
    lines = format_model_shape(model_shape(model, 4096, 2.0), 4096)
    assert "80 layers: 49 full attention, 31 without attention (no KV cache)" in lines[1]
    assert "MLPs in 80 layers, 6 widths" in lines[-1]
    # An MLP's share of the quant mix follows the summed widths, not 80 of the widest.
    from rackplanner.core.capacity.shape import _tensor_groups

    assert _tensor_groups(model, active=False).ffn_down == pytest.approx(1_642_496 * 8192)


def test_nemotron_ultra_drops_whole_layers() -> None:
    model = load_hf_config(HF / "llama-3.1-nemotron-ultra-253b-v1" / "config.json")
    # 81 of 162 layers keep neither attention nor MLP; 64 keep attention (8 KV heads).
    assert (model.attention_free_layers, len(model.mlp_widths or []), model.kv_heads) == (98, 81, 8)
    # The name says 253B.
    assert llm_shape.parameter_count_b(model) == pytest.approx(253, rel=0.005)
    assert llm_shape.kv_cache_values_per_token(model) == 64 * 2 * 8 * 128


def test_a_replaced_block_is_one_square_map(tmp_path: Path) -> None:
    raw = json.loads(SUPER.read_text())
    base = llm_shape.parameter_count_b(load_hf_config(SUPER)) * 1e9
    raw["block_configs"][0]["attention"] = {"replace_with_linear": True, "no_op": False}
    raw["block_configs"][1]["ffn"] = {"replace_with_linear": True, "no_op": False}
    model = load_hf_config(_write(tmp_path, raw))
    # Layer 0 loses its attention (150,994,944) for 8,192^2; layer 1 its 28,672-wide MLP
    # (704,643,072) for another 8,192^2.
    assert llm_shape.parameter_count_b(model) * 1e9 == pytest.approx(base - 150_994_944 - 704_643_072 + 2 * 8192**2)
    assert model.attention_free_layers == 32 and len(model.mlp_widths or []) == 79


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda raw: raw["block_configs"].pop(),
            r"block_configs must give one entry per layer \(80 layers; found 79\)",
        ),
        (lambda raw: raw["block_configs"].__setitem__(3, "x"), r"block_configs\[3\].attention must be an object"),
        (
            lambda raw: raw["block_configs"][0]["attention"].update(n_heads_in_group=0),
            r"block_configs\[0\].attention.n_heads_in_group must be a positive whole number \(found 0\)",
        ),
        (
            lambda raw: raw["block_configs"][0]["attention"].update(n_heads_in_group=7),
            r"n_heads_in_group 7 does not divide the 64 attention heads",
        ),
        (
            lambda raw: raw["block_configs"][0]["attention"].update(n_heads_in_group=4),
            r"block_configs gives attention layers different KV heads \(\[8, 16\]\)",
        ),
        (
            lambda raw: raw["block_configs"][5]["ffn"].update(ffn_mult="big"),
            r"block_configs\[5\].ffn.ffn_mult must be a positive number",
        ),
        (
            lambda raw: raw["block_configs"][5]["ffn"].update(ffn_mult=1e300),
            r"block_configs\[5\].ffn.ffn_mult must be a positive number",
        ),
        (
            lambda raw: raw["block_configs"][0]["attention"].update(window_length=4096),
            r"block_configs\[0\].attention.window_length changes what the layer attends to",
        ),
        (
            lambda raw: raw["block_configs"][0]["attention"].update(no_op="yes"),
            r"block_configs\[0\].attention.no_op must be true or false",
        ),
    ],
)
def test_broken_block_configs_name_the_entry(tmp_path: Path, change: Any, message: str) -> None:
    raw = json.loads(SUPER.read_text())
    change(raw)
    with pytest.raises(InputError, match=message):
        load_hf_config(_write(tmp_path, raw))


def test_block_configs_in_another_model_type_are_refused(tmp_path: Path) -> None:
    raw = json.loads(SUPER.read_text())
    raw["model_type"] = "llama"
    with pytest.raises(InputError, match="block_configs gives each layer its own attention and MLP"):
        load_hf_config(_write(tmp_path, raw))


def test_gemma4_moe_counts_both_attention_shapes_and_the_dense_mlp() -> None:
    model = load_hf_config(GEMMA4)
    # 25 sliding layers: q, o 2,816 x 16 x 256 and k, v 2,816 x 8 x 256 = 34,603,008 each;
    # 5 full layers: q, o 2,816 x 16 x 512 and k alone 2,816 x 2 x 512 (values are the
    # keys) = 49,020,928 each. Per layer a dense MLP 3 x 2,816 x 2,112, 128 experts of 3 x
    # 2,816 x 704 and a router 2,816 x 128. Published: 25.2B total, 3.8B active (SOURCES.md).
    assert (model.full_attention_head_dim, model.full_attention_kv_heads) == (512, 2)
    assert model.full_attention_values_from_keys
    assert (model.moe_experts, model.moe_active_experts, model.moe_shared_intermediate_size) == (128, 8, 2112)
    assert llm_shape.text_parameter_count_b(model) == pytest.approx(25.2, rel=0.01)
    assert llm_shape.active_parameter_count_b(model) == pytest.approx(3.8, rel=0.01)
    attention = 25 * 34_603_008 + 5 * 49_020_928
    mlps = 30 * (3 * 2816 * 2112 + 128 * 3 * 2816 * 704 + 2816 * 128)
    embeddings_and_norms = 262_144 * 2816 + (2 * 30 + 1) * 2816
    assert llm_shape.text_parameter_count_b(model) * 1e9 == attention + mlps + embeddings_and_norms
    # KV: a full layer caches 2 x 2 x 512 values a token, a sliding one 2 x 8 x 256 within
    # its 1,024-token window.
    assert llm_shape.kv_cache_values_per_token(model) == 5 * 2048
    assert llm_shape.kv_cache_values(model, 32_768) == 5 * 2048 * 32_768 + 25 * 4096 * 1024
    # A decode step at 32k reads the same; its QK^T and AV run at each kind's head width.
    assert llm_shape.kv_read_values(model, 32_768) == 5 * 2048 * 32_768 + 25 * 4096 * 1024
    assert llm_shape.attention_score_flops(model, 32_768) == 4 * 16 * (512 * 5 * 32_768 + 256 * 25 * 1024)
    lines = format_model_shape(model_shape(model, 4096, 2.0), 4096)
    assert "5 full attention (2 KV heads of 512, values from the keys' projection)" in lines[1]


def test_gemma4_vision_tower_is_counted_apart() -> None:
    model = load_hf_config(GEMMA4)
    # 27 layers of bias-free attention (4 x 1,152^2 and q/k norms of 72) and a gated MLP
    # (3 x 1,152 x 4,304) with 4 norms; patches 768 x 1,152; positions 2 x 10,240 x 1,152;
    # projection 1,152 x 2,816.
    per_layer = 4 * 1152 * 1152 + 2 * 72 + 3 * 1152 * 4304 + 4 * 1152
    assert model.vision_params == 27 * per_layer + 768 * 1152 + 2 * 10_240 * 1152 + 1152 * 2816


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("hidden_size_per_layer_input", 256, "adds per-layer embeddings"),
        ("num_kv_shared_layers", 20, "shares KV caches between layers"),
    ],
)
def test_gemma4_small_model_features_are_refused(tmp_path: Path, key: str, value: int, message: str) -> None:
    raw = json.loads(GEMMA4.read_text())
    raw["text_config"][key] = value
    with pytest.raises(InputError, match=f"text_config.{key} {message}"):
        load_hf_config(_write(tmp_path, raw))


def test_gemma4_dense_reads_no_experts(tmp_path: Path) -> None:
    raw = json.loads(GEMMA4.read_text())
    text = raw["text_config"]
    text.update(enable_moe_block=False, num_experts=None, top_k_experts=None, moe_intermediate_size=None)
    model = load_hf_config(_write(tmp_path, raw))
    assert model.moe_experts is None and model.intermediate_size == 2112
    text["num_experts"] = 128
    with pytest.raises(InputError, match=r"text_config\.num_experts is set, but enable_moe_block is not"):
        load_hf_config(_write(tmp_path, raw))


def test_nemotron_3_nano_counts_its_expert_blocks() -> None:
    model = load_hf_config(HF / "nemotron-3-nano-30b-a3b" / "config.json")
    # hybrid_override_pattern: 23 Mamba-2 (M), 6 attention (*), 23 MoE (E) blocks; counted as
    # 29 mixer layers with 23 MLPs, every one of them experts.
    assert (model.layers, model.mlp_layers, model.moe_dense_layers) == (29, 23, None)
    assert (model.moe_experts, model.moe_active_experts, model.moe_shared_intermediate_size) == (128, 6, 3712)
    # By hand: embeddings 2 x 131,072 x 2,688 = 704,643,072; Mamba-2 23 x 38,742,208 (in_proj
    # 2,688 x 10,304, conv 6,144 x 4 and its bias, dt/A/D 3 x 64, norm 4,096, out_proj 4,096 x
    # 2,688); attention 6 x 23,396,352; MoE 23 x (128 x 2 x 2,688 x 1,856 (relu2, not gated) +
    # shared 2 x 2,688 x 3,712 + router 2,688 x 128); norms 59 x 2,688. Published: 30B total.
    total = 704_643_072 + 23 * 38_742_208 + 6 * 23_396_352 + 23 * 1_297_465_344 + 59 * 2688
    assert llm_shape.parameter_count_b(model) * 1e9 == total == 31_577_953_472
    # Active: 6 of 128 experts and the shared one: about 3.6B with both embedding tables
    # (jetson-ai-lab's page gives 3.5B active).
    assert llm_shape.active_parameter_count_b(model) == pytest.approx(3.58, abs=0.01)
    assert llm_shape.kv_cache_values_per_token(model) == 6 * 2 * 2 * 128


def test_kimi_linear_counts_kda_mixers_and_mla() -> None:
    model = load_hf_config(HF / "kimi-linear-48b-a3b-instruct" / "config.json")
    # linear_attn_config: 20 KDA layers and 7 MLA; 256 experts of 1,024, 8 a token, one shared
    # (num_shared_experts), the first layer dense (first_k_dense_replace 1).
    assert (model.linear_attention_layers, model.moe_active_experts, model.moe_shared_experts) == (20, 8, 1)
    # A KDA mixer: q, k, v, o 4 x 2,304 x 4,096; gates 2 x (2,304 x 128 + 128 x 4,096); convs
    # 3 x 4 x 4,096; b_proj 2,304 x 32; A_log 32; dt_bias 4,096; norm 128.
    projections = 4 * 2304 * 4096 + 2 * (2304 * 128 + 128 * 4096) + 3 * 4 * 4096 + 2304 * 32
    assert model.linear_mixer_params == projections + 32 + 4096 + 128 == 39_514_272
    # The checkpoint's tensors sum to 49,122,681,728 (SOURCES.md): within 0.0001%.
    assert llm_shape.parameter_count_b(model) * 1e9 == pytest.approx(49_122_681_728, rel=1e-6)
    # State per sequence and KDA layer: 32 heads of 128 x 128 and three convolutions' last 3
    # inputs; only the 7 MLA layers grow, by 512 + 64 values a token.
    assert model.linear_state_values == 32 * 128 * 128 + 3 * 4096 * 3
    assert llm_shape.kv_cache_values_per_token(model) == 7 * 576


def test_kimi_linear_layer_lists_must_cover_every_layer(tmp_path: Path) -> None:
    raw = json.loads((HF / "kimi-linear-48b-a3b-instruct" / "config.json").read_text())
    raw["linear_attn_config"]["kda_layers"] = raw["linear_attn_config"]["kda_layers"][:-1]
    with pytest.raises(InputError, match=r"linear_attn_config\.kda_layers and full_attn_layers must name each"):
        load_hf_config(_write(tmp_path, raw))
    raw["linear_attn_config"]["kda_layers"] = [0, "x"]
    with pytest.raises(InputError, match="kda_layers must list distinct layer numbers from 1 to 27"):
        load_hf_config(_write(tmp_path, raw))


def test_mimo_v2_sliding_and_full_layers_have_their_own_heads(tmp_path: Path) -> None:
    path = HF / "mimo-v2.5" / "config.json"
    model = load_hf_config(path)
    # hybrid_layer_pattern: 39 sliding-window layers (8 KV heads of 192, swa_*) and 9 full
    # ones (4 KV heads of 192); values 128 wide in both (v_head_dim).
    assert (model.sliding_window_layers, model.sliding_window) == (39, 128)
    assert (model.kv_heads, model.full_attention_kv_heads, model.attention_value_dim) == (8, 4, 128)
    # A full layer: q 4,096 x 64 x 192, k 4,096 x 4 x 192, v 4,096 x 4 x 128, o 64 x 128 x 4,096.
    full_layer = 4096 * (64 * 192 + 4 * 192 + 4 * 128 + 64 * 128)
    sliding_layer = 4096 * (64 * 192 + 8 * 192 + 8 * 128 + 64 * 128)
    assert model.moe_dense_layers == 1  # moe_layer_freq: 0 for layer 0 only
    # Layer 0's MLP 3 x 4,096 x 16,384; 47 MoE layers of 256 experts 3 x 4,096 x 2,048 and a
    # router 4,096 x 256; embeddings 2 x 152,576 x 4,096; norms 97 x 4,096.
    mlps = 3 * 4096 * 16_384 + 47 * (256 * 3 * 4096 * 2048 + 4096 * 256)
    by_hand = 9 * full_layer + 39 * sliding_layer + mlps + 2 * 152_576 * 4096 + 97 * 4096
    assert llm_shape.text_parameter_count_b(model) * 1e9 == by_hand
    # The same text stack as MiMo-V2-Flash: 309B total, 15B active (SOURCES.md).
    assert llm_shape.text_parameter_count_b(model) == pytest.approx(309, rel=0.01)
    assert llm_shape.active_parameter_count_b(model) == pytest.approx(15, rel=0.05)
    # Each further token adds a key of 192 and a value of 128 per KV head in the 9 full layers.
    assert llm_shape.kv_cache_values_per_token(model) == 9 * 4 * (192 + 128)
    assert llm_shape.kv_cache_values(model, 32_768) == 9 * 4 * 320 * 32_768 + 39 * 8 * 320 * 128
    assert "audio_config describes an encoder not read here" in (model.notes or "")
    raw = json.loads(path.read_text())
    raw["hybrid_layer_pattern"] = raw["hybrid_layer_pattern"][:-1]
    with pytest.raises(InputError, match="hybrid_layer_pattern must give 0 or 1 for each of the 48 layers"):
        load_hf_config(_write(tmp_path, raw))
    raw = json.loads(path.read_text())
    raw["swa_v_head_dim"] = 192
    with pytest.raises(InputError, match="swa_v_head_dim differs from v_head_dim"):
        load_hf_config(_write(tmp_path, raw))


def test_absurd_block_configs_are_refused_by_entry(tmp_path: Path) -> None:
    raw = json.loads(SUPER.read_text())
    raw["block_configs"][7]["ffn"]["ffn_mult"] = 9999
    with pytest.raises(InputError, match=r"block_configs\[7\]\.ffn\.ffn_mult makes an MLP 54,607,872 wide"):
        load_hf_config(_write(tmp_path, raw))
    raw = json.loads(SUPER.read_text())
    for block in raw["block_configs"]:
        block["attention"] = {"no_op": True}
    with pytest.raises(InputError, match="block_configs drops attention in every layer"):
        load_hf_config(_write(tmp_path, raw))


def test_a_message_names_the_full_attention_keys(tmp_path: Path) -> None:
    raw = json.loads(GEMMA4.read_text())
    raw["text_config"]["num_global_key_value_heads"] = 3
    with pytest.raises(InputError, match=r"text_config\.num_global_key_value_heads 3 does not divide"):
        load_hf_config(_write(tmp_path, raw))
