"""Fuzzing the plan and catalog loaders with hypothesis.

Every generated file either loads (into a plan that saves and loads back unchanged and holds
exactly what the file said, or into catalog parts) or is refused with an ``InputError`` whose
message starts with the file's path; never another exception, a hang or a quietly altered
plan. Each test prints how many cases it ran and how they ended, and attaches the counts to
the JUnit report (``record_property``).
"""

from __future__ import annotations

import copy
import json
import time
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rackplanner.core.catalog.loading import BUILTIN_CATALOG_DIR, Catalog, load_catalog_file
from rackplanner.core.catalog.parts import PART_KINDS
from rackplanner.core.errors import InputError
from rackplanner.core.plan.files import check_references, load_plan, plan_to_json
from rackplanner.core.plan.model import SCHEMA_VERSION, Plan

PLANS = Path(__file__).parent / "data" / "plans"
EXAMPLES = Path(__file__).resolve().parent.parent / "resources" / "examples"

# Bounded so that the whole file runs in well under a minute on two cores; the deadline
# (per case) catches anything that starts to take long.
# Derandomized: CI runs the same cases every time, so a failure is reproducible; explore new
# ones with `pytest tests/test_robust_fuzz.py --hypothesis-seed=N`.
FUZZ = settings(
    max_examples=250,
    deadline=5000,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


class RobustnessReport(UserWarning):
    """How many fuzz cases ran and how they ended, shown in the warnings summary."""


def report(name: str, outcomes: Counter[str], started: float, record: Callable[[str, object], None]) -> None:
    total = sum(outcomes.values())
    counts = ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
    line = f"{name}: {total} cases in {time.monotonic() - started:.1f} s ({counts})"
    print("\n" + line)
    record(f"{name}_cases", total)
    record(f"{name}_outcomes", dict(outcomes))
    warnings.warn(RobustnessReport(line), stacklevel=2)


# --- values and mutations ----------------------------------------------------------------

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)
HUGE = st.sampled_from([10**20, -(10**20), 2**63, 2**64 + 1, 10**400, 1e308, -1e308, 5e-324, 1e400])
ODD_TEXT = st.sampled_from(
    [
        "",
        " ",
        "\u202egnp.exe",
        "\u200b",
        "rtx-3090\u200b",
        "RTX-3090",
        "ｒｔｘ",
        "💥" * 50,
        "\ud800",
        "a" * 5000,
        "\x00",
    ]
) | st.text(min_size=1, max_size=30)
MUTATIONS = ("delete", "replace", "huge", "negative", "unicode", "nest", "duplicate")

Loc = tuple[int | str, ...]


def locations(data: Any, loc: Loc = ()) -> list[Loc]:
    """Every place in a JSON-like tree, as a path of keys and indexes."""
    found = [loc]
    if isinstance(data, dict):
        for key, value in data.items():
            found.extend(locations(value, (*loc, key)))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            found.extend(locations(value, (*loc, i)))
    return found


def get(data: Any, loc: Loc) -> Any:
    for step in loc:
        data = data[step]
    return data


def put(data: Any, loc: Loc, value: Any) -> Any:
    if not loc:
        return value
    get(data, loc[:-1])[loc[-1]] = value
    return data


