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
        (
            ["--gpu", "rtx-4090", "--model", "llama-3.1-8b", "--runtime", "vllm", "--ubatch", "2048"],
            "--ubatch is llama.cpp's -ub",
        ),
        (["--gpu", "rtx-4090", "--model", "llama-3.1-8b", "--ubatch", "0"], "ubatch must be a whole number"),
        # vLLM's installation docs: compute capability 7.0 or higher; a Tesla P40 is 6.1.
        (
            ["--gpu", "tesla-p40", "--model", "llama-3.1-8b", "--format", "fp16", "--runtime", "vllm"],
            "vLLM runs on NVIDIA GPUs of compute capability 7.0 or later",
        ),
        # Weights a runtime cannot load: these came out at a speed (131 tokens/s for MLX files
        # in llama.cpp) instead of a refusal.
        (["--gpu", "rtx-3090", "--model", "llama-3.1-8b", "--format", "mlx-4bit"], "files are MLX's"),
        (["--gpu", "rtx-3090", "--model", "llama-3.1-8b", "--format", "awq-int4-g128"], "loads GGUF files"),
        (
            ["--gpu", "rtx-3090", "--model", "llama-3.1-8b", "--runtime", "tensorrt-llm", "--format", "q4_k_m"],
            "TensorRT-LLM does not load llama.cpp Q4_K_M",
        ),
        # llama.cpp's caches are ggml types, the servers' FP8 (vLLM's --kv-cache-dtype).
        (["--gpu", "rtx-3090", "--model", "llama-3.1-8b", "--kv-cache", "fp8"], "llama.cpp has no FP8 KV cache"),
        (
            [
                "--gpu",
                "rtx-3090",
                "--model",
                "llama-3.1-8b",
                "--format",
                "bf16",
                "--runtime",
                "vllm",
                "--kv-cache",
                "q8_0",
            ],
            "a q8_0 KV cache is llama.cpp's",
        ),
        (["--system", "dgx-spark", "--count", "2", "--model", "llama-3.1-8b"], "--count goes with --gpu"),
        (["--gpu", "rtx-4090", "--sockets", "2", "--model", "llama-3.1-8b"], "--sockets goes with --cpu"),
        (["--gpu", "rtx-4090", "--model", "llama-3.1-8b", "--format", ""], "unknown weight format ''"),
        (
            ["--gpu", "rtx-4090", "--model", "llama-3.1-8b", "--depth", "1000000000000"],
            "depth must be from 0 to 100,000,000 tokens",
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


def test_a_server_format_on_an_amd_soc_says_it_is_not_checked() -> None:
    # kyuz0/amd-strix-halo-vllm-toolboxes#10: vLLM ran gpt-oss-120b (MXFP4) at 7.9 tokens/s on a
    # Ryzen AI Max+ 395 for want of an MXFP4 MoE kernel on that GPU. The support table covers
    # NVIDIA GPUs only, so the estimate says the format's speed there is not checked.
    result = run(
        "estimate",
        *("--system", "framework-desktop-ryzen-ai-max-395-128gb", "--model", "gpt-oss-120b"),
        *("--format", "mxfp4-bf16", "--runtime", "vllm"),
    )
    assert result.returncode == 0, result.stderr
    assert "at full speed is not checked" in result.stdout
    # llama.cpp's own kernels run it: no such note.
    plain = run("estimate", "--system", "framework-desktop-ryzen-ai-max-395-128gb", "--model", "gpt-oss-120b")
    assert plain.returncode == 0 and "not checked" not in plain.stdout


def test_a_larger_ubatch_reads_the_weights_fewer_times() -> None:
    # llama.cpp -ub: the prompt passes through the model in micro-batches of this many tokens.
    # Each pass reads the weights and launches every expert's kernels once, so gpt-oss-20b's
    # 2,048-token prompt in one pass (llama.cpp#15396 ran -ub 2048) is faster than in four, and
    # the compute buffer grows with the pass: 2048 x (4 x 2880 + 2880) x 4 B for hidden states
    # and the FFN, plus 2048 x 201,088 x 4 B of logits = 1.77 GB.
    args = ["--gpu", "rtx-4090", "--model", "gpt-oss-20b", "--format", "mxfp4", "--prompt", "2048"]
    default = json.loads(run("estimate", *args, "--context", "2048", "--json").stdout)
    one_pass = json.loads(run("estimate", *args, "--context", "2048", "--ubatch", "2048", "--json").stdout)
    assert (default["prompt_pass_tokens"], one_pass["prompt_pass_tokens"]) == (512, 2048)
    assert one_pass["prefill_tokens_per_s"] > default["prefill_tokens_per_s"]
    assert one_pass["decode_tokens_per_s"] == default["decode_tokens_per_s"]
    # (64 vectors of scratch per sequence, constants.ACTIVATION_VECTORS_PER_SEQUENCE, add 0.7 MB.)
    expected_gb = (2048 * (4 * 2880 + 2880) + 2048 * 201088 + 64 * 2880) * 4 / 1e9
    assert one_pass["activations_gb"] == pytest.approx(expected_gb, abs=0.01)
    text = run("estimate", *args, "--context", "2048", "--ubatch", "2048").stdout
    assert "2,048 prompt tokens in passes of 2,048 tokens" in text
    # llama.cpp holds a pass to the context (n_batch <= n_ctx, n_ubatch <= n_batch), so -ub
    # 100000 on a 2,048-token context is a 2,048-token pass: the same buffer, and it fits.
    huge = json.loads(run("estimate", *args, "--context", "2048", "--ubatch", "100000", "--json").stdout)
    assert huge["fits"] and huge["activations_gb"] == pytest.approx(one_pass["activations_gb"], rel=1e-9)
    text = run("estimate", *args, "--context", "2048", "--ubatch", "100000").stdout
    assert "2,048 prompt tokens in passes of 2,048 tokens" in text


def test_every_layer_in_ram_of_unknown_size_is_said_not_checked() -> None:
    # --gpu-layers 0 without a plan: the RAM's size is unknown, and working out the longest
    # context from an unbounded room overflowed (exit 3, an internal error).
    result = run("estimate", "--gpu", "rtx-3090", "--model", "llama-3.1-8b", "--gpu-layers", "0", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["offload_fraction"] == 1.0
    assert data["max_context"] == 131072  # the model's own window (catalog: Llama 3.1 8B)
    assert any("its limits are not checked" in note for note in data["notes"])


def test_offloaded_layers_without_a_machine_say_why_there_is_no_speed() -> None:
    # 2 x RTX 3090 with 60 of Llama 3.1 70B's 80 layers in VRAM fits (25% in system RAM), but
    # without --plan the RAM's bandwidth is unknown: the speed line said "does not fit".
    result = run("estimate", "--gpu", "rtx-3090", "--count", "2", "--model", "llama-3.1-70b", "--format", "q4_k_s",
                 "--gpu-layers", "60")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "Fit: fits" in result.stdout and "does not fit" not in result.stdout
    assert "no speed (the bandwidth of the system RAM holding layers is unknown; give the machine with --plan)" in (
        result.stdout
    )
    # With the home rig's plan (a Ryzen 9 7950X on DDR5) it has one.
    planned = run("estimate", "--plan", str(EXAMPLES / "home-rig-2x3090.json"), "--model", "llama-3.1-70b",
                  "--format", "q4_k_s", "--gpu-layers", "60")  # fmt: skip
    assert "decode, batch 1:" in planned.stdout


def test_the_longest_context_does_not_hang_on_the_batch() -> None:
    # "max context at batch 1" came out at 117,777 with --batch 4096 and 131,072 with
    # --batch 1: the batch's scratch was taken from one sequence's room.
    limits = [
        json.loads(run("estimate", "--gpu", "rtx-3090", "--model", "llama-3.1-8b", "--batch", b, "--json").stdout)
        for b in ("1", "4096")
    ]
    assert limits[0]["max_context"] == limits[1]["max_context"]
    assert limits[0]["max_batch"] == limits[1]["max_batch"]


def test_llama_cpp_cache_types_by_their_own_names() -> None:
    # llama.cpp's -ctk f16 and q4_0: the q4_0 block is 18 bytes per 32 values (ggml), so Llama
    # 3.1 8B's 32 layers x 8 KV heads x 128 x 2 values cache 36 KiB per token.
    f16 = json.loads(
        run("estimate", "--gpu", "rtx-3090", "--model", "llama-3.1-8b", "--kv-cache", "f16", "--json").stdout
    )
    q4 = json.loads(
        run("estimate", "--gpu", "rtx-3090", "--model", "llama-3.1-8b", "--kv-cache", "q4_0", "--json").stdout
    )
    assert f16["model_shape"]["kv_bytes_per_token"] == 32 * 8 * 128 * 2 * 2
    assert q4["model_shape"]["kv_bytes_per_token"] == pytest.approx(32 * 8 * 128 * 2 * 18 / 32)


def test_ram_beyond_the_cpus_maximum_is_said() -> None:
    # Catalog: an EPYC 7742 takes 4,096 GB; 999,999 GB on two was taken without a word.
    result = run("estimate", "--cpu", "epyc-7742", "--sockets", "2", "--ram-gb", "999999", "--model", "llama-3.1-8b")
    assert result.returncode == 0, result.stderr
    assert "999999 GB of RAM is more than 2 x" in result.stdout and "(8192 GB" in result.stdout


def test_an_argument_error_comes_as_json_when_json_is_asked() -> None:
    # argparse's own errors (a non-integer --depth) printed nothing on stdout under --json,
    # where every other error prints {"error": ...}.
    result = run("estimate", "--gpu", "rtx-3090", "--model", "llama-3.1-8b", "--depth", "1.5", "--json")
    assert result.returncode == 2
    data = json.loads(result.stdout)
    assert data["exit_status"] == 2 and "--depth: invalid int value: '1.5'" in data["error"]


def test_an_estimate_says_what_its_hardwares_few_runs_measured() -> None:
    # fitted_constants.json's thin classes: the RX 9070 XT's and R9700's prompts (ROCm
    # scoreboard) ran at about half the estimate's speed, too few to fit RDNA 4 a class.
    out = run("estimate", "--gpu", "rx-9070-xt", "--model", "llama-2-7b", "--format", "q4_0").stdout
    assert "few measurements: 2 published llama.cpp (layer split) prompt runs on RDNA 4 hardware (1 source)" in out
    # An RTX 4090's class is fitted: no such note.
    assert "few measurements" not in run("estimate", "--gpu", "rtx-4090", "--model", "llama-2-7b").stdout
