"""The LLM catalog: every entry sourced, and its architecture consistent with its stated size.

A failing entry here means a typo in catalog/llm.yaml: fix the figure from its source,
never the tolerance.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from rackplanner.core.catalog.llm_shape import active_parameter_count_b, kv_cache_values_per_token, parameter_count_b
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import LlmModel
from tests.conftest import REPO

LLM_YAML = REPO / "catalog" / "llm.yaml"
# The consistency check: recomputed and stated parameter counts within 5%.
TOLERANCE = 0.05


def _entries() -> list[dict[str, Any]]:
    data = yaml.safe_load(LLM_YAML.read_text(encoding="utf-8"))
    assert isinstance(data, list)
    return data


MODELS = [LlmModel(**entry) for entry in _entries()]
BY_ID = {m.id: m for m in MODELS}
MOE = [m for m in MODELS if m.moe_experts is not None]

# Models whose config.json states a head_dim other than hidden_size / attention_heads
# (their query projection is wider or narrower than the residual stream).
EXPLICIT_HEAD_DIM = {
    "qwen3-32b": "Qwen3 states head_dim 128 with 64 heads on a 5120-wide model",
    "qwen3-30b-a3b": "Qwen3 states head_dim 128 with 32 heads on a 2048-wide model",
    "qwen3-235b-a22b": "Qwen3 states head_dim 128 with 64 heads on a 4096-wide model",
    "deepseek-v3": "latent attention: head_dim is the 128 + 64 query/key width",
    "deepseek-r1": "latent attention: head_dim is the 128 + 64 query/key width",
    "gemma-2-9b": "Gemma 2 states head_dim 256 with 16 heads on a 3584-wide model",
    "gemma-2-27b": "Gemma 2 states head_dim 128 with 32 heads on a 4608-wide model",
    "gemma-3-12b": "Gemma 3 states head_dim 256 with 16 heads on a 3840-wide model",
    "gemma-3-27b": "Gemma 3 uses head_dim 128 with 32 heads on a 5376-wide model",
    "gpt-oss-20b": "gpt-oss states head_dim 64 with 64 heads on a 2880-wide model",
    "gpt-oss-120b": "gpt-oss states head_dim 64 with 64 heads on a 2880-wide model",
}


def test_entries_validate_are_unique_and_sourced() -> None:
    ids = [m.id for m in MODELS]
    assert len(ids) == len(set(ids))
    assert len(MODELS) >= 30
    for model in MODELS:
        for source in model.source:
            # A URL the user can open, or one of the shared seed documents.
            assert "https://" in source or source.startswith("seed "), (model.id, source)


def test_catalog_loads_the_llm_entries(catalog: Catalog) -> None:
    loaded = {m.id for m in catalog.of_kind(LlmModel)}
    assert set(BY_ID) <= loaded


def test_existing_ids_are_kept() -> None:
    kept = {
        "llama-2-7b",
        "llama-2-70b",
        "llama-3.1-8b",
        "llama-3.1-70b",
        "llama-3.1-405b",
        "mistral-7b-v0.1",
        "mixtral-8x7b",
        "qwen2.5-72b",
        "qwen2.5-7b",
    }
    assert kept <= set(BY_ID)


def test_the_families_people_run_are_there() -> None:
    families = {m.family for m in MODELS}
    for family in (
        "Llama 2",
        "Llama 3",
        "Llama 3.1",
        "Llama 3.2",
        "Llama 3.3",
        "Mistral",
        "Mixtral",
        "Qwen2.5",
        "Qwen3",
        "DeepSeek-V3",
        "DeepSeek-R1",
        "DeepSeek-R1 Distill",
        "Gemma 2",
        "Gemma 3",
        "Phi-3",
        "Phi-4",
        "Yuan 2.0",
        "gpt-oss",
    ):
        assert family in families, family


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.id)
def test_parameter_count_matches_architecture(model: LlmModel) -> None:
    recomputed = parameter_count_b(model)
    assert recomputed == pytest.approx(model.params_b, rel=TOLERANCE), (
        f"{model.id}: {recomputed:.2f}B from the architecture vs {model.params_b}B stated"
    )


@pytest.mark.parametrize("model", MOE, ids=lambda m: m.id)
def test_active_count_matches_architecture(model: LlmModel) -> None:
    assert model.active_params_b is not None, f"{model.id}: a MoE entry needs active_params_b"
    # Publishers count the input embedding table or not; one of the two must agree.
    candidates = [active_parameter_count_b(model, count_input_embedding=flag) for flag in (True, False)]
    errors = [abs(c - model.active_params_b) / model.active_params_b for c in candidates]
    assert min(errors) <= TOLERANCE, (model.id, candidates, model.active_params_b)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.id)
def test_kv_heads_divide_attention_heads(model: LlmModel) -> None:
    assert model.attention_heads % model.kv_heads == 0


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.id)
def test_head_dim_times_heads_is_hidden(model: LlmModel) -> None:
    width = model.head_dim * model.attention_heads
    if model.id in EXPLICIT_HEAD_DIM:
        # Keep the exception list honest: a listed model really differs.
        assert width != model.hidden_size, f"{model.id} no longer needs its exception"
    else:
        assert width == model.hidden_size, f"{model.id}: {model.head_dim} x {model.attention_heads} != hidden"


def test_dense_models_have_no_active_count() -> None:
    for model in MODELS:
        if model.moe_experts is None:
            assert model.active_params_b is None, model.id


def test_deepseek_kv_cache_is_latent() -> None:
    # DeepSeek-V3 config: 61 layers, kv_lora_rank 512 + qk_rope_head_dim 64 cached per token.
    assert kv_cache_values_per_token(BY_ID["deepseek-v3"]) == 61 * 576
    # Without MLA the same heads would cache 2 x 61 x 128 x 192 values, 81x more.
    plain = BY_ID["deepseek-v3"].model_copy(update={"kv_lora_rank": None, "qk_rope_head_dim": None, "v_head_dim": None})
    assert kv_cache_values_per_token(plain) == 2 * 61 * 128 * 192


def test_llama_31_8b_kv_cache_per_token() -> None:
    # 2 x 32 layers x 8 KV heads x 128 = 65,536 values: 128 KiB per token at FP16.
    assert kv_cache_values_per_token(BY_ID["llama-3.1-8b"]) * 2 == 128 * 1024


def test_tinyllama_counts_what_the_hub_counts() -> None:
    # The Hub's safetensors metadata for TinyLlama-1.1B-Chat-v1.0: 1,100,048,384 parameters
    # (catalog/llm.yaml notes), recomputed from the shape alone.
    assert parameter_count_b(BY_ID["tinyllama-1.1b"]) == pytest.approx(1.100048384, rel=1e-4)
    # 2 x 22 layers x 4 KV heads x 64 = 11,264 values: 22 KiB per token at FP16.
    assert kv_cache_values_per_token(BY_ID["tinyllama-1.1b"]) * 2 == 22 * 1024