def mutate(draw: Callable[..., Any], original: Any) -> Any:
    """One to three random mutations of a document: the kinds of damage files get."""
    data = copy.deepcopy(original)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        places = locations(data)
        kind = draw(st.sampled_from(MUTATIONS))
        loc = draw(st.sampled_from(places))
        value = get(data, loc)
        if kind == "delete":
            keyed = [p for p in places if p and isinstance(get(data, p[:-1]), dict)]
            if keyed:
                target = draw(st.sampled_from(keyed))
                del get(data, target[:-1])[target[-1]]
        elif kind == "replace":
            data = put(data, loc, draw(JSON_VALUES))
        elif kind == "huge":
            data = put(data, loc, draw(HUGE))
        elif kind == "negative":
            numbers = [
                p for p in places if isinstance(get(data, p), int | float) and not isinstance(get(data, p), bool)
            ]
            if numbers:
                target = draw(st.sampled_from(numbers))
                data = put(data, target, draw(st.sampled_from([-1, 0, -abs(get(data, target)) - 1])))
        elif kind == "unicode":
            texts = [p for p in places if isinstance(get(data, p), str)]
            if texts:
                data = put(data, draw(st.sampled_from(texts)), draw(ODD_TEXT))
        elif kind == "nest":
            for _ in range(draw(st.integers(min_value=1, max_value=60))):
                value = [value]
            data = put(data, loc, value)
        elif kind == "duplicate":
            lists = [p for p in places if isinstance(get(data, p), list) and get(data, p)]
            if lists:
                target = get(data, draw(st.sampled_from(lists)))
                target.append(copy.deepcopy(draw(st.sampled_from(target))))
    return data


# --- plans -------------------------------------------------------------------------------


def seed_plans() -> list[dict[str, Any]]:
    paths = sorted(EXAMPLES.glob("*.json")) + sorted(PLANS.glob("v1-*.json"))
    return [json.loads(p.read_text(encoding="utf-8")) for p in paths]


SEED_PLANS = seed_plans()


def holds(given_data: Any, loaded: Any) -> bool:
    """Everything the file said is in the loaded plan, unchanged (defaults may fill the rest)."""
    if isinstance(given_data, dict):
        return isinstance(loaded, dict) and all(k in loaded and holds(v, loaded[k]) for k, v in given_data.items())
    if isinstance(given_data, list):
        return (
            isinstance(loaded, list)
            and len(given_data) == len(loaded)
            and all(holds(a, b) for a, b in zip(given_data, loaded, strict=True))
        )
    return (type(given_data) is type(loaded) and given_data == loaded) or (
        isinstance(given_data, int)
        and isinstance(loaded, float)
        and not isinstance(given_data, bool)
        and _as_float(given_data) == loaded
    )


def _as_float(value: int) -> float | None:
    try:
        return float(value)
    except OverflowError:
        return None


def check_plan_file(path: Path, catalog: Catalog, data: Any | None) -> str:
    """Load ``path``; it must be refused with an InputError naming the file, or be a sound plan."""
    try:
        plan = load_plan(path, catalog)
    except InputError as exc:
        message = str(exc)
        assert message.startswith(f"{path}: "), message
        assert "\n" not in message and len(message) < 1000, message
        return "refused"
    text = plan_to_json(plan)
    assert Plan.model_validate_json(text, strict=True) == plan
    assert check_references(plan, catalog) == []
    if isinstance(data, dict) and data.get("schema_version") == SCHEMA_VERSION:
        assert holds(data, json.loads(text)), "the plan differs from what the file says"
    return "loaded"


def write_json(path: Path, data: Any, ascii_only: bool) -> None:
    path.write_text(json.dumps(data, ensure_ascii=ascii_only), encoding="utf-8", errors="surrogatepass")


