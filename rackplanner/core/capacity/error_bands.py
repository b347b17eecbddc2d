"""The held-out error the estimate states beside each speed ("typically ±12%, 90% within
±30%"), per metric and hardware class, and per chip maker within a class.

A maker's software stack (CUDA, ROCm, Metal) sets how far runs on its chips stray from the
estimate, so a maker with enough held-out runs in a class has a band of its own. It is never
narrower than its class's: a subgroup's error, read off fewer sources, understates how far
runs it has not seen stray, so a maker's band only ever widens the class's.
"""

from __future__ import annotations

from rackplanner.core.capacity.fit import MIN_CLASS_POINTS, CrossValidation
from rackplanner.core.capacity.fitted import Calibration, ErrorBand

CLASSES = ("gpu-hbm", "gpu-gddr", "unified", "cpu")
MIN_MAKER_POINTS = 10  # a maker's band in a class is read off its held-out points alone


def maker_bands(cv: CrossValidation, metric: str) -> dict[str, ErrorBand]:
    """Each class-of-maker key ("gpu-hbm|amd") with enough held-out points: its own error."""
    found = {}
    for key in sorted({keys[0] for keys in cv.bands}):
        band = cv.band(metric, key)
        if band is not None and band.points >= MIN_MAKER_POINTS:
            found[key] = band
    return found


def with_error_bands(cal: Calibration, cv: CrossValidation) -> Calibration:
    """``cal`` carrying the cross-validated error of each metric and hardware class, and of
    each class's makers whose runs stray further than the class's."""
    bands: dict[str, ErrorBand] = {}
    for metric in ("decode", "prefill"):
        for band in (None, *CLASSES):
            found = cv.band(metric, band)
            if found is not None and found.points >= MIN_CLASS_POINTS:
                bands[f"{metric}|{band or 'all'}"] = found
        for key, own in maker_bands(cv, metric).items():
            whole = bands.get(f"{metric}|{key.split('|')[0]}")
            if whole is None:
                bands[f"{metric}|{key}"] = own
            elif own.median > whole.median or own.p90 > whole.p90:
                wider = ErrorBand(points=own.points, median=max(own.median, whole.median), p90=max(own.p90, whole.p90))
                bands[f"{metric}|{key}"] = wider
    return cal.model_copy(update={"error_bands": bands})
