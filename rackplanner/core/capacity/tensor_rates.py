"""Tensor peaks a catalog GPU entry leaves empty, derived from the peaks it does give.

Within one architecture the tensor units' rate per clock is a fixed multiple of the shader
cores', so a card's INT8, FP16 and FP8 tensor peaks stand in fixed ratios to each other and
to its FP32 peak. The catalog's own sourced entries show it: every Ada GeForce card gives
INT8 = 8 x FP32 and FP16 (FP32 accumulate) = 2 x FP32, every Ada workstation and
datacenter card 8 x and 4 x, as NVIDIA's GA102, Ada and RTX Blackwell whitepapers tabulate
them (RTX 3090 / A6000, RTX 4090 / RTX 6000 Ada, RTX 5090 / RTX PRO 6000). An entry with a
peak missing (a card whose sheet gives only FP32, or only "AI TOPS") would otherwise run its
prompts at the FP32 rate, several times too slow. The ratio is taken from the sourced
entries of the same architecture, die kind and tier, and the estimate says which cards it
came from.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass

from rackplanner.core.capacity.classes import architecture
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Gpu

# The peaks that can be derived, and what each is called in a note.
DERIVED_FIELDS = {
    "int8_tensor_tops": ("INT8", "TOPS"),
    "fp16_tensor_tflops": ("FP16", "TFLOPS"),
    "fp8_tensor_tflops": ("FP8", "TFLOPS"),
}
# Fields a missing peak is scaled from, tensor peaks first: they share the tensor clock.
_BASES = ("int8_tensor_tops", "fp16_tensor_tflops", "fp8_tensor_tflops", "fp32_tflops")
# Peers whose ratio lies this close to the class median agree; a class derives a peak only
# when at least two thirds of its peers agree (the L40's sheet gives Ada's
# workstation/datacenter cards' INT8 and FP16 at half rate, against four others at full).
_AGREE = 0.10
_QUORUM = 2 / 3


@dataclass(frozen=True)
class TensorPeaks:
    """A GPU's dense tensor peaks, the catalog's where it gives them, else derived."""

    fp16_tflops: float | None
    int8_tops: float | None
    fp8_tflops: float | None
    # The peaks derived here ("INT8", "FP16", "FP8") and how each was.
    derived: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def _die(gpu: Gpu) -> str | None:
    match = re.search(r"\(([^)]+)\)", gpu.architecture or "")
    return match.group(1).strip().upper() if match else None


def rate_class(gpu: Gpu) -> tuple[str, str, str, str] | None:
    """(maker, architecture, die kind, tier) whose cards share tensor ratios; None when the
    entry names no architecture. NVIDIA's big compute dies (GP100, GV100, GA100, GH100,
    GB100) have other ratios than the graphics dies of the same generation, and GeForce cards
    run FP16 and FP8 with FP32 accumulate at half the workstation rate."""
    arch = architecture(gpu.architecture)
    if arch == "unknown":
        return None
    vendor = gpu.vendor.lower()
    die = _die(gpu)
    if die is None:
        die_kind = "?"
    elif re.fullmatch(r"G[A-Z]100", die):
        die_kind = "compute"
    else:
        die_kind = "graphics"
    tier = "geforce" if vendor == "nvidia" and gpu.product_line == "geforce" else "full"
    return vendor, arch, die_kind, tier


def _same_class(a: tuple[str, str, str, str], b: tuple[str, str, str, str]) -> bool:
    # An entry that names no die is compared with every die of its architecture; the
    # agreement test below then refuses a ratio when compute and graphics dies differ.
    return a[0] == b[0] and a[1] == b[1] and a[3] == b[3] and (a[2] == b[2] or "?" in (a[2], b[2]))


def _ratio(peers: list[Gpu], field: str, base: str) -> tuple[float, list[str]] | None:
    pairs = [(getattr(p, field) / getattr(p, base), p.id) for p in peers if getattr(p, field) and getattr(p, base)]
    if not pairs:
        return None
    median = statistics.median(r for r, _ in pairs)
    agreeing = [(r, pid) for r, pid in pairs if abs(r / median - 1) <= _AGREE]
    if len(agreeing) < _QUORUM * len(pairs):
        return None
    return statistics.median(r for r, _ in agreeing), sorted(pid for _, pid in agreeing)


# INT8 against FP32 is the one ratio GeForce cards share with the workstation and datacentre
# cards of their die: GeForce halves only FP32-accumulate tensor rates (RTX 2080 Ti 227.7/14.2
# and Tesla T4 130/8.1 are both 16; RTX 3090 and RTX A6000 both 8; Pascal's DP4A 4 x FP32 on
# the Tesla P40 and GeForce GP102 alike).
_ANY_TIER = frozenset({"int8_tensor_tops", "fp32_tflops"})


def _derive(gpu: Gpu, field: str, peers: list[Gpu], tier_peers: list[Gpu], arch: str) -> tuple[float, str] | None:
    """A missing peak from the first of the entry's own (sourced) peaks its peers give a
    ratio for, with the note that says how; None when none does. ``peers`` share the
    entry's die and tier; ``tier_peers``, its die in any tier, answer for INT8 against FP32
    when the entry's own tier cannot."""
    for base in _BASES:
        base_value = getattr(gpu, base)
        if base == field or not base_value:
            continue
        found = _ratio(peers, field, base)
        if found is None and {field, base} == _ANY_TIER:
            # No card of the entry's own tier gives it: its die's other tiers do.
            found = _ratio(tier_peers, field, base)
        if found is None:
            continue
        ratio, ids = found
        name, unit = DERIVED_FIELDS[field]
        base_name = f"{DERIVED_FIELDS[base][0]} tensor" if base in DERIVED_FIELDS else "FP32"
        value = base_value * ratio
        note = (
            f"derived: {name} tensor peak {value:.0f} {unit} = {ratio:.2f} x {base_name} "
            f"{base_value:g}, the ratio of {', '.join(ids)} ({arch}); the catalog entry gives none"
        )
        return value, note
    return None


def tensor_peaks(gpu: Gpu, catalog: Catalog) -> TensorPeaks:
    """The GPU's FP16, INT8 and FP8 dense tensor peaks; a missing one is derived from one it
    has by the ratio its architecture's sourced entries share, and a note says so."""
    values = {f: getattr(gpu, f) for f in DERIVED_FIELDS}
    derived: list[str] = []
    notes: list[str] = []
    cls = rate_class(gpu)
    if cls is not None and None in values.values():
        rated = [(p, pc) for p in catalog.of_kind(Gpu) if p.id != gpu.id and (pc := rate_class(p)) is not None]
        # Only a named die crosses tiers: an unnamed one could be a compute die (GA100's INT8 is
        # 32 x FP32, GA10x's 8 x), and a tier's many cards would outvote the other die kind.
        any_tier = [p for p, pc in rated if pc[:3] == cls[:3]] if cls[2] != "?" else []
        peers = [p for p, pc in rated if _same_class(cls, pc)]
        for field in (f for f, v in values.items() if v is None):
            found = _derive(gpu, field, peers, any_tier, cls[1])
            if found is not None:
                values[field] = found[0]
                derived.append(DERIVED_FIELDS[field][0])
                notes.append(found[1])
    return TensorPeaks(
        fp16_tflops=values["fp16_tensor_tflops"],
        int8_tops=values["int8_tensor_tops"],
        fp8_tflops=values["fp8_tensor_tflops"],
        derived=tuple(derived),
        notes=tuple(notes),
    )
