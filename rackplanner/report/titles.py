"""The report's section titles (its bookmarks) and the small formats its sections share."""

from __future__ import annotations

from rackplanner.report.pages import ERROR, MUTED, WARNING

COVER = "Summary"
BOM = "Bill of materials"
RACKS = "Rack elevations"
MACHINES = "Machine configurations"
POWER = "Power"
CAPACITY = "Capacity"
FINDINGS = "Findings"
SEVERITY_COLORS = {"error": ERROR, "warning": WARNING, "info": MUTED}


def rate(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f} tokens/s"
