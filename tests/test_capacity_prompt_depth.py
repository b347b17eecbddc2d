"""A prompt after tokens already in the cache (a chat's history, llama-bench's -d): its
attention reads them, and runs at the FP16 tensor rate whatever the GEMMs run at."""

from __future__ import annotations

import pytest

from rackplanner.core.capacity.estimate import estimate, get_model
from rackplanner.core.capacity.formats import get_format
from rackplanner.core.capacity.hardware import from_gpu
from rackplanner.core.capacity.runtime import get_runtime
from rackplanner.core.capacity.speed import SpeedInputs, prompt_attention_flops
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.errors import InputError
from tests.clihelpers import run_cli


def _inputs(catalog: Catalog, gpu: str) -> SpeedInputs:
    model = get_model(catalog, "llama-3.1-8b")
    return SpeedInputs.build(model, get_format("q4_0"), from_gpu(catalog, gpu), get_runtime("llama.cpp"))


def test_attention_of_a_prompt_after_a_history_worked_by_hand(catalog: Catalog) -> None:
    # Llama 3.1 8B: 32 layers, 32 query heads of 128 (catalog/llm.yaml). Each attended token
    # costs QK^T and AV, 2 FLOPs a multiply-add over 128 + 128 widths: 2 x 32 x 256 = 16,384
    # FLOPs a layer, 524,288 over the layers. The mean token of a 512-token prompt after
    # 32,768 cached ones attends to 32,768 + (512 + 1) / 2 = 33,024.5 tokens.
    s = _inputs(catalog, "rtx-3090")
    assert prompt_attention_flops(s, 512, 32768) == pytest.approx(524_288 * 33_024.5)
    assert prompt_attention_flops(s, 512) == pytest.approx(524_288 * 256.5)


def test_attention_runs_at_the_fp16_tensor_rate(catalog: Catalog) -> None:
    # RTX 3090 in llama.cpp: quantized GEMMs at 142 TFLOP/s (half the INT8 284), FlashAttention
    # at the 71 TFLOP/s of FP16 with FP32 accumulate (GA102 whitepaper): twice as slow. An
    # A100's two rates are one (312 and 624 / 2). A CPU has no tensor peak: no slowdown.
    assert _inputs(catalog, "rtx-3090").attention_slowdown == pytest.approx(2.0)
    assert _inputs(catalog, "a100-80gb-sxm").attention_slowdown == pytest.approx(1.0)


def test_prompt_speed_falls_with_depth_as_measured(catalog: Catalog) -> None:
    # ggml-org/llama.cpp#28102 (2026): an RX 9060 XT (RDNA 4) prefills Llama 8B Q4_0 in
    # 1,024-token prompts at 2,019.50 tokens/s after 4,096 cached tokens and 783.05 after
    # 32,768: 0.388 of it. The catalog's RDNA 4 card, the RX 9070 XT, has the same INT8 to
    # FP16 ratio (389 / 195). Counting attention at the GEMMs' INT8 rate would give 0.54.
    model = get_model(catalog, "llama-3.1-8b")
    hw = from_gpu(catalog, "rx-9070-xt")

    def prefill(depth: int) -> float:
        est = estimate(model, "q4_0", hw, context=34_000, prompt=1024, prompt_depth=depth, with_training=False)
        assert est.prefill_tokens_per_s is not None
        return est.prefill_tokens_per_s

    assert prefill(32768) / prefill(4096) == pytest.approx(783.05 / 2019.50, rel=0.10)


def test_depth_needs_the_context_to_hold_it(catalog: Catalog) -> None:
    model = get_model(catalog, "llama-3.1-8b")
    hw = from_gpu(catalog, "rtx-3090")
    with pytest.raises(InputError, match="needs a context of 33,280; give --context 33280"):
        estimate(model, "q4_0", hw, context=4096, prompt=512, prompt_depth=32768)
    result = run_cli(
        "estimate", "--gpu", "rtx-3090", "--model", "llama-3.1-8b", "--format", "q4_0",
        "--prompt", "512", "--context", "33280", "--depth", "32768",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "time to first token for 512 prompt tokens after 32,768 already in the cache" in result.stdout


def test_a_context_beyond_the_models_window_is_said(catalog: Catalog) -> None:
    model = get_model(catalog, "llama-3.1-8b")
    est = estimate(model, "q4_0", from_gpu(catalog, "a100-80gb-sxm"), context=200_000, with_training=False)
    assert any("beyond the 131,072 tokens" in note for note in est.notes)
