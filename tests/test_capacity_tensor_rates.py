"""Tensor peaks a GPU entry lacks, derived from its architecture's sourced ratios."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rackplanner.core.capacity.hardware import from_gpu
from rackplanner.core.capacity.tensor_rates import DERIVED_FIELDS, tensor_peaks
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Gpu
from tests.clihelpers import run_cli

_PEAK = {"int8_tensor_tops": "int8_tops", "fp16_tensor_tflops": "fp16_tflops", "fp8_tensor_tflops": "fp8_tflops"}


def test_every_sourced_peak_is_found_again_when_hidden(catalog: Catalog) -> None:
    # Leave one out: hide each sourced tensor peak of the built-in catalog and derive it from
    # the entry's other peaks and its architecture's peers. The ratios are the chips'
    # (e.g. every Ada GeForce sheet: INT8 = 8 x FP32), so nearly all come back within 3%;
    # Intel's XMX runs at a clock apart from the shader figure, hence the 10% bound.
    errors = []
    for gpu in catalog.of_kind(Gpu):
        for field in DERIVED_FIELDS:
            sourced = getattr(gpu, field)
            if sourced is None:
                continue
            derived = getattr(tensor_peaks(gpu.model_copy(update={field: None}), catalog), _PEAK[field])
            if derived is not None:
                errors.append((abs(derived / sourced - 1), gpu.id, field))
    assert len(errors) >= 80
    assert max(errors)[0] <= 0.10, max(errors)
    within_3 = sum(1 for e, _, _ in errors if e <= 0.03)
    assert within_3 >= 0.9 * len(errors)


def test_rtx_4080_super_gets_ada_geforce_ratios(catalog: Catalog) -> None:
    # catalog/gpu.yaml: the RTX 4080 SUPER's entry gives FP32 52.2 TFLOPS and no tensor
    # peak. Ada GeForce sheets in the catalog (RTX 4080: 48.7 / 389.9; RTX 4090: 82.58 /
    # 660.6) give INT8 = 8 x FP32 and FP16 with FP32 accumulate = 2 x FP32; NVIDIA's
    # "836 AI TOPS" for the 4080 SUPER is INT8 with sparsity, twice 418.
    peaks = tensor_peaks(catalog.get_as("rtx-4080-super", Gpu), catalog)
    assert peaks.int8_tops == pytest.approx(8 * 52.2, rel=0.01)
    assert peaks.fp16_tflops == pytest.approx(2 * 52.2, rel=0.01)
    assert any("rtx-4090" in note and "INT8" in note for note in peaks.notes)


@pytest.mark.parametrize(
    ("gpu_id", "fp16", "int8"),
    [
        # llmq's sol.cpp (commit 250e91c) interpolates these two from the RTX 6000 Ada and the
        # A6000 by SM count and clock: RTX 4000 Ada 106.9 / 213.8, RTX A4500 94.6 / 189.3. The
        # catalog keeps only their sheets' FP32 (26.73, 23.65); the workstation ratios of their
        # architectures (FP16 = 4 x, INT8 = 8 x FP32) give the same peaks.
        ("rtx-4000-ada", 106.9, 213.8),
        ("rtx-a4500", 94.6, 189.3),
    ],
)
def test_workstation_peaks_match_an_independent_interpolation(
    catalog: Catalog, gpu_id: str, fp16: float, int8: float
) -> None:
    peaks = tensor_peaks(catalog.get_as(gpu_id, Gpu), catalog)
    assert peaks.fp16_tflops == pytest.approx(fp16, rel=0.01)
    assert peaks.int8_tops == pytest.approx(int8, rel=0.01)
    assert set(peaks.derived) >= {"FP16", "INT8"}


def test_estimate_says_when_a_peak_is_derived(catalog: Catalog) -> None:
    hw = from_gpu(catalog, "rtx-4080-super")
    assert hw.int8_tops_per_device == pytest.approx(417.6, rel=0.01)
    assert hw.tflops_per_device == pytest.approx(104.4, rel=0.01)
    assert any(a.startswith("derived: INT8 tensor peak 418 TOPS") for a in hw.assumptions)
    # A sourced entry keeps its own figures and gets no note.
    hw_4090 = from_gpu(catalog, "rtx-4090")
    assert hw_4090.int8_tops_per_device == 660.6
    assert not any(a.startswith("derived") for a in hw_4090.assumptions)


def test_no_ratio_without_agreeing_peers(catalog: Catalog) -> None:
    # An "Ampere" entry that names no die could be a GA100 (FP16 tensor = 16 x FP32, A100
    # sheets) or a GA10x (4 x, A40/A10 sheets): the peers disagree, so nothing is derived.
    a5000 = catalog.get_as("rtx-a5000", Gpu)
    anonymous = a5000.model_copy(update={"architecture": "Ampere"})
    peaks = tensor_peaks(anonymous, catalog)
    assert peaks.fp16_tflops is None and peaks.int8_tops is None and peaks.notes == ()
    # Named as GA102 it is a workstation GA10x card: 4 x and 8 x its 27.77 FP32 TFLOPS,
    # the RTX A6000's and A40's ratios (NVIDIA's A5000 sheet: 222.2 tensor TFLOPS sparse).
    named = tensor_peaks(a5000, catalog)
    assert named.fp16_tflops == pytest.approx(4 * 27.77, rel=0.01)
    assert named.int8_tops == pytest.approx(8 * 27.77, rel=0.01)
    # Maxwell has no tensor units and no peer with a tensor peak: nothing to derive.
    m40 = tensor_peaks(catalog.get_as("tesla-m40-24gb", Gpu), catalog)
    assert (m40.fp16_tflops, m40.int8_tops, m40.notes) == (None, None, ())


def test_zen4_counts_avx512_at_the_avx2_rate(catalog: Catalog) -> None:
    from rackplanner.core.capacity.hardware import cpu_tflops
    from rackplanner.core.catalog.parts import Cpu

    # Zen 4 splits each 512-bit instruction over its two 256-bit FMA pipes (numberworld.org's
    # Zen 4 teardown): 32 FP32 FLOP per cycle. EPYC 9654: 96 cores at 3.7 GHz boost
    # (catalog/cpu.yaml) -> 96 x 32 x 3.7 = 11.37 TFLOPS. Zen 5 has 512-bit pipes: the
    # EPYC 9755's 128 cores x 64 x 4.1 GHz = 33.6 TFLOPS; Sapphire Rapids has two 512-bit
    # FMA units: the Xeon Platinum 8480+'s 56 cores x 64 x 3.8 GHz = 13.6 TFLOPS.
    assert cpu_tflops(catalog.get_as("epyc-9654", Cpu)) == pytest.approx(96 * 32 * 3.7 / 1000)
    assert cpu_tflops(catalog.get_as("epyc-9755", Cpu)) == pytest.approx(128 * 64 * 4.1 / 1000)
    assert cpu_tflops(catalog.get_as("xeon-platinum-8480-plus", Cpu)) == pytest.approx(56 * 64 * 3.8 / 1000)


def test_trust_note_names_derived_peaks(catalog: Catalog) -> None:
    from rackplanner.core.capacity.text import trust_note

    # The same sentence goes under the dock's table and into the PDF report's capacity section.
    note = trust_note(from_gpu(catalog, "rtx-3060-12gb"))
    assert " Its INT8 tensor peak is derived from its architecture's other cards, not its sheet." in note
    assert "derived" not in trust_note(from_gpu(catalog, "rtx-4090"))


def test_a_card_with_no_compute_figure_says_prefill_and_concurrency_are_unknown(tmp_path: Path) -> None:
    # A user's own entry that gives memory figures but no FLOPS (as the Radeon PRO W6800's
    # sheets read lacked): decode follows from bandwidth; prefill, and so the requests a
    # second that count each request's prompt pass, are said to be unknown, not None or 0.
    (tmp_path / "gpu.yaml").write_text(
        "- id: my-w6800\n  vendor: AMD\n  model: Radeon PRO W6800\n  source: ['my own card']\n"
        "  product_line: workstation\n  architecture: RDNA 2 (Navi 21)\n  vram_gb: 32\n  mem_bw_gbs: 512\n"
        "  mem_type: GDDR6\n  tdp_w: 250\n  pcie_gen: 4\n  p2p_pcie: true\n"
    )
    done = run_cli("estimate", "--catalog", str(tmp_path), "--gpu", "my-w6800", "--model", "llama-3.1-8b")
    assert done.returncode == 0, done.stderr
    assert "prefill: unknown, so not estimated" in done.stdout
    assert "at 20 tokens/s per user: unknown, as prefill is" in done.stdout
    assert "None" not in done.stdout
    as_json = json.loads(
        run_cli("estimate", "--catalog", str(tmp_path), "--gpu", "my-w6800", "--model", "llama-3.1-8b", "--json").stdout
    )
    assert as_json["concurrent_at_target"] is None and as_json["decode_tokens_per_s"] > 0
