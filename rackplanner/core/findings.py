"""Findings about a rack: placement, weight, power and network problems, each with its numbers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel

Severity = Literal["error", "warning", "info"]
SEVERITY_ORDER: dict[str, int] = {"error": 0, "warning": 1, "info": 2}


class RackFinding(BaseModel):
    severity: Severity
    code: str
    message: str
    rack: str
    devices: list[str] = []
    # The power scenario a finding belongs to ("normal", "feed-a-failed", ...), if any.
    scenario: str | None = None


def sort_findings(findings: list[RackFinding]) -> list[RackFinding]:
    """Most severe first, keeping the order they were found in within a severity."""
    return sorted(findings, key=lambda f: SEVERITY_ORDER[f.severity])


class RackFindings:
    """Findings about one rack as they are found; ``sorted()`` gives them most severe first."""

    def __init__(self, rack: str) -> None:
        self.rack = rack
        self.items: list[RackFinding] = []

    def add(self, severity: Severity, code: str, message: str, devices: list[str], scenario: str | None = None) -> None:
        self.items.append(
            RackFinding(
                severity=severity, code=code, message=message, rack=self.rack, devices=devices, scenario=scenario
            )
        )

    def sorted(self) -> list[RackFinding]:
        return sort_findings(self.items)


class FindingSummary(BaseModel):
    """One distinct finding and every place it holds (identical servers say the same thing once)."""

    severity: Severity
    code: str
    message: str
    where: list[str]

    @property
    def where_text(self) -> str:
        """'gpu-1', 'gpu-1 and gpu-2', up to four names in full, else 'gpu-1, gpu-2 and 14 more'."""
        names = self.where
        if len(names) <= 4:
            return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        return f"{names[0]}, {names[1]} and {len(names) - 2} more"


def summarize_findings(items: Iterable[tuple[Severity, str, str, str]]) -> list[FindingSummary]:
    """(severity, code, message, where) -> one entry per distinct finding, most severe first, first seen first."""
    merged: dict[tuple[str, str, str], FindingSummary] = {}
    for severity, code, message, where in items:
        entry = merged.get((severity, code, message))
        if entry is None:
            merged[(severity, code, message)] = FindingSummary(
                severity=severity, code=code, message=message, where=[where]
            )
        elif where not in entry.where:
            entry.where.append(where)
    return sorted(merged.values(), key=lambda f: SEVERITY_ORDER[f.severity])
