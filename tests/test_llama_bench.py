"""llama-bench's own output checked against the estimate (`rackplanner calibrate BENCH --check
--system ID`): its markdown table as llama.cpp's benches/dgx-spark.md prints it, and its -o
json / jsonl / csv records with llama-bench's field names."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rackplanner.core.capacity.calibration import evaluate
from rackplanner.core.capacity.check_measured import BenchMachine, check_report
from rackplanner.core.capacity.llama_bench import bench_points, format_of, is_llama_bench, model_of, read_bench
from rackplanner.core.catalog.loading import load_catalog
from rackplanner.core.errors import InputError

# An excerpt of ggml-org/llama.cpp benches/dgx-spark.md @4c7e989 (2025-11-02, build 2f68ce7cf):
# a llama-batched-bench table, then llama-bench tables of gpt-oss-20b and Qwen3-Coder-30B-A3B.
EXCERPT = Path(__file__).parent / "data" / "llama-bench" / "dgx-spark-excerpt.md"
CATALOG = load_catalog([Path(__file__).parent.parent / "catalog"])


def test_the_markdown_tables_are_read_and_other_tables_skipped() -> None:
    rows = read_bench(EXCERPT.read_text(encoding="utf-8"), EXCERPT)
    # 10 gpt-oss rows and 4 Qwen3 rows; the batched-bench table has no model/test/t/s header.
    assert len(rows) == 14
    first = rows[0]
    assert (first.model_desc, first.test, first.tokens_per_s) == ("gpt-oss 20B MXFP4 MoE", "pp2048", 3782.76)
    assert (first.params_b, first.gpu_layers, first.ubatch, first.backend) == (20.91, 99, 2048, "CUDA")
    assert first.size_gib == 11.27  # "11.27 GiB": the estimate reads a file this size
    assert rows[-1].test == "tg32 @ d4096" and rows[-1].build == "2f68ce7cf"


def test_rows_become_points_of_the_catalog_model_and_format() -> None:
    rows = read_bench(EXCERPT.read_text(encoding="utf-8"), EXCERPT)
    points, skipped = bench_points(rows, CATALOG, EXCERPT, hardware="dgx-spark", count=1, gpu=False)
    assert not skipped
    by_name = {p.point: p for p in points}
    pp = by_name["gpt-oss-20b mxfp4 pp2048"]
    assert (pp.metric, pp.context, pp.depth, pp.ubatch, pp.value) == ("prefill_tokens_per_s", 2048, 0, 2048, 3782.76)
    # tg32 @ d4096: 32 generated after 4,096 cached, so on average 4,096 + 16 seen.
    tg = by_name["gpt-oss-20b mxfp4 tg32 @ d4096"]
    assert (tg.metric, tg.context, tg.depth) == ("decode_tokens_per_s", 4112, 0)
    deep = by_name["gpt-oss-20b mxfp4 pp2048 @ d4096"]
    assert (deep.context, deep.depth, deep.prompt) == (6144, 4096, 2048)
    # "qwen3moe 30B.A3B Q8_0", 30.53 B: the catalog's Qwen3-30B-A3B (30.532B by its shape).
    assert by_name["qwen3-30b-a3b q8_0 tg32"].value == 60.92


def test_a_prompt_after_a_cached_history_is_estimated_slower() -> None:
    rows = read_bench(EXCERPT.read_text(encoding="utf-8"), EXCERPT)
    points, _ = bench_points(rows, CATALOG, EXCERPT, hardware="dgx-spark", count=1, gpu=False)
    estimated = {r.point.point: r.estimated for r in evaluate(points, CATALOG).rows}
    flat, deep = estimated["gpt-oss-20b mxfp4 pp2048"], estimated["gpt-oss-20b mxfp4 pp2048 @ d32768"]
    assert flat is not None and deep is not None
    # Measured: 3,782.76 at no depth, 1,899.37 after 32,768 cached tokens (0.50x); the
    # estimate's attention over the cached tokens gives it a like slowdown.
    assert 0.35 < deep / flat < 0.65


@pytest.mark.parametrize(
    ("desc", "fmt"),
    [
        # Names as llama.cpp's llama_model_ftype_name writes them.
        ("llama 8B Q4_K - Medium", "q4_k_m"),
        ("llama 8B Q4_K - Small", "q4_k_s"),
        ("llama 70B Q2_K - Medium", "q2_k"),
        ("qwen3 14B Q3_K - Large", "q3_k_l"),
        ("qwen2 7B IQ4_XS - 4.25 bpw", "iq4_xs"),
        ("llama 7B IQ2_XXS - 2.0625 bpw", "iq2_xxs"),
        ("gpt-oss 20B MXFP4 MoE", "mxfp4"),
        ("llama 7B F16", "fp16"),
        ("llama 7B BF16", "bf16"),
        ("llama 7B all F32", "fp32"),
        ("llama 7B Q8_0 (guessed)", "q8_0"),
        ("llama 7B Q4_0_4_4", None),  # an ARM repack the estimate does not size
    ],
)
def test_file_types_read_as_formats(desc: str, fmt: str | None) -> None:
    assert format_of(desc) == fmt


def test_a_parameter_count_of_several_alike_models_picks_one_and_of_unlike_ones_asks() -> None:
    # Llama 3 8B, Llama 3.1 8B and the R1 distill of it share one shape: any gives the estimate.
    found, why = model_of(8.03, CATALOG)
    assert found is not None and found.layers == 32 and why == ""
    found, why = model_of(123.4, CATALOG)
    assert (
        found is None and "no catalog model has 123.40B parameters: give --model (your own with --catalog DIR)" in why
    )


def _records() -> list[dict[str, object]]:
    # Two results with llama-bench's field names (tools/llama-bench: get_fields), as -o json.
    base = {"model_type": "llama 7B Q4_0", "model_n_params": 6738415616, "backends": "CUDA", "n_gpu_layers": 99}
    base |= {"n_ubatch": 512, "type_k": "f16", "split_mode": "layer", "build_commit": "abc1234", "n_depth": 0}
    return [
        base | {"n_prompt": 512, "n_gen": 0, "avg_ts": 12000.5},
        base | {"n_prompt": 0, "n_gen": 128, "avg_ts": 180.25},
    ]


@pytest.mark.parametrize("kind", ["json", "jsonl", "csv"])
def test_json_jsonl_and_csv_output_read_alike(tmp_path: Path, kind: str) -> None:
    records = _records()
    if kind == "json":
        text = json.dumps(records, indent=2)
    elif kind == "jsonl":
        text = "\n".join(json.dumps(r) for r in records)
    else:
        fields = list(records[0])
        text = ",".join(fields) + "\n" + "\n".join(",".join(f'"{r[f]}"' for f in fields) for r in records)
    assert is_llama_bench(text)
    rows = read_bench(text, tmp_path / f"bench.{kind}")
    points, skipped = bench_points(rows, CATALOG, tmp_path, hardware="rtx-4090", count=1)
    assert not skipped
    assert [(p.model, p.format, p.metric, p.context, p.value, p.ubatch) for p in points] == [
        ("llama-2-7b", "q4_0", "prefill_tokens_per_s", 512, 12000.5, None),
        ("llama-2-7b", "q4_0", "decode_tokens_per_s", 64, 180.25, None),
    ]


def test_rows_the_estimate_cannot_take_are_listed_with_why(tmp_path: Path) -> None:
    records = _records()
    records[0] = records[0] | {"n_gpu_layers": 20}  # partial offload
    records[1] = records[1] | {"n_prompt": 512}  # pg512,128: prompt and generation timed together
    rows = read_bench(json.dumps(records), tmp_path / "bench.json")
    points, skipped = bench_points(rows, CATALOG, tmp_path, hardware="rtx-4090", count=1)
    assert points == []
    assert "20 of 32 layers on the GPU (-ngl) is not checked here" in skipped[0]
    assert "not a prompt (pp) or generation (tg) test alone" in skipped[1]


def test_the_check_names_the_machine_it_needs_and_refuses_none_checkable(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="give --gpu ID"):
        check_report(EXCERPT, CATALOG)
    bad = tmp_path / "bench.json"
    bad.write_text(json.dumps([_records()[0] | {"n_gpu_layers": 3}]))
    with pytest.raises(InputError, match="none of its 1 llama-bench result"):
        check_report(bad, CATALOG, machine=BenchMachine(gpu="rtx-4090"))


def test_the_command_checks_the_dgx_spark_excerpt() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "rackplanner", "calibrate", str(EXCERPT), "--check", "--system", "dgx-spark"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    # The measured column repeats the file's t/s (84.10 for gpt-oss-20b tg32).
    line = next(x for x in result.stdout.splitlines() if x.startswith("gpt-oss-20b mxfp4 tg32 "))
    assert line.split()[4] == "84.1"
    assert "14 measurement(s)" in result.stdout
    wrong = subprocess.run(
        [sys.executable, "-m", "rackplanner", "calibrate", str(EXCERPT), "--system", "dgx-spark"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert wrong.returncode == 2 and "they go with --check" in wrong.stderr


def test_early_2024_output_with_spaced_tests_and_a_kv_cache_in_ram() -> None:
    # llama.cpp PR 4812's RTX 3090 Ti table (tests/data/llama-bench/README.md): "pp 512" and
    # "tg 128", and two rows run with the KV cache in system RAM, which the estimate does not model.
    path = EXCERPT.parent / "pr4812-rtx3090ti-nkvo.md"
    rows = read_bench(path.read_text(encoding="utf-8"), path)
    points, skipped = bench_points(rows, CATALOG, path, hardware="rtx-3090-ti", count=1)
    assert [(p.model, p.metric, p.context, p.value) for p in points] == [
        ("llama-2-7b", "prefill_tokens_per_s", 512, 4035.47),
        ("llama-2-7b", "decode_tokens_per_s", 64, 127.43),
    ]
    assert len(skipped) == 2 and all("(-nkvo 1) is not checked here" in line for line in skipped)


def test_a_measurements_csv_that_mentions_avg_ts_in_a_note_is_not_taken_for_llama_bench() -> None:
    header = "point,hardware,count,model,format,runtime,batch,context,metric,value,source,notes"
    row = 'a,rtx-4090,1,llama-2-7b,q4_0,llama.cpp,1,64,decode_tokens_per_s,150,x,"llama-bench avg_ts 150"'
    assert not is_llama_bench(f"{header}\n{row}\n")
    assert is_llama_bench("build_commit,model_type,avg_ts\nabc,llama 7B Q4_0,150\n")
    # The shipped measurements quote llama-bench's field names in four notes.
    assert not is_llama_bench((EXCERPT.parent.parent / "measured.csv").read_text(encoding="utf-8"))


def test_machine_options_with_a_measurements_csv_are_refused() -> None:
    with pytest.raises(InputError, match="are for llama-bench output"):
        check_report(EXCERPT.parent.parent / "measured.csv", CATALOG, machine=BenchMachine(gpu="rtx-4090"))


def test_all_layers_by_minus_one_an_unknown_model_and_an_absurd_speed(tmp_path: Path) -> None:
    records = _records()
    records[0] = records[0] | {"n_gpu_layers": -1}  # newer builds' "every layer"
    records[1] = records[1] | {"avg_ts": 5e12}  # beyond any measured rate: named, not a traceback
    rows = read_bench(json.dumps(records), tmp_path / "bench.json")
    points, skipped = bench_points(rows, CATALOG, tmp_path, hardware="rtx-4090", count=1)
    assert [p.metric for p in points] == ["prefill_tokens_per_s"]
    assert "value" in skipped[0]
    with pytest.raises(InputError, match="did you mean llama-2-7b"):
        bench_points(rows, CATALOG, tmp_path, hardware="rtx-4090", count=1, model="llama-2-7bb")


def test_a_run_whose_log_found_no_gpu_is_not_taken_for_a_gpu_run() -> None:
    # One node's three runs (tests/data/llama-bench/README.md): CPU-only, 10 layers, all layers;
    # the table has no ngl column, but ggml's log before the first says no CUDA device was found.
    path = EXCERPT.parent / "l40s-cpu-partial-full.md"
    rows = read_bench(path.read_text(encoding="utf-8"), path)
    points, skipped = bench_points(rows, CATALOG, path, hardware="l40s", count=1)
    assert len(rows) == 6 and len(points) == 4
    assert all("no GPU was found, so the run was on the CPU" in line for line in skipped)
    # The full offload: 7,788.02 prompt and 104.24 generated tokens/s on the L40S.
    assert [p.value for p in points][-2:] == [7788.02, 104.24]


def test_a_run_far_below_its_estimate_is_named_as_likely_not_what_it_says() -> None:
    # The same node's second run, "10 layers" offloaded by its heading, which its table does not
    # show: 9.53 prompt and 19.83 generated tokens/s, where the full offload on the same L40S ran
    # 7,788.02 and 104.24 (tests/data/llama-bench/README.md).
    path = EXCERPT.parent / "l40s-cpu-partial-full.md"
    report = check_report(path, CATALOG, machine=BenchMachine(gpu="l40s"))
    far = [line for line in report.splitlines() if line.startswith("measured a quarter of the estimate")]
    assert len(far) == 1
    assert "qwen3-8b q5_k_m pp512 (line 22)" in far[0] and "tg128 (line 23)" in far[0]
    # The full-offload rows, 9% and 1% off, are not named.
    assert "line 37" not in far[0] and "line 38" not in far[0]


def test_a_tensor_split_says_how_many_gpus_a_row_ran_on() -> None:
    # Four A30s where "-ts 8,8,0,0" ran as four runs (tests/data/llama-bench/README.md): ts 8.00
    # puts every layer on the first GPU, ts 0.00 is llama.cpp's default split over all four.
    path = EXCERPT.parent / "a30x4-ts-comma-runs.md"
    rows = read_bench(path.read_text(encoding="utf-8"), path)
    points, skipped = bench_points(rows, CATALOG, path, hardware="a30", count=4)
    # The single-GPU table's log found one device, so it is not a four-GPU run.
    assert [line.split(":")[0] for line in skipped] == ["line 12", "line 13"]
    assert [(p.count, p.value) for p in points if p.metric_kind == "decode"] == [
        (1, 75.03),
        (1, 75.21),
        (4, 54.46),
        (4, 54.96),
    ]
    assert points[0].point == "qwen3-8b q5_k_m pp512 on 1 GPU"
    # On one GPU the first table and the ts 8.00 rows are checked; the default split is not.
    points, skipped = bench_points(rows, CATALOG, path, hardware="a30", count=1)
    assert [p.value for p in points if p.metric_kind == "decode"] == [75.44, 75.03, 75.21]
    assert len(skipped) == 4 and all("the log found 4 GPUs" in line for line in skipped)
    # A split over more GPUs than the machine has is named, not estimated on fewer.
    split = dataclasses.replace(rows[2], tensor_split="1.00/1.00/1.00")
    points, skipped = bench_points([split], CATALOG, path, hardware="a30", count=2)
    assert not points and "uses 3 GPUs; --count says 2" in skipped[0]


def test_a_one_gpu_a30_run_is_estimated_on_the_catalog_a30() -> None:
    # The single-A30 table of tests/data/llama-bench/a30x4-ts-comma-runs.md: 2,423.42 prompt and
    # 75.44 generated tokens/s for Qwen3-8B Q5_K_M, a GPU and a run the fit never saw.
    path = EXCERPT.parent / "a30x4-ts-comma-runs.md"
    report = check_report(path, CATALOG, machine=BenchMachine(gpu="a30"))
    decode = [line for line in report.splitlines() if line.startswith("qwen3-8b q5_k_m tg128")]
    assert len(decode) == 3 and all("OUTSIDE" not in line for line in decode)
    assert model_of(1.10, CATALOG, "llama")[0].id == "tinyllama-1.1b"  # geerlingguy's "llama 1B"


def test_sizes_in_mib_and_bytes_and_a_size_no_weights_file_has(tmp_path: Path) -> None:
    records = _records()
    records[0] = records[0] | {"model_size": 3825065984}  # bytes, as -o json gives it: 3.5625 GiB
    records[1] = records[1] | {"model_size": 2_000_000}  # 2 MB for 6.7B weights: refused by name
    rows = read_bench(json.dumps(records), tmp_path / "bench.json")
    points, skipped = bench_points(rows, CATALOG, tmp_path, hardware="rtx-4090", count=1)
    assert [p.weights_gib for p in points] == [3.562]
    assert "bits per weight" in skipped[0]
    table = "| model | size | params | backend | ngl | test | t/s |\n| --- | --: | --: | --- | --: | --: | --: |\n"
    table += "| llama 1B Q4_K - Medium | 636.18 MiB | 1.10 B | Vulkan | 99 | tg128 | 762.37 ± 4.41 |\n"
    assert read_bench(table, tmp_path / "bench.md")[0].size_gib == pytest.approx(636.18 / 1024)


def test_a_model_the_catalog_lacks_is_named_by_its_config(tmp_path: Path) -> None:
    # Strix Halo logs (tests/data/llama-bench/README.md): Qwen3.6-35B-A3B, which the catalog lacks,
    # and llama-2-7b. --config reads the model from its config.json (NVIDIA's NVFP4 checkpoint of
    # the same architecture, tests/data/hf); the llama-2-7b rows are another model and are listed.
    path = EXCERPT.parent / "strix-halo-qwen3.6-35b-a3b-llama2-7b.md"
    config = EXCERPT.parent.parent / "hf" / "qwen3.6-35b-a3b-nvfp4" / "config.json"
    system = "framework-desktop-ryzen-ai-max-395-128gb"
    text = check_report(path, CATALOG, machine=BenchMachine(system=system, config=config))
    assert "4 measurement(s)" in text
    assert "1113.6" in text and "60.4" in text  # the Vulkan run's pp512 and tg128
    assert text.count("6.74B parameters, not ") == 4
    without = check_report(path, CATALOG, machine=BenchMachine(system=system))
    assert "no catalog model has 35.51B parameters" in without


def test_a_log_that_found_more_gpus_than_the_count_is_not_checked_as_fewer(tmp_path: Path) -> None:
    # As on a Raspberry Pi 5 with an RX 7900 XT, whose own V3D iGPU Vulkan also finds
    # (geerlingguy/ai-benchmarks issue 23): llama.cpp split the layers over both.
    text = "ggml_vulkan: Found 2 Vulkan devices:\n"
    text += "| model | size | params | backend | ngl | test | t/s |\n| --- | --: | --: | --- | --: | --: | --: |\n"
    text += "| qwen2 14B Q4_K - Medium | 8.37 GiB | 14.77 B | Vulkan | 99 | tg128 | 7.16 ± 0.15 |\n"
    rows = read_bench(text, tmp_path / "bench.md")
    points, skipped = bench_points(rows, CATALOG, tmp_path, hardware="rx-7900-xt", count=1)
    assert points == [] and "the log found 2 GPUs, and llama.cpp splits over all it finds; --count says 1" in skipped[0]
    # With the count it found, the row is checked: and "qwen2" picks Qwen2.5-14B over Qwen3-14B,
    # which has the same parameter count (14.77B) but another shape.
    points, _ = bench_points(rows, CATALOG, tmp_path, hardware="rx-7900-xt", count=2)
    assert [p.model for p in points] == ["qwen2.5-14b"]


def test_check_marks_rows_beyond_the_measured_runs(tmp_path: Path) -> None:
    # geerlingguy/ai-benchmarks#43 (2025-12-09, build 086a63e3a): TinyLlama 1.1B on an RTX 4090,
    # Vulkan. No llama.cpp GPU run in the calibration data had a model under 3.0B active.
    path = tmp_path / "tinyllama-4090.md"
    path.write_text(
        "| model                          |       size |     params | backend    | ngl |            test |"
        "                  t/s |\n"
        "| ------------------------------ | ---------: | ---------: | ---------- | --: | --------------: |"
        " -------------------: |\n"
        "| llama 1B Q4_K - Medium         | 636.18 MiB |     1.10 B | Vulkan     |  99 |           tg128 |"
        "        762.37 ± 4.41 |\n",
        encoding="utf-8",
    )
    report = check_report(path, CATALOG, machine=BenchMachine(gpu="rtx-4090", model="tinyllama-1.1b"))
    row = next(line for line in report.splitlines() if line.startswith("tinyllama-1.1b q4_k_m tg128"))
    assert row.endswith("OUTSIDE †")
    assert "† beyond what the shipped calibration's runs of that kind covered" in report
    assert "a model this small (1.0B active parameters; the smallest measured had 3.0B)" in report
