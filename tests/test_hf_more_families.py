"""Families a 2026 user brings that the importer once read as a plain decoder or refused with
the wrong reason: Falcon-H1's parallel attention and Mamba-2, StarCoder2's tied output head,
omni models whose text model sits in thinker_config, and the encoder-only and recurrent
families refused by name. Fixtures and sources: tests/data/hf/SOURCES.md."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rackplanner.core.capacity.model_shape import model_shape
from rackplanner.core.catalog import llm_shape
from rackplanner.core.catalog.hf import load_hf_config
from rackplanner.core.errors import InputError

HF = Path(__file__).parent / "data" / "hf"


def test_falcon_h1_counts_a_mamba_mixer_beside_every_attention() -> None:
    model = load_hf_config(HF / "falcon-h1-0.5b" / "config.json")
    # By hand from the file and transformers' FalconH1 shapes (hidden 1024, 36 layers):
    # Mamba-2 mixer, inner = 24 heads x 64 = 1536, conv channels 1536 + 2 x 1 x 128 = 1792:
    #   in_proj 1024 x (1536 + 1792 + 24), conv 1792 x 4 + bias 1792, dt_bias/A_log/D 3 x 24,
    #   no gated norm (mamba_rms_norm false), out_proj 1536 x 1024            = 5,014,344
    # attention, 8 heads and 2 KV heads of 64: 1024 x 512 x 2 + 1024 x 128 x 2 = 1,310,720
    # gated MLP 3 x 1024 x 2048 = 6,291,456; two norms 2 x 1024 = 2,048
    # 36 layers x 12,618,568 = 454,268,448; untied tables 2 x 32,784 x 1024 = 67,141,632;
    # the final norm 1024: 521,411,104.
    mixer = 1024 * (1536 + 1792 + 24) + 1792 * 4 + 1792 + 3 * 24 + 1536 * 1024
    layer = mixer + 1_310_720 + 6_291_456 + 2 * 1024
    assert model.linear_mixer_params == mixer == 5_014_344
    assert llm_shape.parameter_count_b(model) * 1e9 == pytest.approx(36 * layer + 67_141_632 + 1024) == 521_411_104
    # The release blog's "0.5B": before the mixers were counted it read 0.34B.
    assert model.params_b == pytest.approx(0.52, abs=0.01)
    # Every layer keeps its KV cache (36 x 2 x 2 heads x 64 values) and a Mamba state besides.
    assert llm_shape.attention_layer_kinds(model) == (36, 0)
    assert llm_shape.kv_cache_values_per_token(model) == 36 * 2 * 2 * 64
    assert llm_shape.fixed_state_values(model) == 36 * (1536 * 128 + 1792 * 4)
    assert "mamba_d_ssm read as mamba_n_heads x mamba_d_head (1,536)" in (model.notes or "")
    assert "read here by name" not in (model.notes or "")


def test_falcon_h1_shape_is_said() -> None:
    model = load_hf_config(HF / "falcon-h1-0.5b" / "config.json")
    shape = model_shape(model, 4096, 2)
    assert shape.parallel_mixer_layers == 36 and shape.full_attention_layers == 36


def test_starcoder2_ties_its_output_head_by_default() -> None:
    model = load_hf_config(HF / "starcoder2-7b" / "config.json")
    # Starcoder2Config: tie_word_embeddings: bool = True. Untied, the count was 7.40B, the
    # 49,152 x 4,608 head (0.23B) too many; by hand the model is 7.17B.
    assert model.tie_word_embeddings
    assert model.params_b == pytest.approx(7.17, abs=0.01)
    assert "not known here" not in (model.notes or "")


def test_an_omni_model_is_read_from_its_thinker() -> None:
    model = load_hf_config(HF / "qwen2.5-omni-7b-abridged" / "config.json")
    shape = model_shape(model, 4096, 2)
    # The thinker's text model is Qwen2.5-7B's shape: "Number of Parameters: 7.61B".
    assert shape.text_params_b == pytest.approx(7.61, rel=0.01)
    assert shape.layers == 28
    assert "talker_config describes the speech generator" in (model.notes or "")


@pytest.mark.parametrize(
    ("model_type", "said"),
    [
        ("falcon_mamba", "is a recurrent model with no attention layers"),
        ("bert", r"is an encoder \(text embeddings or classification\) that generates no tokens"),
        ("xlm-roberta", r"is an encoder \(text embeddings or classification\) that generates no tokens"),
    ],
)
def test_families_not_estimated_are_refused_by_what_they_are(tmp_path: Path, model_type: str, said: str) -> None:
    # Before, falcon_mamba stopped at "lacks num_attention_heads" and BERT was counted as a
    # decoder with a KV cache.
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": model_type, "hidden_size": 384, "num_hidden_layers": 6}))
    with pytest.raises(InputError, match=said):
        load_hf_config(path)


def test_deepseek_v4_keys_not_read_are_said(tmp_path: Path) -> None:
    # DeepSeek-V4's config gives "expert_dtype": "fp4" beside an FP8 quantization_config; the
    # estimate sizes every weight in one format, so it says the experts may be over-counted.
    raw = json.loads((HF / "qwen3-30b-a3b" / "config.json").read_text())
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**raw, "expert_dtype": "fp4", "compress_ratios": [0, 4, 128] * 16}))
    model = load_hf_config(path)
    assert "expert_dtype 'fp4' is not read" in (model.notes or "")
    # Its compressed KV layers are not modelled either: the cache is an upper bound, and said so.
    assert "compress_ratios is not read: each layer's cache is counted uncompressed" in (model.notes or "")
    assert "expert_dtype" not in (load_hf_config(HF / "qwen3-30b-a3b" / "config.json").notes or "")


def test_deepseek_v4_attention_is_counted_as_it_is_built() -> None:
    model = load_hf_config(HF / "deepseek-v4-flash" / "config.json")
    # Published: "284 billion total parameter (13 billion activated)". Read as plain attention
    # with 64 heads of 512 it was 290.9B and 20.4B active. Its inference model.py: wq_a 4096 x
    # 1024 (and norm), wq_b 1024 x 64 x 512, one wkv 4096 x 512 that is key and value, wo_a per
    # 8 groups of 8 heads down to 1024 (32768 x 1024 in all), wo_b 8 x 1024 x 4096.
    assert model.shared_kv and (model.q_lora_rank, model.output_lora_rank, model.output_groups) == (1024, 1024, 8)
    assert model.params_b == pytest.approx(284, rel=0.01)
    active = llm_shape.active_parameter_count_b(model)
    # 13.67B counted with the embedding and output tables, 12.61B without: "13B" either way.
    assert 12.5 < active < 14.0
    # One 512-wide vector a token and layer, and the indexer's 128-wide key: 43 x 640 values.
    assert llm_shape.kv_cache_values_per_token(model) == 43 * (512 + 128)
    assert "read here by name" not in (model.notes or "")


def test_an_absurd_size_is_said_in_the_files_terms(tmp_path: Path) -> None:
    raw = json.loads((HF / "qwen2.5-7b" / "config.json").read_text())
    path = tmp_path / "config.json"
    # No head_dim in the file: the width the import works out is named as worked out.
    path.write_text(json.dumps({**raw, "hidden_size": 10**15}))
    with pytest.raises(InputError, match=r"head_dim \(hidden_size / num_attention_heads\): Input should be"):
        load_hf_config(path)
    # A count past what the estimate takes says its unit.
    path.write_text(json.dumps({**raw, "vocab_size": 10**7, "hidden_size": 896_000, "num_hidden_layers": 9000}))
    with pytest.raises(InputError, match=r"the parameter count \(billions\): Input should be less than"):
        load_hf_config(path)


def test_gemma_3n_is_refused_by_the_key_not_modelled(tmp_path: Path) -> None:
    # Gemma 3n's text_config (transformers' Gemma3nTextConfig) gives per-layer embeddings and
    # shared KV layers. Read as a plain Gemma it came out a third short, and a per-layer
    # intermediate_size list was refused as a bad number.
    text = {"model_type": "gemma3n_text", "hidden_size": 2048, "num_hidden_layers": 35, "num_attention_heads": 8}
    text |= {"intermediate_size": [16384] * 35, "hidden_size_per_layer_input": 256, "num_kv_shared_layers": 15}
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "gemma3n", "text_config": text}))
    with pytest.raises(InputError, match=r"hidden_size_per_layer_input adds per-layer embeddings .*Gemma 3n"):
        load_hf_config(path)


def test_minicpm3_fills_its_value_width_and_ties_its_head(tmp_path: Path) -> None:
    # MiniCPM3Config's defaults are MiniCPM3-4B's shape (transformers' configuration: vocab
    # 73,448, hidden 2,560, MLP 6,400, 62 layers, 40 heads, q_lora 768, kv_lora 256, nope 64,
    # rope 32); v_head_dim None means hidden / heads = 64, and the output head is tied.
    config = {"model_type": "minicpm3", "vocab_size": 73448, "hidden_size": 2560, "intermediate_size": 6400}
    config |= {"num_hidden_layers": 62, "num_attention_heads": 40, "num_key_value_heads": 40, "q_lora_rank": 768}
    config |= {"kv_lora_rank": 256, "qk_nope_head_dim": 64, "qk_rope_head_dim": 32}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    model = load_hf_config(path)
    assert model.v_head_dim == 64 and model.tie_word_embeddings
    # By hand: q 2560 x 768 + 768 + 768 x 40 x 96; kv 2560 x 288 + 256 + 256 x 40 x 128; o 40 x 64
    # x 2560; MLP 3 x 2560 x 6400; two norms: 62,674,944 a layer, x 62, + one 73,448 x 2560
    # table and the final norm = 4,073,875,968 (the model's name: 4B). Before, it was refused.
    assert llm_shape.parameter_count_b(model) * 1e9 == pytest.approx(4_073_875_968)
