"""Unified-memory machines as capacity targets: the pool the GPU may use, at the package's bandwidth."""

from __future__ import annotations

import json

import pytest

from rackplanner.core.capacity import constants as k
from rackplanner.core.capacity.estimate import estimate, get_model
from rackplanner.core.capacity.fitted import current, decode_keys
from rackplanner.core.capacity.hardware import from_machine, from_unified_system
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Board, UnifiedSystem
from rackplanner.core.errors import InputError
from rackplanner.core.plan.files import load_plan
from tests.clihelpers import run_cli
from tests.conftest import EXAMPLES

GIB = k.MEMORY_GB_BYTES / k.GB


def test_the_catalog_has_the_machines_users_compare_against(catalog: Catalog) -> None:
    systems = {s.id: s for s in catalog.of_kind(UnifiedSystem)}
    chips = {s.chip for s in systems.values()}
    assert {"M1 Ultra", "M2 Ultra", "M3 Ultra", "M4 Max", "Ryzen AI Max+ 395", "GB10"} <= chips
    # DGX Spark: 128 GB LPDDR5X at 273 GB/s (NVIDIA's DGX Spark page, catalog entry).
    spark = systems["dgx-spark"]
    assert (spark.memory_gb, spark.mem_bw_gbs) == (128, 273)
    # Strix Halo: 256-bit LPDDR5X-8000 = 256 GB/s (AMD, catalog entries).
    assert systems["framework-desktop-ryzen-ai-max-395-128gb"].mem_bw_gbs == 256


def test_memory_is_the_gpu_share_of_the_pool(catalog: Catalog) -> None:
    # The Framework Desktop's firmware gives the GPU up to 96 of 128 GB (catalog entry's source).
    framework = from_unified_system(catalog, "framework-desktop-ryzen-ai-max-395-128gb")
    assert framework.mem_gb_per_device == pytest.approx(96 * GIB)
    assert framework.host_ram_gb == pytest.approx(128 * GIB)
    # The M3 Ultra 512 GB has no documented limit: the default share is used, and said.
    m3 = from_unified_system(catalog, "mac-studio-m3-ultra-512gb")
    assert m3.mem_gb_per_device == pytest.approx(512 * GIB * k.SOC_GPU_MEMORY_FRACTION)
    assert any("assumed" in a and "75%" in a for a in m3.assumptions)


def test_decode_follows_the_package_bandwidth(catalog: Catalog) -> None:
    llm = get_model(catalog, "llama-3.1-70b")
    spark = estimate(llm, "q4_k_m", from_unified_system(catalog, "dgx-spark"), context=4096)
    ultra = estimate(llm, "q4_k_m", from_unified_system(catalog, "mac-studio-m3-ultra-512gb"), context=4096)
    assert spark.fits and ultra.fits
    # Same model and format: decode follows bandwidth (819 vs 273 GB/s, catalog entries) times the
    # share each class reaches under llama.cpp (two-die LPDDR5 vs LPDDR5X, fitted_constants.json),
    # a little less because each step also pays the runtime's fixed time per token.
    lpddr5 = current().decode_bw_efficiency["LPDDR5 2-die|llama.cpp"]
    lpddr5x = current().decode_bw_efficiency["LPDDR5X|llama.cpp"]
    bound = 819 * lpddr5 / (273 * lpddr5x)
    assert 0.9 * bound < ultra.decode_tokens_per_s / spark.decode_tokens_per_s < bound
    # Weights and KV cache are read once per token at that share: 273 GB/s x LPDDR5X share / ~44 GB.
    read_gb = spark.weights_gb + spark.kv_cache_gb
    assert spark.decode_tokens_per_s == pytest.approx(273 * lpddr5x / read_gb, rel=0.08)


def test_an_ultra_chip_has_its_own_bandwidth_share(catalog: Catalog) -> None:
    # Apple's Ultra chips are two Max dies joined by UltraFusion (catalog sources), and llama.cpp
    # decodes on them at a smaller share of the summed bandwidth: llama.cpp discussion 4167
    # (measured.csv) has Llama 2 7B Q4_0 at 94.27 tokens/s on the M2 Ultra (800 GB/s) and 65.95
    # on the M2 Max (400 GB/s), 1.43 times, not 2.
    max_chip = from_unified_system(catalog, "mac-studio-m2-max-32gb")
    ultra = from_unified_system(catalog, "mac-studio-m2-ultra-192gb")
    assert (max_chip.dies, ultra.dies) == (1, 2)
    assert decode_keys(max_chip, "llama.cpp")[:2] == ["LPDDR5|llama.cpp", "LPDDR|llama.cpp"]
    # The single-die class is not among the Ultra's: neither sets the other's share.
    assert decode_keys(ultra, "llama.cpp")[:2] == ["LPDDR5 2-die|llama.cpp", "LPDDR|llama.cpp"]
    shares = current().decode_bw_efficiency
    assert shares["LPDDR5 2-die|llama.cpp"] < shares["LPDDR5|llama.cpp"]
    llm = get_model(catalog, "llama-2-7b")
    speed = {hw.dies: estimate(llm, "q4_0", hw, context=64).decode_tokens_per_s for hw in (max_chip, ultra)}
    assert 1.3 < speed[2] / speed[1] < 1.7


def test_a_model_larger_than_the_gpu_share_does_not_fit(catalog: Catalog) -> None:
    # Llama 3.1 405B at Q4_K_M is about 245 GB of weights: more than a 128 GB machine holds.
    llm = get_model(catalog, "llama-3.1-405b")
    result = estimate(llm, "q4_k_m", from_unified_system(catalog, "dgx-spark"), context=4096)
    assert not result.fits


