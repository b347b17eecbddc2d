"""Pydantic models of a user's plan: machines with their placed parts, racks, feeds.

The plan is the one source of truth and is immutable: edits in ``edits.py`` return a
new plan. Derived figures (loads, paths, speeds) are never stored here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Annotated, Any, Literal, NewType, TypeVar

from pydantic import BeforeValidator, Field, model_validator

from rackplanner.core.catalog.parts import Frozen, KebabId

# Far above any real id; keeps messages that quote an id readable.
MAX_ID_LENGTH = 100


def _id_not_too_long(value: object) -> object:
    if isinstance(value, str) and len(value) > MAX_ID_LENGTH:
        raise ValueError(f"an id is at most {MAX_ID_LENGTH} characters, this one has {len(value)}")
    return value


# A lowercase kebab id of reasonable length: the ids of a plan's things and the part ids it names.
PlanId = Annotated[KebabId, BeforeValidator(_id_not_too_long)]

MachineId = NewType("MachineId", str)
RackId = NewType("RackId", str)
DeviceId = NewType("DeviceId", str)
FeedId = NewType("FeedId", str)

RowId = NewType("RowId", str)

# Version 2: rows of racks are entries of ``Plan.rows`` (a rack names its row by id) and a
# card may carry its ``network`` role. Version 3: a machine carries its BIOS/OS ``host`` settings.
SCHEMA_VERSION = 4
# Longest name and notes text a plan holds: names are drawn in tabs and on canvases.
MAX_NAME = 200
MAX_NOTES = 100_000


class PlacedCard(Frozen):
    """A card (GPU, NIC, NVMe drive) in a slot of the machine's board."""

    slot: PlanId
    part: PlanId
    power_limit_w: float | None = Field(default=None, gt=0, le=1e6)
    # Which network a NIC's ports serve; None lets the fabric infer it from the NIC's protocol.
    network: Literal["compute", "storage", "in-band"] | None = None


class BridgeLink(Frozen):
    """An NVLink bridge joining the cards in two slots."""

    part: PlanId
    slots: tuple[PlanId, PlanId]

    @model_validator(mode="after")
    def _two_distinct_slots(self) -> BridgeLink:
        if self.slots[0] == self.slots[1]:
            raise ValueError(f"an NVLink bridge joins two different slots, not {self.slots[0]} twice")
        return self


# NCCL_P2P_LEVEL's values, nearest first (NCCL 2.23+ src/graph/paths.cc, topoPathTypeStr).
NcclLevel = Literal["LOC", "NVL", "PIX", "PXB", "PHB", "SYS"]


class HostSettings(Frozen):
    """BIOS and OS settings that change what the machine's PCIe topology does.

    ``numa_per_socket`` is AMD's NPS1/2/4 or Intel's sub-NUMA clustering (SNC2/SNC4): the
    socket's root complexes split into that many NUMA nodes. ``acs`` is PCIe Access Control
    Services left on at the switches and root ports (peer traffic redirected to the root);
    ``iommu`` is DMA remapping in translation mode (not ``iommu=pt``). ``p2p_driver`` is a
    driver that enables PCIe P2P on cards whose product line does not (the patched open
    kernel modules for GeForce). The NCCL fields are the environment the jobs run with.
    """

    numa_per_socket: Literal[1, 2, 4] = 1
    acs: bool = False
    iommu: bool = False
    smt: bool = True
    p2p_driver: bool = False
    nccl_p2p_level: NcclLevel | None = None
    nccl_p2p_disable: bool = False
    nccl_nvb_disable: bool = False


class PartCount(Frozen):
    """Several identical parts: DIMMs, PSUs, drives in bays."""

    part: PlanId
    count: int = Field(ge=1, le=1024)


