"""Importing Hugging Face config.json files (fixtures in tests/data/hf, see SOURCES.md there)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rackplanner.core.capacity.estimate import estimate
from rackplanner.core.capacity.formats import get_format
from rackplanner.core.capacity.hardware import from_gpu
from rackplanner.core.capacity.runtime import get_runtime
from rackplanner.core.capacity.speed import SpeedInputs
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


def test_smollm3_ties_its_embeddings_as_transformers_does() -> None:
    model = load_hf_config(HF / "smollm3-3b" / "config.json")
    # SmolLM3-3B's safetensors index: total_parameters 3,075,098,624. Untied, the count was
    # 3.34B: the 128,256 x 2,048 output head counted a second time.
    assert model.tie_word_embeddings
    assert model.params_b == pytest.approx(3.0751, abs=0.001)
    assert "tie_word_embeddings true (transformers' default for smollm3)" in (model.notes or "")


def test_hunyuan_per_layer_moe_lists() -> None:
    model = load_hf_config(HF / "hunyuan-a13b" / "config.json")
    assert (model.moe_experts, model.moe_active_experts, model.moe_shared_experts) == (64, 8, 1)
    assert model.moe_intermediate_size == 3072 and model.moe_shared_intermediate_size == 3072
    # Tencent's README: 80B total, 13B active.
    assert model.params_b == pytest.approx(80, rel=0.01)
    assert model.active_params_b == pytest.approx(13, rel=0.03)
    assert "moe_topk 8 on every layer" in (model.notes or "")


def test_hunyuan_lists_that_differ_by_layer_are_refused(tmp_path: Path) -> None:
    raw = json.loads((HF / "hunyuan-a13b" / "config.json").read_text())
    raw["moe_topk"] = [8] * 31 + [4]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(raw))
    with pytest.raises(InputError, match="moe_topk differs between layers"):
        load_hf_config(path)


def test_dbrx_keys_under_their_own_names() -> None:
    model = load_hf_config(HF / "dbrx" / "config.json")
    assert (model.layers, model.hidden_size, model.attention_heads, model.kv_heads) == (40, 6144, 48, 8)
    assert (model.moe_experts, model.moe_active_experts, model.max_context) == (16, 4, 32768)
    # Databricks' README: 132B total, 36B active.
    assert model.params_b == pytest.approx(132, rel=0.005)
    assert model.active_params_b == pytest.approx(36, rel=0.02)


def test_ernie_4_5_moe_keys_are_read_and_its_quantization_config_refused(tmp_path: Path) -> None:
    folder = HF / "ernie-4.5-21b-a3b-fastdeploy"
    # FastDeploy's test copy carries its own quantization_config, with no quant_method.
    with pytest.raises(InputError, match=r"quantization_config\.quant_method is missing"):
        load_hf_config(folder / "config.json")
    raw = json.loads((folder / "config.json").read_text())
    del raw["quantization_config"]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(raw))
    model = load_hf_config(path)
    # Ernie4_5_MoeConfig: moe_num_experts 64, moe_k 6, moe_num_shared_experts 2, MoE from
    # moe_layer_start_index 1 on. Read as a dense model before: 3.35B.
    assert (model.moe_experts, model.moe_active_experts, model.moe_shared_experts) == (64, 6, 2)
    assert model.moe_dense_layers == 1
    # "21B-A3B": 21.8B total (the rounding of the name is down), 3B active beyond the embeddings.
    assert model.params_b == pytest.approx(21.83, abs=0.01)
    assert model.active_params_b == pytest.approx(3.35, abs=0.01)


def test_experts_under_a_name_not_read_are_refused(tmp_path: Path) -> None:
    raw = json.loads((HF / "llama-3.1-8b" / "config.json").read_text())
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**raw, "model_type": "someones_moe", "moe_expert_count": 64}))
    with pytest.raises(InputError, match="moe_expert_count describes experts, but no expert count is read here"):
        load_hf_config(path)
    # A dense variant that says it has no experts (Granite 4.0's num_local_experts 0) is dense.
    path.write_text(json.dumps({**raw, "num_local_experts": 0, "num_experts_per_tok": 0}))
    assert load_hf_config(path).moe_experts is None


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


def test_sparse_attention_costs_its_top_k_and_the_indexer(catalog: Catalog) -> None:
    model = load_hf_config(HF / "deepseek-v3.2" / "config.json")
    s = SpeedInputs.build(model, get_format("fp8"), from_gpu(catalog, "h200-sxm", 8), get_runtime("vllm"))
    # QK^T and AV over the picked tokens (4 x 128 heads x 192 a token) plus the indexer's
    # scores over every cached token (2 x 64 heads x 128), 61 layers. The mean token of an
    # 8,192-token prompt picks 1,792.125 and scores 4,096.5.
    expected = 61 * (4 * 128 * 192 * 1792.125 + 2 * 64 * 128 * 4096.5)
    assert s.attention_flops(8192, prompt=True) == pytest.approx(expected)
    # A long-context decode step reads a fraction of what full attention would.
    full = load_hf_config(HF / "deepseek-v3" / "config.json")
    dense = SpeedInputs.build(full, get_format("fp8"), from_gpu(catalog, "h200-sxm", 8), get_runtime("vllm"))
    assert s.kv_read_bytes(131_072) < 0.3 * dense.kv_read_bytes(131_072)


@pytest.mark.parametrize(
    ("name_or_path", "named"),
    [
        # A checkpoint saved from the Hub's cache (seen in an AWQ quantization of aya-expanse-8b).
        (
            "/srv/hf-cache/hub/models--CohereForAI--aya-expanse-8b/snapshots/d10159f8405826732641ce11c6892459d447d48c",
            "CohereForAI aya-expanse-8b",
        ),
        # A local mirror of huggingface.co (seen in an FP16 copy of StarCoder2-15B).
        ("/opt/local/llm_models/huggingface.co/bigcode/starcoder2-15b", "bigcode starcoder2-15b"),
        ("meta-llama/Llama-3.1-8B", "meta-llama Llama-3.1-8B"),
        ("./model/aya-expanse-32b", "unknown aya-expanse-32b"),
    ],
)
def test_a_model_is_named_from_its_path_not_a_cache_commit(tmp_path: Path, name_or_path: str, named: str) -> None:
    raw = json.loads((HF / "llama-3.1-8b" / "config.json").read_text())
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**raw, "_name_or_path": name_or_path}))
    model = load_hf_config(path)
    assert f"{model.vendor} {model.model}" == named
