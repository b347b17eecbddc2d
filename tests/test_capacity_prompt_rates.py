"""The prompt-rate rules the calibration rests on: which tensor peak llama.cpp's GEMMs scale
with, the fixed cost of each expert's GEMM in a prompt pass, ik_llama.cpp as a runtime of
its own, the KV cache precision a measurement ran with, a fixed-cost fit that one
source's slow builds cannot drag, the decode step's fixed cost that every prompt pass pays,
and the request cost that only a client's time to first token holds."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from rackplanner.core.capacity.calibration import evaluate, load_points
from rackplanner.core.capacity.classes import runtime_class
from rackplanner.core.capacity.estimate import estimate
from rackplanner.core.capacity.fit import _robust_nonnegative_lstsq, fit
from rackplanner.core.capacity.fitted import Calibration, current, prefill_fit_keys, prefill_keys
from rackplanner.core.capacity.formats import get_format
from rackplanner.core.capacity.hardware import Hardware, from_gpu, from_unified_system
from rackplanner.core.capacity.runtime import get_runtime
from rackplanner.core.capacity.speed import SpeedInputs, peak_tflops, prefill_tokens_per_s, prompt_flops_per_token
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import LlmModel
from rackplanner.core.errors import InputError

DATA = Path(__file__).parent / "data"


def test_llama_cpp_gemms_on_nvidia_run_at_the_fp16_accumulate_rate(catalog: Catalog) -> None:
    rtx3090 = from_gpu(catalog, "rtx-3090")
    llama = get_runtime("llama.cpp")
    # GA102 whitepaper: RTX 3090 dense FP16 tensor 71 TFLOP/s with FP32 accumulate (the sheet's
    # "FP16", catalog fp16_tensor_tflops), 142 with FP16 accumulate, 284 INT8 TOPS. ggml-cuda's
    # cuBLAS path accumulates in FP16 and MMQ runs INT8 MMA: both are put at INT8 / 2 = 142.
    assert peak_tflops(rtx3090, get_format("fp16"), llama) == pytest.approx(142.0)
    assert peak_tflops(rtx3090, get_format("q4_k_m"), llama) == pytest.approx(142.0)
    # FP32 weights take the FP32 path; a server runtime's FP16 GEMMs the sheet's FP16 figure.
    assert peak_tflops(rtx3090, get_format("fp32"), llama) == pytest.approx(71.0)
    assert peak_tflops(rtx3090, get_format("fp16"), get_runtime("vllm")) == pytest.approx(71.0)
    # Elsewhere the quantized path is MMQ's INT8 rate: RX 7900 XTX 123 INT8 TOPS (catalog).
    xtx = from_gpu(catalog, "rx-7900-xtx")
    assert peak_tflops(xtx, get_format("q4_0"), llama) == pytest.approx(xtx.int8_tops_per_device)


def test_llama_cpp_prompts_on_intel_run_at_the_fp16_xmx_rate(catalog: Catalog) -> None:
    llama = get_runtime("llama.cpp")
    # ggml-sycl never takes its MMQ path (ggml_sycl_supports_mmq returns false): the weights are
    # dequantized to FP16 for a oneDNN GEMM. Arc Pro B60 sheet (catalog): FP16 98.3 TFLOPS.
    b60 = from_gpu(catalog, "arc-pro-b60")
    assert peak_tflops(b60, get_format("q4_k_m"), llama) == pytest.approx(98.3)
    assert peak_tflops(b60, get_format("bf16"), llama) == pytest.approx(98.3)
    # The Arc B580's entry gives INT8 XMX only (233 TOPS); its FP16 rate is derived by the
    # ratio of the die's other cards, half: Arc Pro B60 98.3 / 196.61, Arc B570 101.5 / 203,
    # Arc Pro B50 85.2 / 170.39 (catalog, each from its maker's figures).
    b580 = from_gpu(catalog, "arc-b580")
    assert peak_tflops(b580, get_format("q4_k_m"), llama) == pytest.approx(233 / 2, rel=1e-3)
    # ipex-llm#12991: a B580 prefills DeepSeek-R1-Distill-Qwen-7B Q4_K_M at 2,336 tokens/s
    # (pp512). At the INT8 rate it was put at 5,991 (+156%); within 50% now.
    est = estimate(
        catalog.get_as("deepseek-r1-distill-qwen-7b", LlmModel),
        "q4_k_m",
        b580,
        context=512,
        prompt=512,
        with_training=False,
    )
    assert est.prefill_tokens_per_s == pytest.approx(2336, rel=0.5)


def test_each_expert_costs_a_kernel_per_prompt_pass_in_llama_cpp_only(catalog: Catalog) -> None:
    model = catalog.get_as("qwen3-30b-a3b", LlmModel)
    assert model is not None and model.moe_experts == 128
    h100 = from_gpu(catalog, "h100-sxm")
    cost = 10e-6
    cal = current().model_copy(update={"prefill_expert_s": {"llama.cpp|gpu": cost, "llama.cpp|cpu": 50 * cost}})
    without = current().model_copy(update={"prefill_expert_s": {}})

    def per_token(runtime: str, calibration: Calibration) -> float:
        s = SpeedInputs.build(model, get_format("fp16"), h100, get_runtime(runtime), calibration=calibration)
        return 1 / prefill_tokens_per_s(s, 512)

    # Qwen3-30B-A3B: 48 MoE layers of 128 experts (config.json); llama.cpp passes 512 tokens at
    # a time, so each prompt token carries 48 x 128 x 10 us / 512 = 120 us more.
    assert per_token("llama.cpp", cal) - per_token("llama.cpp", without) == pytest.approx(48 * 128 * cost / 512)
    # vLLM's fused MoE kernel takes every expert at once: no per-expert cost.
    assert per_token("vllm", cal) == pytest.approx(per_token("vllm", without))


def test_prompt_pass_sizes_follow_each_runtime() -> None:
    # llama.cpp n_ubatch 512, mlx-lm prefill_step_size 2048, the servers' 8192-token step budget.
    assert get_runtime("llama.cpp").prefill_chunk_tokens == 512
    assert get_runtime("ik_llama.cpp").prefill_chunk_tokens == 512
    assert get_runtime("mlx").prefill_chunk_tokens == 2048
    assert get_runtime("vllm").prefill_chunk_tokens == 8192


def test_ik_llama_cpp_decodes_as_llama_cpp_and_prefills_in_a_class_of_its_own(catalog: Catalog) -> None:
    assert runtime_class("ik_llama.cpp") == "llama.cpp"
    rtx3090 = from_gpu(catalog, "rtx-3090")
    keys = prefill_keys(rtx3090, "ik_llama.cpp")
    # Its own classes first, then llama.cpp's, so a fork without points still gets an answer ...
    assert keys[0].endswith("|ik_llama.cpp") and "any|llama.cpp" in keys and keys[-1] == "any|any"
    # ... but its measurements only ever inform its own classes.
    assert not any(key.endswith("|llama.cpp") for key in prefill_fit_keys(rtx3090, "ik_llama.cpp"))
    points = [p for p in load_points(DATA / "measured.csv") if p.runtime == "ik_llama.cpp"]
    # The ik_llama.cpp discussion rows whose build is the fork's (tests/data/measured.csv).
    assert len(points) >= 20 and all(p.runtime_version.lower().startswith("ik_llama.cpp") for p in points)


def test_a_datacenter_gpu_without_points_of_its_own_takes_datacenter_gpus_first(catalog: Catalog) -> None:
    # Fitted on the measurements: llama.cpp's prompt kernels reach 5-29% of a datacenter part's
    # peak (V100, H100, A100) and 37-49% of a GeForce card's, so an MI300X with too few points
    # of its own borrows from datacenter GPUs before from AMD's Radeon cards.
    keys = prefill_keys(from_gpu(catalog, "mi300x"), "llama.cpp")
    assert keys.index("datacenter-gpu|llama.cpp") < keys.index("amd-gpu|llama.cpp")
    # A unified-memory machine keeps its maker's class next (Apple's GPUs are all alike).
    mac = from_unified_system(catalog, "mac-studio-m1-ultra-128gb")
    assert not any(key.startswith("soc-soc") for key in prefill_keys(mac, "llama.cpp"))
    assert "apple-soc|llama.cpp" in prefill_keys(mac, "llama.cpp")


def test_a_measurement_is_estimated_with_its_kv_cache_precision(calibration_catalog: Catalog) -> None:
    points = {p.point: p for p in load_points(DATA / "measured.csv")}
    # TensorRT-LLM's perf overview ran FP8 weights with an FP8 KV cache (the row's notes).
    point = points["trt090-h200-l2-7b-fp8-tp1-b120-128-2048"]
    assert point.kv_cache == "fp8"
    fp8 = evaluate([point], calibration_catalog).rows[0].estimated
    fp16 = evaluate([point.model_copy(update={"kv_cache": "fp16"})], calibration_catalog).rows[0].estimated
    assert fp8 is not None and fp16 is not None
    # At batch 120 and 1,152 tokens the KV read is most of a step: halving it is much faster.
    assert fp8 > 1.4 * fp16


def _first_row_with(tmp_path: Path, field: str, value: str) -> Path:
    """A copy of measured.csv's first row with one field changed."""
    with (DATA / "measured.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    bad = tmp_path / "measured.csv"
    with bad.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerow({**rows[0], field: value})
    return bad


def test_an_unknown_kv_cache_precision_names_the_line(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"line 2: kv_cache 'fp7'"):
        load_points(_first_row_with(tmp_path, "kv_cache", "fp7"))


def test_the_fixed_cost_fit_is_not_dragged_by_one_source() -> None:
    rng = np.random.default_rng(7)
    a = rng.uniform(0.1, 1.0, size=(60, 2))
    truth = np.array([0.3, 0.1])
    b = a @ truth + rng.normal(0, 0.01, size=60)
    b[:4] += 3.0  # four points from one early, slow build
    robust = _robust_nonnegative_lstsq(a, b)
    plain, *_ = np.linalg.lstsq(a, b, rcond=None)
    # Huber weights leave the outliers a small pull; plain least squares follows them.
    assert abs(robust - truth).max() < 0.05
    assert abs(plain - truth).max() > 3 * abs(robust - truth).max()


def test_a_served_prompt_pays_the_fixed_request_cost_once(catalog: Catalog) -> None:
    model = catalog.get_as("llama-3.1-8b", LlmModel)
    assert model is not None
    h100 = from_gpu(catalog, "h100-sxm")
    request_s = 0.01
    with_cost = current().model_copy(update={"prefill_request_s": {"server": request_s}})
    without = current().model_copy(update={"prefill_request_s": {}})

    def seconds(calibration: Calibration, runtime: str, prompt: int, hw: Hardware = h100) -> float:
        s = SpeedInputs.build(model, get_format("bf16"), hw, get_runtime(runtime), calibration=calibration)
        return prompt / prefill_tokens_per_s(s, prompt)

    # A server's time to first token counts the request's fixed cost once, whatever the prompt.
    for prompt in (128, 2048, 28650):
        assert seconds(with_cost, "vllm", prompt) - seconds(without, "vllm", prompt) == pytest.approx(request_s)
    # llama-bench's pp rate times prompt passes alone: no request.
    assert seconds(with_cost, "llama.cpp", 512) == pytest.approx(seconds(without, "llama.cpp", 512))
    # Four pipeline stages split a pass's work among them, not the request's fixed cost.
    four = from_gpu(catalog, "h100-sxm", count=4)
    assert seconds(with_cost, "vllm-pp", 28650, four) - seconds(without, "vllm-pp", 28650, four) == pytest.approx(
        request_s
    )


def test_the_shipped_request_cost_lies_within_the_clients_measured_range() -> None:
    # A client's time to first token beyond the prompt's compute runs from about 50 ms
    # (GPUStack's performance lab: vLLM v0.11.0 on one H100, Qwen3-8B, 233-token prompts,
    # mean TTFT 59.01 ms, of which the compute is about 10 ms) to about 150 ms (SGLang's
    # cookbook on 8 B200s: 153 ms for 610 tokens, 166 ms for 4,194).
    request_s = current().prefill_request_s["server"]
    assert 20e-3 < request_s < 150e-3


def test_a_prompt_pass_pays_the_fixed_cost_of_a_decode_step(catalog: Catalog) -> None:
    model = catalog.get_as("llama-3.1-8b", LlmModel)
    assert model is not None and model.layers == 32
    h100 = from_gpu(catalog, "h100-sxm")
    costs = {"layer_overhead_s": {"server|gpu": 10e-6, "llama.cpp|gpu": 50e-6}, "step_overhead_s": {"server": 2e-3}}
    free = {"layer_overhead_s": {"any|any": 0.0}, "step_overhead_s": {}, "moe_layer_s": {}, "hop_s": {}}
    bare = current().model_copy(update={**free, "prefill_request_s": {}})
    fixed = bare.model_copy(update=costs)

    def seconds(calibration: Calibration, runtime: str, prompt: int) -> float:
        s = SpeedInputs.build(model, get_format("bf16"), h100, get_runtime(runtime), calibration=calibration)
        return prompt / prefill_tokens_per_s(s, prompt)

    # vLLM takes a 2,048-token prompt in one pass (8,192-token budget): 2 ms + 32 x 10 us once.
    assert seconds(fixed, "vllm", 2048) - seconds(bare, "vllm", 2048) == pytest.approx(2e-3 + 32 * 10e-6)
    # llama.cpp passes 512 tokens at a time: four passes of 32 x 50 us.
    assert seconds(fixed, "llama.cpp", 2048) - seconds(bare, "llama.cpp", 2048) == pytest.approx(4 * 32 * 50e-6)


def test_a_time_to_first_token_taken_inside_the_engine_pays_no_request_cost(calibration_catalog: Catalog) -> None:
    points = {p.point: p for p in load_points(DATA / "measured.csv")}
    # TensorRT-LLM's performance page timed first tokens with gptSessionBenchmark, in process.
    engine = points["trt090-h100-l2-7b-fp8-tp1-pp2048"]
    assert engine.ttft_timed == "engine"
    client = engine.model_copy(update={"ttft_timed": "client"})
    inside, served = (evaluate([p], calibration_catalog).rows[0].estimated for p in (engine, client))
    assert inside is not None and served is not None
    # A client's 2,048-token prompt takes the shipped request cost longer, the engine's does not.
    request_s = current().prefill_request_s["server"]
    assert 2048 / served - 2048 / inside == pytest.approx(request_s)


def test_an_unknown_ttft_timing_names_the_line(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"line 2: .*ttft_timed"):
        load_points(_first_row_with(tmp_path, "ttft_timed", "browser"))


def test_the_request_cost_is_fitted_on_client_timed_prompts_only(calibration_catalog: Catalog) -> None:
    points = [p for p in load_points(DATA / "measured.csv") if not p.is_report]
    as_timed = fit(points, calibration_catalog).prefill_request_s["server"]
    all_client = [p.model_copy(update={"ttft_timed": "client"}) for p in points]
    as_if_client = fit(all_client, calibration_catalog).prefill_request_s["server"]
    # TensorRT-LLM's in-process first tokens (7 ms for a 128-token prompt on an H100) taken as a
    # client's drag the cost below the 50 ms GPUStack's client measured beyond one H100's compute.
    assert as_if_client < 10e-3
    assert as_timed > 20e-3


def test_a_prompt_computes_the_output_head_once(catalog: Catalog) -> None:
    # llama.cpp (llama_batch_get_one), vLLM and TensorRT-LLM compute logits for a prompt's
    # last token only, so the LM head's FLOPs are paid once per prompt, not per token.
    model = catalog.get_as("llama-3.1-8b", LlmModel)
    assert model is not None
    s = SpeedInputs.build(model, get_format("bf16"), from_gpu(catalog, "h100-sxm"), get_runtime("vllm"))
    head = 128_256 * 4096  # Llama 3.1 8B's untied LM head: vocabulary x hidden
    assert s.head_params == head
    attention = s.attention_flops(2048, prompt=True)
    body = 2 * (s.active_params - head)
    assert prompt_flops_per_token(s, 2048) == pytest.approx(body + 2 * head / 2048 + attention)
    # The head is 6.5% of the active weights: counted per token, a prompt would be that much slower.
    assert 0.06 < head / s.active_params < 0.07
