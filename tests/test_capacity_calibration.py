"""Estimates against published measurements (tests/data/measured.csv).

The error table is printed, attached to the test report (``record_property``) and shown
as a CalibrationReport warning so that it appears in the pytest summary of every run.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

from rackplanner.core.capacity import constants as k
from rackplanner.core.capacity.calibration import evaluate, fit_constants, format_table, load_points
from rackplanner.core.catalog.loading import Catalog, load_catalog

DATA = Path(__file__).parent / "data"
MEASURED = DATA / "measured.csv"


class CalibrationReport(UserWarning):
    """The calibration error table, shown in the warnings summary."""


@pytest.fixture(scope="module")
def calibration_catalog() -> Catalog:
    # Hardware figures the built-in catalog lacks (tests/data/calibration-catalog/gpu.yaml).
    return load_catalog([DATA / "calibration-catalog"])


def test_measured_points_are_sourced_and_enough() -> None:
    points = load_points(MEASURED)
    assert len(points) >= 20
    assert len({p.point for p in points}) == len(points)
    for point in points:
        assert point.source.startswith(("https://", "seed ")), point.point
    assert any(p.source.startswith("seed 000_2736fecfd42346e5") for p in points)
    assert {p.metric for p in points} == {"decode_tokens_per_s", "prefill_tokens_per_s"}


def test_estimates_are_within_20_percent_median(
    calibration_catalog: Catalog, record_property: Callable[[str, object], None]
) -> None:
    table = evaluate(load_points(MEASURED), calibration_catalog)
    text = format_table(table)
    print("\n" + text)
    record_property("calibration_table", text)
    record_property("median_relative_error", round(table.median, 4))
    warnings.warn(CalibrationReport("\n" + text), stacklevel=1)
    assert all(row.estimated is not None for row in table.rows), "every measured setup must fit"
    assert table.median <= 0.20


def test_constants_are_the_fit(calibration_catalog: Catalog) -> None:
    """The named efficiencies are what the measurements give, not tuned by hand."""
    fit = fit_constants(load_points(MEASURED), calibration_catalog)
    assert pytest.approx(fit.gpu_decode_bw_efficiency, rel=0.05) == k.GPU_DECODE_BW_EFFICIENCY
    assert pytest.approx(fit.llama_cpp_layer_overhead_s, rel=0.10) == k.LLAMA_CPP_LAYER_OVERHEAD_S
    for device_class, value in fit.prefill_tflops_efficiency.items():
        assert k.PREFILL_TFLOPS_EFFICIENCY[device_class] == pytest.approx(value, rel=0.05), device_class
    assert fit.tp_server_step_overhead_s is not None
    assert pytest.approx(fit.tp_server_step_overhead_s, rel=0.10) == k.TP_SERVER_STEP_OVERHEAD_S
