"""The models a machine runs: each catalog model at the best common format that fits, largest first."""

from __future__ import annotations

from pydantic import BaseModel

from rackplanner.core.capacity.estimate import capacity_table
from rackplanner.core.capacity.formats import FORMATS
from rackplanner.core.capacity.hardware import Hardware
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import LlmModel
from rackplanner.core.plan.cache import ContentCache

# The formats most people download (FP16 checkpoints, llama.cpp Q8_0 and Q4_K_M GGUF files),
# best quality first: a model is shown at the first of these that fits.
COMMON_FORMATS: tuple[str, ...] = ("fp16", "q8_0", "q4_k_m")


class ModelPick(BaseModel):
    """One model at the best common format that fits the hardware's memory."""

    model: str
    label: str
    params_b: float
    format: str
    format_label: str
    total_gb: float
    max_context: int
    decode_tokens_per_s: float | None
    best_batch_tokens_per_s: float | None


_CACHE: ContentCache[list[ModelPick]] = ContentCache(256)


def top_models(
    catalog: Catalog,
    hw: Hardware,
    *,
    context: int = 4096,
    formats: tuple[str, ...] = COMMON_FORMATS,
    limit: int = 8,
    runtime: str | None = None,
) -> list[ModelPick]:
    """The ``limit`` largest catalog models that fit ``hw`` entirely (no CPU offload) at ``context``.

    Each model appears once, at the first of ``formats`` that fits; ties in size go to the
    faster decode. Rows come from ``capacity_table``, so speeds match the ``capacity`` command.
    """
    key = (hw.model_dump_json(), context, formats, limit, runtime)
    return _CACHE.get(catalog, key, lambda: _top_models(catalog, hw, context, formats, limit, runtime))


def _top_models(
    catalog: Catalog, hw: Hardware, context: int, formats: tuple[str, ...], limit: int, runtime: str | None
) -> list[ModelPick]:
    rank = {f: i for i, f in enumerate(formats)}
    rows = capacity_table(catalog, hw, runtime=runtime, context=context, formats=list(formats))
    best: dict[str, ModelPick] = {}
    for row in rows:
        if not row.fits or row.offload_fraction > 0:
            continue
        kept = best.get(row.model)
        if kept is not None and rank[kept.format] <= rank[row.format]:
            continue
        model = catalog.get_as(row.model, LlmModel)
        if model is None:
            continue
        best[row.model] = ModelPick(
            model=model.id,
            label=model.label,
            params_b=model.params_b,
            format=row.format,
            format_label=FORMATS[row.format].label,
            total_gb=row.total_gb,
            max_context=row.max_context,
            decode_tokens_per_s=row.decode_tokens_per_s,
            best_batch_tokens_per_s=row.best_batch_tokens_per_s,
        )
    ordered = sorted(best.values(), key=lambda p: (-p.params_b, -(p.decode_tokens_per_s or 0.0), p.model))
    return ordered[:limit]
