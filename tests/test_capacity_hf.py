"""Importing Hugging Face config.json files (fixtures in tests/data/hf, see SOURCES.md there)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rackplanner.core.capacity.estimate import estimate
from rackplanner.core.capacity.hardware import from_gpu
from rackplanner.core.catalog.hf import load_hf_config
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.errors import InputError

HF = Path(__file__).parent / "data" / "hf"


def test_llama_3_1_8b_config_matches_the_catalog_entry(catalog: Catalog) -> None:
    model = load_hf_config(HF / "llama-3.1-8b" / "config.json")
    entry = catalog.get("llama-3.1-8b")
    assert model.layers == 32 and model.kv_heads == 8 and model.head_dim == 128
    assert model.max_context == 131_072
    # Meta's model card: 8.03B parameters.
    assert model.params_b == pytest.approx(8.03, abs=0.005)
    assert entry is not None and model.vocab_size == entry.vocab_size  # type: ignore[attr-defined]


def test_mixtral_is_moe_with_two_of_eight_experts() -> None:
    model = load_hf_config(HF / "mixtral-8x7b" / "config.json")
    assert (model.moe_experts, model.moe_active_experts) == (8, 2)
    # Mistral AI: 46.7B total, 12.9B active.
    assert model.params_b == pytest.approx(46.7, abs=0.05)
    assert model.active_params_b == pytest.approx(12.9, abs=0.05)


def test_deepseek_v3_latent_attention_and_shared_experts() -> None:
    model = load_hf_config(HF / "deepseek-v3" / "config.json")
    assert model.kv_lora_rank == 512 and model.head_dim == 128 + 64
    assert model.moe_dense_layers == 3 and model.moe_shared_experts == 1
    # DeepSeek-V3 technical report: 671B total, 37B activated per token.
    assert model.params_b == pytest.approx(671, rel=0.005)
    assert model.active_params_b == pytest.approx(37, rel=0.02)


def test_imported_model_can_be_estimated(catalog: Catalog) -> None:
    model = load_hf_config(HF / "qwen2.5-7b" / "config.json")
    est = estimate(model, "q4_k_m", from_gpu(catalog, "rtx-3090"), with_training=False)
    assert est.fits and est.decode_tokens_per_s is not None and est.decode_tokens_per_s > 50
    assert model.id == "qwen2.5-7b"


def test_missing_keys_are_named() -> None:
    with pytest.raises(InputError, match="lacks num_hidden_layers"):
        load_hf_config(HF / "missing-keys" / "config.json")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        (
            json.dumps({"num_hidden_layers": 0, "hidden_size": 64, "num_attention_heads": 2, "vocab_size": 10}),
            "num_hidden_layers must be a positive whole number",
        ),
        (
            json.dumps({"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 2, "vocab_size": 10}),
            "lacks intermediate_size",
        ),
        (
            json.dumps(
                {
                    "num_hidden_layers": 2,
                    "hidden_size": 64,
                    "num_attention_heads": 2,
                    "vocab_size": 10,
                    "intermediate_size": 128,
                    "num_local_experts": 4,
                }
            ),
            "num_experts_per_tok is needed",
        ),
    ],
)
def test_bad_configs_are_input_errors(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "config.json"
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        load_hf_config(path)


def test_missing_file() -> None:
    missing = r"nowhere/config.json: cannot read the model config \(No such file or directory\)"
    with pytest.raises(InputError, match=missing):
        load_hf_config(HF / "nowhere" / "config.json")
