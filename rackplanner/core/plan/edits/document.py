"""The plan's own details: its name and notes, and the user's prices."""

from __future__ import annotations

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import (
    Part,
)
from rackplanner.core.plan.edits.base import (
    Change,
    EditRefused,
    EditResult,
    _need,
)
from rackplanner.core.plan.model import (
    Plan,
)


def set_price_override(plan: Plan, *, part: str, price_usd: float | None, catalog: Catalog) -> EditResult:
    """Use the user's own price for a part in the bill of materials (None restores the catalog's)."""
    found = _need(catalog, part, (Part,), "part")
    prices = dict(plan.price_overrides_usd)
    if price_usd is None:
        if part not in prices:
            raise EditRefused(f"{part} has no price override")
        del prices[part]
        label = f"Use catalog price for {found.model}"
    else:
        if price_usd < 0:
            raise EditRefused(f"a price cannot be negative ({price_usd:g} USD)")
        prices[part] = price_usd
        label = f"Price {found.model} at {price_usd:,.2f} USD"
    return EditResult(plan.model_copy(update={"price_overrides_usd": prices}), frozenset({Change.BOM}), label)


def set_plan_notes(plan: Plan, *, name: str | None = None, notes: str | None = None) -> EditResult:
    update: dict[str, str] = {}
    if name is not None:
        if not name.strip():
            raise EditRefused("a plan name cannot be empty")
        update["name"] = name
    if notes is not None:
        update["notes"] = notes
    return EditResult(plan.model_copy(update=update), frozenset({Change.DOCUMENT}), "Edit plan details")
