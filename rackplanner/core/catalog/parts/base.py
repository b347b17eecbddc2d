"""What every catalog part has: a kebab-case id, vendor, model, sources, an optional dated price.

Every part has a stable kebab-case ``id``, a ``vendor``, a ``model`` and a ``source``
(one or more spec sheets or reference documents) backing its figures. A figure that no
source gives is left as ``None`` and shown as "unknown"; it is never guessed.
Units are in field names (``tdp_w``, ``mem_bw_gbs``, ``length_mm``, ``height_u``).
"""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, ClassVar, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

_KEBAB = re.compile(r"^[a-z0-9]+(?:[.\-][a-z0-9]+)*$")


def _check_kebab(value: str) -> str:
    if not _KEBAB.match(value):
        raise ValueError(f"{value!r} is not a lowercase kebab-case id (letters, digits, '-' and '.')")
    return value


KebabId = Annotated[str, AfterValidator(_check_kebab)]


class Frozen(BaseModel):
    """Base of every immutable model: unknown fields are errors, values are frozen, numbers are finite.

    Every number a part or plan holds also has a range on its field (``le=``): infinity, NaN and
    absurd sizes are refused where they are read, so nothing downstream has to guard against them.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True, allow_inf_nan=False)


# Bandwidth per lane per direction after encoding overhead (8b/10b for Gen1/2,
# 128b/130b for Gen3+, FLIT for Gen6), GB/s. PCI-SIG figures; Gen3 x16 = 15.75 GB/s,
# the "128 Gbit/s" of 000_2736fecfd42346e5.txt.
PCIE_GBS_PER_LANE: dict[int, float] = {
    1: 0.25,
    2: 0.5,
    3: 0.985,
    4: 1.969,
    5: 3.938,
    6: 7.877,
}

PcieLanes = Literal[1, 2, 4, 8, 16, 32]
Generation = Annotated[int, Field(ge=1, le=6)]


class Part(Frozen):
    """Fields every catalog entry has."""

    kind: ClassVar[str] = "part"

    id: KebabId
    vendor: str = Field(min_length=1, max_length=200)
    model: str = Field(min_length=1, max_length=200)
    source: list[Annotated[str, Field(max_length=2000)]] = Field(min_length=1, max_length=100)
    price_usd: float | None = Field(default=None, ge=0, le=1e9)
    price_date: date | None = None
    notes: str | None = Field(default=None, max_length=20_000)

    @field_validator("source", mode="before")
    @classmethod
    def _one_source_is_a_list(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value

    @model_validator(mode="after")
    def _price_has_date(self) -> Part:
        if self.price_usd is not None and self.price_date is None:
            raise ValueError("price_usd needs a price_date (when the price was seen)")
        return self

    @property
    def label(self) -> str:
        # "Framework Desktop" is the maker's own name for the model: no "Framework Framework".
        if self.model.lower().startswith(f"{self.vendor.lower()} "):
            return self.model
        return f"{self.vendor} {self.model}"
