"""Training memory, time and reliability: known answers from the seeds and Korthikanti et al."""

from __future__ import annotations

import pytest

from rackplanner.core.capacity.estimate import get_model
from rackplanner.core.capacity.hardware import from_gpu
from rackplanner.core.capacity.shape import active_params
from rackplanner.core.capacity.training import (
    activation_bytes_per_layer,
    adamw_bytes,
    interruptions_per_day,
    state_bytes_per_param,
    time_to_train_s,
    training_limits,
)
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.errors import InputError


@pytest.mark.parametrize(("params_b", "gb"), [(7, 126), (34, 612), (175, 3150)])
def test_adamw_needs_18_bytes_per_parameter(params_b: float, gb: float) -> None:
    # 000_2736fecfd42346e5.txt: 7B -> 126 GB, 34B -> 612 GB, 175B -> 3150 GB.
    assert adamw_bytes(params_b * 1e9) / 1e9 == pytest.approx(gb)


def test_llama3_interruptions_per_day_for_16k_gpus() -> None:
    # 003_fdb6d644ec457317.txt: 419 interruptions (148 GPU failures) in 54 days on 16,384 H100s.
    interrupts, gpu_failures = interruptions_per_day(16_384)
    assert interrupts == pytest.approx(419 / 54)
    assert round(interrupts, 2) == 7.76
    assert gpu_failures == pytest.approx(148 / 54)
    # A 64-GPU cluster: 64 x 419 / (16,384 x 54) = 0.0303 per day, about one a month.
    assert interruptions_per_day(64)[0] == pytest.approx(0.03031, rel=1e-3)


def test_korthikanti_activation_formula_by_hand() -> None:
    # GPT-3 175B layer: s=2048, b=1, h=12288, a=96. sbh = 25,165,824.
    # No recomputation: sbh (34 + 5 a s / h) = sbh x 114; selective: 34 sbh; full: 2 sbh.
    assert activation_bytes_per_layer(2048, 1, 12288, 96, "none") == 2048 * 12288 * 114
    assert activation_bytes_per_layer(2048, 1, 12288, 96, "selective") == 34 * 2048 * 12288
    assert activation_bytes_per_layer(2048, 1, 12288, 96, "full") == 2 * 2048 * 12288
    # Tensor parallelism with sequence parallelism divides by t.
    assert activation_bytes_per_layer(2048, 1, 12288, 96, "none", tp=8) == 2048 * 12288 * 114 / 8


def test_zero_stages_shard_the_18_bytes() -> None:
    # 2 fp16 weights + 4 fp32 grads + 4 master + 8 moments; 8 GPUs.
    assert state_bytes_per_param("ddp", 8) == 18
    assert state_bytes_per_param("zero-1", 8) == pytest.approx(2 + 4 + 12 / 8)
    assert state_bytes_per_param("zero-2", 8) == pytest.approx(2 + 16 / 8)
    assert state_bytes_per_param("fsdp", 8) == pytest.approx(18 / 8)
    with pytest.raises(InputError):
        state_bytes_per_param("fsdp", 0)


def test_limits_on_one_rtx_4090(catalog: Catalog) -> None:
    limits = training_limits(get_model(catalog, "llama-3.1-8b"), from_gpu(catalog, "rtx-4090"))
    assert limits is not None
    by_method = {m.method: m for m in limits.methods}
    assert not by_method["ddp"].fits  # 8B x 18 bytes = 145 GB
    assert by_method["qlora"].fits
    # Largest full fine-tune: (24 GiB - 0.8 GB) / 18 bytes = 1.39B parameters.
    assert by_method["ddp"].largest_params_b == pytest.approx((24 * 2**30 / 1e9 - 0.8) / 18)
    assert by_method["qlora"].largest_params_b > by_method["lora"].largest_params_b > 5


def test_fsdp_across_a_rack_of_machines(catalog: Catalog) -> None:
    model = get_model(catalog, "llama-3.1-70b")
    hw = from_gpu(catalog, "a100-80gb-pcie", 8)
    one_node = training_limits(model, hw)
    four_nodes = training_limits(model, hw, gpus=32)
    assert one_node is not None and four_nodes is not None
    fsdp = {m.method: m for m in four_nodes.methods}["fsdp"]
    assert fsdp.largest_params_b == pytest.approx(4 * {m.method: m for m in one_node.methods}["fsdp"].largest_params_b)
    assert four_nodes.interruptions_per_day == pytest.approx(32 * 419 / (16_384 * 54))


def test_time_to_train_is_6_params_tokens_over_flops(catalog: Catalog) -> None:
    model = get_model(catalog, "llama-2-7b")
    # 6 x active params x 1e9 tokens / (8 x 312 TFLOP/s x 0.4).
    expected = 6 * active_params(model) * 1e9 / (8 * 312e12 * 0.4)
    assert time_to_train_s(model, 1e9, 8 * 312, 0.4) == pytest.approx(expected)
    # Llama 2 7B reads 6.61B parameters per token (6.74B less the 131M embedding table).
    assert active_params(model) / 1e9 == pytest.approx(6.607, rel=1e-3)
    with pytest.raises(InputError):
        time_to_train_s(model, 0, 100)
