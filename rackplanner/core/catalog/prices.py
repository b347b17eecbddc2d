"""The price book: dated prices with their source, kept apart from the parts' specifications.

A catalog folder's ``prices/*.yaml`` files list quotes (part, price_usd, currency, price_date,
kind, source, note). ``kind`` says what the figure is: a ``launch`` or ``list`` price set by the maker, a
``street`` price seen at a shop, a ``used`` market price, or a user's ``quote``. A user's price
list (CSV: part, price, currency, date, note) gives ``quote`` entries. Prices are in US dollars;
a list in another currency is refused rather than converted at a rate the planner cannot know.
"""

from __future__ import annotations

import csv
import io
from datetime import date
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError

from rackplanner.core import files
from rackplanner.core.catalog.parts.base import Frozen, KebabId
from rackplanner.core.errors import InputError, describe_validation_error

PriceKind = Literal["launch", "list", "street", "used", "quote"]
# A price older than this is flagged in the bill of materials.
STALE_AFTER_DAYS = 365
MAX_PRICE_FILE_BYTES = 5_000_000
MAX_PRICE_ROWS = 50_000


class PriceQuote(Frozen):
    """One price of one part, on one date, from one source."""

    part: KebabId
    price_usd: float = Field(ge=0, le=1e9)
    currency: Literal["USD"] = "USD"
    price_date: date
    kind: PriceKind
    source: str = Field(min_length=1, max_length=2000)
    note: str = Field(default="", max_length=2000)
    # Parts this price already covers, with their count per unit bought (a DGX system's GPUs):
    # the bill of materials lists them at no further cost.
    includes: dict[KebabId, int] = Field(default_factory=dict, max_length=64)

    def age_days(self, today: date) -> int:
        return (today - self.price_date).days

    def is_stale(self, today: date) -> bool:
        """Older than a year at ``today``: the market has likely moved."""
        return self.age_days(today) > STALE_AFTER_DAYS


def choose_price(quotes: list[PriceQuote]) -> PriceQuote | None:
    """The price a plan uses: the user's newest quote, else the newest new-part price, else the newest used one."""
    for kinds in (("quote",), ("street", "list", "launch"), ("used",)):
        found = [q for q in quotes if q.kind in kinds]
        if found:
            return max(found, key=lambda q: q.price_date)
    return None


def read_price_book(path: Path, problems: list[str] | None = None) -> list[PriceQuote]:
    """A ``prices/*.yaml`` file's quotes; InputError naming file, entry and field (or, with ``problems``, skipped)."""
    data = files.read_yaml(path, what="price list", max_bytes=MAX_PRICE_FILE_BYTES, max_values=MAX_PRICE_ROWS * 20)
    if data is None:
        return []
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a list of prices, found {type(data).__name__}")
    quotes: list[PriceQuote] = []
    for index, raw in enumerate(data):
        try:
            quotes.append(PriceQuote.model_validate(raw))
        except ValidationError as exc:
            message = f"{path}: entry {index}: {describe_validation_error(exc)}"
            if problems is None:
                raise InputError(message) from None
            problems.append(f"{message} (entry skipped)")
    return quotes


def read_price_csv(path: Path, today: date) -> list[PriceQuote]:
    """A user's price list: columns part, price, currency, date, note (a header row; only part and price needed).

    A missing currency is USD and a missing date is ``today``; any other currency is refused.
    """
    text = files.read_text(path, what="price list", max_bytes=MAX_PRICE_FILE_BYTES)
    rows = list(csv.DictReader(io.StringIO(text)))
    if len(rows) > MAX_PRICE_ROWS:
        raise InputError(f"{path}: {len(rows)} rows; a price list holds at most {MAX_PRICE_ROWS}")
    quotes = []
    for number, row in enumerate(rows, start=2):
        fields = {str(k).strip().lower(): (v or "").strip() for k, v in row.items() if k is not None}
        if "part" not in fields or "price" not in fields:
            raise InputError(f"{path}: the header needs the columns part and price (and may have currency, date, note)")
        if not fields["part"]:
            continue
        currency = fields.get("currency", "").upper() or "USD"
        if currency != "USD":
            raise InputError(
                f"{path}: row {number} ({fields['part'][:60]}): currency {currency[:10]!r}; prices are in USD "
                "(convert them at your own rate)"
            )
        try:
            quotes.append(
                PriceQuote(
                    part=fields["part"],
                    price_usd=float(fields["price"].replace(",", "").lstrip("$")),
                    price_date=date.fromisoformat(fields["date"]) if fields.get("date") else today,
                    kind="quote",
                    source=f"{path.name} row {number}",
                    note=fields.get("note", ""),
                )
            )
        except ValidationError as exc:
            raise InputError(f"{path}: row {number}: {describe_validation_error(exc)}") from None
        except ValueError as exc:
            raise InputError(f"{path}: row {number} ({fields['part'][:60]}): {exc}") from None
    return quotes
