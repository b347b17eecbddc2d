"""Estimates outside what the calibration's measured runs covered say so (issue: calibration
you can trust): a model smaller or larger than any measured on its kind of hardware and
runtime, a longer context, a larger batch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rackplanner.core.capacity.calibration import load_points
from rackplanner.core.capacity.estimate import capacity_table, estimate, get_model
from rackplanner.core.capacity.fitted import current, device_run_notes, error_band
from rackplanner.core.capacity.hardware import from_gpu, from_machine, from_unified_system
from rackplanner.core.capacity.measured_range import beyond, row_mark, size_slack
from rackplanner.core.capacity.run_coverage import measured_ranges
from rackplanner.core.capacity.text import estimate_command, format_capacity_table
from rackplanner.core.capacity.thin_classes import with_thin_classes
from rackplanner.core.catalog.loading import Catalog, load_catalog
from rackplanner.core.plan.files import load_plan
from tests.conftest import EXAMPLES

DATA = Path(__file__).parent / "data"


def test_shipped_ranges_are_what_the_measurements_cover() -> None:
    # The shipped constants' ranges are worked out from tests/data/measured.csv, as calibrate --write does.
    catalog = load_catalog([DATA / "calibration-catalog"])
    fresh = measured_ranges(load_points(DATA / "measured.csv"), catalog)
    shipped = current().measured_ranges
    assert set(shipped) == set(fresh)
    for key, found in fresh.items():
        got, want = shipped[key].model_dump(), found.model_dump()
        assert got.pop("makers") == want.pop("makers"), key
        assert got == pytest.approx(want, rel=1e-3), key
    # llama.cpp on GDDR GPUs (measured.csv): the smallest active model is Qwen3 30B-A3B
    # (3.04B active; lhl's RTX PRO 6000 row), the largest Llama 3.x 70B, the longest context
    # llama.cpp#19378's 4x RTX 4090 at depth 64k (65,600), every run at batch 1.
    gddr = shipped["decode|gpu-gddr|llama.cpp"]
    assert (gddr.min_active_params_b, gddr.max_active_params_b) == (3.042, 69.5)
    assert (gddr.max_context, gddr.max_batch) == (65_600, 1)
    # On HBM GPUs the longest llama.cpp decode context is XiongjieDai's tg at 8,192 (mean 4,096).
    assert shipped["decode|gpu-hbm|llama.cpp"].max_context == 4096


def test_a_model_smaller_than_any_measured_says_its_band_is_other_runs(catalog: Catalog) -> None:
    # TinyLlama 1.1B on an RTX 4090 (geerlingguy/ai-benchmarks#43: 762 tokens/s decode under
    # Vulkan, where the estimate gives about 490): no llama.cpp GPU run in the data is under 3B.
    est = estimate(get_model(catalog, "tinyllama-1.1b"), "q4_k_m", from_gpu(catalog, "rtx-4090"), context=2048)
    assert {"decode", "prefill", "best batch"} <= set(est.outside_measured)
    small = [n for n in est.notes if n.startswith("outside the measured range")]
    assert len(small) == 2
    assert "a model this small (1.0B active parameters; the smallest measured had 3.0B)" in small[0]
    text = estimate_command(catalog, gpu="rtx-4090", model="tinyllama-1.1b", format="q4_k_m", context=2048)
    assert "typically ±10% (90% within ±29%), outside the measured runs (see the notes)" in text


def test_a_model_inside_the_range_gets_no_note_but_its_best_batch_does(catalog: Catalog) -> None:
    est = estimate(get_model(catalog, "llama-3.1-8b"), "q4_k_m", from_gpu(catalog, "rtx-4090"), context=4096)
    assert est.outside_measured == ["best batch"]
    assert not any(n.startswith("outside the measured range") for n in est.notes)
    # Every llama.cpp run on a GDDR GPU in the data decoded one sequence.
    assert any(
        "larger than any measured llama.cpp (layer split) batch on gpu-gddr hardware (1)" in n for n in est.notes
    )
    data = json.loads(
        estimate_command(catalog, gpu="rtx-4090", model="llama-3.1-8b", format="q4_k_m", context=4096, json=True)
    )
    assert data["outside_measured"] == ["best batch"]


def test_a_longer_context_than_measured_is_said(catalog: Catalog) -> None:
    # No llama.cpp decode on an HBM GPU in the data ran past 4,096 tokens of context.
    h100 = from_gpu(catalog, "h100-sxm")
    model = get_model(catalog, "llama-3.1-8b")
    assert beyond(current(), h100, "llama.cpp", "decode", model, context=4096) == []
    assert beyond(current(), h100, "llama.cpp", "decode", model, context=32_768) == [
        "had a context this long (32,768 tokens; the longest measured was 4,096)"
    ]
    # vLLM on HBM GPUs was measured to 128,075 tokens (dstack's MI300X runs).
    assert beyond(current(), h100, "vllm", "decode", model, context=32_768) == []


def test_a_model_larger_than_any_measured(catalog: Catalog) -> None:
    # Yuan 2.0 102B is dense: on GDDR GPUs llama.cpp was measured up to the 70B Llamas.
    hw = from_gpu(catalog, "rtx-3090", count=8)
    mark = row_mark(current(), hw, "llama.cpp", get_model(catalog, "yuan2.0-102b"), 4096)
    assert mark.startswith("decode and prompt: no published run had a model this large (")
    assert "the largest measured had 70B)" in mark


def test_a_model_a_little_past_the_measured_sizes_counts_as_inside(catalog: Catalog) -> None:
    # Serving runtimes on GDDR GPUs were measured up to Llama 2 70B (68.71B active parameters
    # as the catalog counts them; measured.csv); Llama 3.1 70B has 69.5B, 1% more. A step that
    # reads 1% more weights moves by at most 1%, well inside the class's held-out median error.
    hw = from_gpu(catalog, "rtx-3090", count=4)
    cal = current()
    assert cal.measured_ranges["decode|gpu-gddr|server"].max_active_params_b == 68.71
    slack = size_slack(cal, hw, "decode")
    assert slack == error_band(cal, hw, "decode").median
    assert 0.012 < slack < 0.5
    assert beyond(cal, hw, "vllm", "decode", get_model(catalog, "llama-3.1-70b")) == []
    # Without the slack (a calibration with no bands) the same model is past the largest measured.
    bandless = cal.model_copy(update={"error_bands": {}})
    assert beyond(bandless, hw, "vllm", "decode", get_model(catalog, "llama-3.1-70b")) == [
        "had a model this large (70B active parameters; the largest measured had 69B)"
    ]


def test_a_calibration_without_ranges_says_nothing(catalog: Catalog) -> None:
    # A user's own calibration file from before ranges were recorded.
    older = current().model_copy(update={"measured_ranges": {}})
    hw = from_gpu(catalog, "rtx-4090")
    assert beyond(older, hw, "llama.cpp", "decode", get_model(catalog, "tinyllama-1.1b")) == []


def test_the_capacity_table_marks_rows_outside_the_measured_runs(catalog: Catalog) -> None:
    hw = from_gpu(catalog, "rtx-4090")
    rows = capacity_table(catalog, hw, runtime="llama.cpp", context=4096)
    by_key = {(r.model, r.format): r for r in rows}
    assert "smallest measured had 3.0B" in by_key[("tinyllama-1.1b", "q4_k_m")].unmeasured
    assert by_key[("llama-3.1-8b", "q4_k_m")].unmeasured == ""
    text = format_capacity_table(hw, rows, 4096, "llama.cpp")
    tiny = next(line for line in text.splitlines() if line.startswith("tinyllama-1.1b") and " q4_k_m " in line)
    assert tiny.endswith(" †")
    assert "† no published run on this kind of hardware and runtime had a model of that size" in text
    assert "so no run measured the best-batch figures" in text


def test_shipped_device_runs_are_the_measurements_against_the_shipped_constants() -> None:
    catalog = load_catalog([DATA / "calibration-catalog"])
    fresh = with_thin_classes(current(), load_points(DATA / "measured.csv"), catalog).device_runs
    shipped = current().device_runs
    assert set(shipped) == set(fresh)
    for key, found in fresh.items():
        assert shipped[key].ratio == pytest.approx(found.ratio, rel=1e-3), key


def test_runs_of_this_very_hardware_are_said_where_they_stray_from_the_estimate(catalog: Catalog) -> None:
    # The llama.cpp CUDA scoreboard (ggml-org/llama.cpp#15013) measured one H100 SXM decoding
    # Llama 2 7B Q4_0 at 267.8 and 303.1 tokens/s; HBM3's llama.cpp share is set mostly by
    # MI300X runs, and the estimate gives the H100 SXM about 1.6 times less (measured.csv).
    est = estimate(get_model(catalog, "llama-2-7b"), "q4_0", from_gpu(catalog, "h100-sxm"))
    said = [n for n in est.notes if n.startswith("measured: ")]
    assert said == [
        "measured: 2 published llama.cpp (layer split) decode runs on this very hardware (1 source) ran at "
        "1.62 x what this estimate gives for them; the estimate keeps its class's fitted constants"
    ]
    # Nine RTX 4090 decode runs from five sources sit within 2% of theirs: nothing to say.
    est = estimate(get_model(catalog, "llama-2-7b"), "q4_0", from_gpu(catalog, "rtx-4090"))
    assert not [n for n in est.notes if n.startswith("measured: ")]
    # Two H100 SXMs are other hardware: no run of that pair in llama.cpp.
    est = estimate(get_model(catalog, "llama-2-7b"), "q4_0", from_gpu(catalog, "h100-sxm", count=2))
    assert not [n for n in est.notes if n.startswith("measured: ")]


def test_a_kind_no_run_measured_says_so(catalog: Catalog) -> None:
    # No vLLM run on a unified-memory machine is in the data (measured.csv), so a DGX Spark's
    # vLLM estimate has no range of its own to be inside.
    spark = from_unified_system(catalog, "dgx-spark")
    model = get_model(catalog, "llama-3.1-8b")
    assert "decode|unified|server" not in current().measured_ranges
    assert beyond(current(), spark, "vllm", "decode", model) == ["was measured at all"]
    est = estimate(model, "bf16", spark, runtime="vllm")
    # The estimate's untested-class note says it once; the figures are still flagged.
    assert {"decode", "prefill"} <= set(est.outside_measured)
    assert not any("was measured at all" in note for note in est.notes)
    assert any(
        note.startswith("no published vLLM (tensor parallel) run on hardware like NVIDIA DGX Spark")
        for note in est.notes
    )
    # The capacity table's mark has no such note beside it, so it says so itself.
    mark = row_mark(current(), spark, "vllm", model, 4096)
    assert mark == "decode and prompt: no run on this kind of hardware in this runtime was published"


def test_a_machine_of_mixed_gpus_has_no_device_runs_of_its_own(catalog: Catalog) -> None:
    # The home rig's two RTX 3090s are one device model (resources/examples); with one swapped
    # for an RTX 4090 it is counted as two 3090s (the smaller), but no run was of that pair.
    plan = load_plan(EXAMPLES / "home-rig-2x3090.json", catalog)
    machine = plan.machines[0]
    assert from_machine(machine, catalog).device_id == "rtx-3090"
    cards = [c.model_copy(update={"part": "rtx-4090"}) if c.slot == "pciex16-g5-2" else c for c in machine.cards]
    mixed = from_machine(machine.model_copy(update={"cards": cards}), catalog)
    assert mixed.device_id == "" and mixed.devices == 2
    assert device_run_notes(current(), mixed, "llama.cpp", "llama.cpp") == []


def test_a_maker_no_run_of_its_kind_measured_says_so(catalog: Catalog) -> None:
    # No llama.cpp run on an Intel GPU is in measured.csv (its GDDR llama.cpp decode runs are
    # AMD's and NVIDIA's). The Vulkan scoreboard (llama.cpp discussion 10879, as scraped into
    # smoothyy3/willitrun data/normalized) has an Arc A750 decoding Llama 2 7B Q4_0 at 42.7
    # tokens/s where the estimate gives about 92: the GDDR class's ±29% did not hold for it.
    assert current().measured_ranges["decode|gpu-gddr|llama.cpp"].makers == ["amd", "nvidia"]
    model = get_model(catalog, "llama-2-7b")
    est = estimate(model, "q4_0", from_gpu(catalog, "arc-a750"), context=512)
    assert {"decode", "prefill"} <= set(est.outside_measured)
    note = next(n for n in est.notes if n.startswith("outside the measured range"))
    assert "no published llama.cpp (layer split) decode run on gpu-gddr hardware was on Intel hardware" in note
    assert "(the measured ones were AMD and NVIDIA)" in note
    assert "Intel" in row_mark(current(), from_gpu(catalog, "arc-a750"), "llama.cpp", model, 512)
    # The same card in vLLM: the Arc Pro B60 runs of the vLLM blog are Intel's, so no mark.
    served = estimate(model, "fp16", from_gpu(catalog, "arc-a750"), runtime="vllm", context=512)
    assert not any("Intel hardware" in n for n in served.notes)
    # An RX 7800 XT is AMD's, whose GDDR llama.cpp runs were measured: no maker note.
    amd = estimate(model, "q4_0", from_gpu(catalog, "rx-7800-xt"), context=512)
    assert not any("hardware (the measured ones" in n for n in amd.notes)
    # The capacity table on such a card says it once, under every marked row.
    arc = from_gpu(catalog, "arc-a750")
    rows = capacity_table(catalog, arc, runtime="llama.cpp", context=4096)
    assert rows and all(r.unmeasured for r in rows)
    text = format_capacity_table(arc, rows, 4096, "llama.cpp")
    assert "No published llama.cpp (layer split) run on Intel gpu-gddr hardware was measured" in text
    amd = from_gpu(catalog, "rx-7800-xt")
    amd_text = format_capacity_table(amd, capacity_table(catalog, amd, context=4096), 4096, "llama.cpp")
    assert "hardware was measured (those measured were" not in amd_text
