"""llama.cpp's row split (-sm row): each GPU reads its rows of every weight matrix at once,
each matrix waits on every further GPU, and a prompt's activations travel between the GPUs
through host memory. Before ggml-org/llama.cpp#4766 (2024-01-12) it was the only way
llama.cpp ran a model over several GPUs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rackplanner.core.capacity.calibration import evaluate, hardware_of, load_points
from rackplanner.core.capacity.estimate import estimate, get_model
from rackplanner.core.capacity.fit import fit
from rackplanner.core.capacity.fitted import current
from rackplanner.core.capacity.hardware import from_gpu
from rackplanner.core.capacity.rowsplit import row_split
from rackplanner.core.capacity.runtime import get_runtime, runtime_of_release
from rackplanner.core.catalog.loading import Catalog

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize(
    ("version", "date", "gpus", "expected"),
    [
        # Before #4766 and before MMQ became the default (#8075): prompts through cuBLAS.
        ("32d9f7d9 (b1786)", "2024-01-07", 2, "llama.cpp-row-cublas"),  # a build before #4766
        ("e7e4df0 (b1833)", "2024-01-12", 2, "llama.cpp"),
        ("unknown", "2023-11-13", 8, "llama.cpp-row-cublas"),  # lhl's 8 x V100 table
        ("unknown", "2024-01", 2, "llama.cpp"),  # a month that straddles the change
        ("PR #4766 branch (Jan 2024)", "2024-01-04", 3, "llama.cpp"),  # named, not dated
        ("unknown", "2023-11-13", 1, "llama.cpp"),  # one GPU splits nothing
    ],
)
def test_old_multi_gpu_llama_cpp_ran_a_row_split(version: str, date: str, gpus: int, expected: str) -> None:
    assert runtime_of_release("llama.cpp", version, date, gpus) == expected


@pytest.mark.parametrize(
    ("date", "expected"),
    [
        ("2024-01", "llama.cpp-row-cublas"),  # PR #4766's P40 table
        ("2024-06-24", "llama.cpp-row-cublas"),  # the day #8075 was merged: builds may predate it
        ("2024-06", "llama.cpp-row"),  # a month that straddles the change
        ("2026-02-07", "llama.cpp-row"),  # PR #19378's 4 x RTX 4090 table
        ("", "llama.cpp-row"),
    ],
)
def test_a_row_split_before_mmq_was_the_default_took_cublas(date: str, expected: str) -> None:
    assert runtime_of_release("llama.cpp-row", "unknown", date, 4) == expected


def test_activations_copied_per_token_follow_the_matrices(catalog: Catalog) -> None:
    model = get_model(catalog, "llama-2-7b")
    rows = row_split(model, from_gpu(catalog, "tesla-p40", 3), get_runtime("llama.cpp-row"))
    assert rows is not None
    # Llama 2 7B: 32 layers, hidden 4,096, MLP 11,008, 32 KV heads. In per layer: q, k, v
    # each 4,096, the output projection 4,096, gate and up 4,096 each, down 11,008 = 35,584;
    # out per layer: q, k, v 3 x 4,096, output 4,096, gate and up 2 x 11,008, down 4,096 =
    # 42,496. To 2 further GPUs as q8_1 (36 bytes per 32 values), back as F32 (2/3 of it):
    # 2 x 32 x 35,584 x 1.125 + 2/3 x 32 x 42,496 x 4 = 2,562,048 + 3,626,325.3 bytes.
    assert rows.transfer_bytes_per_token(512) == pytest.approx(6_188_373.3, rel=1e-6)
    # 7 matrices a layer and the output head, each waiting on 2 further GPUs.
    assert rows.syncs == (32 * 7 + 1) * 2
    assert row_split(model, from_gpu(catalog, "tesla-p40", 1), get_runtime("llama.cpp-row")) is None


def test_cublas_takes_the_activations_as_f32(catalog: Catalog) -> None:
    """ggml_cuda_should_use_mmq: a V100 runs MMQ below 64 tokens and cuBLAS above, whose
    activations go to the further GPUs as F32 (4 bytes) instead of q8_1 (1.125 bytes);
    before ggml-org/llama.cpp#8075 (2024-06-24) every tensor-core GPU did so above 32 tokens."""
    model = get_model(catalog, "llama-2-7b")
    v100 = row_split(model, from_gpu(catalog, "v100-32gb-pcie", 3), get_runtime("llama.cpp-row"))
    l4 = row_split(model, from_gpu(catalog, "l4", 3), get_runtime("llama.cpp-row"))
    l4_2023 = row_split(model, from_gpu(catalog, "l4", 3), get_runtime("llama.cpp-row-cublas"))
    assert v100 is not None and l4 is not None and l4_2023 is not None
    # Llama 2 7B over 3 GPUs (the figures above): in 2 x 32 x 35,584 values, out 2/3 of
    # 32 x 42,496 values as F32 = 3,626,325.3 bytes.
    as_q8_1 = 2 * 32 * 35_584 * 36 / 32 + 3_626_325.3  # 6,188,373.3
    as_f32 = 2 * 32 * 35_584 * 4 + 3_626_325.3  # 12,735,829.3
    assert v100.transfer_bytes_per_token(32) == pytest.approx(as_q8_1, rel=1e-6)
    assert v100.transfer_bytes_per_token(512) == pytest.approx(as_f32, rel=1e-6)
    assert l4.transfer_bytes_per_token(512) == pytest.approx(as_q8_1, rel=1e-6)
    assert l4_2023.transfer_bytes_per_token(33) == pytest.approx(as_f32, rel=1e-6)
    # cuBLAS dequantizes each GPU's rows to FP16 once per 128-token chunk; MMQ does not.
    assert (v100.dequantized_chunks(512), l4.dequantized_chunks(512), v100.dequantized_chunks(32)) == (4, 0, 0)
    # The P100's GP100 (compute capability 6.0) has no __dp4a, so no MMQ: cuBLAS at any size;
    # the P40's GP102 (6.1) runs MMQ at every size.
    p100 = row_split(model, from_gpu(catalog, "tesla-p100-16gb-pcie", 3), get_runtime("llama.cpp-row"))
    p40 = row_split(model, from_gpu(catalog, "tesla-p40", 3), get_runtime("llama.cpp-row"))
    assert p100 is not None and p40 is not None
    assert p100.transfer_bytes_per_token(1) == pytest.approx(as_f32, rel=1e-6)
    assert p40.transfer_bytes_per_token(512) == pytest.approx(as_q8_1, rel=1e-6)
    # A split matrix waits on every further GPU once per 128-token chunk of a pass.
    assert l4.pass_syncs(512) == 4 * l4.syncs == 4 * (32 * 7 + 1) * 2


