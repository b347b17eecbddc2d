"""Parameter counts recomputed from architectures, against the counts the publishers state."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from rackplanner.core.catalog.llm_shape import active_parameter_count_b, kv_cache_values_per_token, parameter_count_b
from rackplanner.core.catalog.parts import LlmModel


def _model(**arch: Any) -> LlmModel:
    fields: dict[str, Any] = {
        "id": "m",
        "vendor": "v",
        "model": "m",
        "source": ["test"],
        "family": "f",
        "params_b": 1,
        "max_context": 4096,
        "head_dim": 128,
    }
    fields.update(arch)
    return LlmModel(**fields)


# https://huggingface.co/meta-llama/Llama-2-7b-hf config.json (32 layers, hidden 4096, MLP 11008,
# 32 heads, 32 KV heads, vocab 32000, untied head).
LLAMA_2_7B = _model(
    layers=32, hidden_size=4096, intermediate_size=11008, attention_heads=32, kv_heads=32, vocab_size=32000
)
# https://huggingface.co/meta-llama/Llama-3.1-8B config.json (GQA with 8 KV heads, vocab 128256).
LLAMA_31_8B = _model(
    layers=32, hidden_size=4096, intermediate_size=14336, attention_heads=32, kv_heads=8, vocab_size=128256
)
# https://huggingface.co/mistralai/Mixtral-8x7B-v0.1 config.json (8 local experts, 2 per token).
MIXTRAL_8X7B = _model(
    layers=32,
    hidden_size=4096,
    intermediate_size=14336,
    attention_heads=32,
    kv_heads=8,
    vocab_size=32000,
    moe_experts=8,
    moe_active_experts=2,
)
# https://huggingface.co/deepseek-ai/DeepSeek-V3 config.json: 61 layers (first 3 dense, MLP 18432),
# 256 routed experts of width 2048 (8 per token) + 1 shared, MLA with q_lora_rank 1536,
# kv_lora_rank 512, qk_nope 128 + qk_rope 64, v_head_dim 128, vocab 129280.
DEEPSEEK_V3 = _model(
    layers=61,
    hidden_size=7168,
    intermediate_size=18432,
    attention_heads=128,
    kv_heads=128,
    head_dim=192,
    vocab_size=129280,
    moe_experts=256,
    moe_active_experts=8,
    moe_intermediate_size=2048,
    moe_shared_experts=1,
    moe_dense_layers=3,
    q_lora_rank=1536,
    kv_lora_rank=512,
    qk_rope_head_dim=64,
    v_head_dim=128,
)
# https://huggingface.co/Qwen/Qwen3-30B-A3B config.json: 48 layers, hidden 2048, 128 experts of
# width 768 (8 per token), 32 heads, 4 KV heads, head_dim 128, vocab 151936.
QWEN3_30B_A3B = _model(
    layers=48,
    hidden_size=2048,
    intermediate_size=6144,
    attention_heads=32,
    kv_heads=4,
    vocab_size=151936,
    moe_experts=128,
    moe_active_experts=8,
    moe_intermediate_size=768,
)


# https://huggingface.co/keras/gpt_oss_20b_en task.json (port of openai/gpt-oss-20b): 24 layers,
# hidden 2880, 32 experts of width 2880 (4 per token), 64 heads of 64, 8 KV heads, vocab 201088.
GPT_OSS_20B = _model(
    layers=24,
    hidden_size=2880,
    intermediate_size=2880,
    attention_heads=64,
    kv_heads=8,
    head_dim=64,
    vocab_size=201088,
    moe_experts=32,
    moe_active_experts=4,
)
# IEIT-Yuan/Yuan-2.0 examples/pretrain_yuan2.0_102B.sh (84 layers, hidden 8192, 64 heads, SwiGLU,
# localized filtering) with the MLP width 32768, vocab 135040 and tied embeddings of
# https://huggingface.co/IEITYuan/Yuan2-51B-hf config.json (the same width at half the depth).
YUAN2_102B = _model(
    layers=84,
    hidden_size=8192,
    intermediate_size=32768,
    attention_heads=64,
    kv_heads=64,
    vocab_size=135040,
    tie_word_embeddings=True,
    localized_filtering=True,
)


def test_llama_2_7b() -> None:
    # The Hub's safetensors count for the Llama 2 7B weights: "Model size 6.74B params"
    # (https://huggingface.co/eu-test/Llama-2-7b, a copy of the 7B pretrained model).
    assert parameter_count_b(LLAMA_2_7B) == pytest.approx(6.74, abs=0.005)
    assert active_parameter_count_b(LLAMA_2_7B) == parameter_count_b(LLAMA_2_7B)


def test_llama_31_8b() -> None:
    # The Hub's safetensors count for Llama 3.1 8B weights: "Model size 8.03B params"
    # (e.g. https://huggingface.co/ericmofre23/llama-3.1-8b-finetuned, same shapes).
    assert parameter_count_b(LLAMA_31_8B) == pytest.approx(8.03, abs=0.005)


def test_mixtral_total_and_active() -> None:
    # Mistral AI's announcement as quoted in https://ajkdrag.in/2-Zettels/56B-or-47B-in-Mixtral-8x7B-MoE
    # (a source of the mixtral-8x7b catalog entry): 46.7B total parameters, 12.9B per token.
    assert parameter_count_b(MIXTRAL_8X7B) == pytest.approx(46.7, abs=0.05)
    assert active_parameter_count_b(MIXTRAL_8X7B) == pytest.approx(12.9, abs=0.05)


def test_deepseek_v3_total_and_active() -> None:
    # DeepSeek-V3 technical report (arXiv 2412.19437): 671B total, 37B activated per token
    # (the 14B multi-token-prediction module on the Hub is not part of the main model).
    assert parameter_count_b(DEEPSEEK_V3) == pytest.approx(671, rel=0.005)
    assert active_parameter_count_b(DEEPSEEK_V3) == pytest.approx(37, rel=0.02)
    # README_WEIGHTS.md of deepseek-ai/DeepSeek-V3: "Activation parameters: 36.6B (including
    # 0.9B for the output Head)", i.e. without the input embedding.
    assert active_parameter_count_b(DEEPSEEK_V3, count_input_embedding=False) == pytest.approx(36.6, abs=0.05)


def test_gpt_oss_leaves_the_input_embedding_out_of_active() -> None:
    # https://openai.com/index/introducing-gpt-oss/: gpt-oss-20b has 21B parameters and activates
    # 3.6B per token; the model card's 20.9B total is quoted at
    # https://askpandi.com/pandipedia/fast-facts-gpt-oss-model-architecture.
    assert parameter_count_b(GPT_OSS_20B) == pytest.approx(20.9, abs=0.05)
    assert active_parameter_count_b(GPT_OSS_20B, count_input_embedding=False) == pytest.approx(3.6, abs=0.05)
    # Counting the 0.58B input table as well would overstate the per-token weights by 16%.
    assert active_parameter_count_b(GPT_OSS_20B) == pytest.approx(4.19, abs=0.02)


def test_yuan_localized_filtering_counts() -> None:
    # Yuan 2.0 paper (arXiv 2311.15786): 102.6B parameters. Without the two filtering
    # convolutions per layer the count would be 11.3B short.
    assert parameter_count_b(YUAN2_102B) == pytest.approx(102.6, abs=0.1)
    plain = YUAN2_102B.model_copy(update={"localized_filtering": False})
    assert parameter_count_b(YUAN2_102B) - parameter_count_b(plain) == pytest.approx(84 * (2 * 8192**2 + 8192) / 1e9)


def test_qwen3_moe_total_and_active() -> None:
    # https://huggingface.co/Qwen/Qwen3-30B-A3B model card, as quoted at
    # https://apxml.com/models/qwen3-30b-a3b: 30.5B total, 3.3B activated.
    assert parameter_count_b(QWEN3_30B_A3B) == pytest.approx(30.5, abs=0.05)
    assert active_parameter_count_b(QWEN3_30B_A3B) == pytest.approx(3.3, abs=0.06)


def test_tied_embeddings_drop_the_head() -> None:
    tied = LLAMA_2_7B.model_copy(update={"tie_word_embeddings": True})
    # One vocab × hidden matrix fewer: 32000 × 4096 = 131,072,000.
    assert parameter_count_b(LLAMA_2_7B) - parameter_count_b(tied) == pytest.approx(0.131072)
    # The shared table is still read as the LM head, so leaving out the input side changes nothing.
    assert active_parameter_count_b(tied, count_input_embedding=False) == parameter_count_b(tied)


def test_non_gated_mlp_has_two_matrices() -> None:
    plain = LLAMA_2_7B.model_copy(update={"mlp_gated": False})
    # One hidden × intermediate matrix fewer per layer: 32 × 4096 × 11008.
    assert parameter_count_b(LLAMA_2_7B) - parameter_count_b(plain) == pytest.approx(32 * 4096 * 11008 / 1e9)


def test_kv_cache_values_per_token() -> None:
    # Llama-2-7B: 2 × 32 layers × 32 KV heads × 128 = 262,144 values (0.5 MiB at FP16).
    assert kv_cache_values_per_token(LLAMA_2_7B) == 262_144
    # GQA: 8 KV heads instead of 32, a quarter of that.
    assert kv_cache_values_per_token(LLAMA_31_8B) == 65_536
    # MLA: 61 × (512 + 64) = 35,136, about 70 KB per token at BF16.
    assert kv_cache_values_per_token(DEEPSEEK_V3) == 35_136


def test_unknown_intermediate_size_is_an_error() -> None:
    with pytest.raises(ValueError, match="intermediate_size"):
        parameter_count_b(LLAMA_2_7B.model_copy(update={"intermediate_size": None}))


def test_kv_heads_must_divide_heads() -> None:
    with pytest.raises(ValidationError, match="does not divide"):
        _model(layers=1, hidden_size=64, attention_heads=6, kv_heads=4, vocab_size=10)


def test_partial_latent_attention_is_rejected() -> None:
    with pytest.raises(ValidationError, match="latent attention"):
        _model(layers=1, hidden_size=64, attention_heads=4, kv_heads=4, vocab_size=10, kv_lora_rank=16)
