"""Hostile input to every command: special files, absurd numbers, option combinations, output paths.

Each case runs the real ``rackplanner`` command (in this process, with a time limit) and is
judged by ``tests/hostile.py``: no traceback, no hang, one-line errors, no non-finite number in
any output, strict JSON. The property tests are bounded for CI; ``RACKPLANNER_FUZZ_EXAMPLES=N``
runs N examples of each instead (the README gives the figures of a long run).
"""

from __future__ import annotations

import copy
import json
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rackplanner.core.catalog.loading import BUILTIN_CATALOG_DIR
from tests.conftest import EXAMPLES
from tests.hostile import CORPUS, Outcome, describe, run
from tests.test_robust_fuzz import report

HF = Path(__file__).parent / "data" / "hf"
NETBOX = Path(__file__).parent / "data" / "netbox"
COLO, HOME, SERVER = (str(EXAMPLES / f"{n}.json") for n in ("colo-rack", "home-rig-2x3090", "sys-4028gr-trt2-8gpu"))

EXAMPLES_PER_TEST = int(os.environ.get("RACKPLANNER_FUZZ_EXAMPLES", "40"))
HOSTILE = settings(
    max_examples=EXAMPLES_PER_TEST,
    deadline=None,  # each run has its own time limit (tests/hostile.py)
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# Numbers at and beyond every edge: what catalogs, configs and options get when hand-edited or generated.
NUMBERS = st.sampled_from(
    [0, -1, 1, 2, 3, 7, 64, 1000, 4096, 10**6, 10**9, 10**30, 2**63, 0.5, 1e-300, 1e300, 1e308, -1e-9]
) | st.floats(allow_nan=True, allow_infinity=True)
TEXT = st.sampled_from(["", " ", "nan", "inf", "-inf", "1e400", "0x10", "１２", "12\n34", "💥", "a" * 300])


def _numeric_paths(entry: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(entry, bool):
        return []
    if isinstance(entry, int | float):
        return [path]
    if isinstance(entry, dict):
        return [p for k, v in entry.items() for p in _numeric_paths(v, (*path, k))]
    if isinstance(entry, list):
        return [p for i, v in enumerate(entry[:3]) for p in _numeric_paths(v, (*path, i))]
    return []


def _used_by_examples() -> list[tuple[str, dict[str, Any]]]:
    """Every built-in entry the example plans use, with its kind: hostile figures in them reach every rule."""
    used = set()
    for plan in EXAMPLES.glob("*.json"):
        text = plan.read_text()
        used |= {w.strip('"') for w in text.split() if w.startswith('"') and w.endswith(('",', '"'))}
    found = []
    for path in sorted(BUILTIN_CATALOG_DIR.glob("*.yaml")):
        for entry in yaml.safe_load(path.read_text()) or []:
            if entry["id"] in used or (path.stem == "llm" and entry["id"] in ("llama-3.1-8b", "mixtral-8x7b")):
                found.append((path.stem, json.loads(json.dumps(entry, default=str))))
    return found


USED = _used_by_examples()


def _put(data: Any, path: tuple[Any, ...], value: Any) -> None:
    for step in path[:-1]:
        data = data[step]
    data[path[-1]] = value


def _commands(kind: str, part_id: str, folder: Path) -> list[list[str]]:
    catalog = ["--catalog", str(folder)]
    commands = [
        ["check", COLO, "--json", *catalog],
        ["power", COLO, *catalog],
        ["check", HOME, *catalog],
        ["capacity", HOME, "--json", *catalog],
        ["topo", SERVER, *catalog],
        ["catalog", kind, *catalog],
    ]
    if kind == "gpu":
        commands.append(["estimate", "--gpu", part_id, "--count", "2", "--model", "llama-3.1-8b", "--json", *catalog])
    if kind == "cpu":
        commands.append(["estimate", "--cpu", part_id, "--model", "llama-3.1-8b", *catalog])
    if kind == "llm":
        commands.append(["estimate", "--gpu", "a100-80gb-pcie", "--count", "4", "--model", part_id, *catalog])
    return commands


# How the runs of each property test ended, reported once the module's tests are done.
TALLY: dict[str, Counter[str]] = {}


def tally(name: str, outcomes: list[Outcome]) -> None:
    if os.environ.get("RACKPLANNER_FUZZ_LOG"):
        with open(os.environ["RACKPLANNER_FUZZ_LOG"], "a") as log:
            log.writelines(f"{name}\t{o.status}\t{o.stderr.strip()[:160]}\n" for o in outcomes)
    counts = TALLY.setdefault(name, Counter())
    counts["cases"] += 1
    counts.update(f"exit {o.status}" for o in outcomes)


@pytest.fixture(scope="module", autouse=True)
def _report_tally(request: pytest.FixtureRequest) -> Iterator[None]:
    started = time.monotonic()
    yield
    for name, counts in TALLY.items():
        runs = Counter({k: v for k, v in counts.items() if k != "cases"})
        report(f"{name} ({counts['cases']} cases)", runs, started, lambda *_: None)


# --- numbers in the user's catalog ---------------------------------------------------------------


@HOSTILE
@given(data=st.data())
def test_hostile_numbers_in_user_catalog_entries(
    tmp_path_factory: pytest.TempPathFactory, record_property: Callable[[str, object], None], data: st.DataObject
) -> None:
    """A used part's figure replaced by an absurd one: refused with its field named, or used sanely."""
    kind, original = data.draw(st.sampled_from(USED))
    entry = copy.deepcopy(original)
    paths = _numeric_paths(entry)
    for path in data.draw(st.lists(st.sampled_from(paths), min_size=1, max_size=3)):
        _put(entry, path, data.draw(NUMBERS))
    folder = tmp_path_factory.mktemp("catalog")
    (folder / f"{kind}.yaml").write_text(yaml.safe_dump([entry]))
    outcomes = [run(args) for args in _commands(kind, entry["id"], folder)]
    tally("catalog numbers", outcomes)
    assert all(o.ok for o in outcomes), describe(outcomes)
    skipped = [o for o in outcomes if f"entry 0 ({entry['id']})" in o.stderr]
    # A refused entry is named with its file and field, and the command goes on with the built-in part.
    assert all("(entry skipped)" in o.stderr and o.status == 0 for o in skipped), describe(skipped)


# --- special and huge files ----------------------------------------------------------------------


def _special_files(tmp_path: Path) -> dict[str, Path]:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    loop = tmp_path / "loop.json"
    loop.symlink_to(loop)
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "nowhere.json")
    sparse = tmp_path / "huge.json"
    with sparse.open("wb") as handle:
        handle.truncate(5 * 1024**3)  # 5 GB of nothing, instantly
    binary = tmp_path / "binary.json"
    binary.write_bytes(bytes(range(256)) * 16)
    newline = tmp_path / "two\nlines.json"
    newline.write_text("{")
    return {
        "/dev/zero": Path("/dev/zero"),
        "/dev/urandom": Path("/dev/urandom"),
        "a named pipe": fifo,
        "a folder": tmp_path,
        "a loop of links": loop,
        "a dangling link": dangling,
        "a 5 GB file": sparse,
        "random bytes": binary,
        "a name with a newline": newline,
        "an empty file": Path("/dev/null"),
    }


def _file_commands(path: Path, out: Path) -> list[list[str]]:
    plan = str(path)
    return [
        ["check", plan],
        ["topo", plan, "--json"],
        ["power", plan],
        ["capacity", plan],
        ["export", plan, "--csv", str(out)],
        ["estimate", "--plan", plan, "--model", "llama-3.1-8b"],
        ["estimate", "--gpu", "rtx-4090", "--config", plan, "--json"],
        ["import-netbox", plan, "--dry-run", "--to", str(out.parent)],
    ]


def test_special_and_huge_files_are_refused_at_once(tmp_path: Path) -> None:
    outcomes = []
    for what, path in _special_files(tmp_path).items():
        for args in _file_commands(path, tmp_path / "out.csv"):
            outcome = run(args, seconds=10)
            outcomes.append(outcome)
            assert outcome.status == 2, f"{what}: rackplanner {' '.join(args)} -> {outcome.status} {outcome.stderr}"
    assert all(o.ok for o in outcomes), describe(outcomes)
    # The reason is said, with the file (a newline in its name shown escaped).
    said = {o.stderr.strip() for o in outcomes if o.args[0] == "check"}
    assert "rackplanner: /dev/zero: is a character device, not a plan file" in said
    assert f"rackplanner: {tmp_path}/pipe.json: is a named pipe, not a plan file" in said
    assert f"rackplanner: {tmp_path}: is a folder, not a plan file" in said
    assert (
        f"rackplanner: {tmp_path}/huge.json: 5,368.7 MB is more than a plan file may be (32.0 MB); "
        "is it the right file?" in said
    )
    assert any(r"two\nlines.json: not valid JSON" in line for line in said)
    assert not (tmp_path / "out.csv").exists()


def test_special_files_in_a_user_catalog_are_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "catalog"
    folder.mkdir()
    os.mkfifo(folder / "gpu.yaml")
    (folder / "cpu.yaml").symlink_to("/dev/zero")
    (folder / "psu.yaml").write_bytes(b"\xff\xfe- id: x")
    outcome = run(["check", HOME, "--catalog", str(folder)], seconds=10)
    assert outcome.ok and outcome.status == 0, describe([outcome])
    warnings = outcome.stderr.splitlines()
    assert f"rackplanner: warning: {folder}/gpu.yaml: is a named pipe, not a catalog file (file skipped)" in warnings
    assert f"rackplanner: warning: {folder}/cpu.yaml: is a character device, not a catalog file (file skipped)" in (
        warnings
    )
    assert any(f"{folder}/psu.yaml: not UTF-8 text (byte 0xff at offset 0)" in w for w in warnings)


# --- command-line options -------------------------------------------------------------------------

# Mostly figures an option can take, then every kind of figure it cannot.
OPTION_VALUES = st.integers(min_value=1, max_value=200_000).map(str) | NUMBERS.map(str) | TEXT


@HOSTILE
@given(data=st.data())
def test_estimate_options_in_any_combination(data: st.DataObject) -> None:
    args = ["estimate"]
    # Weighted towards questions that can be answered, so most runs reach the estimate itself.
    hardware = data.draw(st.sampled_from(["gpu"] * 4 + ["cpu", "plan", "plan", "none", "both"]))
    if hardware in ("gpu", "both"):
        gpus = ["rtx-4090", "rtx-3090", "h100-sxm", "mi300x", "a100-80gb-pcie", "tesla-p40", "rtx-4090 ", "nope"]
        args += ["--gpu", data.draw(st.sampled_from(gpus))]
        args += ["--count", data.draw(OPTION_VALUES)] if data.draw(st.booleans()) else []
    if hardware in ("cpu", "both"):
        args += ["--cpu", data.draw(st.sampled_from(["epyc-9654", "epyc-9654", "xeon-e5-2680-v4", ""]))]
        args += ["--sockets", data.draw(OPTION_VALUES)] if data.draw(st.booleans()) else []
    if hardware == "plan":
        args += ["--plan", data.draw(st.sampled_from([HOME, COLO, SERVER]))]
        if data.draw(st.booleans()):
            args += ["--machine", data.draw(st.sampled_from(["gpu-1", "nope", "", "💥"]))]
    model = data.draw(st.sampled_from(["--model"] * 3 + ["--config", "--config", "neither"]))
    if model == "--model":
        models = ["llama-3.1-8b", "llama-3.1-70b", "deepseek-v3", "mixtral-8x7b", "qwen3-30b-a3b", "gpt-oss-20b", "x"]
        args += ["--model", data.draw(st.sampled_from(models))]
    elif model == "--config":
        args += ["--config", str(data.draw(st.sampled_from(sorted(HF.glob("*/config.json")))))]
    for option in ("--batch", "--context", "--prompt"):
        if data.draw(st.integers(0, 3)) == 0:
            args += [option, data.draw(OPTION_VALUES)]
    if data.draw(st.booleans()):
        args += ["--format", data.draw(st.sampled_from(["q4_k_m", "fp16", "nf4-dq", "gptq-int4-g32", "q9", ""]))]
    if data.draw(st.booleans()):
        args += ["--runtime", data.draw(st.sampled_from(["llama.cpp", "vllm", "tensorrt-llm", "vllm-pp", "ollama"]))]
    if data.draw(st.booleans()):
        args += ["--kv-cache", data.draw(st.sampled_from(["fp16", "fp8", "q8_0", "q4_0", "int3"]))]
    if data.draw(st.booleans()):
        args.append("--json")
    outcome = run(args)
    tally("estimate options", [outcome])
    assert outcome.ok, describe([outcome])


@HOSTILE
@given(
    command=st.sampled_from(["check", "topo", "power", "capacity", "catalog"]),
    value=OPTION_VALUES,
    as_json=st.booleans(),
)
def test_other_commands_with_odd_options(command: str, value: str, as_json: bool) -> None:
    args = {
        "check": ["check", COLO],
        "topo": ["topo", SERVER, "--machine", value],
        "power": ["power", COLO, "--rack", value],
        "capacity": ["capacity", COLO, "--machine", "gpu-1", "--context", value, "--runtime", "vllm"],
        "catalog": ["catalog", "--search", value],
    }[command] + (["--json"] if as_json else [])
    outcome = run(args)
    tally("other options", [outcome])
    assert outcome.ok, describe([outcome])


# --- Hugging Face configs and NetBox device types ------------------------------------------------------


@HOSTILE
@given(data=st.data())
def test_hostile_model_configs(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    source = data.draw(st.sampled_from(sorted(HF.glob("*/config.json"))))
    config = json.loads(source.read_text())
    keys = [k for k, v in config.items() if isinstance(v, int | float) and not isinstance(v, bool)]
    for key in data.draw(st.lists(st.sampled_from(keys), min_size=1, max_size=3)):
        config[key] = data.draw(NUMBERS | st.none() | TEXT)
    path = tmp_path_factory.mktemp("hf") / "config.json"
    path.write_text(json.dumps(config))
    outcome = run(["estimate", "--gpu", "h100-sxm", "--count", "8", "--config", str(path), "--json"])
    tally("model configs", [outcome])
    assert outcome.ok, describe([outcome])
    assert outcome.status in (0, 2)
    if outcome.status == 2:
        assert outcome.stderr.startswith(f"rackplanner: {path}: "), outcome.stderr


@HOSTILE
@given(data=st.data())
def test_hostile_netbox_device_types(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    source = data.draw(st.sampled_from(sorted(NETBOX.glob("*.yaml"))))
    device = yaml.safe_load(source.read_text())
    places = _numeric_paths(device) + [(k,) for k in device if isinstance(device[k], str)]
    for place in data.draw(st.lists(st.sampled_from(places), min_size=1, max_size=3)):
        _put(device, place, data.draw(NUMBERS | TEXT | st.none()))
    folder = tmp_path_factory.mktemp("netbox")
    path = folder / "device.yaml"
    path.write_text(yaml.safe_dump(device, allow_unicode=True))
    extra = data.draw(st.sampled_from([[], ["--current", "32"], ["--voltage", "nan"], ["--as", "pdu"]]))
    outcome = run(["import-netbox", str(path), "--dry-run", "--json", *extra])
    tally("netbox device types", [outcome])
    assert outcome.ok, describe([outcome])


# --- output paths -------------------------------------------------------------------------------------


def test_output_paths_that_cannot_be_written(tmp_path: Path) -> None:
    (tmp_path / "report.pdf").mkdir()
    cases = {
        "a folder": (tmp_path / "report.pdf", "it is a folder; give a file name"),
        "no such folder": (tmp_path / "no" / "x.csv", f"the folder {tmp_path}/no does not exist"),
        "a device": (Path("/dev/full"), "it is not a regular file; give a file name"),
        "a read-only file system": (Path("/proc/rackplanner.csv"), "cannot write: "),
    }
    outcomes = []
    for what, (path, reason) in cases.items():
        option = "--pdf" if path.suffix == ".pdf" else "--csv"
        outcome = run(["export", COLO, option, str(path)])
        outcomes.append(outcome)
        assert outcome.status == 1, f"{what}: {outcome.stderr}"
        assert outcome.stderr.startswith(f"rackplanner: {path}: cannot write: ") and reason in outcome.stderr, what
    assert all(o.ok for o in outcomes), describe(outcomes)
    assert Path("/dev/full").is_char_device()  # refused, not replaced by a file


def test_export_through_a_symlink_writes_the_file_it_points_to(tmp_path: Path) -> None:
    real = tmp_path / "real.csv"
    real.write_text("old")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    outcome = run(["export", COLO, "--csv", str(link)])
    assert outcome.ok and outcome.status == 0, describe([outcome])
    assert link.is_symlink() and real.read_text().startswith("group_kind,")


# --- strict JSON from every command ----------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["check", COLO, "--json"],
        ["check", HOME, "--json"],
        ["topo", SERVER, "--json"],
        ["power", COLO, "--json"],
        ["catalog", "--json"],
        ["capacity", HOME, "--json"],
        ["estimate", "--gpu", "rtx-3090", "--count", "2", "--model", "llama-3.1-70b", "--json"],
        ["estimate", "--cpu", "epyc-9654", "--sockets", "2", "--model", "mixtral-8x7b", "--format", "q8_0", "--json"],
        ["import-netbox", str(NETBOX / "pdu-one-leg.yaml"), "--dry-run", "--current", "30", "--json"],
        ["export", COLO, "--csv", "{tmp}/bom.csv", "--json"],
        ["check", "/dev/zero", "--json"],
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_every_json_output_is_strict_json(args: list[str], tmp_path: Path) -> None:
    outcome = run([a.replace("{tmp}", str(tmp_path)) for a in args])
    assert outcome.ok, describe([outcome])
    data = json.loads(outcome.stdout)
    assert data is not None
    if outcome.status:
        assert data == {"error": outcome.stderr.strip().removeprefix("rackplanner: "), "exit_status": outcome.status}


# --- impossible parts -------------------------------------------------------------------------------


def test_impossible_parts_are_findings_or_refusals(tmp_path: Path) -> None:
    plan = json.loads(Path(HOME).read_text())
    machine = plan["machines"][0]
    machine["cards"] = [
        {"slot": "pciex16-g5-1", "part": "samsung-990-pro-2tb"},
        {"slot": "m2-1", "part": "rtx-3090"},
    ]
    machine["bridges"] = []
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan))
    checked = run(["check", str(path), "--json"])
    codes = [(f["code"], f["severity"], f["slots"]) for f in json.loads(checked.stdout)["findings"]]
    # The M.2 drive in the x16 slot and the GPU in the M.2 socket (home-rig-2x3090.json's slots).
    assert ("slot-kind", "error", ["pciex16-g5-1"]) in codes and ("slot-kind", "error", ["m2-1"]) in codes

    mixtral = json.loads((HF / "mixtral-8x7b" / "config.json").read_text())
    mixtral["num_experts_per_tok"] = 9  # Mixtral 8x7B has 8 experts
    experts = tmp_path / "experts.json"
    experts.write_text(json.dumps(mixtral))
    refused = run(["estimate", "--gpu", "h100-sxm", "--config", str(experts)])
    assert refused.status == 2
    assert refused.stderr == f"rackplanner: {experts}: num_experts_per_tok 9 is more than the 8 experts there are\n"

    deepseek = json.loads((HF / "deepseek-v3" / "config.json").read_text())
    deepseek["first_k_dense_replace"] = 61  # DeepSeek-V3 has 61 layers
    dense = tmp_path / "dense.json"
    dense.write_text(json.dumps(deepseek))
    refused = run(["estimate", "--gpu", "h100-sxm", "--count", "8", "--config", str(dense)])
    assert refused.stderr == f"rackplanner: {dense}: first_k_dense_replace 61 leaves no MoE layer of the 61 layers\n"


# --- the corpus of cases found so far ----------------------------------------------------------------


def _corpus() -> list[Path]:
    return sorted(CORPUS.glob("*.json"))


@pytest.mark.parametrize("case", _corpus(), ids=lambda p: p.stem)
def test_corpus_case(case: Path, tmp_path: Path) -> None:
    """A case that once failed: its files are written out, its command run, and it must end well."""
    spec = json.loads(case.read_text())
    for name, content in spec.get("files", {}).items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content if isinstance(content, str) else yaml.safe_dump(content))
    args = [a.replace("{tmp}", str(tmp_path)).replace("{examples}", str(EXAMPLES)) for a in spec["args"]]
    outcome = run(args)
    assert outcome.ok, describe([outcome])
    assert outcome.status == spec["status"], outcome.stderr
    if "stderr" in spec:
        assert outcome.stderr.strip() == spec["stderr"].replace("{tmp}", str(tmp_path))


