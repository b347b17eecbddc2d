"""The calibration report: constants fitted on every point, and their cross-validated error.

``rackplanner calibrate MEASURED.csv`` prints it; ``--write`` stores the constants, with
the error bands the estimates show, in the package (``fitted_constants.json``).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

from rackplanner.core.capacity.calibration import check_points, load_points
from rackplanner.core.capacity.classes import OWN_STEP_COST
from rackplanner.core.capacity.error_bands import CLASSES, maker_bands, with_error_bands
from rackplanner.core.capacity.fit import CrossValidation, cross_validate, fit
from rackplanner.core.capacity.fitted import FITTED_FILE, Calibration
from rackplanner.core.capacity.run_coverage import with_measured_ranges
from rackplanner.core.capacity.thin_classes import with_thin_classes
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.errors import InputError

# The targets a calibration is held to: median and 90th-percentile |error|, cross-validated.
TARGET_MEDIAN = 0.15
TARGET_P90 = 0.35
# The least data the shipped constants are fitted on (and cross-validated over).
MIN_SHIPPED_POINTS = 120
MIN_SHIPPED_SOURCES = 6


def calibrate(path: Path, catalog: Catalog) -> tuple[Calibration, CrossValidation]:
    """Fit on every point of ``path`` and cross-validate leaving one source out."""
    points = load_points(path)
    check_points(points, catalog, path)
    cv = cross_validate(points, catalog)
    cal = with_thin_classes(with_error_bands(fit(points, catalog), cv), points, catalog)
    return with_measured_ranges(cal, points, catalog), cv


def report_table(cal: Calibration, cv: CrossValidation) -> str:
    """Markdown table of the held-out error by metric and hardware class."""
    lines = [
        "| estimate | hardware | points | median abs. error | 90% of points within |",
        "|---|---|---:|---:|---:|",
    ]
    for metric in ("decode", "prefill"):
        # The class's chip makers with enough held-out runs to say their own error; the
        # estimate states a maker's where it is wider than the class's.
        makers = maker_bands(cv, metric)
        for band in (None, *CLASSES):
            found = cv.band(metric, band)
            if found is None:
                continue
            lines.append(f"| {metric} | {band or 'all'} | {found.points} | {found.median:.0%} | {found.p90:.0%} |")
            for key, mine in makers.items():
                if band and key.startswith(f"{band}|"):
                    maker = key.split("|")[1]
                    lines.append(f"| {metric} | {band}, {maker} | {mine.points} | {mine.median:.0%} | {mine.p90:.0%} |")
    return "\n".join(lines)


def report(cal: Calibration, cv: CrossValidation, path: Path) -> str:
    """The whole text report: sources, constants, held-out error and the targets."""
    groups = Counter(row.point.group for row in cv.rows)
    unestimated = [row.point.point for row in cv.rows if row.relative_error is None]
    lines = [
        f"{path}: {len(cv.rows)} benchmark points from {len(groups)} independent sources",
        *(f"  {count:4d}  {group}" for group, count in groups.most_common()),
        "",
        "Held-out error (leave one source out: each source estimated with constants fitted without it):",
        report_table(cal, cv),
        "",
    ]
    if len(groups) < 2:
        lines += [
            "With one source, held out it is estimated from no measurement at all (the defaults), so the",
            "table above says nothing about the fit; `--check` compares the rows with the shipped constants.",
            "",
        ]
    for metric in ("decode", "prefill"):
        band = cv.band(metric)
        if band is not None:
            met = band.median <= TARGET_MEDIAN and band.p90 <= TARGET_P90
            lines.append(
                f"{metric}: median {band.median:.0%} (target {TARGET_MEDIAN:.0%}), 90% within {band.p90:.0%} "
                f"(target {TARGET_P90:.0%}): {'met' if met else 'NOT met'}"
            )
    if unestimated:
        lines.append(
            f"{len(unestimated)} point(s) not estimated (no fit in memory or no tensor peak): "
            + ", ".join(unestimated[:8])
            + (" ..." if len(unestimated) > 8 else "")
        )
    lines += ["", "Decode, achieved share of memory bandwidth (class | runtime):"]
    lines += [f"  {key:<32} {value:.2f}" for key, value in sorted(cal.decode_bw_efficiency.items())]
    lines += ["Prefill, achieved share of the tensor peak (architecture | runtime):"]
    lines += [f"  {key:<32} {value:.2f}" for key, value in sorted(cal.prefill_tflops_efficiency.items())]
    lines += [
        f"  on the FP8 peak, {key}: {value:.2f} of the class's share (never below the 16-bit peak's rate)"
        for key, value in sorted(cal.prefill_fp8_factor.items())
    ]
    lines += ["Fixed costs:"]
    lines += [f"  per layer {key:<22} {value * 1e6:.0f} µs" for key, value in sorted(cal.layer_overhead_s.items())]
    lines += [
        f"  per step  {key:<22} {value * 1e3:.2f} ms" + (" beyond its class's" if key in OWN_STEP_COST else "")
        for key, value in sorted(cal.step_overhead_s.items())
    ]
    lines += [f"  per MoE layer {key:<18} {value * 1e6:.0f} µs" for key, value in sorted(cal.moe_layer_s.items())]
    lines += [f"  per hop   {key:<22} {value * 1e3:.2f} ms" for key, value in sorted(cal.hop_s.items())]
    lines += [
        f"  per all-reduce {key:<17} {value * 1e6:.0f} µs" for key, value in sorted(cal.allreduce_latency_s.items())
    ]
    lines += [f"  per row-split matrix {key:<11} {value * 1e6:.1f} µs" for key, value in sorted(cal.row_sync_s.items())]
    lines += [
        f"  per expert pass {key:<16} {value * 1e6:.1f} µs" for key, value in sorted(cal.prefill_expert_s.items())
    ]
    lines += [f"  per request {key:<20} {value * 1e3:.1f} ms" for key, value in sorted(cal.prefill_request_s.items())]
    numa = "not measured" if cal.numa_scaling is None else f"{cal.numa_scaling:.2f}"
    lines.append(f"  a further CPU socket adds this share of its bandwidth: {numa}")
    return "\n".join(lines)


def write_constants(cal: Calibration, folder: Path) -> Path:
    """Store ``cal`` as the package's fitted constants (rounded, stable key order)."""
    data = json.loads(cal.model_dump_json())

    def rounded(value: object) -> object:
        if isinstance(value, float):
            return float(f"{value:.4g}")
        if isinstance(value, dict):
            return {k: rounded(v) for k, v in sorted(value.items())}
        return value

    target = folder / FITTED_FILE
    # Written beside and renamed over: a failed write leaves the shipped constants whole.
    partial = target.with_suffix(".json.partial")
    partial.write_text(json.dumps(rounded(data), indent=1) + "\n", encoding="utf-8")
    os.replace(partial, target)
    return target


def check_writable(path: Path) -> None:
    """Refuse to ship constants fitted on fewer measurements than their error bands need."""
    points = load_points(path)
    sources = len({p.group for p in points})
    if len(points) < MIN_SHIPPED_POINTS or sources < MIN_SHIPPED_SOURCES:
        raise InputError(
            f"{path}: --write refused: {len(points)} points from {sources} sources, and the shipped constants "
            f"are fitted on at least {MIN_SHIPPED_POINTS} points from {MIN_SHIPPED_SOURCES} independent sources "
            "so that their held-out error bands mean something; run without --write to see the fit"
        )