def test_fuzz_random_json_plans(
    catalog: Catalog, tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    outcomes: Counter[str] = Counter()
    started = time.monotonic()
    top = st.fixed_dictionaries(
        {"schema_version": st.sampled_from([1, 2, 3, 0, -1, "2", True, 2.0, None, 10**40])},
        optional={
            "name": JSON_VALUES,
            "machines": JSON_VALUES,
            "rows": JSON_VALUES,
            "racks": JSON_VALUES,
            "feeds": JSON_VALUES,
            "user_prices": JSON_VALUES,
            "outlet_assignments": JSON_VALUES,
            "notes": JSON_VALUES,
        },
    )

    @FUZZ
    @given(data=JSON_VALUES | top, ascii_only=st.booleans())
    def case(data: Any, ascii_only: bool) -> None:
        path = tmp_path / "random.json"
        write_json(path, data, ascii_only)
        outcomes[check_plan_file(path, catalog, data)] += 1

    case()
    report("plan_random_json", outcomes, started, record_property)
    assert outcomes["refused"] > 0


def test_fuzz_mutated_example_plans(
    catalog: Catalog, tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    outcomes: Counter[str] = Counter()
    started = time.monotonic()

    @FUZZ
    @given(data=st.data(), seed=st.sampled_from(SEED_PLANS), ascii_only=st.booleans())
    def case(data: st.DataObject, seed: dict[str, Any], ascii_only: bool) -> None:
        mutated = mutate(data.draw, seed)
        path = tmp_path / "mutated.json"
        write_json(path, mutated, ascii_only)
        outcomes[check_plan_file(path, catalog, mutated)] += 1

    case()
    report("plan_mutations", outcomes, started, record_property)
    # Both ends are reached: some damage is harmless (a deleted default), most is refused.
    assert outcomes["refused"] > 0 and outcomes["loaded"] > 0


def test_fuzz_damaged_plan_bytes(
    catalog: Catalog, tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    """Truncated, overwritten and spliced bytes: what a bad disk or a bad copy leaves."""
    outcomes: Counter[str] = Counter()
    started = time.monotonic()
    originals = [p.read_bytes() for p in sorted(EXAMPLES.glob("*.json"))]

    @FUZZ
    @given(
        original=st.sampled_from(originals),
        cuts=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 64), st.binary(max_size=16)), max_size=4),
    )
    def case(original: bytes, cuts: list[tuple[int, int, bytes]]) -> None:
        damaged = bytearray(original)
        for at, length, replacement in cuts:
            at %= len(damaged) + 1
            damaged[at : at + length] = replacement
        path = tmp_path / "damaged.json"
        path.write_bytes(bytes(damaged))
        outcomes[check_plan_file(path, catalog, None)] += 1

    case()
    report("plan_damaged_bytes", outcomes, started, record_property)
    assert outcomes["refused"] > 0


# --- catalog files -----------------------------------------------------------------------

SEED_KINDS = ("gpu", "board", "server", "pdu", "llm", "nic", "switch", "rack")


def seed_entries() -> dict[str, list[dict[str, Any]]]:
    seeds = {}
    for kind in SEED_KINDS:
        path = BUILTIN_CATALOG_DIR / f"{kind}.yaml"
        entries = yaml.safe_load(path.read_text(encoding="utf-8"))
        seeds[kind] = entries[:6]
    return seeds


SEED_ENTRIES = seed_entries()


def check_catalog_file(path: Path, kind: str) -> str:
    """Strict load: parts or a CatalogError naming the file; lenient load: the same parts, rest listed."""
    problems: list[str] = []
    try:
        parts = load_catalog_file(path, kind)
    except InputError as exc:
        message = str(exc)
        assert message.startswith(f"{path}: "), message
        try:
            lenient = load_catalog_file(path, kind, problems=problems)
        except InputError as file_level:
            # The whole file is unusable (not YAML, not a list): the same message either way.
            assert str(file_level) == message
            return "file refused"
        assert problems and all(p.startswith(f"{path}: entry ") for p in problems), problems
        assert problems[0] == f"{message} (entry skipped)"
        for _, part in lenient:
            assert type(part).model_validate(part.model_dump()) == part
        return "entries skipped"
    for _, part in parts:
        assert type(part).model_validate(part.model_dump()) == part
    assert [p for _, p in load_catalog_file(path, kind, problems=problems)] == [p for _, p in parts]
    assert problems == []
    return "loaded"


