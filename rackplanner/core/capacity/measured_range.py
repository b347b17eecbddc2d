"""Estimates that fall outside what the calibration's measured runs covered (run_coverage.py).

A hardware class's held-out error band comes from its measured runs: models of some sizes,
at some contexts and batches. An estimate for a model smaller or larger than any of them, at
a longer context or a larger batch, was never checked that way, so it says so instead of
borrowing the band. Small models are where this bites: their step is mostly the per-layer
fixed costs, which the runs of 3B-400B models set. TinyLlama 1.1B on an RTX 4090 in
llama.cpp (geerlingguy/ai-benchmarks#43, Vulkan, 2025-12) decoded at 762 tokens/s where
the estimate gives 493, outside the ±29% the class's runs hold nine times in ten.
"""

from __future__ import annotations

from rackplanner.core.capacity.classes import runtime_class
from rackplanner.core.capacity.fitted import Calibration, MeasuredRange, band_class, error_band
from rackplanner.core.capacity.hardware import Hardware
from rackplanner.core.capacity.shape import active_params
from rackplanner.core.catalog.parts import LlmModel

METRICS = (("decode", "decode"), ("prefill", "prompt"))
NO_RUN = "was measured at all"
NO_KIND = "no run on this kind of hardware in this runtime was published"
OUTSIDE_PREFIX = "outside the measured range: no published "
OTHER_RUNS_BAND = ", so the error band given is other runs'"
MAKER_NAMES = {"nvidia": "NVIDIA", "amd": "AMD", "intel": "Intel", "apple": "Apple"}
# Said under a table whose rows carry the mark.
UNMEASURED_MARK_NOTE = (
    "† no published run on this kind of hardware and runtime had a model of that size (or a context that long, "
    "or a device of that maker): the error band is other runs'"
)


def size_b(model: LlmModel) -> float:
    """Active parameters in billions, to the four significant digits the constants file keeps,
    so a measured model is never outside its own range."""
    return float(f"{active_params(model) / 1e9:.4g}")


def _maker(vendor: str) -> str:
    return MAKER_NAMES.get(vendor, vendor)


def _makers(found: MeasuredRange) -> str:
    """ "AMD and NVIDIA": the makers whose runs a range holds."""
    return " and ".join(map(_maker, found.makers))


def decode_outside_note(notes: list[str]) -> str | None:
    """The estimate's note on its decode speed lying outside the measured runs, without the
    error band it speaks of ("outside the measured range: no published ... run ... was on Intel
    hardware (...)"), or None."""
    found = next((n for n in notes if n.startswith(OUTSIDE_PREFIX) and " decode run on " in n), None)
    return found.removesuffix(OTHER_RUNS_BAND) if found else None


def size_slack(cal: Calibration, hw: Hardware, metric: str) -> float:
    """How far past its measured runs a model's size or a context may go and still count as
    inside them: the class's held-out median error. A step's time grows at most in proportion
    to the weights and KV cache it reads, so going that far past moves the figure by less than
    the error its measured runs already carry (Llama 3.1 70B's 70.6B against Llama 2 70B's
    69.0B is 2% past, not a model no run measured)."""
    band = error_band(cal, hw, metric)
    return band.median if band else 0.0


def range_key(metric: str, hw: Hardware, runtime_id: str) -> str:
    """``"decode|gpu-gddr|llama.cpp"``: a metric, ``hw``'s error-band class and the runtime's class."""
    return f"{metric}|{band_class(hw)}|{runtime_class(runtime_id)}"


def beyond(
    cal: Calibration,
    hw: Hardware,
    runtime_id: str,
    metric: str,
    model: LlmModel,
    *,
    context: int | None = None,
    batch: int | None = None,
) -> list[str]:
    """What of a run lies beyond the measured runs of its class, each completing "no published
    run of its kind ...": "had a model this small (1.0B active parameters; the smallest measured
    had 3.0B)", or "was measured at all" for a class no run measured. Empty inside the range,
    and for a calibration that records no ranges."""
    if not cal.measured_ranges:
        return []
    found = cal.measured_ranges.get(range_key(metric, hw, runtime_id))
    if found is None:
        return [NO_RUN]
    size = size_b(model)
    slack = 1 + size_slack(cal, hw, metric)
    out = []
    if found.makers and hw.vendor not in found.makers:
        out.append(f"was on {_maker(hw.vendor)} hardware (the measured ones were {_makers(found)})")
    if size * slack < found.min_active_params_b:
        out.append(
            f"had a model this small ({size:.1f}B active parameters; the smallest measured had "
            f"{found.min_active_params_b:.1f}B)"
        )
    elif size > found.max_active_params_b * slack:
        out.append(
            f"had a model this large ({size:.0f}B active parameters; the largest measured had "
            f"{found.max_active_params_b:.0f}B)"
        )
    # Contexts and batches are decode's: a prompt's length is not what its runs were told apart by.
    # A batch gets no slack: past the measured batches a step can turn from memory- to compute-bound.
    if metric != "decode":
        return out
    if context is not None and context > found.max_context * slack:
        out.append(f"had a context this long ({context:,} tokens; the longest measured was {found.max_context:,})")
    if batch is not None and batch > found.max_batch:
        out.append(f"had a batch this large ({batch}; the largest measured was {found.max_batch})")
    return out


