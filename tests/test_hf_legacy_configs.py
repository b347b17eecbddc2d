"""Configs of the first open models, written before transformers' key names settled (Falcon,
MPT, BLOOM, ChatGLM), Snowflake Arctic's dense-plus-experts layers, and the families a
decoder-only estimate refuses by name. Fixtures and sources: tests/data/hf/SOURCES.md."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rackplanner.core.catalog import llm_shape
from rackplanner.core.catalog.hf import load_hf_config
from rackplanner.core.errors import InputError

HF = Path(__file__).parent / "data" / "hf"


def _load(folder: str):
    return load_hf_config(HF / folder / "config.json")


def test_arctic_counts_its_dense_residual_mlp_beside_the_experts() -> None:
    model = _load("snowflake-arctic-instruct")
    # Snowflake's README: "a 10B dense transformer model with a residual 128x3.66B MoE MLP
    # resulting in 480B total and 17B active parameters". Without the residual MLP (35 layers of
    # 3 x 7168 x 7168) the count was 473.2B total and 11.9B active.
    assert model.params_b == pytest.approx(480, rel=0.01)
    active = llm_shape.active_parameter_count_b(model)
    assert abs(active - 17) <= 0.01 * 17 + 0.5  # "17B" rounded to the billion
    assert model.moe_shared_experts == 1 and model.moe_shared_intermediate_size == 7168
    assert "read here by name" not in (model.notes or "")


def test_arctic_with_experts_on_every_other_layer(tmp_path: Path) -> None:
    raw = json.loads((HF / "snowflake-arctic-instruct" / "config.json").read_text())
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**raw, "moe_layer_frequency": 2}))
    model = load_hf_config(path)
    # ArcticDecoderLayer: a layer routes to experts when (layer + 1) % moe_layer_frequency == 0,
    # so 17 of 35 layers; the other 18 run one dense MLP of intermediate_size.
    assert model.moe_dense_layers == 18
    assert "experts on one layer in 2 (moe_layer_frequency)" in (model.notes or "")


def test_gpt_neox_20b_within_a_part_in_a_thousand_of_its_card() -> None:
    # EleutherAI's card: "nparameters | 20554567680"; the biases and norms left out here are 3M.
    assert _load("gpt-neox-20b").params_b == pytest.approx(20.554567680, rel=0.001)


def test_bloom_reads_its_old_key_names() -> None:
    model = _load("bloom")
    # bigscience/bloom: "176 billion parameters" (a card text on the official repo's discussion
    # page); by hand 250,880 x 14,336 tied + 70 x 12 x 14,336^2 = 176.2B.
    assert model.params_b == pytest.approx(176, rel=0.01)
    assert (model.layers, model.hidden_size, model.intermediate_size) == (70, 14336, 4 * 14336)
    assert model.tie_word_embeddings and not model.mlp_gated
    assert "tie_word_embeddings true (BLOOM's output head is its embedding table)" in (model.notes or "")


def test_falcon_first_release_layouts_and_their_key_value_heads() -> None:
    seven, forty = _load("falcon-7b"), _load("falcon-40b")
    # Falcon-7B (RefinedWebModel): multi_query, one K/V head of 64 for all 71 query heads, so
    # 32 layers x 2 x 64 values a token. By hand: 65,024 x 4,544 tied + 32 x (4,544 x 4,672
    # + 4,544^2 + 2 x 4,544 x 18,176) = 6.921B, plus the norms.
    assert seven.kv_heads == 1 and seven.head_dim == 64
    assert llm_shape.kv_cache_values(seven, 1) == 32 * 2 * 64
    assert seven.params_b == pytest.approx(6.9217, rel=0.001)
    # Falcon-40B (RefinedWeb, the new decoder architecture): n_head_kv 8 of 64, 60 layers; by
    # hand 65,024 x 8,192 + 60 x (8,192 x 9,216 + 8,192^2 + 2 x 8,192 x 32,768) = 41.30B (the
    # card's "40B" is the model's name).
    assert forty.kv_heads == 8
    assert llm_shape.kv_cache_values(forty, 1) == 60 * 2 * 8 * 64
    assert forty.params_b == pytest.approx(41.30, rel=0.001)
    assert "Falcon config: read n_layer as num_hidden_layers" in (forty.notes or "")


def test_mpt_and_chatglm_by_hand() -> None:
    mpt, glm = _load("mpt-7b-instruct"), _load("chatglm2-6b")
    # MPT-7B: 50,432 x 4,096 tied + 32 x (4 x 4,096^2 + 2 x 4,096 x 16,384) = 6.649B; every
    # head keeps its keys (attn_type multihead_attention).
    assert mpt.params_b == pytest.approx(6.649, rel=0.001)
    assert mpt.kv_heads == 32 and not mpt.mlp_gated
    # ChatGLM2-6B: 2 x 65,024 x 4,096 untied + 28 x (4,096 x 4,608 + 4,096^2 + 3 x 4,096 x
    # 13,696) = 6.243B; multi_query_group_num 2 key/value heads of kv_channels 128.
    assert glm.params_b == pytest.approx(6.243, rel=0.001)
    assert (glm.kv_heads, glm.head_dim, glm.max_context) == (2, 128, 32768)


@pytest.mark.parametrize(
    ("folder", "what"),
    [("rwkv-4-7b-pile", "recurrent model with no attention layers"), ("flan-t5-xxl", "encoder-decoder model")],
)
def test_models_outside_the_estimate_are_refused_by_what_they_are(folder: str, what: str) -> None:
    with pytest.raises(InputError, match=what) as caught:
        _load(folder)
    assert "config.json" in str(caught.value)


def test_gpt_j_reads_gpt2_style_names_and_an_mlp_of_four_times_hidden() -> None:
    model = _load("gpt-j-6b-8bit")
    # EleutherAI's card: "n_parameters | 6,053,381,344"; by hand 2 x 50,400 x 4,096 untied +
    # 28 x (4 x 4,096^2 + 2 x 4,096 x 16,384) = 6.050B (biases and norms left out).
    assert model.params_b == pytest.approx(6.053381344, rel=0.001)
    assert (model.layers, model.hidden_size, model.intermediate_size) == (28, 4096, 4 * 4096)
    assert not model.tie_word_embeddings and not model.mlp_gated
    assert "intermediate_size 16384 (GPT-J's MLP is 4 x n_embd when n_inner is null)" in (model.notes or "")


def test_starcoder_shares_one_key_value_head() -> None:
    model = _load("wizardcoder-15b")
    # bigcode: "StarCoder is a 15.5B parameters language model"; multi_query keeps one K/V head
    # of 128: 40 layers x 2 x 128 x 2 bytes = 20 KiB of cache per token.
    assert model.params_b == pytest.approx(15.5, rel=0.01)
    assert model.kv_heads == 1
    assert llm_shape.kv_cache_values_per_token(model) * 2 == 20 * 1024


def test_opt_and_exaone_read_their_own_names() -> None:
    opt = _load("opt-6.7b-gptq")
    # facebook/opt-6.7b by hand: 50,272 x 4,096 tied + 32 x (4 x 4,096^2 + 2 x 4,096 x 16,384)
    # = 6.65B (its 2,050 learned positions, 8.4M, left out); ReLU MLP, no gate.
    assert opt.params_b == pytest.approx(6.65, rel=0.005)
    assert opt.intermediate_size == 16384 and opt.tie_word_embeddings and not opt.mlp_gated
    exaone = _load("exaone-3.0-7.8b-dcs")
    # LG's card for EXAONE-3.0-7.8B-Instruct: "7.8 billion parameters"; 32 layers (num_layers).
    assert exaone.params_b == pytest.approx(7.8, rel=0.01)
    assert exaone.layers == 32 and exaone.mlp_gated


def test_gpt2_names_read_in_a_config_of_its_shape(tmp_path: Path) -> None:
    # openai-community/gpt2's config keys (n_layer 12, n_embd 768, n_head 12, n_inner null,
    # n_positions 1024, vocab 50257); its card counts 124M with 786K learned positions, which
    # this estimate leaves out: 50,257 x 768 tied + 12 x (4 x 768^2 + 2 x 768 x 3,072) = 123.5M.
    config = {"model_type": "gpt2", "n_layer": 12, "n_embd": 768, "n_head": 12, "n_inner": None}
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**config, "n_positions": 1024, "vocab_size": 50257}))
    model = load_hf_config(path)
    assert llm_shape.parameter_count_b(model) == pytest.approx(0.1235, rel=0.002)
    assert model.tie_word_embeddings and not model.mlp_gated and model.kv_heads == 12