# --- a memory ceiling ---------------------------------------------------------------------------------

# Address space a command may use on the worst input: the normal working set (a check of the colo
# plan runs within 100 MB) and a few hundred MB more.
CEILING_MB = 400


def _worst_inputs(tmp_path: Path) -> dict[str, list[str]]:
    folder = tmp_path / "catalog"
    folder.mkdir()
    # Just under the line cap of a user catalog file: the pure-Python YAML loader's worst case.
    lines = [f"- id: x{i}" if i % 6 == 0 else f"  k{i % 6}: {i}" for i in range(99_000)]
    (folder / "gpu.yaml").write_text("\n".join(lines))
    bomb = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"] + [
        f"a{n}: &a{n} [*a{n - 1}, *a{n - 1}, *a{n - 1}, *a{n - 1}, *a{n - 1}, *a{n - 1}, *a{n - 1}, *a{n - 1}]"
        for n in range(1, 9)
    ]
    (folder / "cpu.yaml").write_text("\n".join(bomb))
    many = tmp_path / "many-machines.json"
    many.write_text(
        json.dumps({"schema_version": 2, "name": "x", "machines": [{"id": f"m{i}"} for i in range(49_000)]})
    )
    values = tmp_path / "many-values.json"
    values.write_text('{"schema_version": 2, "name": "x", "notes": [' + "{}," * 1_999_000 + "{}]}")
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 900_000 + "]" * 900_000)
    long_notes = tmp_path / "long-notes.json"
    long_notes.write_text(json.dumps({"schema_version": 2, "name": "x", "notes": "a" * 30_000_000}))
    config = json.loads((HF / "llama-3.1-8b" / "config.json").read_text())
    config.update(hidden_size=1_000_000, num_attention_heads=1_000, vocab_size=10_000_000, num_hidden_layers=10_000)
    huge_model = tmp_path / "huge-model.json"
    huge_model.write_text(json.dumps(config))
    return {
        "a user catalog at its caps": ["check", HOME, "--catalog", str(folder)],
        "49,000 bad machines": ["check", str(many)],
        "two million JSON values": ["check", str(values)],
        "900,000 levels of nesting": ["check", str(deep)],
        "30 MB of notes": ["check", str(long_notes)],
        "an absurd model shape": ["estimate", "--gpu", "h100-sxm", "--config", str(huge_model), "--json"],
    }


def test_worst_inputs_stay_under_a_memory_ceiling(tmp_path: Path) -> None:
    import resource
    import subprocess
    import sys

    limit = CEILING_MB * 1024 * 1024

    def ceiling() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    for what, args in _worst_inputs(tmp_path).items():
        result = subprocess.run(
            [sys.executable, "-m", "rackplanner", *args],
            preexec_fn=ceiling,
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        )
        errors = [line for line in result.stderr.splitlines() if ": warning: " not in line]
        assert result.returncode in (0, 2), f"{what}: exit {result.returncode}: {result.stderr[-500:]}"
        assert len(errors) <= 1 and "Error" not in result.stderr.replace("error", ""), f"{what}: {result.stderr}"
        if result.returncode == 2:
            assert errors[0].startswith("rackplanner: "), what