def test_fuzz_mutated_catalog_entries(tmp_path: Path, record_property: Callable[[str, object], None]) -> None:
    outcomes: Counter[str] = Counter()
    started = time.monotonic()

    @FUZZ
    @given(data=st.data(), kind=st.sampled_from(SEED_KINDS), unicode=st.booleans())
    def case(data: st.DataObject, kind: str, unicode: bool) -> None:
        entries = data.draw(st.lists(st.sampled_from(SEED_ENTRIES[kind]), min_size=1, max_size=3))
        mutated = mutate(data.draw, entries)
        path = tmp_path / f"{kind}.yaml"
        try:
            text = yaml.safe_dump(mutated, allow_unicode=unicode, sort_keys=False)
        except (yaml.YAMLError, UnicodeEncodeError):
            return
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        outcomes[check_catalog_file(path, kind)] += 1

    case()
    report("catalog_mutations", outcomes, started, record_property)
    assert outcomes["entries skipped"] > 0 and outcomes["loaded"] > 0


YAML_TOKENS = [
    "- ",
    ": ",
    "\n",
    "\n  ",
    "\n- id: x\n  ",
    "&a ",
    "*a",
    "&b [*a, *a, *a, *a, *a, *a, *a, *a]",
    "<<: *a",
    "!!python/object/apply:os.system ['true']",
    "!!python/name:os.system",
    "!!binary aGVsbG8=",
    "!!set {a, b}",
    "!!timestamp 2024-13-45",
    "2024-13-45",
    "2024-02-30 25:61:61",
    "!custom x",
    "%YAML 1.1\n",
    "%TAG ! tag:example.com,2000:\n",
    "---\n",
    "...\n",
    "{",
    "}",
    "[",
    "]",
    "? ",
    "|\n  ",
    ">-\n  ",
    "'",
    '"',
    '"\\ud800"',
    "0x1F",
    "0o17",
    "1_000",
    ".inf",
    ".nan",
    "~",
    "1e400",
    "tdp_w",
    "vram_gb",
    "source",
    "\t",
    "\ufeff",
]


def test_fuzz_yaml_text(tmp_path: Path, record_property: Callable[[str, object], None]) -> None:
    """Random YAML made of the syntax that trips parsers: tags, anchors, directives, bad dates."""
    outcomes: Counter[str] = Counter()
    started = time.monotonic()
    kinds = sorted(PART_KINDS)

    @FUZZ
    @given(
        pieces=st.lists(st.sampled_from(YAML_TOKENS) | st.text(max_size=6), max_size=40),
        kind=st.sampled_from(kinds),
    )
    def case(pieces: list[str], kind: str) -> None:
        path = tmp_path / f"{kind}.yaml"
        path.write_text("".join(pieces), encoding="utf-8", errors="surrogatepass")
        outcomes[check_catalog_file(path, kind)] += 1

    case()
    report("catalog_yaml_text", outcomes, started, record_property)
    assert outcomes["file refused"] > 0


def test_fuzz_alias_bombs(tmp_path: Path, record_property: Callable[[str, object], None]) -> None:
    """Anchors and aliases nested ``levels`` deep, ``width`` to a level: refused or loaded, quickly."""
    outcomes: Counter[str] = Counter()
    started = time.monotonic()

    @settings(FUZZ, max_examples=60)
    @given(levels=st.integers(1, 14), width=st.integers(1, 16), field=st.sampled_from(["source", "notes", "extra"]))
    def case(levels: int, width: int, field: str) -> None:
        lines = ["anchors:", "  - &l0 " + json.dumps(["lol"] * width)]
        for level in range(1, levels + 1):
            lines.append(f"  - &l{level} [" + ", ".join([f"*l{level - 1}"] * width) + "]")
        text = "\n".join(lines) + "\n"
        entry = f"- id: bomb\n  vendor: v\n  model: m\n  source: [s]\n  {field}: *l{levels}\n"
        path = tmp_path / "gpu.yaml"
        # The anchors live in a first entry that is itself a (broken) mapping.
        path.write_text(text.replace("anchors:", "- anchors:") + entry.replace("- id", "- id", 1), encoding="utf-8")
        began = time.monotonic()
        outcomes[check_catalog_file(path, "gpu")] += 1
        assert time.monotonic() - began < 3.0

    case()
    report("catalog_alias_bombs", outcomes, started, record_property)
    assert outcomes["file refused"] > 0
