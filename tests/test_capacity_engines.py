"""Costs that belong to one engine or one way of timing, not to the hardware: vLLM's V0
engine pays more per decode step than V1, and a served prompt timed by a client is mostly
the harness's request cost, so it cannot say what share of the peak the GPU reached."""

from __future__ import annotations

from pathlib import Path

import pytest

from rackplanner.core.capacity import fit as fit_module
from rackplanner.core.capacity.calibration import evaluate, load_points
from rackplanner.core.capacity.fit import MIN_VARIABLE_SHARE, _prompt_min_variable_share, fit
from rackplanner.core.capacity.fit_features import features
from rackplanner.core.capacity.fitted import current, step_overhead
from rackplanner.core.capacity.runtime import RUNTIMES, runtime_of_release
from rackplanner.core.catalog.loading import Catalog

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize(
    ("runtime", "version", "ran"),
    [
        ("vllm", "vLLM 0.6.3 (PyTorch 2.4.0)", "vllm-v0"),  # Qwen's speed benchmark
        ("vllm", "vLLM 0.7.3.dev138+g2", "vllm-v0"),
        ("vllm", "vLLM v0.8.5 V1 engine", "vllm"),  # V1 the default from 0.8.0
        ("vllm", "vLLM 0.10.2-xpu", "vllm"),  # 0.10 is later than 0.8, not earlier
        ("vllm", "unknown", "vllm"),
        ("vllm", "", "vllm"),
        ("sglang", "SGLang 0.4.2", "sglang"),
        ("llama.cpp", "b2824", "llama.cpp"),
    ],
)
def test_the_release_decides_which_vllm_engine_ran(runtime: str, version: str, ran: str) -> None:
    assert runtime_of_release(runtime, version) == ran
    assert ran in RUNTIMES


def _accelmark_qwen_05b_a100() -> list:
    return sorted(
        (
            p
            for p in load_points(DATA / "measured.csv")
            if p.group == "accelmark"
            and p.hardware == "a100-80gb-sxm"
            and p.model == "qwen2.5-0.5b"
            and p.metric == "decode_tokens_per_s"
            and p.runtime.startswith("vllm")
        ),
        key=lambda p: p.value,
    )


def test_vllm_v0_pays_its_own_step_cost_and_the_estimates_follow_the_release(calibration_catalog: Catalog) -> None:
    # AccelMark ran Qwen2.5 0.5B in BF16 at batch 1 on one A100 80 GB in vLLM 0.7.3 (261.1
    # tokens/s) and 0.20.1 (546.45): same GPU, model and test, twice the speed.
    old, new = _accelmark_qwen_05b_a100()
    assert (old.runtime, old.value, new.runtime, new.value) == ("vllm-v0", 261.1, "vllm", 546.45)
    cal = current()
    assert step_overhead(cal, "vllm-v0") > step_overhead(cal, "vllm") + 0.5e-3
    assert step_overhead(cal, "vllm-v0") == pytest.approx(
        cal.step_overhead_s["server"] + cal.step_overhead_s["vllm-v0"]
    )
    # SGLang, TensorRT-LLM and V1 share the servers' cost.
    assert step_overhead(cal, "sglang") == step_overhead(cal, "vllm") == cal.step_overhead_s["server"]
    rows = evaluate([old, new], calibration_catalog, calibration=cal).rows
    for row in rows:
        assert row.estimated == pytest.approx(row.point.value, rel=0.35), row.point.point
    assert rows[1].estimated > 1.5 * rows[0].estimated


def test_the_v0_cost_is_fitted_only_where_v0_was_measured(calibration_catalog: Catalog) -> None:
    # Three sources ran vLLM before 0.8 (Qwen's speed benchmark, AccelMark, dstack); without
    # them the fit has no V0 column and a V0 estimate pays the servers' cost alone.
    points = [p for p in load_points(DATA / "measured.csv") if not p.is_report]
    v0 = {p.group for p in points if p.runtime == "vllm-v0"}
    assert v0 == {"qwen-speed-benchmark", "accelmark", "dstack-benchmarks"}
    without = fit([p for p in points if p.runtime != "vllm-v0"], calibration_catalog, numa=0.0, with_numa=False)
    assert "vllm-v0" not in without.step_overhead_s
    assert step_overhead(without, "vllm-v0") == step_overhead(without, "vllm")


def test_a_client_timed_prompt_that_is_mostly_request_cost_sets_no_share(
    calibration_catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    # GPUStack's client took 59 ms to first token for a 233-token prompt of Qwen3 8B on one
    # H100 (3,948 tokens/s); about 4 ms of it is compute at the BF16 peak, the rest the
    # request cost fitted on every client (56 ms). Left to vote, what remains of its time
    # implies a share of Hopper's peak past the 1.0 cap, and with AccelMark's 28,650-token
    # prompts (about 0.65) the class came out at 0.83.
    points = [p for p in load_points(DATA / "measured.csv") if not p.is_report]
    (gpustack,) = [p for p in points if p.point == "gpustack-h100-qwen3-8b-bf16-vllm-c1-ttft"]
    assert (gpustack.context, gpustack.value, gpustack.ttft_timed) == (233, 3948.48, "client")
    rows = {row.point.point: row for row in features(points, calibration_catalog, 0.0)}
    assert _prompt_min_variable_share(rows[gpustack.point]) == MIN_VARIABLE_SHARE
    # Timed inside the engine (TensorRT-LLM's gptSessionBenchmark) or by llama-bench, a
    # prompt pays a pass's kernel costs only, and always votes.
    engine = rows["trtllm-v0.5-legacyperf-h100-x1-llama-2-7b-fp8-isl128-bs1-ttft7ms"]
    assert engine.point.ttft_timed == "engine" and _prompt_min_variable_share(engine) == 0.0
    bench = next(row for row in rows.values() if row.runtime == "llama.cpp" and not row.decode)
    assert _prompt_min_variable_share(bench) == 0.0
    hopper = fit(points, calibration_catalog, numa=0.0, with_numa=False).prefill_tflops_efficiency["Hopper|server"]
    monkeypatch.setattr(fit_module, "MIN_VARIABLE_SHARE", 0.0)
    voting = fit(points, calibration_catalog, numa=0.0, with_numa=False).prefill_tflops_efficiency["Hopper|server"]
    assert hopper < 0.75 < 0.8 < voting
