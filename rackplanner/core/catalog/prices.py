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
import re
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


# Header names a user's spreadsheet may give each column (compared lower-case, spaces and
# underscores alike).
_COLUMNS = {
    "part": ("part", "part id", "id", "part number", "catalog id"),
    "price": ("price", "price usd", "price (usd)", "price $", "unit price", "cost", "amount"),
    "currency": ("currency",),
    "date": ("date", "price date", "quote date"),
    "note": ("note", "notes", "comment", "source"),
}
_FOREIGN_MONEY = re.compile(r"[€£¥₹]|\b(EUR|GBP|JPY|CHF|CAD|AUD|CNY|INR|SEK|NOK|DKK|PLN)\b", re.IGNORECASE)


def _column(header: str) -> str | None:
    name = " ".join(header.strip().lower().replace("_", " ").replace("-", " ").split())
    return next((column for column, names in _COLUMNS.items() if name in names), None)


def _delimiter(text: str) -> str:
    """The list's delimiter: a spreadsheet saved where the decimal mark is a comma writes ';'."""
    first = text.split("\n", 1)[0]
    try:
        return csv.Sniffer().sniff(first, delimiters=",;\t").delimiter
    except csv.Error:
        return ","


def parse_price(text: str, delimiter: str = ",") -> float:
    """A price as people write it: "$1,299.00", "1299", "1.299,00" (decimal comma), "US$ 780".

    ValueError for another currency's sign or a figure that reads two ways ("1.299" in a
    semicolon list could be 1.299 or 1299)."""
    if _FOREIGN_MONEY.search(text):
        raise ValueError(f"price {text.strip()[:30]!r} is not in US dollars; convert it at your own rate")
    figure = re.sub(r"(?i)^\s*(us\$|usd|\$)|(usd|\$)\s*$", "", text)
    figure = figure.replace(" ", "").replace("\u00a0", "").replace("'", "")
    if "," in figure and "." in figure:
        decimal = "," if figure.rfind(",") > figure.rfind(".") else "."
        figure = figure.replace("." if decimal == "," else ",", "").replace(decimal, ".")
    elif "," in figure:
        if re.fullmatch(r"\d{1,3}(,\d{3})+", figure):
            figure = figure.replace(",", "")
        elif re.fullmatch(r"\d+,\d{1,2}", figure):
            figure = figure.replace(",", ".")
    elif delimiter == ";" and re.fullmatch(r"\d{1,3}(\.\d{3})+", figure):
        raise ValueError(f"price {text.strip()[:30]!r} reads as thousands or decimals; write it as 1299 or 1299.00")
    if not re.fullmatch(r"-?\d+(\.\d+)?", figure):  # a negative one is refused by name below
        raise ValueError(f"cannot read the price {text.strip()[:30]!r}; write a number of US dollars such as 1299.00")
    return float(figure)


def parse_price_date(text: str) -> date:
    """YYYY-MM-DD, YYYY-MM for a quote dated by its month (its first day), or DD.MM.YYYY
    (a dotted date is day first wherever it is written). Slashed dates are refused: 03/04/2026
    is March in one country and April in another."""
    if re.fullmatch(r"\d{4}-\d{2}", text):
        text += "-01"
    dotted = re.fullmatch(r"(\d{1,2})\.(\d{1,2})\.(\d{4})", text)
    if dotted:
        text = f"{dotted[3]}-{int(dotted[2]):02d}-{int(dotted[1]):02d}"
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"date {text[:30]!r}: write it as YYYY-MM-DD (for example 2026-11-25)") from None


def read_price_csv(path: Path, today: date) -> list[PriceQuote]:
    """A user's price list: columns part, price, currency, date, note (a header row; only part and price needed).

    Comma-, semicolon- or tab-separated; common header names are understood ("Part ID",
    "Unit price"). A missing currency is USD and a missing date is ``today``; any other
    currency is refused.
    """
    text = files.read_text(path, what="price list", max_bytes=MAX_PRICE_FILE_BYTES)
    delimiter = _delimiter(text)
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    header = next(reader, [])
    columns = [_column(name) for name in header]
    if "part" not in columns or "price" not in columns:
        shown = ", ".join(repr(name.strip()[:30]) for name in header[:8]) or "nothing"
        raise InputError(
            f"{path}: the header needs the columns part and price (and may have currency, date, note); it has {shown}"
        )
    rows = list(reader)
    if len(rows) > MAX_PRICE_ROWS:
        raise InputError(f"{path}: {len(rows)} rows; a price list holds at most {MAX_PRICE_ROWS}")
    quotes = []
    for number, row in enumerate(rows, start=2):
        fields: dict[str, str] = {}
        # Spreadsheets drop a row's empty trailing cells, so a row may be shorter than the header.
        for column, value in zip(columns, row, strict=False):
            if column is not None and column not in fields:
                fields[column] = value.strip()
        part = fields.get("part", "")
        if not part:
            continue
        currency = fields.get("currency", "").upper() or "USD"
        if currency != "USD":
            raise InputError(
                f"{path}: row {number} ({part[:60]}): currency {currency[:10]!r}; prices are in USD "
                "(convert them at your own rate)"
            )
        try:
            quotes.append(
                PriceQuote(
                    part=part,
                    price_usd=parse_price(fields.get("price", ""), delimiter),
                    price_date=parse_price_date(fields["date"]) if fields.get("date") else today,
                    kind="quote",
                    source=f"{path.name} row {number}",
                    note=fields.get("note", ""),
                )
            )
        except ValidationError as exc:
            raise InputError(f"{path}: row {number}: {describe_validation_error(exc)}") from None
        except ValueError as exc:
            raise InputError(f"{path}: row {number} ({part[:60]}): {exc}") from None
    return quotes
