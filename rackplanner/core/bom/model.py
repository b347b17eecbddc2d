"""What a bill of materials is made of: lines, groups (a machine or a rack), totals."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel

CURRENCY = "USD"
NO_PRICE = "no price"


# "included": counted in another line's price (a DGX system's GPUs in the system's price).
PriceOrigin = Literal["catalog", "override", "none", "included"]


class BomLine(BaseModel):
    """One part of one group, with its count and price."""

    group: str
    group_name: str
    category: str
    part: str
    vendor: str
    model: str
    quantity: int
    unit_price_usd: float | None
    extended_price_usd: float | None
    price_date: date | None
    price_origin: PriceOrigin
    price_source: str
    # What the price is: launch, list, street, used (price book), quote (the user's), catalog entry.
    price_kind: str = ""
    # More than a year old on the day the BOM was made.
    price_stale: bool = False
    # What the user wrote beside their own price ("eBay, used").
    price_note: str = ""
    note: str = ""

    @property
    def priced(self) -> bool:
        return self.unit_price_usd is not None

    @property
    def overridden(self) -> bool:
        return self.price_origin == "override"


class DerivedItem(BaseModel):
    """Something the plan needs but does not list, worked out from it: the fabric's cables and optics
    between racks, the switches its fat tree needs beyond those mounted."""

    part: str  # a catalog id, or an id of its own for what the catalog has no entry for (cables)
    category: str
    model: str
    quantity: int
    note: str = ""


class BomGroup(BaseModel):
    """The lines of one machine, one rack, or what the fabric needs beyond both."""

    kind: Literal["machine", "rack", "fabric"]
    id: str
    name: str
    lines: list[BomLine]
    subtotal_usd: float
    unpriced_lines: int
    # A machine: the rack it is mounted in (None if not mounted). A rack: its mounted machines.
    rack: str | None = None
    machines: list[str] = []
    # A rack: its own lines plus its machines' subtotals.
    rack_total_usd: float | None = None
    rack_unpriced_lines: int = 0


class BomTotals(BaseModel):
    """Consolidated totals of the whole plan."""

    lines: list[BomLine]
    total_usd: float
    priced_units: int
    unpriced_parts: int
    unpriced_units: int
    overridden_parts: int
    stale_parts: int = 0
    currency: str = CURRENCY

    @property
    def total_text(self) -> str:
        """The total as a person reads it, naming the parts without a price."""
        text = f"{format_usd(self.total_usd)}"
        if self.unpriced_parts:
            plural = "part" if self.unpriced_parts == 1 else "parts"
            text += f" plus {self.unpriced_parts} {plural} without a price ({self.unpriced_units} units)"
        return text


class Bom(BaseModel):
    plan: str
    machines: list[BomGroup]
    racks: list[BomGroup]
    totals: BomTotals
    currency: str = CURRENCY
    fabric: BomGroup | None = None

    @property
    def groups(self) -> list[BomGroup]:
        return [*self.machines, *self.racks, *([self.fabric] if self.fabric else [])]

    @property
    def lines(self) -> list[BomLine]:
        return [line for group in self.groups for line in group.lines]


def format_usd(value: float | None) -> str:
    """'$1,234.00', or 'no price' for a missing price."""
    return NO_PRICE if value is None else f"${value:,.2f}"
