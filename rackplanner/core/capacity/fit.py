"""Fit the capacity model's constants to published measurements and cross-validate them.

Decode at batch b takes ``step = bytes / (eff × bandwidth) + layers × overhead + step cost
+ hops × hop cost (+ all-reduces)``: bytes and bandwidth come from the model and the
catalog, so the unknowns are the achieved share of bandwidth per memory technology and
runtime, and a few fixed costs per runtime. The fixed costs are fitted by least squares on
relative error; each class's bandwidth share is the median of what its points imply given
those costs (robust to a stray measurement), alternating until the costs settle; the fixed
costs are fitted with Huber weights, so a few far-off points pull on them only in proportion.
Prefill's share of the tensor peak is likewise the median per architecture and runtime,
beside llama.cpp's fixed cost per expert GEMM of a prompt pass and a server's fixed cost per
request as its clients time it; a prompt pass also pays a decode step's fixed costs, known by
then; there each source's median counts once, so one publisher's many rows on one box do
not set a class, and a prompt run on the FP8 peak reaches a fitted factor of its class's
share (``_fp8_factors``). A class with fewer than ``MIN_CLASS_POINTS`` points takes the next wider class
(``fitted.py``); a decode fixed cost that fewer than ``MIN_COLUMN_SOURCES`` sources measure
is not fitted at all. A row split's wait per split matrix and further GPU is fitted last, on
its own points, given everything else (``_row_sync``).

``cross_validate`` refits leaving one source out at a time and estimates that source's
points with constants it did not see: the error it reports is what a user can expect on
hardware and software the fit never met.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from rackplanner.core.capacity.calibration import MeasuredPoint, PointError, evaluate, hardware_of
from rackplanner.core.capacity.classes import KERNEL_PER_EXPERT, OWN_STEP_COST, prefill_runtime_classes
from rackplanner.core.capacity.fit_features import Features, features
from rackplanner.core.capacity.fitted import (
    ANY,
    Calibration,
    ErrorBand,
    band_keys,
    decode_keys,
    fixed_pass_s,
    fp8_prefill_factor,
    prefill_fit_keys,
    prefill_keys,
)
from rackplanner.core.capacity.hardware import Hardware
from rackplanner.core.catalog.loading import Catalog

MIN_CLASS_POINTS = 3
# Prompts each way (FP8 and 16-bit) an architecture needs for its FP8 factor: SGLang's
# cookbook measured two prompt lengths per model on the B200.
MIN_FP8_PAIR_POINTS = 2
# Sources that must measure a fixed cost before it is fitted.
MIN_COLUMN_SOURCES = 2
# The shares and the fixed costs are fitted in turn until no fixed cost moves by more than
# CONVERGED_S (a tenth of a microsecond), or MAX_ROUNDS.
MAX_ROUNDS = 100
CONVERGED_S = 1e-7
# A decode point whose time the fixed costs explain all but this share of says little about
# its bandwidth share: its implied share is mostly the fixed costs' error, so it sets the
# fixed costs only. Held out, any share from 1/10 to 2/5 gives the same error (decode 14%
# median, 67% of points within 35%); at 1/2 it drops points that do inform (15%, 74%).
# The same holds for a prompt timed by a client of a server, whose time to first token
# pays the harness's request cost (tens of ms): GPUStack's 233-token H100 prompt is 4-10%
# compute, and a millisecond's change in the fitted costs moved its implied share of
# Hopper's peak from 0.6 to past 1.0. Prompts timed inside an engine or by llama-bench pay
# only a pass's kernel costs, and their short prompts are what sets those.
MIN_VARIABLE_SHARE = 0.25
# Relative error beyond which a point's weight in the fixed-cost fit falls off (Huber).
HUBER_K = 0.2
IRLS_ROUNDS = 8
NUMA_GRID = tuple(i / 20 for i in range(21))


def _class_of(keys: list[str], counts: dict[str, int]) -> str:
    return next((key for key in keys if counts.get(key, 0) >= MIN_CLASS_POINTS), keys[-1])


def _lookup(eff: dict[str, float], keys: list[str], counts: dict[str, int]) -> float:
    """The share of the first class with enough points that has one (a class whose points
    all fell below the fixed costs has none)."""
    start = keys.index(_class_of(keys, counts))
    return next(eff[key] for key in keys[start:] if key in eff)


KeysOf = Callable[[Hardware, str], list[str]]


def _counts(rows: list[Features], keys_of: KeysOf) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for row in rows:
        for key in keys_of(row.hw, row.point.runtime):
            counts[key] += 1
    return counts


def _without_all_reduces(row: Features) -> bool:
    """Whether a point's implied share is free of tensor-parallel all-reduces. A TP server
    step holds two per layer, and a share fitted on such points absorbs their latency: in
    the 2026-11 data every AMD server point is a TP8 MI300X, and HBM3's server share came out
    at 0.42, so an H100 running an 8B model alone was estimated at half its measured speed.
    A layer split's hops are told apart by their own fitted cost and stay in."""
    return row.hw.devices == 1 or not (row.decode and row.runtime == "server")