def test_best_batch_stops_below_the_switch_to_cublas(catalog: Catalog) -> None:
    """Before #8075 a batch of 33 sequences went through cuBLAS: F32 copies and the weights
    dequantized every step, so decode at 33 is slower than at 32 and the best batch is 32."""
    model = get_model(catalog, "llama-3.1-8b")
    hw = from_gpu(catalog, "rtx-3090", 2)
    old = estimate(model, "q4_k_m", hw, runtime="llama.cpp-row-cublas", context=4096, with_training=False)
    new = estimate(model, "q4_k_m", hw, runtime="llama.cpp-row", context=4096, with_training=False)
    assert old.best_batch == 32
    assert new.best_batch is not None and new.best_batch > 32  # MMQ at every batch since #8075


def test_row_split_prompts_are_bound_by_the_copies(catalog: Catalog) -> None:
    """4 x RTX 4090 (PCIe 4.0 x16, no peer access), Llama 70B Q4_K_M: ggml-org/llama.cpp#19378
    measured pp512 at 334 tokens/s with -sm row and 1,435 with -sm layer."""
    model = get_model(catalog, "llama-3.1-70b")
    hw = from_gpu(catalog, "rtx-4090", 4)
    row = estimate(model, "q4_k_m", hw, runtime="llama.cpp-row", context=512, prompt=512, with_training=False)
    layer = estimate(model, "q4_k_m", hw, runtime="llama.cpp", context=512, prompt=512, with_training=False)
    assert row.prefill_tokens_per_s is not None and layer.prefill_tokens_per_s is not None
    # About 41 MB a token crosses PCIe twice (through host memory at 15.75 GB/s): 2.6 ms.
    assert row.prefill_tokens_per_s == pytest.approx(334, rel=0.15)
    assert row.prefill_tokens_per_s < 0.5 * layer.prefill_tokens_per_s
    assert any(note.startswith("row split:") for note in row.notes)


def test_each_split_matrix_costs_a_fitted_wait() -> None:
    # Fitted on three sources (lhl's 2023 V100/L4 nodes, PR #4766's P40s, PR #19378's
    # RTX 4090s): tens of microseconds for each matrix on each further GPU.
    assert 10e-6 < current().row_sync_s["llama.cpp"] < 60e-6


def test_held_out_row_split_decode(calibration_catalog: Catalog) -> None:
    """Held out, PR #19378's row-split decode on 4 x RTX 4090 (17.56 tokens/s at tg128)
    comes from the other two sources' wait per matrix."""
    points = [p for p in load_points(DATA / "measured.csv") if not p.is_report]
    held_out = [p for p in points if p.point == "pr19378-4x4090-l70b-q4km-row-tg"]
    rest = [p for p in points if p.group != "llamacpp-pr19378"]
    assert hardware_of(held_out[0], calibration_catalog).devices == 4
    row = evaluate(held_out, calibration_catalog, calibration=fit(rest, calibration_catalog)).rows[0]
    assert row.relative_error is not None and abs(row.relative_error) < 0.25


def test_row_split_is_for_gpus() -> None:
    args = ["--cpu", "epyc-9654", "--model", "llama-3.1-8b", "--format", "q4_k_m", "--runtime", "llama.cpp-row"]
    done = subprocess.run(
        [sys.executable, "-m", "rackplanner", "estimate", *args], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2 and "GPUs only" in done.stderr and "Traceback" not in done.stderr
