"""llama-bench's own output as measured points, so ``rackplanner calibrate BENCH --check
--gpu ID`` checks the estimate against a user's runs as they come: the markdown table
llama-bench prints by default (pasted with whatever surrounds it), or its ``-o csv``,
``-o json`` and ``-o jsonl`` output.

llama-bench names the model by its architecture, size and file type ("llama 8B Q4_K -
Medium", llama.cpp's llama_model_ftype_name) and its parameter count, not by a catalog id: the
model is the catalog's model of that parameter count (several of one shape are alike for the
estimate), the format is read from the file type and sized to the file (llama-bench's size
column), as ``estimate --weights-gib`` does. It does not name the machine in catalog terms,
so the caller gives it.
"""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from rackplanner.core.capacity.calibration import MeasuredPoint
from rackplanner.core.capacity.estimate import get_model
from rackplanner.core.capacity.formats import FORMATS
from rackplanner.core.catalog import llm_shape
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import LlmModel
from rackplanner.core.errors import InputError, describe_validation_error
from rackplanner.core.files import parse_json

# The K-quant mixes' sizes as llama_model_ftype_name writes them ("Q4_K - Medium").
_MIX = {"Small": "_s", "Medium": "_m", "Large": "_l"}
# A test as llama-bench names it: pp512, tg128, pp2048 @ d4096.
_TEST = re.compile(r"^(pp|tg)\s*(\d+)(?:\s*@\s*d(\d+))?$")  # builds of early 2024 wrote "pp 512"
_FIRST_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_NO_GPU = re.compile(r"failed to initialize \w+|no \w+-capable device", re.IGNORECASE)
_GPU_FOUND = re.compile(r"found ([1-9]\d*) \w+ devices?", re.IGNORECASE)
# Parameter-count match: llama-bench's markdown prints the count to 0.01 B.
_PARAMS_TOLERANCE = 0.005
# A row of another model than --model names (a GGUF may leave out a config's MTP layers or
# vision tower, so a few percent apart is still the same model).
_OTHER_MODEL = 0.05


@dataclass(frozen=True)
class BenchRow:
    """One llama-bench result: a prompt (pp) or generation (tg) test of one model."""

    place: str  # where in the output: "line 12", or "result 3" of a JSON list
    model_desc: str  # "llama 8B Q4_K - Medium"
    params_b: float | None
    size_gib: float | None  # the weights file, as llama-bench's size column gives it
    test: str  # "pp512", "tg128 @ d4096"
    tokens_per_s: float
    backend: str = ""
    gpu_layers: int | None = None
    ubatch: int | None = None
    kv_type: str = ""
    split_mode: str = ""
    tensor_split: str = ""  # -ts as llama-bench prints it: "8.00", "1.00/1.00/0.00"
    kv_in_ram: bool = False  # -nkvo 1: the KV cache stays in system RAM
    no_gpu_found: bool = False  # the log above the table says the backend found no GPU
    gpus_found: int | None = None  # "found 2 CUDA devices" in the log above the table
    build: str = ""


def is_llama_bench(text: str) -> bool:
    """Whether ``text`` looks like llama-bench output rather than a measurements CSV."""
    head = text[:20_000]
    stripped = head.lstrip()
    first_line = stripped.split("\n", 1)[0]
    if stripped[:1] in "[{" and stripped:
        return '"avg_ts"' in head
    if "avg_ts" in first_line.replace('"', "").split(","):
        return True  # -o csv: its header names the fields
    return bool(re.search(r"^\s*\|\s*model\s*\|.*\|\s*t/s\s*\|", head, re.MULTILINE))


