"""Hardware with too few measured runs of its own to fit a class: how far its estimate is off.

A class (a memory technology for decode, an architecture for prefill) needs
``MIN_CLASS_POINTS`` measured runs before it gets a share of its own; with fewer, the estimate
takes the next wider class's. Held out, letting two points make a class made the error worse
(decode 13.6% to 15.6%, prefill 24.4% to 26.0%, median), so the few runs are not fitted; but
they are measurements of this very hardware, and when they disagree with the wider class the
estimate says so: two RDNA 4 cards' llama.cpp prompts ran at half the speed the GeForce-like
class gives them.
"""

from __future__ import annotations

import statistics
from collections import defaultdict

from rackplanner.core.capacity.calibration import MeasuredPoint, evaluate, hardware_of
from rackplanner.core.capacity.classes import prefill_runtime_classes
from rackplanner.core.capacity.fitted import Calibration, ThinClass, decode_keys, device_key, thin_class_key
from rackplanner.core.catalog.loading import Catalog


def _ratios(groups: dict[str, list[tuple[str, float]]]) -> dict[str, ThinClass]:
    """Per key: the median of measured / estimated, over how many points from how many sources."""
    return {
        key: ThinClass(
            ratio=statistics.median(ratio for _, ratio in pairs),
            points=len(pairs),
            sources=len({source for source, _ in pairs}),
        )
        for key, pairs in sorted(groups.items())
    }


def with_thin_classes(cal: Calibration, points: list[MeasuredPoint], catalog: Catalog) -> Calibration:
    """``cal`` with, on ``points``: its thin classes (measured / estimated over the points whose
    own class was not fitted) and its devices' own runs (the same over the runs of each device
    model and count, by runtime class)."""
    thin: dict[str, list[tuple[str, float]]] = defaultdict(list)
    devices: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for row in evaluate(points, catalog, calibration=cal).rows:
        point = row.point
        if row.estimated is None or row.estimated <= 0:
            continue
        hw = hardware_of(point, catalog)
        metric = point.metric_kind
        ratio = (point.group, point.value / row.estimated)
        devices[device_key(hw, point.runtime, metric)].append(ratio)
        if metric == "decode":
            own, table = decode_keys(hw, point.runtime)[0], cal.decode_bw_efficiency
        else:
            # The architecture's level (the product class splits it further when it has runs).
            own, table = f"{hw.arch}|{prefill_runtime_classes(point.runtime)[0]}", cal.prefill_tflops_efficiency
        if own not in table:
            thin[thin_class_key(hw, point.runtime, metric)].append(ratio)
    return cal.model_copy(update={"thin_classes": _ratios(thin), "device_runs": _ratios(devices)})
