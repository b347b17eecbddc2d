"""What the calibration's measured runs covered, by metric, hardware band and runtime class:
the models' active parameters, the longest context and the largest batch. Worked out when the
constants are fitted and shipped with them; measured_range.py says when an estimate is outside."""

from __future__ import annotations

from collections import defaultdict

from rackplanner.core.capacity.calibration import MeasuredPoint, hardware_of
from rackplanner.core.capacity.estimate import get_model
from rackplanner.core.capacity.fitted import Calibration, MeasuredRange
from rackplanner.core.capacity.measured_range import range_key, size_b
from rackplanner.core.catalog.loading import Catalog


def measured_ranges(points: list[MeasuredPoint], catalog: Catalog) -> dict[str, MeasuredRange]:
    """What the benchmark runs (the ones the error bands are held out on) covered, by class."""
    groups: dict[str, list[tuple[float, int, int, str, str]]] = defaultdict(list)
    for point in points:
        if point.is_report:
            continue
        hw = hardware_of(point, catalog)
        key = range_key(point.metric_kind, hw, point.runtime)
        size = size_b(get_model(catalog, point.model))
        groups[key].append((size, point.context, point.batch, point.group, hw.vendor))
    return {
        key: MeasuredRange(
            min_active_params_b=min(r[0] for r in runs),
            max_active_params_b=max(r[0] for r in runs),
            max_context=max(r[1] for r in runs),
            max_batch=max(r[2] for r in runs),
            points=len(runs),
            sources=len({r[3] for r in runs}),
            makers=sorted({r[4] for r in runs}),
        )
        for key, runs in sorted(groups.items())
    }


def with_measured_ranges(cal: Calibration, points: list[MeasuredPoint], catalog: Catalog) -> Calibration:
    """``cal`` with what ``points`` covered."""
    return cal.model_copy(update={"measured_ranges": measured_ranges(points, catalog)})
