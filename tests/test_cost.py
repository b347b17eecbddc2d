"""Cost of ownership: amortisation, electricity, $ per million tokens and break-even."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rackplanner.core.capacity.cost import HOURS_PER_MONTH, CostSettings, ownership
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Board, Gpu
from rackplanner.core.catalog.slot_rules import card_slot_problem


def test_monthly_cost_and_cost_per_token() -> None:
    settings = CostSettings(electricity_usd_per_kwh=0.20, utilisation=0.5, amortisation_years=3)
    cost = ownership(
        3600, 1000, idle_w=100, decode_tokens_per_s=100, prefill_tokens_per_s=2000, gpus=0, settings=settings
    )
    # $3,600 over 36 months; 365 busy hours at 1 kW and 365 idle at 0.1 kW, at $0.20/kWh.
    assert cost.amortisation_usd_per_month == pytest.approx(100)
    assert cost.energy_usd_per_month == pytest.approx((365 * 1.0 + 365 * 0.1) * 0.20)
    # 100 tokens/s over 365 busy hours is 131.4 million tokens a month.
    assert cost.usd_per_m_decode_tokens == pytest.approx((100 + 80.3) / 131.4)
    assert cost.usd_per_m_prefill_tokens == pytest.approx((100 + 80.3) / (131.4 * 20))
    assert cost.cloud_usd_per_month is None and cost.break_even_months is None


def test_break_even_against_renting_hopper_gpus() -> None:
    # The default rental price: $2 per H800 GPU-hour (DeepSeek-V3 technical report, Table 1).
    cost = ownership(
        250_000, 10_000, idle_w=None, decode_tokens_per_s=None, prefill_tokens_per_s=None,
        gpus=8, gpu_architecture="Hopper (GH100)",
    )  # fmt: skip
    busy_h = HOURS_PER_MONTH * 0.5
    assert cost.cloud_usd_per_month == pytest.approx(8 * 2.0 * busy_h)
    energy = 10 * busy_h * 0.1688  # EIA US residential average, April 2024
    assert cost.break_even_months == pytest.approx(250_000 / (8 * 2.0 * busy_h - energy))
    assert "idle power unknown" in cost.notes[0]


def test_no_break_even_without_a_rental_price_for_the_gpu() -> None:
    cost = ownership(
        1500, 450, idle_w=20, decode_tokens_per_s=100, prefill_tokens_per_s=None,
        gpus=1, gpu_architecture="Ampere (GA102)",
    )  # fmt: skip
    assert cost.break_even_months is None and cost.usd_per_m_prefill_tokens is None
    assert any("no rental price" in n for n in cost.notes)
    priced = ownership(
        1500, 450, idle_w=20, decode_tokens_per_s=100, prefill_tokens_per_s=None, gpus=1,
        gpu_architecture="Ampere (GA102)", settings=CostSettings(cloud_usd_per_gpu_hour=0.22),
    )  # fmt: skip
    assert priced.cloud_usd_per_month == pytest.approx(0.22 * HOURS_PER_MONTH * 0.5)


def test_estimate_json_carries_the_cost_of_ownership() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "rackplanner", "estimate", "--gpu", "rtx-4090", "--model", "llama-3.1-8b", "--json"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    data = json.loads(result.stdout)
    # catalog/prices: RTX 4090 launch price $1,599; its 450 W board power at the wall.
    assert data["purchase"]["price_usd"] == 1599 and data["purchase"]["load_w"] == 450
    assert data["ownership"]["amortisation_usd_per_month"] == pytest.approx(1599 / 36)
    assert data["ownership"]["usd_per_m_decode_tokens"] > 0


def test_an_sxm_module_fits_only_its_generation_of_bay(catalog: Catalog) -> None:
    dgx1 = catalog.get_as("dgx-1-v100", Board)
    hgx = catalog.get_as("hgx-h100-8gpu", Board)
    h100, v100 = catalog.get_as("h100-sxm", Gpu), catalog.get_as("v100-32gb-sxm2", Gpu)
    assert dgx1 and hgx and h100 and v100
    old_bay = next(s for s in dgx1.slots if s.kind == "sxm")
    new_bay = next(s for s in hgx.slots if s.kind == "sxm")
    assert card_slot_problem(h100, old_bay) == "H100 SXM5 80GB is an SXM5 module; SXM2 GPU 0 is an SXM2 bay"
    assert card_slot_problem(v100, old_bay) is None and card_slot_problem(h100, new_bay) is None
    # H200 names no generation: Hopper's baseboard modules are SXM5.
    h200 = catalog.get_as("h200-sxm", Gpu)
    assert h200 and card_slot_problem(h200, new_bay) is None and card_slot_problem(h200, old_bay) is not None
