"""Cost of ownership: what a machine costs per month and per million tokens, and when
buying it beats renting the same GPUs.

Straight-line amortisation of the purchase over ``amortisation_years``, electricity for the
hours at load (``utilisation``) and at idle, and tokens produced only in the busy hours.
Renting is charged for the busy hours only, so break-even compares like with like.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, Field

HOURS_PER_MONTH = 730.0  # 8,760 hours a year / 12

# US residential average, EIA Electricity Monthly Update with data for April 2024 (released
# 2024-06-26): 16.88 cents/kWh — https://www.eia.gov/electricity/monthly/update/end-use.php
DEFAULT_USD_PER_KWH = 0.1688
ELECTRICITY_SOURCE = "EIA Electricity Monthly Update, US residential average, April 2024: 16.88 ¢/kWh"
# DeepSeek-V3 Technical Report (arXiv 2412.19437, 2024-12-27), Table 1: training cost at an
# assumed rental price of $2 per H800 GPU-hour.
DEFAULT_CLOUD_USD_PER_GPU_HOUR = 2.0
CLOUD_SOURCE = "DeepSeek-V3 Technical Report (2024-12-27): rental at $2 per H800 GPU-hour"
# The default rental price is for a Hopper datacenter GPU; other GPUs need the user's price.
DEFAULT_RENTAL_ARCHITECTURE = "Hopper"


class CostSettings(BaseModel):
    """What the owner pays and how the machine is used (every field a setting)."""

    electricity_usd_per_kwh: float = Field(default=DEFAULT_USD_PER_KWH, ge=0, le=10)
    # Share of the hours the machine works at load; the rest it idles.
    utilisation: float = Field(default=0.5, gt=0, le=1)
    amortisation_years: float = Field(default=3.0, gt=0, le=50)
    # The rental price to break even against; None: the sourced default, for Hopper GPUs only.
    cloud_usd_per_gpu_hour: float | None = Field(default=None, ge=0, le=1000)

    def rental_rate(self, architecture: str | None) -> float | None:
        """The price per GPU-hour of renting a GPU of ``architecture`` (None: unknown)."""
        if self.cloud_usd_per_gpu_hour is not None:
            return self.cloud_usd_per_gpu_hour
        if architecture is not None and architecture.startswith(DEFAULT_RENTAL_ARCHITECTURE):
            return DEFAULT_CLOUD_USD_PER_GPU_HOUR
        return None


class Ownership(BaseModel):
    """Monthly cost, cost per million tokens and break-even against renting."""

    purchase_usd: float
    load_w: float
    idle_w: float | None
    usd_per_month: float
    energy_usd_per_month: float
    amortisation_usd_per_month: float
    usd_per_m_decode_tokens: float | None
    usd_per_m_prefill_tokens: float | None
    cloud_usd_per_month: float | None
    break_even_months: float | None
    notes: list[str] = []


def ownership(
    purchase_usd: float,
    load_w: float,
    *,
    idle_w: float | None,
    decode_tokens_per_s: float | None,
    prefill_tokens_per_s: float | None,
    gpus: int,
    gpu_architecture: str | None = None,
    settings: CostSettings | None = None,
) -> Ownership:
    """Cost of owning a machine bought for ``purchase_usd`` that draws ``load_w`` at the wall."""
    s = settings or CostSettings()
    notes: list[str] = []
    busy_h = HOURS_PER_MONTH * s.utilisation
    idle_h = HOURS_PER_MONTH - busy_h
    if idle_w is None:
        notes.append("idle power unknown, so the idle hours' electricity is not counted")
    energy_kwh = (load_w * busy_h + (idle_w or 0.0) * idle_h) / 1000
    energy = energy_kwh * s.electricity_usd_per_kwh
    amortisation = purchase_usd / (12 * s.amortisation_years)
    total = energy + amortisation
    busy_s = busy_h * 3600

    def per_million(rate: float | None) -> float | None:
        if rate is None or not math.isfinite(rate) or rate <= 0:
            return None
        return total / (rate * busy_s) * 1e6

    rate = s.rental_rate(gpu_architecture)
    cloud = gpus * rate * busy_h if gpus and rate is not None else None
    if gpus and rate is None:
        notes.append("no rental price for these GPUs (the default is for Hopper), so no break-even; give one")
    saving = (cloud - energy) if cloud is not None else None
    break_even = purchase_usd / saving if saving is not None and saving > 0 else None
    if cloud is not None and break_even is None:
        notes.append("renting the same GPUs for the busy hours costs less than the electricity: never breaks even")
    return Ownership(
        purchase_usd=purchase_usd,
        load_w=load_w,
        idle_w=idle_w,
        usd_per_month=total,
        energy_usd_per_month=energy,
        amortisation_usd_per_month=amortisation,
        usd_per_m_decode_tokens=per_million(decode_tokens_per_s),
        usd_per_m_prefill_tokens=per_million(prefill_tokens_per_s),
        cloud_usd_per_month=cloud,
        break_even_months=break_even,
        notes=notes,
    )


def format_ownership(cost: Ownership) -> list[str]:
    """Text lines for reports: "$412/month; $1.20 per M decode tokens; ..."."""

    def money(value: float | None, digits: int = 2) -> str:
        return "unknown" if value is None else f"${value:,.{digits}f}"

    lines = [
        f"${cost.usd_per_month:,.0f}/month ({money(cost.amortisation_usd_per_month, 0)} purchase, "
        f"{money(cost.energy_usd_per_month, 0)} electricity at {cost.load_w:,.0f} W under load)",
        f"{money(cost.usd_per_m_decode_tokens)} per million generated tokens, "
        f"{money(cost.usd_per_m_prefill_tokens, 3)} per million prompt tokens",
    ]
    if cost.cloud_usd_per_month is not None:
        even = "never" if cost.break_even_months is None else f"after {cost.break_even_months:,.1f} months"
        lines.append(f"renting the GPUs instead: {money(cost.cloud_usd_per_month, 0)}/month; buying pays off {even}")
    return lines + [f"note: {n}" for n in cost.notes]