def _source_median(pairs: list[tuple[str, float]]) -> float:
    """The median over sources of each source's median: one vote per publisher."""
    by_source: dict[str, list[float]] = defaultdict(list)
    for source, value in pairs:
        by_source[source].append(value)
    return statistics.median(statistics.median(values) for values in by_source.values())


def _medians(rows: list[Features], implied: list[float], keys_of: KeysOf, by_source: bool) -> dict[str, float]:
    """The median implied share of every class key with enough points, at every level. A
    class is set by its points free of all-reduces; one that has a few such points and
    tensor-parallel ones besides is left to the wider class, whose single-GPU points say more
    about its single GPUs than its TP points do (held out without AccelMark, HBM2's server
    class was one A100 40 GB and two TP4 MI100 runs, and the A100 40 GB was estimated at 21
    tokens/s for Llama 3 8B against 70-77 measured). A class of TP points only is set by
    them. A point that implies no share (mostly fixed costs) still counts toward its class's
    size: the rule decides which points vote, not which classes exist. With ``by_source``,
    each source's median counts once."""
    by_key: dict[str, list[tuple[str, float]]] = defaultdict(list)
    clean: dict[str, list[tuple[str, float]]] = defaultdict(list)
    measured: dict[str, int] = defaultdict(int)
    for row, value in zip(rows, implied, strict=True):
        if _without_all_reduces(row):
            for key in keys_of(row.hw, row.point.runtime):
                measured[key] += 1
        if value > 0:
            for key in keys_of(row.hw, row.point.runtime):
                by_key[key].append((row.point.group, value))
                if _without_all_reduces(row):
                    clean[key].append((row.point.group, value))

    def median(pairs: list[tuple[str, float]]) -> float:
        return _source_median(pairs) if by_source else statistics.median(value for _, value in pairs)

    table = {
        key: min(median(clean[key] or pairs), 1.0)
        for key, pairs in by_key.items()
        if (clean[key] and measured[key] >= MIN_CLASS_POINTS) or (not clean[key] and len(pairs) >= MIN_CLASS_POINTS)
    }
    # The widest class always exists, so every lookup ends somewhere.
    every = [v for v in implied if v > 0]
    table.setdefault(f"{ANY}|{ANY}", statistics.median(every) if every else 0.7)
    return table


def _fixed_columns(rows: list[Features]) -> list[str]:
    """The fixed-cost columns measured by at least ``MIN_COLUMN_SOURCES`` sources: a cost
    only one publisher's runs show is that harness's, not the runtime's."""
    sources: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        own = [f"layer|{row.runtime}|{row.hw.kind}"]
        if row.runtime == "server":
            own.append(f"step|{row.runtime}")
        if row.point.runtime in OWN_STEP_COST:
            own.append(f"step|{row.point.runtime}")
        if row.moe_layers:
            own.append(_moe_column(row))
        if row.hops:
            own.append(f"hop|{row.runtime}")
        if row.allreduces:
            own.append(f"allreduce|{row.runtime}")
        for col in own:
            sources[col].add(row.point.group)
    return sorted(col for col, groups in sources.items() if len(groups) >= MIN_COLUMN_SOURCES)


