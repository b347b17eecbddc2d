"""Layout rules on small configs written for the rule (no verbatim copy of these models'
files was found; the shapes follow their published configs), impossible configs and
options, ``--hf`` from a recorded Hub cache and ``--gpu-layers``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rackplanner.core.capacity.estimate import estimate
from rackplanner.core.capacity.formats import FORMATS
from rackplanner.core.capacity.hardware import from_gpu
from rackplanner.core.capacity.text import estimate_command
from rackplanner.core.catalog import llm_shape
from rackplanner.core.catalog.hf import load_hf_config
from rackplanner.core.catalog.hf.extras import SHIPPED_FORMATS
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.errors import InputError
from tests.conftest import EXAMPLES

HF = Path(__file__).parent / "data" / "hf"
LLAMA_8B = json.loads((HF / "llama-3.1-8b" / "config.json").read_text())


def write(tmp_path: Path, config: dict[str, Any]) -> Path:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    return path


def test_mistral_7b_v0_1_windows_every_layer(tmp_path: Path) -> None:
    # Mistral-7B-v0.1: 32 layers, 8 KV heads of 128, sliding_window 4096 on every layer.
    config = {**LLAMA_8B, "model_type": "mistral", "vocab_size": 32000, "sliding_window": 4096}
    model = load_hf_config(write(tmp_path, config))
    per_layer_token = 2 * 8 * 128
    assert llm_shape.kv_cache_values(model, 32_768) == 32 * 4096 * per_layer_token
    assert llm_shape.kv_cache_values_per_token(model) == 0  # nothing grows past the window


def test_qwen2_window_only_when_switched_on(tmp_path: Path) -> None:
    config = {**LLAMA_8B, "model_type": "qwen2", "sliding_window": 4096, "use_sliding_window": False}
    assert load_hf_config(write(tmp_path, config)).sliding_window_layers is None


def test_unknown_model_type_with_a_window_is_counted_full_and_says_so(tmp_path: Path) -> None:
    model = load_hf_config(write(tmp_path, {**LLAMA_8B, "model_type": "newthing", "sliding_window": 512}))
    assert model.sliding_window_layers is None
    assert model.notes is not None and "counted as full attention" in model.notes


def test_a_window_as_long_as_the_context_is_no_window(tmp_path: Path) -> None:
    # Phi-3.5 writes sliding_window 131,072 with max_position_embeddings 131,072: no layer
    # ever slides, so every layer caches every token.
    config = {**LLAMA_8B, "model_type": "phi3", "sliding_window": 131_072, "max_position_embeddings": 131_072}
    model = load_hf_config(write(tmp_path, config))
    assert model.sliding_window_layers is None
    assert llm_shape.kv_cache_values_per_token(model) == 32 * 2 * 8 * 128
    assert model.notes is not None and "is as long as the model's context" in model.notes


def test_an_encoder_named_but_not_sized_is_said_to_be_left_out(tmp_path: Path) -> None:
    # Phi-3.5-vision names its tower as a CLIP checkpoint (img_processor), not by sizes.
    clip = {"name": "clip_vision_model", "model_name": "openai/clip-vit-large-patch14-336", "image_dim_out": 1024}
    model = load_hf_config(write(tmp_path, {**LLAMA_8B, "img_processor": clip}))
    assert model.vision_params is None
    assert model.notes is not None and "img_processor names an encoder whose weights are not counted" in model.notes


def test_jamba_mamba_and_moe_every_other_layer(tmp_path: Path) -> None:
    # ai21labs/Jamba-v0.1's shape: attention 1 layer in 8, MoE (16 experts, 2 active) every
    # other layer, Mamba d_state 16, expand 2, dt_rank 256. AI21: 52B total, 12B active.
    config = {
        "model_type": "jamba",
        "hidden_size": 4096,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "intermediate_size": 14336,
        "num_experts": 16,
        "num_experts_per_tok": 2,
        "vocab_size": 65536,
        "mamba_d_state": 16,
        "mamba_d_conv": 4,
        "mamba_expand": 2,
        "mamba_dt_rank": 256,
        "tie_word_embeddings": False,
    }
    model = load_hf_config(write(tmp_path, config))
    assert (model.linear_attention_layers, model.moe_dense_layers) == (28, 16)
    assert model.params_b == pytest.approx(52, rel=0.01)
    assert model.active_params_b == pytest.approx(12, rel=0.02)
    assert llm_shape.kv_cache_values_per_token(model) == 4 * 2 * 8 * 128  # 4 attention layers


def test_every_shipped_format_is_a_capacity_format() -> None:
    assert set(FORMATS) >= SHIPPED_FORMATS


@pytest.mark.parametrize(
    ("quant", "fmt"),
    [
        ({"quant_method": "gptq", "bits": 4, "group_size": 128}, "gptq-int4-g128"),
        ({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True}, "awq-int4-g128"),
        ({"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_use_double_quant": True}, "nf4-dq"),
        ({"quant_method": "modelopt", "quant_algo": "NVFP4"}, "nvfp4"),
        # A ModelOpt export that names its producer and algorithm but not the method.
        ({"quant_algo": "FP8", "producer": {"name": "modelopt", "version": "0.31.0"}}, "fp8"),
        (
            {
                "quant_method": "modelopt",
                "quant_algo": "MIXED_PRECISION",
                "quantized_layers": {
                    "model.layers.0.self_attn.q_proj": {"quant_algo": "FP8"},
                    "model.layers.0.mlp.experts.0.up_proj": {"quant_algo": "NVFP4", "group_size": 16},
                    "model.layers.0.mlp.shared_expert.up_proj": {"quant_algo": "MXFP8"},
                    "model.layers.0.mlp.experts.1.up_proj": {"quant_algo": "W4A16_NVFP4", "group_size": 16},
                    "lm_head": {"quant_algo": "NVFP4"},
                },
            },
            "nvfp4-fp8-attn",
        ),
        (
            {
                "quant_method": "modelopt",
                "quant_algo": "MIXED_PRECISION",
                "quantized_layers": {
                    "model.layers.0.mlp.up_proj": {"quant_algo": "FP8"},
                    "x.q_proj": {"quant_algo": "FP8"},
                },
            },
            "fp8",
        ),
        (
            {
                "quant_method": "compressed-tensors",
                "config_groups": {"g": {"weights": {"num_bits": 8, "type": "float"}}},
            },
            "fp8",
        ),
    ],
)
def test_quantization_configs(tmp_path: Path, quant: dict[str, Any], fmt: str) -> None:
    assert load_hf_config(write(tmp_path, {**LLAMA_8B, "quantization_config": quant})).shipped_format == fmt


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"num_local_experts": 8, "num_experts_per_tok": 9}, "num_experts_per_tok 9 is more than the 8 experts"),
        (
            {"num_local_experts": 8, "num_experts_per_tok": 2, "first_k_dense_replace": 40},
            "first_k_dense_replace 40 leaves no MoE layer",
        ),
        ({"hidden_size": 10**9}, "hidden_size"),
        ({"num_key_value_heads": 7}, "num_key_value_heads 7 does not divide"),
        ({"quantization_config": {"quant_method": "exl9"}}, "quantization_config.quant_method 'exl9' is not a format"),
        ({"quantization_config": {"quant_method": "gptq", "bits": 3, "group_size": 128}}, "quantization_config.bits 3"),
        ({"layer_types": ["full_attention"] * 3}, "layer_types lists 3 layers, but num_hidden_layers is 32"),
        ({"layer_types": ["mamba"] * 32}, "layer_types has layer kinds not known here: mamba"),
        ({"hybrid_override_pattern": "M*"}, "is a hybrid whose layer layout is not known here"),
        ({"text_config": [1]}, "text_config must be an object"),
        ({"sliding_window": -5, "model_type": "mistral"}, "sliding_window must be a positive whole number"),
        (
            {"num_local_experts": 8, "num_experts_per_tok": 2, "moe_layers": [0, 1, 40]},
            r"moe_layers must list distinct layer numbers from 0 to 31 \(found \[0, 1, 40\]\)",
        ),
        ({"num_local_experts": 8, "num_experts_per_tok": 2, "mlp_only_layers": ["x"]}, "mlp_only_layers must list"),
        (
            {"model_type": "llama4_text", "attention_chunk_size": 8192, "no_rope_layers": [1, 0]},
            "no_rope_layers must list 0 or 1 for each of the 32 layers",
        ),
        ({"layer_types": ["chunked_attention"] * 32}, "attention_chunk_size is needed"),
        ({"layer_types": ["chunked_attention", "sliding_attention"] * 16}, "mixes sliding-window and chunked"),
        (
            {
                "vision_config": {
                    "vt_hidden_size": 1152,
                    "vt_intermediate_size": 4304,
                    "vt_num_hidden_layers": 27,
                    "patch_size": 14,
                    "merge_kernel_size": ["2", 2],
                }
            },
            "vision_config.merge_kernel_size must be two positive whole numbers",
        ),
        (
            {"model_type": "lfm2", "layer_types": ["conv", "full_attention"] * 16, "conv_L_cache": 0},
            "conv_L_cache must be a positive whole number",
        ),
        ({"model_type": "lfm2", "full_attn_idxs": [2, 99]}, "full_attn_idxs must list distinct layer numbers"),
        (
            {"model_type": "mllama_text_model", "cross_attention_layers": [3, 300]},
            "cross_attention_layers must list distinct layer numbers",
        ),
        ({"audio_config": {"hidden_size": 1280}}, "audio_config.encoder_ffn_dim is missing"),
        (
            {"model_type": "lfm2", "layer_types": ["conv", "attention"] * 16},
            "layer_types must name conv or full_attention for each of the 32 layers",
        ),
        (
            {"vision_config": {"depth": 32, "embed_dim": 1280, "mlp_ratio": -4, "hidden_size": 3584, "patch_size": 14}},
            "vision_config.mlp_ratio must be a positive number",
        ),
        ({"index_topk": 2048, "index_head_dim": 128}, "index_n_heads is missing"),
        ({"index_topk": 10**12, "index_n_heads": 64, "index_head_dim": 128}, "index_topk: Input should be less"),
        ({"model_type": "hunyuan", "moe_topk": [8, 4], "num_experts": 64}, "moe_topk differs between layers"),
        ({"model_type": "dbrx", "ffn_config": [16]}, "ffn_config must be an object of settings"),
    ],
)
def test_impossible_configs_name_the_field(tmp_path: Path, change: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError, match=message) as caught:
        load_hf_config(write(tmp_path, {**LLAMA_8B, **change}))
    assert "config.json" in str(caught.value)


def test_impossible_config_exits_2_with_strict_json(tmp_path: Path) -> None:
    path = write(tmp_path, {**LLAMA_8B, "num_local_experts": 4, "num_experts_per_tok": 6})
    done = subprocess.run(
        [sys.executable, "-m", "rackplanner", "estimate", "--gpu", "rtx-3090", "--config", str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "num_experts_per_tok 6 is more than the 4 experts" in json.loads(done.stdout)["error"]


def test_hf_reads_a_recorded_config_from_the_hub_cache(tmp_path: Path) -> None:
    # The Hub cache layout huggingface_hub writes: refs/main names the snapshot.
    repo = tmp_path / "models--Qwen--Qwen3-8B"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text("0" * 40)
    snapshot = repo / "snapshots" / ("0" * 40)
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text((HF / "qwen3-8b" / "config.json").read_text())
    env = {**os.environ, "HF_HUB_CACHE": str(tmp_path), "HF_HUB_OFFLINE": "1"}
    args = ["estimate", "--gpu", "rtx-4090", "--hf", "Qwen/Qwen3-8B", "--json"]
    done = subprocess.run(
        [sys.executable, "-m", "rackplanner", *args], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["model"] == "qwen3-8b" and data["model_shape"]["params_b"] == pytest.approx(8.19, abs=0.01)
    missing = ["estimate", "--gpu", "rtx-4090", "--hf", "Qwen/Not-Cached"]
    done = subprocess.run(
        [sys.executable, "-m", "rackplanner", *missing], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 2 and "config.json is not in the Hub cache" in done.stderr


def test_a_pre_quantized_config_is_estimated_as_shipped(catalog: Catalog) -> None:
    text = estimate_command(catalog, gpu="h100-sxm", config=HF / "qwen3-32b-fp8" / "config.json")
    assert "as fp8-block" in text and "shipped pre-quantized as fp8-block" in text
    assert "32.76B parameters" in text and "64 layers: 64 full attention" in text


def test_gpu_layers_split_weights_and_speed(catalog: Catalog) -> None:
    model = load_hf_config(HF / "gpt-oss-120b" / "config.json")
    plan = EXAMPLES / "home-rig-2x3090.json"
    from rackplanner.core.capacity.hardware import from_machine
    from rackplanner.core.capacity.text import plan_machine

    hw = from_machine(plan_machine(plan, catalog, None), catalog)
    half = estimate(model, "mxfp4-bf16", hw, gpu_layers=18, with_training=False)
    more = estimate(model, "mxfp4-bf16", hw, gpu_layers=30, with_training=False)
    none = estimate(model, "mxfp4-bf16", hw, gpu_layers=0, with_training=False)
    assert half.offload_fraction == pytest.approx(0.5) and none.offload_fraction == 1
    assert half.fits and none.fits
    assert none.decode_tokens_per_s is not None and half.decode_tokens_per_s is not None
    # More layers in VRAM read more of each token's weights at GDDR6X speed.
    assert none.decode_tokens_per_s < half.decode_tokens_per_s
    assert not more.fits  # 30 of 36 layers of a 65 GB model (54 GB) do not fit in 2 x 24 GiB
    with pytest.raises(InputError, match="--gpu-layers must be 0 or more"):
        estimate(model, "mxfp4-bf16", hw, gpu_layers=-1, with_training=False)
    with pytest.raises(InputError, match=r"in llama\.cpp's layer split"):
        estimate(model, "mxfp4-bf16", from_gpu(catalog, "h100-sxm", 8), runtime="vllm", gpu_layers=10)
