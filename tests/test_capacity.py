"""Capacity core: weight formats, memory fit, speed, hardware, known answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from rackplanner.core.capacity.estimate import capacity_table, estimate, get_model
from rackplanner.core.capacity.formats import (
    FORMATS,
    active_weight_bytes,
    get_format,
    scale_overhead_bytes,
    weight_bytes,
)
from rackplanner.core.capacity.hardware import from_cpu, from_gpu, from_machine
from rackplanner.core.capacity.layouts import NF4, NF4_DQ, Q2_K, Q3_K, Q4_0, Q4_K, Q5_K, Q6_K, Q8_0, gptq_int4
from rackplanner.core.capacity.runtime import get_runtime
from rackplanner.core.capacity.shape import kv_bytes
from rackplanner.core.capacity.speed import SpeedInputs, decode_step_s
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Cpu, LlmModel
from rackplanner.core.errors import InputError
from rackplanner.core.machine.topology import derive_topology
from rackplanner.core.plan.files import load_plan
from tests.conftest import EXAMPLES

GIB = 2**30


# --- weight formats --------------------------------------------------------------------


def test_nf4_scale_overhead_for_100b_parameters() -> None:
    # 003_fdb6d644ec457317.txt / DESIGN.md: one FP32 scale per 64 weights, (100B / 64) x 4 bytes = 6.25 GB.
    assert scale_overhead_bytes(100e9, NF4) == pytest.approx(6.25e9)
    # Double quantization: FP8 scales, FP32 per 256 of them: (100B/64/256) x 4 + (100B/64) x 1 = 1.587 GB.
    assert scale_overhead_bytes(100e9, NF4_DQ) == pytest.approx(1.5869e9, rel=1e-4)
    assert round(scale_overhead_bytes(100e9, NF4_DQ) / 1e9, 2) == 1.59


@pytest.mark.parametrize(
    ("layout", "block_bytes", "weights"),
    [
        # ggml-common.h: block_q8_0 = fp16 d + 32 int8; block_q4_0 = fp16 d + 16 bytes of nibbles;
        # block_q4_K = 2 fp16 + 12 scale bytes + 128; q5_K adds 32 bytes of high bits; q6_K =
        # 128 + 64 + 16 int8 scales + fp16; q3_K = 32 + 64 + 12 + fp16; q2_K = 16 + 64 + 2 fp16.
        (Q8_0, 34, 32),
        (Q4_0, 18, 32),
        (Q4_K, 144, 256),
        (Q5_K, 176, 256),
        (Q6_K, 210, 256),
        (Q3_K, 110, 256),
        (Q2_K, 84, 256),
    ],
)
def test_ggml_block_bits_match_the_block_structs(layout: object, block_bytes: int, weights: int) -> None:
    assert layout.bits_per_weight() == pytest.approx(block_bytes * 8 / weights)  # type: ignore[attr-defined]


def test_gptq_group_128_adds_fp16_scale_and_4_bit_zero() -> None:
    # 16-bit scale + 4-bit zero per 128 weights on top of 4 bits: 4 + 20/128 = 4.15625.
    assert gptq_int4(128).bits_per_weight() == pytest.approx(4.15625)


def test_q4_k_m_file_size_of_llama_3_8b(catalog: Catalog) -> None:
    # github.com/XiongjieDai/GPU-Benchmarks-on-LLM-Inference: LLaMA 3 8B Q4_K_M 4.58 GB and
    # 70B 39.59 GB as llama.cpp prints them (GiB); same architecture as Llama 3.1.
    fmt = get_format("q4_k_m")
    assert weight_bytes(get_model(catalog, "llama-3.1-8b"), fmt) / GIB == pytest.approx(4.58, rel=0.01)
    assert weight_bytes(get_model(catalog, "llama-3.1-70b"), fmt) / GIB == pytest.approx(39.59, rel=0.01)


def test_moe_holds_all_experts_but_reads_the_active_ones(catalog: Catalog) -> None:
    mixtral = get_model(catalog, "mixtral-8x7b")
    fmt = get_format("fp16")
    # 46.7B held, about 12.9B used per token (Mistral's figures, catalog notes) -> ratio ~0.27.
    assert weight_bytes(mixtral, fmt) / 2 / 1e9 == pytest.approx(46.7, rel=0.01)
    assert active_weight_bytes(mixtral, fmt) / weight_bytes(mixtral, fmt) == pytest.approx(12.9 / 46.7, rel=0.05)


def test_unknown_format_is_an_input_error() -> None:
    with pytest.raises(InputError, match="unknown weight format 'q9_k'"):
        get_format("q9_k")


# --- memory --------------------------------------------------------------------------


def test_kv_cache_per_token_by_hand(catalog: Catalog) -> None:
    # 2 x layers x kv_heads x head_dim x 2 bytes: Llama 3.1 8B 2*32*8*128*2, Llama 2 7B
    # 2*32*32*128*2 (no GQA), Llama 2 70B 2*80*8*128*2.
    assert kv_bytes(get_model(catalog, "llama-3.1-8b"), 2, 1) == 131_072
    assert kv_bytes(get_model(catalog, "llama-2-7b"), 2, 1) == 524_288
    assert kv_bytes(get_model(catalog, "llama-2-70b"), 2, 1) == 327_680
    assert kv_bytes(get_model(catalog, "llama-2-70b"), 1, 1) == 163_840  # FP8 cache


def test_rtx_4090_llama_3_8b_q4_k_m_fit(catalog: Catalog) -> None:
    est = estimate(get_model(catalog, "llama-3.1-8b"), "q4_k_m", from_gpu(catalog, "rtx-4090"), context=4096)
    assert est.fits
    assert est.kv_cache_gb == pytest.approx(131_072 * 4096 / 1e9)
    assert est.capacity_gb == pytest.approx(24 * GIB / 1e9)  # "24 GB" of GDDR6X is 24 GiB
    assert est.total_gb == pytest.approx(est.weights_gb + est.kv_cache_gb + est.activations_gb + est.overhead_gb)
    assert est.free_gb == pytest.approx(est.capacity_gb - est.total_gb)
    assert est.max_context == 131_072  # the model's limit comes before the memory's


def test_max_context_and_max_batch_fill_memory(catalog: Catalog) -> None:
    model = get_model(catalog, "llama-3.1-8b")
    hw = from_gpu(catalog, "rtx-4090")
    est = estimate(model, "fp16", hw, context=4096, with_training=False)
    assert 0 < est.max_context < model.max_context
    assert estimate(model, "fp16", hw, context=est.max_context, with_training=False).fits
    assert not estimate(model, "fp16", hw, context=est.max_context + 1024, with_training=False).fits
    assert estimate(model, "fp16", hw, batch=est.max_batch, context=4096, with_training=False).fits
    assert not estimate(model, "fp16", hw, batch=est.max_batch + 1, context=4096, with_training=False).fits


def test_too_big_does_not_fit_and_gets_no_speed(catalog: Catalog) -> None:
    est = estimate(get_model(catalog, "llama-3.1-405b"), "fp16", from_gpu(catalog, "rtx-4090"))
    assert not est.fits
    assert est.decode_tokens_per_s is None
    assert est.weights_gb > 800  # 405B x 2 bytes


@pytest.mark.parametrize(("batch", "context"), [(0, 4096), (-1, 4096), (1, 0), (1, -5)])
def test_zero_or_negative_batch_and_context_are_refused(catalog: Catalog, batch: int, context: int) -> None:
    with pytest.raises(InputError, match=r"must be a whole number from 1 to [0-9,]+ \(got -?[0-9]+\)"):
        estimate(get_model(catalog, "llama-2-7b"), "q4_0", from_gpu(catalog, "rtx-3090"), batch=batch, context=context)


def test_unknown_ids_are_input_errors(catalog: Catalog) -> None:
    with pytest.raises(InputError, match="unknown model 'gpt-5'"):
        get_model(catalog, "gpt-5")
    # The nearest catalog ids, not the whole list: the message stays one short line.
    with pytest.raises(InputError, match=r"unknown GPU 'rtx-9090'; did you mean rtx-5090 or rtx-4090 or rtx-3090\?"):
        from_gpu(catalog, "rtx-9090")
    with pytest.raises(InputError, match="unknown runtime"):
        get_runtime("ollama-turbo")
    with pytest.raises(InputError, match=r"--count must be a whole number from 1 to 100,000 \(got 0\)"):
        from_gpu(catalog, "rtx-4090", 0)


def test_cpu_offload_holds_what_vram_cannot(catalog: Catalog) -> None:
    model = get_model(catalog, "llama-3.1-70b")
    hw = from_gpu(catalog, "rtx-4090").model_copy(update={"host_ram_gb": 128 * GIB / 1e9, "host_bw_gbs": 83.2})
    offloaded = estimate(model, "q4_k_m", hw, runtime="llama.cpp", with_training=False)
    assert offloaded.fits and 0.3 < offloaded.offload_fraction < 0.6
    in_vram = estimate(get_model(catalog, "llama-3.1-8b"), "q4_k_m", hw, with_training=False)
    # Offloaded layers stream from DDR5 at ~83 GB/s: far slower than a model held in VRAM.
    assert offloaded.decode_tokens_per_s is not None and in_vram.decode_tokens_per_s is not None
    assert offloaded.decode_tokens_per_s < in_vram.decode_tokens_per_s / 10


# --- speed ---------------------------------------------------------------------------


def test_layer_split_holds_more_but_does_not_speed_up_decode(catalog: Catalog) -> None:
    model = get_model(catalog, "llama-3.1-8b")
    one = estimate(model, "fp16", from_gpu(catalog, "rtx-4090"), with_training=False)
    two = estimate(model, "fp16", from_gpu(catalog, "rtx-4090", 2), runtime="llama.cpp", with_training=False)
    assert two.capacity_gb == pytest.approx(2 * one.capacity_gb)
    assert two.decode_tokens_per_s == pytest.approx(one.decode_tokens_per_s, rel=0.02)


def test_tensor_parallel_splits_bandwidth_and_pays_all_reduces(catalog: Catalog) -> None:
    model = get_model(catalog, "llama-3.1-70b")
    nvlink = from_gpu(catalog, "a100-80gb-pcie", 2)
    assert nvlink.link_kind == "NVLink"
    # 141 GB of FP16 weights in 0.9 x 2 x 80 GiB = 154.6 GB: fits, split over both GPUs.
    tp2 = estimate(model, "fp16", nvlink, runtime="vllm", with_training=False)
    assert tp2.fits and tp2.tensor_parallel == 2
    four = from_gpu(catalog, "a100-80gb-pcie", 4)
    assert four.link_kind == "PCIe P2P" and four.link_gbs == pytest.approx(31.5, rel=0.01)
    tp4 = estimate(model, "fp16", four, runtime="vllm", with_training=False)
    split = estimate(model, "fp16", four, runtime="llama.cpp", with_training=False)
    assert tp4.tensor_parallel == 4 and split.tensor_parallel == 1
    assert tp4.decode_tokens_per_s is not None and split.decode_tokens_per_s is not None
    assert tp4.decode_tokens_per_s > 2.5 * split.decode_tokens_per_s
    # The same GPUs with a slower link lose more to the all-reduces.
    slow = four.model_copy(update={"link_gbs": 4.0})
    tp4_slow = estimate(model, "fp16", slow, runtime="vllm", with_training=False)
    assert tp4_slow.decode_tokens_per_s is not None and tp4_slow.decode_tokens_per_s < tp4.decode_tokens_per_s


def test_plan_machine_uses_the_topology_link(catalog: Catalog) -> None:
    plan = load_plan(EXAMPLES / "sys-4028gr-trt2-8gpu.json", catalog)
    machine = plan.machines[0]
    hw = from_machine(machine, catalog)
    ring = derive_topology(machine, catalog).ring
    assert ring is not None and hw.link_gbs == ring.bottleneck_gbs
    assert hw.devices == 8 and hw.host_ram_gb is not None


def test_batch_decode_follows_the_roofline(catalog: Catalog) -> None:
    model = get_model(catalog, "llama-3.1-8b")
    hw = from_gpu(catalog, "rtx-4090")
    s = SpeedInputs.build(model, get_format("fp16"), hw, get_runtime("llama.cpp"))
    rates = [b / decode_step_s(s, b, 512) for b in (1, 8, 64, 512)]
    assert rates == sorted(rates)
    # Memory-bound at small batch: 8 sequences cost little more than one step.
    assert rates[1] > 6 * rates[0]
    # Compute-bound at large batch: at most achieved TFLOP/s / (2 x active params) tokens/s.
    ceiling = s.flops_per_s / (2 * s.active_params)
    assert rates[3] <= ceiling


def test_ddr5_4800_eight_channels_four_sockets_is_1228_gbs() -> None:
    # 003_fdb6d644ec457317.txt: 4800 MT/s x 8 bytes x 8 channels x 4 sockets = 1,228.8 GB/s
    # (the article's "1200 GB/s" divides by 1024).
    cpu = Cpu(
        id="test-ddr5-4s",
        vendor="Test",
        model="4-socket DDR5-4800",
        source=["003_fdb6d644ec457317.txt"],
        platform="server",
        socket="test",
        cores=32,
        threads=64,
        base_clock_ghz=2.0,
        tdp_w=300,
        mem_type="DDR5",
        mem_channels=8,
        mem_speed_mts=4800,
        max_memory_gb=4096,
        pcie_gen=5,
        pcie_lanes=80,
        max_sockets=4,
        amx=True,
    )
    hw = from_cpu(Catalog(parts={cpu.id: cpu}), cpu.id, 4, ram_gb=1024)
    assert hw.host_bw_gbs == pytest.approx(1228.8)
    assert hw.kind == "cpu" and hw.devices == 4


def test_cpu_memory_speed_is_the_slower_of_cpu_and_dimms(catalog: Catalog) -> None:
    # Ryzen 9 7950X: 2 channels; DDR5-3600 DIMMs -> 2 x 3600 x 8 = 57.6 GB/s.
    hw = from_cpu(catalog, "ryzen-9-7950x", ram_gb=128, mem_speed_mts=3600)
    assert hw.mem_bw_gbs_per_device == pytest.approx(57.6)


def test_capacity_table_lists_fitting_models_with_speeds(catalog: Catalog) -> None:
    rows = capacity_table(catalog, from_gpu(catalog, "rtx-4090"))
    pairs = {(r.model, r.format) for r in rows}
    assert ("llama-3.1-8b", "q4_k_m") in pairs
    assert ("llama-3.1-70b", "fp16") not in pairs
    assert all(r.fits and r.decode_tokens_per_s for r in rows)
    every = capacity_table(catalog, from_gpu(catalog, "rtx-4090"), only_fitting=False)
    # llama.cpp's table lists the GGUF files people download (formats.table_formats): ten for a
    # MoE model, nine (no MXFP4) for a dense one.
    models = catalog.of_kind(LlmModel)
    moe = sum(1 for m in models if m.moe_experts)
    assert len(every) == 10 * moe + 9 * (len(models) - moe)


def test_hardware_without_bandwidth_is_refused(tmp_path: Path, catalog: Catalog) -> None:
    from rackplanner.core.catalog.parts import Gpu

    bare = Gpu(
        id="bare-gpu",
        vendor="Test",
        model="No bandwidth",
        source=["test"],
        product_line="datacenter",
        vram_gb=16,
        tdp_w=100,
        pcie_gen=4,
        p2p_pcie=True,
    )
    with pytest.raises(InputError, match="no memory bandwidth"):
        from_gpu(Catalog(parts={bare.id: bare}), bare.id)


def test_pipeline_parallel_has_bubbles_below_one_sequence_per_stage(catalog: Catalog) -> None:
    model = get_model(catalog, "llama-3.1-70b")
    four = from_gpu(catalog, "a100-80gb-pcie", 4)

    def rate(runtime: str, batch: int) -> float:
        est = estimate(model, "fp16", four, runtime=runtime, batch=batch, context=512, with_training=False)
        assert est.decode_tokens_per_s is not None
        return est.decode_tokens_per_s

    # One sequence: the stages take turns, like a layer split (all four GPUs' memory, one GPU's
    # speed): the weights stream at one GPU's achieved bandwidth for servers (fitted_constants.json).
    single = rate("vllm-pp", 1)
    s = SpeedInputs.build(model, get_format("fp16"), four, get_runtime("vllm-pp"))
    assert single == pytest.approx(1 / (s.weights_read(1) / s.mem_bytes_per_s + s.fixed_step_s), rel=0.05)
    # Compute-bound batches: every stage works at once, so the pipeline beats the layer split.
    assert rate("vllm-pp", 256) > 1.3 * rate("llama.cpp", 256)
    # Tensor parallelism still wins at batch 1: all four GPUs read their weights together.
    assert rate("vllm", 1) > 3 * rate("vllm-pp", 1)
    est = estimate(model, "fp16", four, runtime="vllm-pp", batch=2, with_training=False)
    assert est.pipeline_stages == 4 and any("bubble" in note for note in est.notes)


def test_time_to_first_token_and_requests_at_target(catalog: Catalog) -> None:
    model = get_model(catalog, "llama-3.1-8b")
    hw = from_gpu(catalog, "rtx-4090")
    est = estimate(model, "q4_k_m", hw, prompt=2000, target_tokens_per_s=30, with_training=False)
    assert est.prefill_tokens_per_s is not None and est.decode_tokens_per_s_batch1 is not None
    s = SpeedInputs.build(model, get_format("q4_k_m"), hw, get_runtime("llama.cpp"))
    # The prompt pass's last logits give the first generated token, so the time to it is the
    # prompt's pass alone (measured TTFT, prompt / TTFT, is what the prefill rates are fitted to).
    assert est.time_to_first_token_s == pytest.approx(2000 / est.prefill_tokens_per_s)
    # Every concurrent user still sees at least 30 tokens/s.
    assert est.concurrent_at_target is not None and est.concurrent_at_target >= 1
    assert decode_step_s(s, est.concurrent_at_target, 4096) <= 1 / 30
    assert decode_step_s(s, est.concurrent_at_target + 1, 4096) > 1 / 30 or est.concurrent_at_target == est.max_batch


def test_full_capacity_table_covers_every_model_and_format(catalog: Catalog) -> None:
    # Its speed (target 50 ms) is printed by `python -m rackplanner.benchmark`, not asserted here.
    hw = from_gpu(catalog, "rtx-4090", 2)
    rows = capacity_table(catalog, hw, only_fitting=False, formats=list(FORMATS))
    models = catalog.of_kind(LlmModel)
    assert {(r.model, r.format) for r in rows} == {(m.id, f) for m in models for f in FORMATS}
