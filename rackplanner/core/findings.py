"""Findings about a rack: placement, weight, power and network problems, each with its numbers."""

from __future__ import annotations

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