def range_notes(
    cal: Calibration,
    hw: Hardware,
    runtime_id: str,
    runtime_label: str,
    model: LlmModel,
    *,
    context: int,
    batch: int,
    best_batch: int | None = None,
    untested_said: bool = False,
) -> dict[str, str]:
    """The estimate's notes on what no measured run of its class covered, by the figure they
    are about: "decode" (batch ``batch``), "prefill", "best batch". With ``untested_said`` (the
    estimate already says no run of this runtime on such hardware was fitted), a kind no run
    measured at all is flagged without a second note."""
    notes = {}
    for metric, what in METRICS:
        parts = beyond(cal, hw, runtime_id, metric, model, context=context, batch=batch)
        if parts == [NO_RUN] and untested_said:
            notes[metric] = ""
        elif parts:
            notes[metric] = (
                f"{OUTSIDE_PREFIX}{runtime_label} {what} run on {band_class(hw)} hardware "
                f"{' or '.join(parts)}{OTHER_RUNS_BAND}"
            )
    found = cal.measured_ranges.get(range_key("decode", hw, runtime_id))
    if best_batch is not None and found is not None and best_batch > max(found.max_batch, batch):
        notes["best batch"] = (
            f"the best batch ({best_batch}) is larger than any measured {runtime_label} batch on {band_class(hw)} "
            f"hardware ({found.max_batch}): that figure is the model's alone, which no run measured"
        )
    return notes


def row_mark(cal: Calibration, hw: Hardware, runtime_id: str, model: LlmModel, context: int) -> str:
    """Why a capacity-table row's speeds lie outside the measured runs (batch-1 decode at
    ``context``, a short prompt), or "" when they do not."""
    by_reason: dict[str, list[str]] = {}
    for metric, what in METRICS:
        reasons = beyond(cal, hw, runtime_id, metric, model, context=context)
        if reasons:
            by_reason.setdefault(" or ".join(reasons), []).append(what)
    return "; ".join(
        f"{' and '.join(whats)}: " + (NO_KIND if reason == NO_RUN else f"no published run {reason}")
        for reason, whats in by_reason.items()
    )


def best_batch_note(cal: Calibration, hw: Hardware, runtime_id: str, runtime_label: str) -> str:
    """A sentence for a table whose best-batch figures no measured batch of its class reaches."""
    found = cal.measured_ranges.get(range_key("decode", hw, runtime_id))
    if found is None or found.max_batch > 1:
        return ""
    return (
        f"No published {runtime_label} run on {band_class(hw)} hardware decoded more than one sequence at once, "
        "so no run measured the best-batch figures."
    )


def maker_note(cal: Calibration, hw: Hardware, runtime_id: str, runtime_label: str) -> str:
    """A sentence for a table on hardware of a maker no measured run of its kind was on."""
    found = cal.measured_ranges.get(range_key("decode", hw, runtime_id))
    if found is None or not found.makers or hw.vendor in found.makers:
        return ""
    return (
        f"No published {runtime_label} run on {_maker(hw.vendor)} {band_class(hw)} hardware was measured "
        f"(those measured were {_makers(found)}): the error band of these speeds is "
        "other makers' runs'."
    )


def table_notes(cal: Calibration, hw: Hardware, runtime_id: str, runtime_label: str) -> str:
    """The sentences a speed table on ``hw`` ends with: a maker no run measured, best batches
    no run reached ("" when neither applies)."""
    return " ".join(
        n
        for n in (maker_note(cal, hw, runtime_id, runtime_label), best_batch_note(cal, hw, runtime_id, runtime_label))
        if n
    )