def read_bench(text: str, path: Path) -> list[BenchRow]:
    """The results in llama-bench output of any of its formats; InputError when none."""
    stripped = text.lstrip()
    if stripped.startswith("["):
        records = _json(stripped, path)
        places = [f"result {n}" for n in range(1, len(records) + 1)] if isinstance(records, list) else []
        rows = _from_records(records, places, path)
    elif stripped.startswith("{"):
        lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
        rows = _from_records([_json(line, path) for _, line in lines], [f"line {n}" for n, _ in lines], path)
    elif "avg_ts" in stripped.split("\n", 1)[0]:
        records = list(csv.DictReader(io.StringIO(stripped, newline="")))
        # Under the header: a CSV record per line from line 2 (llama-bench quotes no newline).
        skipped_lines = text[: len(text) - len(stripped)].count("\n")
        rows = _from_records(records, [f"line {n + 2 + skipped_lines}" for n in range(len(records))], path)
    else:
        rows = _from_markdown(text)
    if not rows:
        raise InputError(f"{path}: no llama-bench results found (a table with model, test and t/s columns)")
    return rows


def _json(text: str, path: Path) -> Any:
    return parse_json(text, origin=str(path), what="llama-bench output")


def _from_records(records: Any, places: list[str], path: Path) -> list[BenchRow]:
    """Rows of -o json / jsonl / csv: one object per test, with n_prompt, n_gen and n_depth."""
    if not isinstance(records, list):
        raise InputError(f"{path}: expected a list of llama-bench results")
    rows = []
    for place, record in zip(places, records, strict=True):
        if not isinstance(record, dict) or "avg_ts" not in record:
            raise InputError(f"{path}: {place} has no avg_ts")
        prompt, gen, depth = (_int(record.get(key)) or 0 for key in ("n_prompt", "n_gen", "n_depth"))
        # A pg test times a prompt and its generation together: not one speed, so not checked.
        test = f"pg{prompt},{gen}" if prompt and gen else f"pp{prompt}" if prompt else f"tg{gen}"
        test += f" @ d{depth}" if depth else ""
        n_params = _number(record.get("model_n_params"))
        size_bytes = _number(record.get("model_size"))
        rows.append(
            BenchRow(
                place=place,
                model_desc=str(record.get("model_type") or ""),
                params_b=n_params / 1e9 if n_params else None,
                size_gib=size_bytes / 2**30 if size_bytes else None,
                test=test,
                tokens_per_s=_number(record.get("avg_ts")) or 0.0,
                backend=str(record.get("backends") or ""),
                gpu_layers=_int(record.get("n_gpu_layers")),
                ubatch=_int(record.get("n_ubatch")),
                kv_type=str(record.get("type_k") or ""),
                split_mode=str(record.get("split_mode") or ""),
                tensor_split=str(record.get("tensor_split") or ""),
                kv_in_ram=record.get("no_kv_offload") in (True, 1, "1", "true"),
                build=str(record.get("build_commit") or ""),
            )
        )
    return rows


def _from_markdown(text: str) -> list[BenchRow]:
    """Rows of every table whose header has model, test and t/s (other tables are skipped)."""
    rows: list[BenchRow] = []
    header: list[str] | None = None
    build = ""
    no_gpu = False
    gpus: int | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.lstrip().startswith("|") else None
        if cells is None:
            header = None if line.strip() else header
            build_line = re.match(r"\s*build:\s*(\S+)", line)
            build = build_line.group(1) if build_line else build
            # ggml's log before a table: "failed to initialize CUDA: no CUDA-capable device is
            # detected" means the run that follows ran on the CPU whatever its backend column says.
            devices = _GPU_FOUND.search(line)
            if _NO_GPU.search(line):
                no_gpu, gpus = True, None
            elif devices:
                no_gpu, gpus = False, int(devices.group(1))
            elif build_line:
                no_gpu = False
            continue
        names = [c.lower() for c in cells]
        if {"model", "test", "t/s"} <= set(names):
            header = names
        elif header and len(cells) == len(header) and not set(cells[0]) <= set("-: "):
            row = dict(zip(header, cells, strict=True))
            rows.append(
                BenchRow(
                    place=f"line {number}",
                    model_desc=row["model"],
                    params_b=_number(row.get("params")),
                    size_gib=_gib(row.get("size")),
                    test=row["test"],
                    tokens_per_s=_number(row["t/s"]) or 0.0,
                    backend=row.get("backend", ""),
                    gpu_layers=_int(row.get("ngl")),
                    ubatch=_int(row.get("n_ubatch")),
                    kv_type=row.get("type_k", ""),
                    split_mode=row.get("sm", ""),
                    tensor_split=row.get("ts", ""),
                    kv_in_ram=row.get("nkvo", "0") not in ("0", ""),
                    no_gpu_found=no_gpu,
                    gpus_found=gpus,
                    build=build,
                )
            )
    return rows


