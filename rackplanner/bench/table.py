"""Timing runs and the table the speed suite prints."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Figure:
    """One measured quantity: its runs (seconds, or MB for memory) and the target it must stay under."""

    section: str
    label: str
    runs: list[float]
    target: float | None = None
    unit: str = "ms"  # "ms" for times (runs in seconds) or "MB"
    note: str = ""

    @property
    def median(self) -> float:
        return statistics.median(self.runs)

    @property
    def worst(self) -> float:
        return max(self.runs)

    def shown(self, value: float) -> str:
        if self.unit == "MB":
            return f"{value:,.0f} MB"
        ms = value * 1000
        return f"{ms:,.0f} ms" if ms >= 100 else f"{ms:.1f} ms"

    @property
    def verdict(self) -> str:
        if self.target is None:
            return ""
        return "ok" if self.median < self.target else "MISSED"


@dataclass
class Report:
    figures: list[Figure] = field(default_factory=list)

    def add(self, figure: Figure) -> Figure:
        self.figures.append(figure)
        print(_row(figure), flush=True)
        return figure

    def find(self, label: str) -> Figure | None:
        return next((f for f in self.figures if f.label == label), None)


def timed(run: Callable[[], object], repeat: int, *, setup: Callable[[], object] | None = None) -> list[float]:
    """Seconds per run of ``run`` (``setup`` runs before each, untimed)."""
    times = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return times


HEADER = f"{'figure':<66} {'median':>10} {'worst':>10} {'target':>10}  "


def _row(figure: Figure) -> str:
    target = figure.shown(figure.target) if figure.target is not None else ""
    text = f"{figure.label:<66} {figure.shown(figure.median):>10} {figure.shown(figure.worst):>10} {target:>10}  "
    text += figure.verdict
    return text + (f"  ({figure.note})" if figure.note else "")


def markdown(report: Report) -> str:
    """The table as Markdown, for the README's Performance section."""
    lines = ["| figure | median | worst | target | |", "|---|---:|---:|---:|---|"]
    for f in report.figures:
        target = f.shown(f.target) if f.target is not None else ""
        lines.append(f"| {f.label} | {f.shown(f.median)} | {f.shown(f.worst)} | {target} | {f.verdict} |")
    return "\n".join(lines)