class Machine(Frozen):
    """A workstation or server. A server names a catalog ``server``; a build names board and case."""

    id: PlanId
    name: str = Field(min_length=1, max_length=MAX_NAME)
    server: PlanId | None = None
    board: PlanId | None = None
    chassis: PlanId | None = None
    cpu: PlanId | None = None
    cpu_count: int = Field(default=1, ge=1, le=8)
    memory: list[PartCount] = Field(default_factory=list)
    psus: list[PartCount] = Field(default_factory=list)
    drives: list[PartCount] = Field(default_factory=list)
    cards: list[PlacedCard] = Field(default_factory=list)
    bridges: list[BridgeLink] = Field(default_factory=list)
    host: HostSettings = Field(default_factory=HostSettings)
    notes: str = Field(default="", max_length=MAX_NOTES)

    @model_validator(mode="after")
    def _consistent(self) -> Machine:
        if self.server is not None and (self.board is not None or self.chassis is not None):
            raise ValueError("a machine names either a server or a board and chassis, not both")
        slots = [card.slot for card in self.cards]
        duplicates = sorted({s for s in slots if slots.count(s) > 1})
        if duplicates:
            raise ValueError(f"slot {duplicates[0]} holds more than one card")
        for bridge in self.bridges:
            for slot in bridge.slots:
                if slot not in slots:
                    raise ValueError(f"NVLink bridge joins slot {slot}, which holds no card")
        return self

    def card_in(self, slot: str) -> PlacedCard | None:
        return next((c for c in self.cards if c.slot == slot), None)


class MountedDevice(Frozen):
    """Something in a rack: a machine of the plan, or a catalog part (switch, PDU, rack shelf).

    ``position_u`` is the lowest U the device occupies (1 = bottom). Zero-U devices
    (vertical PDUs) have no position and sit in a side channel instead.
    """

    id: PlanId
    name: str = Field(min_length=1, max_length=MAX_NAME)
    machine: PlanId | None = None
    part: PlanId | None = None
    position_u: int | None = Field(default=None, ge=1, le=100)
    face: Literal["front", "rear"] = "front"
    side: Literal["left", "right"] | None = None
    feed: PlanId | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> MountedDevice:
        if (self.machine is None) == (self.part is None):
            raise ValueError("a mounted device names exactly one of machine or part")
        if self.position_u is None and self.side is None:
            raise ValueError("a mounted device needs a position_u or, for 0U devices, a side")
        return self


class Row(Frozen):
    """A row of racks in the room; racks name it by ``id``, people see its ``name``."""

    id: PlanId
    name: str = Field(min_length=1, max_length=MAX_NAME)


class Rack(Frozen):
    id: PlanId
    name: str = Field(min_length=1, max_length=MAX_NAME)
    part: PlanId
    row: PlanId = "row-1"
    devices: list[MountedDevice] = Field(default_factory=list)

    def device(self, device_id: str) -> MountedDevice | None:
        return next((d for d in self.devices if d.id == device_id), None)


class Feed(Frozen):
    """A circuit from the facility: the receptacle a PDU plugs into."""

    id: PlanId
    name: str = Field(min_length=1, max_length=MAX_NAME)
    side: Literal["A", "B"]
    phases: Literal[1, 3]
    voltage_v: float = Field(gt=0, le=1000)
    breaker_a: float = Field(gt=0, le=1000)


class OutletAssignment(Frozen):
    """A user's override: PSU ``psu_index`` of ``device`` plugs into an outlet of ``pdu``."""

    rack: PlanId
    device: PlanId
    psu_index: int = Field(ge=0, le=64)
    pdu: PlanId
    outlet_group: PlanId


class UserPrice(Frozen):
    """A price the user brought for one part (a quote, a row of a price list), in US dollars."""

    price_usd: float = Field(ge=0, le=1e9)
    price_date: date | None = None
    note: str = Field(default="", max_length=2000)
    source: str = Field(default="set in the plan", max_length=300)


