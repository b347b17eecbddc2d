"""The plan's own details: its name and notes, and the user's prices."""

from __future__ import annotations

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import (
    Part,
)
from rackplanner.core.catalog.prices import PriceQuote
from rackplanner.core.errors import closest_ids
from rackplanner.core.plan.edits.base import (
    Change,
    EditRefused,
    EditResult,
    _need,
)
from rackplanner.core.plan.model import (
    Plan,
    UserPrice,
)


def set_price_override(plan: Plan, *, part: str, price_usd: float | None, catalog: Catalog) -> EditResult:
    """Use the user's own price for a part in the bill of materials (None restores the catalog's)."""
    found = _need(catalog, part, (Part,), "part")
    prices = dict(plan.user_prices)
    if price_usd is None:
        if part not in prices:
            raise EditRefused(f"{part} has no price override")
        del prices[part]
        label = f"Use catalog price for {found.model}"
    else:
        if price_usd < 0:
            raise EditRefused(f"a price cannot be negative ({price_usd:g} USD)")
        prices[part] = UserPrice(price_usd=price_usd)
        label = f"Price {found.model} at {price_usd:,.2f} USD"
    return EditResult(plan.model_copy(update={"user_prices": prices}), frozenset({Change.BOM}), label)


def import_price_list(plan: Plan, *, quotes: list[PriceQuote], name: str, catalog: Catalog) -> EditResult:
    """The user's price list as one edit: each row's price, date and note for a catalog part.

    Rows for parts the catalog does not have are refused with their ids (``unknown_parts`` finds them first).
    """
    unknown = unknown_parts(quotes, catalog)
    if unknown:
        raise EditRefused(f"{name}: parts not in the catalog: {describe_unknown_parts(unknown, catalog)}")
    if not quotes:
        raise EditRefused(f"{name}: the price list has no rows")
    prices = dict(plan.user_prices)
    for quote in quotes:
        prices[quote.part] = UserPrice(
            price_usd=quote.price_usd, price_date=quote.price_date, note=quote.note, source=quote.source
        )
    label = f"Import {len(quotes)} price{'s' if len(quotes) != 1 else ''} from {name}"
    return EditResult(plan.model_copy(update={"user_prices": prices}), frozenset({Change.BOM}), label)


def describe_unknown_parts(unknown: list[str], catalog: Catalog, shown: int = 8) -> str:
    """``ap8886 (did you mean apc-ap8886?), x-1``: the first ``shown`` ids, each with the catalog's nearest id."""
    known = [part.id for part in catalog]
    named = []
    for part in unknown[:shown]:
        close = closest_ids(part, known, n=1)
        named.append(f"{part} (did you mean {close[0]}?)" if close else part)
    more = f" and {len(unknown) - shown} more" if len(unknown) > shown else ""
    return ", ".join(named) + more


def unknown_parts(quotes: list[PriceQuote], catalog: Catalog) -> list[str]:
    """The part ids of a price list that are not in the catalog, in list order."""
    return list(dict.fromkeys(q.part for q in quotes if catalog.get(q.part) is None))


def set_plan_notes(plan: Plan, *, name: str | None = None, notes: str | None = None) -> EditResult:
    update: dict[str, str] = {}
    if name is not None:
        if not name.strip():
            raise EditRefused("a plan name cannot be empty")
        update["name"] = name
    if notes is not None:
        update["notes"] = notes
    return EditResult(plan.model_copy(update=update), frozenset({Change.DOCUMENT}), "Edit plan details")
