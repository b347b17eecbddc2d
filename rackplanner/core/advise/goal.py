"""What the user asks of a build: a model at a speed, within a budget, on a circuit or in a rack."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field, model_validator

from rackplanner.core.capacity.cost import CostSettings
from rackplanner.core.catalog.parts import LlmModel
from rackplanner.core.errors import InputError
from rackplanner.core.machine.fit import CONTINUOUS_FRACTION

# A rack's usable height for servers, leaving room for a switch and PDUs' 0U channels.
RACK_UNITS_FOR_SERVERS = 38


class Goal(BaseModel):
    """One model in one format, and the speed, money and power the build must meet."""

    model: LlmModel
    format: str
    context: int = Field(default=4096, ge=1, le=100_000_000)
    # One user's decode speed (tokens/s), or a number of users each at a speed.
    tokens_per_s: float | None = Field(default=None, gt=0, le=1e7)
    users: int | None = Field(default=None, ge=1, le=1_000_000)
    tokens_per_s_per_user: float | None = Field(default=None, gt=0, le=1e6)
    budget_usd: float | None = Field(default=None, gt=0, le=1e10)
    # A wall circuit (volts, amps) the whole build runs on, or a rack's power budget.
    circuit_v: float | None = Field(default=None, gt=0, le=1000)
    circuit_a: float | None = Field(default=None, gt=0, le=1000)
    rack_kw: float | None = Field(default=None, gt=0, le=1000)
    runtime: str | None = None
    allow_used: bool = True
    # Only builds with this many GPUs, and only these kinds of machine (None: any).
    gpu_count: int | None = Field(default=None, ge=1, le=64)
    kinds: frozenset[Literal["workstation", "server", "system"]] | None = None
    cost: CostSettings = Field(default_factory=CostSettings)

    @model_validator(mode="after")
    def _one_target(self) -> Goal:
        if self.tokens_per_s is not None and self.users is not None:
            raise ValueError("give either a speed for one user (--tok-s) or users (--users), not both")
        if (self.circuit_v is None) != (self.circuit_a is None):
            raise ValueError("a circuit needs both volts and amps")
        if self.circuit_v is not None and self.rack_kw is not None:
            raise ValueError("give either a wall circuit or a rack's power, not both")
        return self

    @property
    def circuit_limit_w(self) -> float | None:
        """What the circuit carries continuously: 80% of volts × amps (120 V 15 A: 1,440 W)."""
        if self.circuit_v is None or self.circuit_a is None:
            return None
        return self.circuit_v * self.circuit_a * CONTINUOUS_FRACTION

    @property
    def per_user_tokens_per_s(self) -> float:
        """The speed each user must get (20 tokens/s, about reading speed, when not given)."""
        return self.tokens_per_s_per_user or self.tokens_per_s or 20.0


def parse_circuit(text: str) -> tuple[float, float]:
    """``"120V/15A"`` (also ``"230 V / 16 A"``) as (volts, amps)."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*V\s*/\s*(\d+(?:\.\d+)?)\s*A\s*", text, flags=re.IGNORECASE)
    if match is None:
        raise InputError(f"--circuit {text!r}: write volts and amps as 120V/15A")
    volts, amps = float(match.group(1)), float(match.group(2))
    if not (0 < volts <= 1000 and 0 < amps <= 1000):
        raise InputError(f"--circuit {text!r}: volts and amps must be more than 0 and at most 1,000")
    return volts, amps
