"""Rack parts: racks, PDUs with their outlet groups, network switches, and other rack devices."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field, model_validator

from rackplanner.core.catalog.parts.base import Frozen, KebabId, Part
from rackplanner.core.catalog.parts.panel import Airflow, DriveBays


class Rack(Part):
    kind: ClassVar[str] = "rack"

    height_u: int = Field(ge=1, le=100)
    width_mm: float | None = Field(default=None, gt=0, le=1e4)
    depth_mm: float = Field(gt=0, le=1e4)
    max_mounting_depth_mm: float | None = Field(default=None, gt=0, le=1e4)
    max_load_kg: float | None = Field(default=None, gt=0, le=1e5)
    weight_kg: float | None = Field(default=None, gt=0, le=1e5)
    zero_u_channels: int = Field(default=2, ge=0, le=8)


OutletType = Literal["iec-60320-c13", "iec-60320-c19", "nema-5-15r", "nema-5-20r", "hdot-cx", "eaton-c39"]
LineName = Literal["L1", "L2", "L3", "L1-L2", "L2-L3", "L3-L1"]


class OutletGroup(Frozen):
    """Outlets behind one breaker, wired line to neutral ("L1") or line to line ("L1-L2").

    A delta PDU has line-to-line groups only; a wye PDU can have both (a 208 V L21-30P PDU's C13
    and C19 outlets line to line, its NEMA 5-20R outlets line to neutral).
    """

    id: KebabId
    line: LineName
    breaker_a: float | None = Field(default=None, gt=0, le=1000)
    outlets: dict[OutletType, int]


class Pdu(Part):
    kind: ClassVar[str] = "pdu"

    phases: Literal[1, 3]
    wiring: Literal["single", "wye", "delta"]
    voltage_v: float = Field(gt=0, le=1000)
    input_current_a: float = Field(gt=0, le=1000)
    derating: float = Field(default=0.8, gt=0, le=1)
    inlet: str
    height_u: int = Field(default=0, ge=0, le=100)
    length_mm: float | None = Field(default=None, gt=0, le=1e4)
    weight_kg: float | None = Field(default=None, gt=0, le=1e5)
    metering: Literal["basic", "metered", "switched", "metered-by-outlet", "switched-by-outlet"]
    # Empty when no source gives the layout: its outlets are then "unknown", never guessed.
    outlet_groups: list[OutletGroup] = Field(default_factory=list)
    load_capacity_va: float | None = Field(default=None, gt=0, le=1e7)

    @model_validator(mode="after")
    def _wiring_matches_phases(self) -> Pdu:
        if (self.phases == 1) != (self.wiring == "single"):
            raise ValueError(f"wiring {self.wiring!r} does not fit a {self.phases}-phase PDU")
        for group in self.outlet_groups:
            if self.wiring == "delta" and "-" not in group.line:
                raise ValueError(f"outlet group {group.id}: a delta PDU feeds line pairs like L1-L2")
            if self.wiring == "single" and group.line != "L1":
                raise ValueError(f"outlet group {group.id}: a single-phase PDU feeds L1 only")
        return self


class PortGroup(Frozen):
    count: int = Field(ge=1, le=1024)
    speed_gbps: float = Field(gt=0, le=1e5)
    connector: str


class NetworkSwitch(Part):
    kind: ClassVar[str] = "switch"

    fabric: Literal["ethernet", "infiniband"]
    ports: list[PortGroup] = Field(min_length=1)
    height_u: int = Field(ge=1, le=100)
    depth_mm: float | None = Field(default=None, gt=0, le=1e4)
    is_full_depth: bool = False
    weight_kg: float | None = Field(default=None, gt=0, le=1e5)
    power_typical_w: float | None = Field(default=None, gt=0, le=1e6)
    power_max_w: float | None = Field(default=None, gt=0, le=1e6)
    psu_count: int = Field(default=1, ge=1, le=64)
    inlet: Literal["iec-60320-c14", "iec-60320-c20", "iec-60320-c16"] = "iec-60320-c14"
    managed: bool = True
    airflow: Airflow | None = None


class PowerPort(Frozen):
    """One power inlet of a rack device, as NetBox device types describe it."""

    type: str
    maximum_draw_w: float | None = Field(default=None, gt=0, le=1e6)
    allocated_draw_w: float | None = Field(default=None, gt=0, le=1e6)


class RackDevice(Part):
    """Other rack equipment (storage, a management server, a KVM, a patch panel): NetBox's shape."""

    kind: ClassVar[str] = "rack-device"

    height_u: int = Field(ge=1, le=100)
    is_full_depth: bool = True
    depth_mm: float | None = Field(default=None, gt=0, le=1e4)
    weight_kg: float | None = Field(default=None, gt=0, le=1e5)
    power_ports: list[PowerPort] = Field(default_factory=list)
    # The whole device's maximum draw at the wall, shared by its power ports (redundant PSUs share it).
    power_max_w: float | None = Field(default=None, gt=0, le=1e6)
    interfaces: list[PortGroup] = Field(default_factory=list)
    # Out-of-band management ports (BMC/iDRAC/iLO) among the interfaces.
    mgmt_ports: int = Field(default=0, ge=0, le=256)
    airflow: Airflow | None = None
    # None when no source gives the bays; an empty list when the device has none.
    drive_bays: list[DriveBays] | None = None

    @property
    def draw_w(self) -> float | None:
        """The device's maximum draw: ``power_max_w``, else each port's own draw added up (None if one is unknown)."""
        if self.power_max_w is not None:
            return self.power_max_w
        draws = [p.maximum_draw_w or p.allocated_draw_w for p in self.power_ports]
        if not draws or any(d is None for d in draws):
            return None
        return sum(d or 0.0 for d in draws)


# The catalog parts a rack holds as devices of their own (a server is mounted as a machine).
MOUNTABLE_PARTS: tuple[type[Part], ...] = (NetworkSwitch, Pdu, RackDevice)
