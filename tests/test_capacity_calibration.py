"""Estimates against published measurements (tests/data/measured.csv).

The constants are fitted to the measurements (``rackplanner calibrate --write``) and the
error that matters is the held-out one: each source estimated with constants fitted
without it. The report is printed, attached to the test report (``record_property``) and
shown as a CalibrationReport warning so that it appears in the pytest summary of every run.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

from rackplanner.core.capacity.calibration import evaluate, load_points
from rackplanner.core.capacity.calibration_report import calibrate, report
from rackplanner.core.capacity.fit import CrossValidation
from rackplanner.core.capacity.fitted import Calibration, current
from rackplanner.core.catalog.loading import Catalog

DATA = Path(__file__).parent / "data"
MEASURED = DATA / "measured.csv"


class CalibrationReport(UserWarning):
    """The calibration error table, shown in the warnings summary."""


@pytest.fixture(scope="module")
def calibrated(calibration_catalog: Catalog) -> tuple[Calibration, CrossValidation]:
    return calibrate(MEASURED, calibration_catalog)


def test_measured_points_are_sourced_and_enough() -> None:
    points = load_points(MEASURED)
    benchmark = [p for p in points if not p.is_report]
    # The issue asks for at least 120 published measurements from at least 6 independent sources.
    assert len(benchmark) >= 120
    assert len({p.group for p in benchmark}) >= 6
    assert len({p.point for p in points}) == len(points)
    for point in benchmark:
        assert point.source.startswith("https://"), point.point
        assert point.date[:4].isdigit() and point.runtime_version and point.hardware_detail, point.point
    assert {p.metric for p in points} == {"decode_tokens_per_s", "prefill_tokens_per_s"}
    assert {p.runtime for p in benchmark} >= {"llama.cpp", "ik_llama.cpp", "vllm", "tensorrt-llm", "sglang", "mlx"}


def test_shipped_constants_are_the_fit(calibrated: tuple[Calibration, CrossValidation]) -> None:
    """fitted_constants.json is what `rackplanner calibrate --write` gives on measured.csv."""
    fresh, _cv = calibrated
    shipped = current()
    assert set(shipped.decode_bw_efficiency) == set(fresh.decode_bw_efficiency)
    for key, value in fresh.decode_bw_efficiency.items():
        assert shipped.decode_bw_efficiency[key] == pytest.approx(value, rel=1e-3), key
    for key, value in fresh.prefill_tflops_efficiency.items():
        assert shipped.prefill_tflops_efficiency[key] == pytest.approx(value, rel=1e-3), key
    for key, value in fresh.layer_overhead_s.items():
        assert shipped.layer_overhead_s[key] == pytest.approx(value, rel=1e-3, abs=1e-9), key
    for key, value in fresh.prefill_expert_s.items():
        assert shipped.prefill_expert_s[key] == pytest.approx(value, rel=1e-3, abs=1e-9), key
    assert set(shipped.prefill_request_s) == set(fresh.prefill_request_s)
    for key, value in fresh.prefill_request_s.items():
        assert shipped.prefill_request_s[key] == pytest.approx(value, rel=1e-3), key
    assert shipped.numa_scaling == fresh.numa_scaling
    assert set(shipped.row_sync_s) == set(fresh.row_sync_s)
    for key, value in fresh.row_sync_s.items():
        assert shipped.row_sync_s[key] == pytest.approx(value, rel=1e-3), key
    for key, band in fresh.error_bands.items():
        assert shipped.error_bands[key].median == pytest.approx(band.median, rel=1e-3), key
    assert set(shipped.thin_classes) == set(fresh.thin_classes)
    for key, thin in fresh.thin_classes.items():
        assert shipped.thin_classes[key].ratio == pytest.approx(thin.ratio, rel=1e-3), key


def test_few_runs_of_an_architecture_are_said_not_fitted(calibrated: tuple[Calibration, CrossValidation]) -> None:
    # The ROCm scoreboard (llama.cpp#15021) has the only RDNA 4 prompts: an R9700 at 4,444
    # tokens/s and an RX 9070 XT at 5,055 (Llama 2 7B Q4_0, pp512). Two points make no class,
    # so they take the GeForce-like class's share of the INT8 peak, which puts them near twice
    # that; the thin class keeps how far off, for the estimate to say.
    fresh, _cv = calibrated
    rdna4 = fresh.thin_classes["prefill|RDNA 4|llama.cpp"]
    assert (rdna4.points, rdna4.sources) == (2, 1)
    assert rdna4.ratio == pytest.approx(0.51, abs=0.05)


def test_held_out_error_report(
    calibrated: tuple[Calibration, CrossValidation], record_property: Callable[[str, object], None]
) -> None:
    cal, cv = calibrated
    text = report(cal, cv, MEASURED)
    print("\n" + text)
    record_property("calibration_report", text)
    warnings.warn(CalibrationReport("\n" + text), stacklevel=1)
    decode, prefill = cv.band("decode"), cv.band("prefill")
    assert decode is not None and prefill is not None
    # Regression guards at the cross-validated error of 2026-11 (decode 15%, prefill 25%
    # median, 647 points from 41 sources); the targets (15% median, 90% within 35%) are not
    # met yet, see README. Taking the servers' bandwidth shares from points without
    # all-reduces took decode's median from 16% to 15%; one vote per source for the prefill
    # shares took prefill to 26% / 105%; a prompt pass paying a decode step's fixed cost and
    # the request cost fitted on client-timed first tokens only then took it to 25% / 91%;
    # leaving a class with few single-GPU points to the wider class, to 14.8% / 70% and 89%;
    # a factor of their class's share for prompts on the FP8 peak, to 14.3% and 25% / 83%;
    # no share from decode points that are three quarters fixed costs, to 13.9% / 67%;
    # vLLM's V0 engine (before 0.8) paying its own step cost, to 13.8% / 61% (and prefill
    # 25% / 89%); no share from client-timed prompts that are three quarters fixed costs,
    # to 13.6% / 61% and 24.6% / 82%. llama.cpp's row split for multi-GPU runs before
    # 2024-01 and 67 more points (row and layer splits, the scoreboards' GDDR6 and ROCm cards)
    # took decode to 13.5% / 53% on 415 points and prefill to 24.6% / 88% on 292: the
    # scoreboards' 2025-26 prompts are held out against 2023-24 sources and the other way
    # round, and llm-tracker's 2023 row-split prompts no longer stand in for Volta and the L4.
    # Ten gpt-oss points from llama.cpp#15396 (its launch week, August 2025) then took decode
    # to 13.6% / 50% on 421 and prefill to 24.4% / 91% on 296: held out, their decode is 18-37%
    # over and three of their four prompts 91-138% over.
    assert decode.median <= 0.14
    assert decode.p90 <= 0.56
    assert prefill.median <= 0.25
    assert prefill.p90 <= 0.92
    assert decode.points >= 300 and prefill.points >= 230


def test_held_out_error_is_not_the_in_sample_error(
    calibration_catalog: Catalog, calibrated: tuple[Calibration, CrossValidation]
) -> None:
    """Leaving a source out must cost something: in-sample error is lower than held-out."""
    cal, cv = calibrated
    points = [p for p in load_points(MEASURED) if not p.is_report]
    in_sample = evaluate(points, calibration_catalog, calibration=cal)
    decode_in = sorted(abs(r.relative_error) for r in in_sample.rows if r.relative_error is not None)
    held_out = cv.band("decode")
    assert held_out is not None
    assert decode_in[len(decode_in) // 2] < held_out.median


def test_shipped_error_bands_cover_every_hardware_class() -> None:
    import rackplanner.core.capacity as package

    bands = json.loads((Path(package.__file__).parent / "fitted_constants.json").read_text())["error_bands"]
    for metric in ("decode", "prefill"):
        for band in ("all", "gpu-hbm", "gpu-gddr", "unified", "cpu"):
            assert f"{metric}|{band}" in bands


def test_a_broken_measurement_file_gets_one_line_naming_file_and_field(tmp_path: Path) -> None:
    from tests.clihelpers import run_cli

    bad = tmp_path / "measured.csv"
    bad.write_text("point,hardware,count\nx,rtx-3090,two\n", encoding="utf-8")
    result = run_cli("calibrate", str(bad))
    assert result.returncode == 2
    assert f"{bad}: line 2:" in result.stderr and "count" in result.stderr
    assert "Traceback" not in result.stderr
    result = run_cli("calibrate", str(tmp_path / "missing.csv"))
    assert result.returncode == 2 and "missing.csv" in result.stderr
    # A file far beyond any measurement set is refused by its size, not read whole.
    huge = tmp_path / "huge.csv"
    with huge.open("wb") as handle:
        handle.truncate(30_000_000)
    result = run_cli("calibrate", str(huge), "--check")
    assert result.returncode == 2 and "is more than a measurements file may be (20.0 MB)" in result.stderr


def test_a_chip_makers_band_widens_its_class_where_its_runs_stray_further(
    calibrated: tuple[Calibration, CrossValidation], calibration_catalog: Catalog
) -> None:
    from rackplanner.core.capacity.error_bands import MIN_MAKER_POINTS
    from rackplanner.core.capacity.fitted import error_band_key
    from rackplanner.core.capacity.hardware import from_gpu

    fresh, cv = calibrated
    # Held out, AMD's HBM parts (MI300X under ROCm builds of 2023-25) stray much further than the
    # class: their band is their own held-out error, where it is the wider.
    whole, amd = fresh.error_bands["decode|gpu-hbm"], fresh.error_bands["decode|gpu-hbm|amd"]
    own = cv.band("decode", "gpu-hbm|amd")
    assert own is not None and amd.points == own.points >= MIN_MAKER_POINTS
    assert amd.p90 == own.p90 > whole.p90 and amd.median == max(own.median, whole.median)
    assert error_band_key(fresh, from_gpu(calibration_catalog, "mi300x", 8), "decode") == "gpu-hbm|amd"
    # NVIDIA's HBM runs stray less than the class's: never a narrower band than the class's.
    nvidia = cv.band("decode", "gpu-hbm|nvidia")
    assert nvidia is not None and nvidia.p90 < whole.p90 and "decode|gpu-hbm|nvidia" not in fresh.error_bands
    assert error_band_key(fresh, from_gpu(calibration_catalog, "h100-sxm", 8), "decode") == "gpu-hbm"
    # Intel's GDDR cards have fewer decode rows than a band of their own needs.
    intel = len(cv.errors("decode", "gpu-gddr|intel"))
    assert 0 < intel < MIN_MAKER_POINTS and "decode|gpu-gddr|intel" not in fresh.error_bands


def test_the_band_key_falls_back_from_maker_to_class_to_all() -> None:
    from rackplanner.core.capacity.fitted import ErrorBand, error_band_key
    from rackplanner.core.capacity.hardware import from_gpu
    from rackplanner.core.catalog.loading import load_catalog

    catalog = load_catalog([Path(__file__).parent.parent / "catalog"])
    band = ErrorBand(points=10, median=0.1, p90=0.3)
    hw = from_gpu(catalog, "rtx-4090")
    for bands, key in (
        ({"decode|gpu-gddr|nvidia": band, "decode|gpu-gddr": band, "decode|all": band}, "gpu-gddr|nvidia"),
        ({"decode|gpu-gddr": band, "decode|all": band}, "gpu-gddr"),
        ({"decode|all": band}, "all"),
        ({}, None),
    ):
        assert error_band_key(current().model_copy(update={"error_bands": bands}), hw, "decode") == key