def _number(value: object) -> float | None:
    """The first number in a cell ("4488.84 ± 15.37"); None for none, or an infinite one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    else:
        found = _FIRST_NUMBER.search(str(value or ""))
        number = float(found.group()) if found else math.nan
    return number if math.isfinite(number) else None


def _gib(text: str | None) -> float | None:
    """GiB of llama-bench's "11.27 GiB" or "636.18 MiB"."""
    number = _number(text)
    unit = (text or "").split()[-1:] or [""]
    scale = {"gib": 1.0, "mib": 1 / 1024, "tib": 1024.0}.get(unit[0].lower())
    return number * scale if number and scale else None


def _int(value: object) -> int | None:
    number = _number(value)
    return int(number) if number is not None and number == int(number) else None


def format_of(model_desc: str) -> str | None:
    """The weight format of llama-bench's model text: "llama 8B Q4_K - Medium" -> q4_k_m,
    "gpt-oss 20B MXFP4 MoE" -> mxfp4, "qwen2 7B IQ4_XS - 4.25 bpw" -> iq4_xs."""
    words = model_desc.replace(" (guessed)", "").split()
    if len(words) < 3:
        return None
    ftype = " ".join(words[2:])
    if ftype == "all F32":
        return "fp32"
    name, _, size = ftype.partition(" - ")
    kind = name.split()[0].lower().replace("iq2_xss", "iq2_xxs")
    kind = {"f16": "fp16", "f32": "fp32"}.get(kind, kind)
    if size in _MIX and kind + _MIX[size] in FORMATS:
        kind += _MIX[size]  # Q2_K - Medium is plain q2_k: no q2_k_m
    return kind if kind in FORMATS else None


def _same_shape(a: LlmModel, b: LlmModel) -> bool:
    keys = ("layers", "hidden_size", "intermediate_size", "kv_heads", "head_dim", "vocab_size", "moe_experts")
    return all(getattr(a, key) == getattr(b, key) for key in keys)


