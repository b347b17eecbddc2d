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


def thin_classes(cal: Calibration, points: list[MeasuredPoint], catalog: Catalog) -> dict[str, ThinClass]:
    """Measured / estimated, by thin class, over the points whose own class was not fitted."""
    groups: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for row in evaluate(points, catalog, calibration=cal).rows:
        point = row.point
        if row.estimated is None or row.estimated <= 0:
            continue
        hw = hardware_of(point, catalog)
        metric = point.metric_kind
        if metric == "decode":
            own, table = decode_keys(hw, point.runtime)[0], cal.decode_bw_efficiency
        else:
            # The architecture's level (the product class splits it further when it has runs).
            own, table = f"{hw.arch}|{prefill_runtime_classes(point.runtime)[0]}", cal.prefill_tflops_efficiency
        if own in table:
            continue
        groups[thin_class_key(hw, point.runtime, metric)].append((point.group, point.value / row.estimated))
    return {
        key: ThinClass(
            ratio=statistics.median(ratio for _, ratio in pairs),
            points=len(pairs),
            sources=len({source for source, _ in pairs}),
        )
        for key, pairs in sorted(groups.items())
    }


def device_runs(cal: Calibration, points: list[MeasuredPoint], catalog: Catalog) -> dict[str, ThinClass]:
    """Measured / estimated over the runs of each device model and count, by runtime class."""
    groups: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for row in evaluate(points, catalog, calibration=cal).rows:
        if row.estimated is None or row.estimated <= 0:
            continue
        hw = hardware_of(row.point, catalog)
        groups[device_key(hw, row.point.runtime, row.point.metric_kind)].append(
            (row.point.group, row.point.value / row.estimated)
        )
    return {
        key: ThinClass(
            ratio=statistics.median(ratio for _, ratio in pairs),
            points=len(pairs),
            sources=len({source for source, _ in pairs}),
        )
        for key, pairs in sorted(groups.items())
    }


def with_thin_classes(cal: Calibration, points: list[MeasuredPoint], catalog: Catalog) -> Calibration:
    """``cal`` with its thin classes and its devices' own runs worked out on ``points``."""
    return cal.model_copy(
        update={"thin_classes": thin_classes(cal, points, catalog), "device_runs": device_runs(cal, points, catalog)}
    )
