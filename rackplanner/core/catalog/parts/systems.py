"""What a machine is built in and powered by: cases, PSUs, and servers (board, chassis and PSUs as one part)."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from rackplanner.core.catalog.parts.base import KebabId, Part
from rackplanner.core.catalog.parts.panel import Airflow, DriveBays

# --- enclosures, power ---------------------------------------------------------------


class Chassis(Part):
    kind: ClassVar[str] = "chassis"

    form: Literal["tower", "open-frame", "rack"]
    board_form_factors: list[str] = Field(min_length=1)
    expansion_slots: int | None = Field(default=None, ge=0, le=64)
    max_gpu_length_mm: float | None = Field(default=None, gt=0, le=1e4)
    max_gpu_height_mm: float | None = Field(default=None, gt=0, le=1e4)
    height_u: int = Field(default=0, ge=0, le=100)
    width_mm: float | None = Field(default=None, gt=0, le=1e4)
    depth_mm: float | None = Field(default=None, gt=0, le=1e4)
    height_mm: float | None = Field(default=None, gt=0, le=1e4)
    psu_bays: int = Field(default=1, ge=0, le=64)
    weight_kg: float | None = Field(default=None, gt=0, le=1e5)
    fans_w: float | None = Field(default=None, ge=0, le=1e6)
    airflow: Airflow | None = None
    # None when no source gives the bays; an empty list when the case has none.
    drive_bays: list[DriveBays] | None = None


class Psu(Part):
    kind: ClassVar[str] = "psu"

    form: Literal["atx", "sfx", "server"]
    watts: float = Field(gt=0, le=1e6)
    # Some server PSUs give less at 100-127 V; None when the sheet gives one rating.
    watts_low_line: float | None = Field(default=None, gt=0, le=1e6)
    efficiency: (
        Literal[
            "80plus",
            "80plus-bronze",
            "80plus-silver",
            "80plus-gold",
            "80plus-platinum",
            "80plus-titanium",
        ]
        | None
    ) = None
    inlet: Literal["iec-60320-c14", "iec-60320-c20", "iec-60320-c16"] | None = None
    # Cable counts; None when no source gives them (0 means the PSU has none).
    pcie_8pin: int | None = Field(default=None, ge=0, le=16)
    pcie_12v_2x6: int | None = Field(default=None, ge=0, le=8)


class Server(Part):
    """A chassis and board sold as one system, with its stock power supplies."""

    kind: ClassVar[str] = "server"

    chassis: KebabId
    board: KebabId
    psu: KebabId
    psu_count: int = Field(ge=1, le=64)
    psu_redundancy: str | None = None
    height_u: int = Field(ge=1, le=100)
    depth_mm: float | None = Field(default=None, gt=0, le=1e4)
    weight_kg: float | None = Field(default=None, gt=0, le=1e5)
    is_full_depth: bool = True
    max_gpus: int | None = Field(default=None, ge=0, le=64)
    fans_w: float | None = Field(default=None, ge=0, le=1e6)
    bmc: bool = True