def _letters(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def model_of(params_b: float | None, catalog: Catalog, arch: str = "") -> tuple[LlmModel | None, str]:
    """The catalog model of llama-bench's parameter count (and, between models of one count
    but different shapes, of its architecture name: "qwen2" for Qwen2.5, "qwen3" for Qwen3),
    or None and why not."""
    if params_b is None:
        return None, "the output gives no parameter count: give --model"
    models = [p for p in catalog.parts.values() if isinstance(p, LlmModel)]
    near = [m for m in models if abs(llm_shape.parameter_count_b(m) - params_b) <= _PARAMS_TOLERANCE * params_b]
    if not near:
        return None, f"no catalog model has {params_b:.2f}B parameters: give --model (your own with --catalog DIR)"
    named = [m for m in near if arch and _letters(m.family).startswith(_letters(arch))]
    for group in (near, named):
        if group and all(_same_shape(group[0], m) for m in group[1:]):
            return group[0], ""
    ids = ", ".join(m.id for m in near)
    return None, f"{params_b:.2f}B parameters fits several catalog models of different shapes ({ids}): give --model"


def source_place(point: MeasuredPoint, path: Path) -> str:
    """Where in llama-bench's output at ``path`` a point came from ("line 12")."""
    return point.source.removeprefix(f"{path} ")


def gpus_used(row: BenchRow) -> int | None:
    """How many GPUs a row's split puts layers on: one for -sm none, else the nonzero shares of
    -ts ("8.00" alone puts every layer on the first GPU); None where llama.cpp splits over every
    GPU it finds (no -ts, or all shares zero)."""
    if row.split_mode.strip().lower() == "none":
        return 1
    shares = [_number(share) for share in row.tensor_split.replace(",", "/").split("/") if share.strip()]
    nonzero = sum(1 for share in shares if share)
    return nonzero or None


def bench_points(
    rows: list[BenchRow],
    catalog: Catalog,
    path: Path,
    *,
    hardware: str,
    count: int,
    model: str | None = None,
    runtime: str = "llama.cpp",
    gpu: bool = True,
) -> tuple[list[MeasuredPoint], list[str]]:
    """Measured points of llama-bench rows on ``count`` x ``hardware`` (GPUs when ``gpu``),
    and a line for each row that is not checked, saying why."""
    points, skipped = [], []
    for row in rows:
        label = f"{row.place}: {row.model_desc} {row.test}"
        test = _TEST.match(row.test.replace("\u00a0", " "))
        if test is None:
            skipped.append(f"{label}: not a prompt (pp) or generation (tg) test alone")
            continue
        if gpu and row.no_gpu_found:
            skipped.append(f"{label}: the log above the table says no GPU was found, so the run was on the CPU")
            continue
        used = gpus_used(row) if gpu else None
        if used is not None and used > count:
            skipped.append(f"{label}: its split (ts {row.tensor_split}) uses {used} GPUs; --count says {count}")
            continue
        if gpu and used is None and row.gpus_found and row.gpus_found != count:
            found_note = f"the log found {row.gpus_found} GPUs, and llama.cpp splits over all it finds"
            skipped.append(f"{label}: {found_note}; --count says {count}")
            continue
        if row.kv_in_ram:
            skipped.append(f"{label}: a KV cache kept in system RAM (-nkvo 1) is not checked here")
            continue
        kind, tokens, depth = test.group(1), int(test.group(2)), int(test.group(3) or 0)
        fmt = format_of(row.model_desc)
        if fmt is None:
            skipped.append(f"{label}: file type not known here")
            continue
        arch = row.model_desc.split(" ", 1)[0]
        found, why = (get_model(catalog, model), "") if model else model_of(row.params_b, catalog, arch)
        if found is None:
            skipped.append(f"{label}: {why}")
            continue
        counted = llm_shape.parameter_count_b(found)
        if model and row.params_b and abs(row.params_b - counted) > _OTHER_MODEL * counted:
            skipped.append(f"{label}: {row.params_b:.2f}B parameters, not {found.id}'s {counted:.2f}B")
            continue
        # -ngl -1 (newer builds' "all") and 99 put every layer on the GPU.
        if gpu and row.gpu_layers is not None and 0 <= row.gpu_layers < found.layers:
            skipped.append(f"{label}: {row.gpu_layers} of {found.layers} layers on the GPU (-ngl) is not checked here")
            continue
        if row.tokens_per_s <= 0:
            skipped.append(f"{label}: no speed")
            continue
        kv = {"f16": "fp16", "f32": "fp32"}.get(row.kv_type.lower(), row.kv_type.lower()) or "fp16"
        try:
            point = MeasuredPoint(
                point=f"{found.id} {fmt} {row.test}"
                + (f" on {used} GPU{'s' if used > 1 else ''}" if used and used != count else ""),
                hardware=hardware,
                count=used or count,
                model=found.id,
                format=fmt,
                runtime="llama.cpp-row" if row.split_mode == "row" else runtime,
                batch=1,
                # A generation test's tokens see, on average, half of what it generates.
                context=depth + (tokens if kind == "pp" else max(tokens // 2, 1)),
                depth=depth if kind == "pp" else 0,
                metric="prefill_tokens_per_s" if kind == "pp" else "decode_tokens_per_s",
                value=row.tokens_per_s,
                source=f"{path} {row.place}",
                backend=row.backend,
                runtime_version=row.build,
                kv_cache=kv,
                ubatch=row.ubatch if row.ubatch and row.ubatch != 512 else None,
                weights_gib=round(row.size_gib, 3) if row.size_gib else None,
            )
            point.weight_format(found)  # a size no weights file has is named here
        except ValidationError as exc:
            skipped.append(f"{label}: {describe_validation_error(exc)}")
            continue
        except InputError as exc:
            skipped.append(f"{label}: {exc}")
            continue
        points.append(point)
    return points, skipped