class Plan(Frozen):
    schema_version: int = SCHEMA_VERSION
    name: str = Field(min_length=1, max_length=MAX_NAME)
    notes: str = Field(default="", max_length=MAX_NOTES)
    machines: list[Machine] = Field(default_factory=list)
    rows: list[Row] = Field(default_factory=list)
    racks: list[Rack] = Field(default_factory=list)
    feeds: list[Feed] = Field(default_factory=list)
    # The user's own prices by part; they take the place of the catalog's price book.
    user_prices: dict[PlanId, UserPrice] = Field(default_factory=dict)
    outlet_assignments: list[OutletAssignment] = Field(default_factory=list)

    @model_validator(mode="after")
    def _ids_unique_and_resolved(self) -> Plan:
        _unique("machine", [m.id for m in self.machines])
        _unique("row", [r.id for r in self.rows])
        _unique("rack", [r.id for r in self.racks])
        row_ids = {r.id for r in self.rows}
        for rack in self.racks:
            if rack.row not in row_ids:
                raise ValueError(f"rack {rack.id}: row {rack.row!r} is not in the plan's rows")
        _unique("feed", [f.id for f in self.feeds])
        machine_ids = {m.id for m in self.machines}
        feed_ids = {f.id for f in self.feeds}
        mounted: dict[str, str] = {}
        for rack in self.racks:
            _unique(f"device in rack {rack.id}", [d.id for d in rack.devices])
            for device in rack.devices:
                if device.machine is not None:
                    if device.machine not in machine_ids:
                        raise ValueError(
                            f"rack {rack.id}, device {device.id}: machine {device.machine!r} is not in the plan"
                        )
                    if device.machine in mounted:
                        raise ValueError(
                            f"machine {device.machine!r} is mounted twice "
                            f"(racks {mounted[device.machine]} and {rack.id})"
                        )
                    mounted[device.machine] = rack.id
                if device.feed is not None and device.feed not in feed_ids:
                    raise ValueError(f"rack {rack.id}, device {device.id}: feed {device.feed!r} is not in the plan")
        return self

    def machine(self, machine_id: str) -> Machine | None:
        return _index(self.machines).get(machine_id)

    def rack(self, rack_id: str) -> Rack | None:
        return _index(self.racks).get(rack_id)

    def row(self, row_id: str) -> Row | None:
        return next((r for r in self.rows if r.id == row_id), None)


T = TypeVar("T", Machine, Rack)

# Things by id for the last few lists seen (machines, racks). Plans are never changed in place,
# so a list object stands for its content; holding it keeps its id from being reused.
_INDEXES: list[tuple[object, dict[str, Any]]] = []
_INDEXES_KEPT = 16


def _index(items: list[T]) -> dict[str, T]:
    for kept, index in _INDEXES:
        if kept is items:
            return index
    made = {item.id: item for item in items}
    _INDEXES.insert(0, (items, made))
    del _INDEXES[_INDEXES_KEPT:]
    return made


def _unique(what: str, ids: list[str]) -> None:
    seen: set[str] = set()
    for item in ids:
        if item in seen:
            raise ValueError(f"{what} id {item!r} is used twice")
        seen.add(item)


@dataclass(frozen=True)
class RackInputs:
    """What a rack's power and report are worked out from: the rack, its machines, feeds and pinned cords."""

    rack: Rack
    machines: list[Machine]
    feeds: list[Feed]
    overrides: list[OutletAssignment]

    def objects(self) -> tuple[object, ...]:
        """The plan objects in a fixed order (None between groups), for a cache key by identity."""
        return (*self.machines, None, *self.feeds, None, *self.overrides)


def rack_machines(plan: Plan, rack: Rack) -> list[Machine]:
    """The plan's machines mounted in ``rack``, in mounting order."""
    return [m for d in rack.devices if d.machine and (m := plan.machine(d.machine)) is not None]


def rack_inputs(plan: Plan, rack_id: str) -> RackInputs:
    """The rack's inputs; KeyError when the plan has no such rack."""
    rack = plan.rack(rack_id)
    if rack is None:
        raise KeyError(rack_id)
    machines = rack_machines(plan, rack)
    feeds = [f for f in plan.feeds if any(d.feed == f.id for d in rack.devices)]
    overrides = [a for a in plan.outlet_assignments if a.rack == rack_id]
    return RackInputs(rack, machines, feeds, overrides)