def _moe_column(row: Features) -> str:
    """A MoE layer's fixed cost on a CPU is its own: each of the layer's extra graph nodes
    (router, top-k, three expert GEMMs, the weighted sum) ends in a barrier of every thread.
    Held out (2026-11) CPU decode went from 31%/107% to 23%/106% and decode from 13.6%/61% to
    13.5%/55%; fitted per device kind everywhere, GPU points moved too (GDDR decode 10% to 11%;
    tried again with llama.cpp#15396's gpt-oss GPU runs: decode 13.6% to 14.1%)."""
    return f"moe|{row.runtime}|cpu" if row.hw.kind == "cpu" else f"moe|{row.runtime}"


def _fixed_row(row: Features, cols: list[str]) -> list[float]:
    values = {
        f"step|{row.runtime}": 1.0,
        # vLLM V0 (classes.OWN_STEP_COST) pays its own step cost beside its class's.
        f"step|{row.point.runtime}": 1.0,
        f"layer|{row.runtime}|{row.hw.kind}": float(row.layers),
        _moe_column(row): float(row.moe_layers),
        f"hop|{row.runtime}": float(row.hops),
        f"allreduce|{row.runtime}": row.allreduces,
    }
    return [values.get(col, 0.0) for col in cols]


def _nonnegative_lstsq(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Least squares with every coefficient ≥ 0: drop the most negative and solve again."""
    active = list(range(a.shape[1]))
    x = np.zeros(a.shape[1])
    while active:
        sol, *_ = np.linalg.lstsq(a[:, active], b, rcond=None)
        if (sol >= 0).all():
            x[active] = sol
            break
        active.pop(int(np.argmin(sol)))
    return x


def _robust_nonnegative_lstsq(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Non-negative least squares with Huber weights (iteratively reweighted): a point off
    by more than ``HUBER_K`` counts in proportion to its error, not its square, so one
    runtime's early, slow builds do not set a fixed cost for every other point."""
    weights = np.ones(len(b))
    x = np.zeros(a.shape[1])
    for _ in range(IRLS_ROUNDS):
        root = np.sqrt(weights)[:, None]
        x = _nonnegative_lstsq(a * root, b * root[:, 0])
        residual = np.abs(a @ x - b)
        weights = np.minimum(1.0, HUBER_K / np.maximum(residual, 1e-12))
    return x


RowOf = Callable[[Features, list[str]], list[float]]


def _alternate(
    rows: list[Features],
    cols: list[str],
    row_of: RowOf,
    fit_keys: KeysOf,
    lookup_keys: KeysOf,
    *,
    by_source: bool = False,
    min_variable_share: Callable[[Features], float] = lambda row: 0.0,
) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    """(share of the peak by class, fixed costs by column, FP8 factor by runtime class): each
    class's share is the median its points imply given the fixed costs (a prompt on the FP8
    peak counted at its factor), the fixed costs a robust least squares given the shares, in
    turn until the fixed costs settle. Known time (``known_s``) is taken off first. A point
    with less than ``min_variable_share(point)`` of its time left after the fixed costs
    implies no share. Decode rows are never on the FP8 peak, so their factor table stays empty."""
    fixed = dict.fromkeys(cols, 0.0)
    counts = _counts(rows, fit_keys)
    eff: dict[str, float] = {}
    fp8: dict[str, float] = {}
    for _ in range(MAX_ROUNDS):
        implied = []
        for row in rows:
            costs = sum(c * fixed[k] for k, c in zip(cols, row_of(row, cols), strict=True))
            rest = row.seconds - row.known_s - costs
            implied.append(row.at_peak_s / rest if rest > min_variable_share(row) * row.seconds else 0.0)
        scale = [_fp8_scale(fp8, row) for row in rows]
        eff = _medians(rows, [v / sc for v, sc in zip(implied, scale, strict=True)], fit_keys, by_source)
        fp8 = _fp8_factors(rows, implied)
        scale = [_fp8_scale(fp8, row) for row in rows]
        a = np.array([[c / row.seconds for c in row_of(row, cols)] for row in rows])
        b = np.array(
            [
                1
                - (row.known_s + row.at_peak_s / (_lookup(eff, lookup_keys(row.hw, row.point.runtime), counts) * sc))
                / row.seconds
                for row, sc in zip(rows, scale, strict=True)
            ]
        )
        before = fixed
        fixed = dict(zip(cols, _robust_nonnegative_lstsq(a, b), strict=True)) if cols else {}
        if all(abs(fixed[c] - before[c]) < CONVERGED_S for c in cols):
            break
    return eff, fixed, fp8


def _fp8_scale(fp8: dict[str, float], row: Features) -> float:
    return fp8_prefill_factor(fp8, row.hw, row.point.runtime) if row.fp8_peak else 1.0


def _fp8_factors(rows: list[Features], implied: list[float]) -> dict[str, float]:
    """Per runtime class: the median over architectures that measured prompts both ways of
    the FP8 prompts' median share of the FP8 peak over the 16-bit prompts' share of theirs.
    Within one architecture the kernels, the harnesses' eras and the product class cancel
    out; what is left is what the FP8 peak delivers."""
    by_arch: dict[tuple[str, str], dict[bool, list[float]]] = defaultdict(lambda: defaultdict(list))
    for row, value in zip(rows, implied, strict=True):
        if value > 0:
            by_arch[row.hw.arch, _prefill_class(row)][row.fp8_peak].append(value)
    ratios: dict[str, list[float]] = defaultdict(list)
    for (_arch, runtime), kinds in by_arch.items():
        if len(kinds[True]) >= MIN_FP8_PAIR_POINTS and len(kinds[False]) >= MIN_FP8_PAIR_POINTS:
            ratios[runtime].append(statistics.median(kinds[True]) / statistics.median(kinds[False]))
    return {rt: statistics.median(r) for rt, r in ratios.items()}


def _prompt_min_variable_share(row: Features) -> float:
    """A client-timed served prompt, or a row split's (whose copies between GPUs can take
    most of its time), must leave ``MIN_VARIABLE_SHARE`` of its time to the compute to imply
    a share; other prompts always imply one."""
    if row.row_syncs or (row.runtime == "server" and row.point.ttft_timed == "client"):
        return MIN_VARIABLE_SHARE
    return 0.0


def _row_sync(
    rows: list[Features], eff: dict[str, float], fixed: dict[str, float], counts: dict[str, int]
) -> dict[str, float]:
    """The wait per split matrix and further GPU of a row split, per runtime class: a robust
    least squares of what its row-split decode points leave after their bytes and the other
    fixed costs."""
    cols, waits = list(fixed), {}
    for runtime in sorted({r.runtime for r in rows if r.decode and r.row_syncs}):
        split = [r for r in rows if r.decode and r.row_syncs and r.runtime == runtime]
        if len({r.point.group for r in split}) < MIN_COLUMN_SOURCES:
            continue
        a = np.array([[r.row_syncs / r.seconds] for r in split])
        b = np.array(
            [
                1
                - (r.known_s + r.at_peak_s / _lookup(eff, decode_keys(r.hw, r.point.runtime), counts)) / r.seconds
                - sum(c * fixed[k] for k, c in zip(cols, _fixed_row(r, cols), strict=True)) / r.seconds
                for r in split
            ]
        )
        waits[f"rowsync|{runtime}"] = float(_robust_nonnegative_lstsq(a, b)[0])
    return waits


def _prefill_class(row: Features) -> str:
    return prefill_runtime_classes(row.point.runtime)[0]


def _prefill_columns(rows: list[Features]) -> list[str]:
    cols = {
        f"expert|{_prefill_class(row)}|{row.hw.kind}"
        for row in rows
        if row.experts_over_layers and _prefill_class(row) in KERNEL_PER_EXPERT
    }
    # A server's rate is prompt / time to first token, which pays a fixed cost per request;
    # prompts from 128 to 28,650 tokens tell it apart from the share of the peak.
    cols |= {f"request|{row.runtime}" for row in rows if row.runtime == "server"}
    return sorted(cols)


def _prefill_row(row: Features, cols: list[str]) -> list[float]:
    own = f"expert|{_prefill_class(row)}|{row.hw.kind}"
    # A time to first token taken inside the engine pays no request cost.
    request = 0.0 if row.point.ttft_timed == "engine" else 1 / row.point.prompt
    values = {own: row.experts_over_layers / row.chunk_tokens, f"request|{row.runtime}": request}
    return [values.get(col, 0.0) for col in cols]


def _fit_numa(points: list[MeasuredPoint], catalog: Catalog) -> float | None:
    """Share of a further socket's bandwidth, by the best relative error over a grid."""
    multi = [p for p in points if not p.is_report and p.count > 1 and p.metric == "decode_tokens_per_s"]
    multi = [p for p in multi if hardware_of(p, catalog).kind == "cpu"]
    if not multi:
        return None
    best: tuple[float, float] | None = None
    for numa in NUMA_GRID:
        cal = fit(points, catalog, numa=numa, with_numa=False)
        errors = [
            abs(r.relative_error)
            for r in evaluate(multi, catalog, calibration=cal).rows
            if r.relative_error is not None
        ]
        score = statistics.median(errors) if errors else float("inf")
        if best is None or score < best[0]:
            best = (score, numa)
    return best[1] if best else None


def _costs(fixed: dict[str, float], kind: str) -> dict[str, float]:
    """The fitted costs of one kind by class: column ``"layer|llama.cpp|gpu"`` -> ``"llama.cpp|gpu"``."""
    return {col.split("|", 1)[1]: v for col, v in fixed.items() if col.startswith(f"{kind}|")}


def _known_prefill_s(row: Features, passes: Calibration, latency: dict[str, float]) -> float:
    """Seconds per prompt token the decode fit accounts for beyond the all-reduces' bytes:
    their latency and the fixed cost of the pass."""
    fixed = fixed_pass_s(passes, row.hw, row.point.runtime, row.layers, row.moe_layers, row.hops, row.row_syncs)
    return row.allreduces * latency.get(row.runtime, 0.0) + fixed / row.chunk_tokens


def fit(
    points: list[MeasuredPoint], catalog: Catalog, *, numa: float | None = None, with_numa: bool = True
) -> Calibration:
    """Constants fitted to ``points`` (benchmark rows; rounded reports are not fitted to)."""
    if with_numa:
        numa = _fit_numa(points, catalog)
    rows = features(points, catalog, numa)
    # A row split's step is mostly waits on the further GPUs, which the per-layer and hop
    # costs of its layers stand in for too: fitted with the rest, its points moved those
    # costs (held out, 2026-11, XiongjieDai's GeForce decode went from 5% to 30% under).
    # So they set their own wait only, given what the other points fitted.
    decode = [r for r in rows if r.decode and not r.row_syncs]
    prefill = [r for r in rows if not r.decode]
    cols = _fixed_columns(decode)
    eff, fixed, _ = _alternate(
        decode, cols, _fixed_row, decode_keys, decode_keys, min_variable_share=lambda row: MIN_VARIABLE_SHARE
    )
    fixed.update(_row_sync(rows, eff, fixed, _counts(decode, decode_keys)))
    layer = _costs(fixed, "layer")
    layer.setdefault(f"{ANY}|{ANY}", statistics.median(layer.values()) if layer else 0.0)
    step = {ANY: 0.0, **_costs(fixed, "step")}
    hop = {ANY: 0.0, **_costs(fixed, "hop")}
    latency = _costs(fixed, "allreduce")
    moe = _costs(fixed, "moe")
    row_sync = _costs(fixed, "rowsync")
    # A prompt pass's all-reduces cost what decode's were fitted to, and the pass pays a
    # decode step's fixed cost (the same kernels are launched).
    passes = Calibration(
        decode_bw_efficiency=eff,
        layer_overhead_s=layer,
        step_overhead_s=step,
        moe_layer_s=moe,
        hop_s=hop,
        row_sync_s=row_sync,
        prefill_tflops_efficiency={f"{ANY}|{ANY}": 1.0},
    )
    prefill = [replace(row, known_s=row.known_s + _known_prefill_s(row, passes, latency)) for row in prefill]
    # A prefill class (architecture, product class, runtime) is narrow, and one publisher's
    # sweep of quant types on one box can be most of its points: each source votes once.
    # Held out (2026-11) this took prefill from 28%/119% to 26%/105% and CPU prefill from
    # 53%/126% to 40%/79%; for decode's wide classes it did not help (17%/72% from 15%/70%).
    # A prompt on the FP8 peak reaches a share of it set apart from the 16-bit prompts of its
    # class (the factor): fitted as one share, FP8 prompts pulled every server class down,
    # and held out TensorRT-LLM's FP8 prompts on Hoppers were estimated twice as fast as
    # they ran while its FP16 ones on A100s were right (2026-11: prefill 25%/89% to 25%/83%).
    prefill_eff, prefill_fixed, fp8 = _alternate(
        prefill,
        _prefill_columns(prefill),
        _prefill_row,
        prefill_fit_keys,
        prefill_keys,
        by_source=True,
        min_variable_share=_prompt_min_variable_share,
    )
    return Calibration(
        decode_bw_efficiency=eff,
        layer_overhead_s=layer,
        step_overhead_s=step,
        moe_layer_s=moe,
        hop_s=hop,
        allreduce_latency_s=latency,
        row_sync_s=row_sync,
        prefill_tflops_efficiency=prefill_eff,
        prefill_fp8_factor=fp8,
        prefill_expert_s=_costs(prefill_fixed, "expert"),
        prefill_request_s=_costs(prefill_fixed, "request"),
        numa_scaling=numa,
        points=len(rows),
        sources=len({r.point.group for r in rows}),
    )


@dataclass
class CrossValidation:
    rows: list[PointError]
    bands: list[list[str]]  # each row's hardware's band classes (fitted.band_keys), in order

    def errors(self, metric: str, band: str | None = None) -> list[float]:
        return [
            abs(r.relative_error)
            for r, row_bands in zip(self.rows, self.bands, strict=True)
            if r.relative_error is not None
            and r.point.metric.startswith(metric)
            and (band is None or band in row_bands)
        ]

    def band(self, metric: str, band: str | None = None) -> ErrorBand | None:
        errors = sorted(self.errors(metric, band))
        if not errors:
            return None
        p90 = errors[min(len(errors) - 1, round(0.9 * (len(errors) - 1)))]
        return ErrorBand(points=len(errors), median=statistics.median(errors), p90=p90)


def cross_validate(points: list[MeasuredPoint], catalog: Catalog) -> CrossValidation:
    """Leave one source out: fit on the others, estimate the held-out source's points."""
    benchmark = [p for p in points if not p.is_report]
    rows: list[PointError] = []
    for group in sorted({p.group for p in benchmark}):
        held_out = [p for p in benchmark if p.group == group]
        cal = fit([p for p in benchmark if p.group != group], catalog)
        rows.extend(evaluate(held_out, catalog, calibration=cal).rows)
    return CrossValidation(rows, [band_keys(hardware_of(row.point, catalog)) for row in rows])
