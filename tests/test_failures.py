"""Failure budget of a training run: Llama 3's interruption rates, Young/Daly and goodput."""

from __future__ import annotations

import math

import pytest

from rackplanner.core.capacity.failures import CHECKPOINT_BYTES_PER_PARAM, failure_budget, format_failure_budget


def test_the_llama3_run_is_reproduced() -> None:
    # The Llama 3 Herd of Models, Table 5: 419 unexpected interruptions in 54 days on 16,384
    # H100s (2,048 hosts): one every 3.1 hours.
    budget = failure_budget(16_384, 2_048, 405e9 * CHECKPOINT_BYTES_PER_PARAM)
    assert budget.interruptions_per_day == pytest.approx(419 / 54)
    assert budget.mtbf_hours == pytest.approx(54 * 24 / 419)
    assert budget.by_cause["GPU HBM3 memory"] == pytest.approx(72 / 54)
    # 405B x 14 bytes = 5.67 TB at the run's 2 TB/s: 2.8 s a checkpoint.
    assert budget.checkpoint_s == pytest.approx(405e9 * 14 / 2e12)
    # Young/Daly: sqrt(2 delta M) - delta.
    mtbf_s = 54 * 86_400 / 419
    assert budget.checkpoint_interval_s == pytest.approx(
        math.sqrt(2 * budget.checkpoint_s * mtbf_s) - budget.checkpoint_s
    )
    # Meta reported more than 90% effective training time for the run.
    assert 0.90 < budget.goodput < 0.95


def test_a_single_machine_scales_down_per_gpu_and_per_host() -> None:
    budget = failure_budget(8, 1, 70e9 * CHECKPOINT_BYTES_PER_PARAM)
    # GPU-side causes scale with 8 of 16,384 GPUs, the CPU's 2 with 1 of 2,048 hosts.
    gpu_side = (419 - 2) / 54 * 8 / 16_384
    host_side = 2 / 54 / 2_048
    assert budget.interruptions_per_day == pytest.approx(gpu_side + host_side)
    # One host writes at the run's rate per host, 2 TB/s / 2,048: 980 GB takes about 17 minutes.
    assert budget.checkpoint_s == pytest.approx(70e9 * 14 / (2e12 / 2_048))
    assert budget.goodput > 0.98
    assert "Young/Daly" in format_failure_budget(budget)
