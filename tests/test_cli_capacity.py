"""The estimate and capacity commands, run as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES

HF = Path(__file__).parent / "data" / "hf"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rackplanner", *args], capture_output=True, text=True, timeout=60)


def test_estimate_rtx_4090_llama_3_8b_q4_k_m() -> None:
    result = run("estimate", "--gpu", "rtx-4090", "--model", "llama-3.1-8b", "--format", "q4_k_m")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Fit: fits" in out
    # Weights: 8.03B parameters at 4.89 bits = 4.91 GB; KV cache 4096 x 128 KiB = 0.54 GB.
    assert "weights          4.91 GB" in out
    assert "KV cache         0.54 GB" in out
    assert "decode, batch 1:" in out and "prefill:" in out and "Training" in out


def test_estimate_json_has_the_stable_fields() -> None:
    result = run("estimate", "--gpu", "rtx-3090", "--model", "llama-2-7b", "--format", "q4_0", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    stable = ["fits", "weights_gb", "kv_cache_gb", "total_gb", "decode_tokens_per_s", "prefill_tokens_per_s"]
    assert list(data)[:7] == [*stable, "max_context"]
    assert data["fits"] is True
    # llama-bench on an RTX 3090 measured 120.6 tokens/s for LLaMA 2 7B q4_0 (tests/data/measured.csv);
    # at the default 4,096-token context the estimate is lower but of that order.
    assert 60 < data["decode_tokens_per_s"] < 130
    assert data["kv_cache_gb"] == pytest.approx(524_288 * 4096 / 1e9, rel=1e-6)


def test_estimate_states_the_link_assumption_without_a_plan() -> None:
    result = run("estimate", "--gpu", "rtx-4090", "--count", "2", "--model", "llama-3.1-70b", "--format", "q4_k_m")
    assert result.returncode == 0, result.stderr
    assert "no PCIe P2P" in result.stdout and "PCIe 4.0 x16" in result.stdout
    assert "layer split" in result.stdout


def test_estimate_on_a_plan_machine_and_from_config_json() -> None:
    result = run(
        "estimate",
        "--plan",
        str(EXAMPLES / "home-rig-2x3090.json"),
        "--config",
        str(HF / "mixtral-8x7b" / "config.json"),
        "--format",
        "q4_k_m",
        "--runtime",
        "vllm",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["model"] == "mixtral-8x7b-v0.1"
    assert data["tensor_parallel"] == 2
    assert any("NVLink" in a for a in data["assumptions"])


def test_estimate_on_cpu_sockets() -> None:
    result = run("estimate", "--cpu", "ryzen-9-7950x", "--model", "mixtral-8x7b", "--format", "q8_0", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["fits"] is True and data["training"] is None
    # 2 channels x 5200 MT/s x 8 B = 83.2 GB/s: a few tokens/s for 13B active parameters at 8.5 bits.
    assert 2 < data["decode_tokens_per_s"] < 8


def test_dual_epyc_9005_with_its_ram() -> None:
    result = run(
        "estimate", "--cpu", "epyc-9755", "--sockets", "2", "--ram-gb", "1536",
        "--model", "deepseek-r1", "--format", "q4_k_s", "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    # DeepSeek-V3 Q4_K_S is 354.7 GiB (llama-bench: 355.33 GiB, README): it fits in 1.5 TB.
    assert data["fits"] is True
    # 2 x 12 channels x 6400 MT/s x 8 B = 1,228.8 GB/s peak; 37.6B active at ~4.6 bits is
    # about 21.6 GB a token, so even at full bandwidth decode stays under 57 tokens/s.
    assert 5 < data["decode_tokens_per_s"] < 57


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--gpu", "rtx-4090", "--model", "no-such-model"], "unknown model 'no-such-model'"),
        (["--gpu", "rtx-4090", "--model", "llama-3.1-8b", "--format", "q9_z"], "unknown weight format 'q9_z'"),
        (
            ["--gpu", "rtx-4090", "--model", "llama-3.1-8b", "--batch", "0"],
            "batch must be a whole number from 1 to 1,000,000",
        ),
        (
            ["--gpu", "rtx-4090", "--model", "llama-3.1-8b", "--context", "-1"],
            "context must be a whole number from 1 to 100,000,000",
        ),
        (["--model", "llama-3.1-8b"], "exactly one of --gpu ID, --cpu ID, --system ID or --plan PLAN"),
        (["--gpu", "rtx-4090"], "exactly one of --model ID, --config config.json or --hf"),
        (["--gpu", "nope-gpu", "--model", "llama-3.1-8b"], "unknown GPU 'nope-gpu'"),
        (["--gpu", "rtx-4090", "--config", str(HF / "missing-keys" / "config.json")], "lacks num_hidden_layers"),
        # The catalog has no maximum memory for EPYC 9005 parts: the message names the option.
        (["--cpu", "epyc-9755", "--model", "llama-3.1-8b"], "give the machine's RAM with --ram-gb GB"),
        (["--cpu", "epyc-9755", "--model", "llama-3.1-8b", "--ram-gb", "nan"], "--ram-gb must be more than 0"),
        (["--gpu", "rtx-4090", "--model", "llama-3.1-8b", "--ram-gb", "64"], "--ram-gb goes with --cpu"),
        # MLX runs on Apple silicon only, not on AMD's unified-memory Strix Halo.
        (
            ["--system", "framework-desktop-ryzen-ai-max-395-128gb", "--model", "llama-3.1-8b", "--runtime", "mlx"],
            "MLX (Apple silicon) runs on Apple silicon only",
        ),
        # vLLM's supported-hardware table: no FP8 weights on Volta (compute capability 7.0).
        (
            ["--gpu", "v100-16gb-pcie", "--model", "llama-3.1-8b", "--format", "fp8", "--runtime", "vllm"],
            "compute capability 7.5 or later",
        ),
    ],
)
def test_estimate_bad_input_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = run("estimate", *args)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rackplanner: ") and message in lines[0]


def test_capacity_table_of_a_plan() -> None:
    result = run("capacity", str(EXAMPLES / "home-rig-2x3090.json"))
    assert result.returncode == 0, result.stderr
    line = next(x for x in result.stdout.splitlines() if x.startswith("llama-3.1-8b ") and " q4_k_m " in x)
    assert "-" in line.split()  # held in VRAM, nothing offloaded
    assert not any(x.startswith("llama-3.1-405b ") and " fp16 " in x for x in result.stdout.splitlines())


def test_capacity_json_and_machine_choice() -> None:
    colo = str(EXAMPLES / "colo-rack.json")
    several = run("capacity", colo)
    assert several.returncode == 2 and "give --machine" in several.stderr
    result = run("capacity", colo, "--machine", "gpu-1", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    rows = {(r["model"], r["format"]): r for r in data["rows"]}
    assert ("llama-3.1-70b", "fp16") in rows  # 4 x A100 80GB hold 141 GB of FP16 weights
    assert all(r["fits"] for r in data["rows"])
