"""The ranges an estimate's own inputs (counts, batch, context) must be in, checked in one place."""

from __future__ import annotations

from rackplanner.core.errors import InputError

# The most an estimate takes of each: far beyond any machine or cluster, low enough that no
# figure derived from them overflows.
MOST = {"batch": 1_000_000, "context": 100_000_000, "prompt": 100_000_000, "--count": 100_000, "--sockets": 8}


def check_positive(name: str, value: int) -> None:
    """InputError unless ``value`` is a whole number from 1 to its most (``MOST``)."""
    most = MOST.get(name, 1_000_000_000)
    if not 1 <= value <= most:
        shown = f"{value:,}" if abs(value) < 10**15 else f"about {float(value):.1e}"
        raise InputError(f"{name} must be a whole number from 1 to {most:,} (got {shown})")