def test_estimate_on_a_system_from_the_command_line() -> None:
    done = run_cli("estimate", "--system", "dgx-spark", "--model", "llama-3.1-8b", "--json")
    assert done.returncode == 0
    data = json.loads(done.stdout)
    assert data["hardware"] == "NVIDIA DGX Spark (GB10, 128 GB)" and data["fits"]
    done = run_cli("estimate", "--system", "no-such-box", "--model", "llama-3.1-8b")
    assert done.returncode == 2 and "no-such-box" in done.stderr
    # Fourteen machines are too many to list on one line: the message names the command that does.
    assert "rackplanner catalog unified-system` lists them" in done.stderr


def test_an_unknown_system_is_a_clear_error(catalog: Catalog) -> None:
    with pytest.raises(InputError, match="unified-memory machine"):
        from_unified_system(catalog, "mac-pro-m9")


def test_the_board_limits_a_cpu_estimate(catalog: Catalog) -> None:
    machine = load_plan(EXAMPLES / "home-rig-2x3090.json", catalog).machines[0].model_copy(update={"cards": []})
    # Ryzen 9 7950X: two DDR5-5200 channels (catalog cpu.yaml), DDR5-5600 DIMMs: 2 x 5200 x 8 B = 83.2 GB/s.
    assert from_machine(machine, catalog).mem_bw_gbs_per_device == pytest.approx(83.2)
    proart = catalog.get_as("proart-x670e-creator", Board)
    assert proart is not None
    # A board that lists DDR5-4800 at most, and wires one channel, limits it: 1 x 4800 x 8 B = 38.4 GB/s.
    slower = proart.model_copy(update={"max_memory_speed_mts": 4800, "memory_channels_per_socket": 1})
    limited = Catalog(parts={**catalog.parts, proart.id: slower}, origins=catalog.origins)
    hw = from_machine(machine, limited)
    assert hw.mem_bw_gbs_per_device == pytest.approx(38.4)
    assert any("1 of the CPU's 2 memory channels" in a for a in hw.assumptions)


def test_the_dgx_spark_runs_the_servers_and_a_mac_does_not(catalog: Catalog) -> None:
    # NVIDIA/dgx-spark-playbooks#79 (2026-04-25): nvidia/Llama-3.3-70B-Instruct-NVFP4 in vLLM
    # 0.15.1 on one DGX Spark serves "~4.0-4.2 tok/s end-to-end"; #91 works out a 6.72
    # tokens/s roofline from 40.61 GB a token over 273 GB/s. Not among the fitted points.
    model = get_model(catalog, "llama-3.3-70b")
    spark = from_unified_system(catalog, "dgx-spark")
    est = estimate(model, "nvfp4", spark, runtime="vllm", context=1024, prompt=256, with_training=False)
    assert est.decode_tokens_per_s == pytest.approx(4.1, rel=0.25)
    # No vLLM run on unified memory is among the fitted points: the estimate says its share and
    # error band are other hardware's.
    assert any(n.startswith("no published vLLM (tensor parallel) run on hardware like") for n in est.notes)
    for runtime in ("sglang", "tensorrt-llm"):
        assert estimate(model, "nvfp4", spark, runtime=runtime, with_training=False).fits
    mac = from_unified_system(catalog, "mac-studio-m2-ultra-192gb")
    with pytest.raises(InputError, match="runs on GPUs and NVIDIA's and AMD's unified-memory machines"):
        estimate(model, "q4_k_m", mac, runtime="vllm")
    with pytest.raises(InputError, match=r"choose llama\.cpp"):
        estimate(
            model,
            "q4_k_m",
            from_unified_system(catalog, "framework-desktop-ryzen-ai-max-395-128gb"),
            runtime="tensorrt-llm",
        )


# Llama 2 7B Q4_0 on Macs the calibration has no run of, from llama.cpp discussion 4167's summary
# table as scraped into smoothyy3/willitrun (data/normalized, commit 04cac64, 2026-04): tg128 and
# pp512 tokens/s under Metal.
@pytest.mark.parametrize(
    ("system_id", "tg128", "pp512"),
    [
        ("macbook-pro-m1-pro-32gb", 36.41, 266.25),
        ("macbook-pro-m2-pro-32gb", 38.86, 341.19),
        ("macbook-pro-m3-pro-36gb", 30.74, 341.67),
        ("mac-mini-m4-pro-48gb", 50.74, 439.78),
    ],
)
def test_macs_without_a_measured_run_land_inside_the_stated_band(
    catalog: Catalog, system_id: str, tg128: float, pp512: float
) -> None:
    model = get_model(catalog, "llama-2-7b")
    hw = from_unified_system(catalog, system_id)
    decode = estimate(model, "q4_0", hw, context=64, prompt=64, with_training=False)
    prompt = estimate(model, "q4_0", hw, context=512, prompt=512, with_training=False)
    assert decode.decode_tokens_per_s is not None and decode.decode_error is not None
    assert prompt.prefill_tokens_per_s is not None and prompt.prefill_error is not None
    # Each within the band the estimate states for nine runs in ten.
    assert abs(decode.decode_tokens_per_s / tg128 - 1) <= decode.decode_error.p90
    assert abs(prompt.prefill_tokens_per_s / pp512 - 1) <= prompt.prefill_error.p90
