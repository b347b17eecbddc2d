"""What a rack's power analysis returns: consumers, cords, line and breaker loads per scenario, outlets used."""

from __future__ import annotations

from pydantic import BaseModel

from rackplanner.core.findings import RackFinding

# A cord's plug end fits these PDU outlets (002_daeb2f0cc80a7fe9.txt: a C14 inlet takes a
# C13-C14 cord into a C13 outlet, a C20 inlet a C19-C20 cord into a C19 outlet; a C16 inlet
# takes a C15 cord, whose other end is a C14 plug).
OUTLET_FOR_INLET = {
    "iec-60320-c14": "iec-60320-c13",
    "iec-60320-c16": "iec-60320-c13",
    "iec-60320-c20": "iec-60320-c19",
    # NEMA 5-15P/5-20P plugs go into a PDU's 5-15R/5-20R outlets (120 V, line to neutral).
    "nema-5-15p": "nema-5-15r",
    "nema-5-20p": "nema-5-20r",
}
DEFAULT_INLET = "iec-60320-c14"
# Combination outlets take a C14 or a C20 plug (HDOT Cx, Eaton's C39): they serve C13 and C19 cords.
COMBINATION_OUTLETS = ("hdot-cx", "eaton-c39")


def outlets_accepting(outlet_type: str) -> tuple[str, ...]:
    """The outlet types a cord made for ``outlet_type`` plugs into, its own type first."""
    if outlet_type in ("iec-60320-c13", "iec-60320-c19"):
        return (outlet_type, *COMBINATION_OUTLETS)
    return (outlet_type,)


SCENARIOS = ("normal", "feed-a-failed", "feed-b-failed")
SCENARIO_LABELS = {"normal": "Normal", "feed-a-failed": "Feed A failed", "feed-b-failed": "Feed B failed"}
FAILED_SIDE = {"feed-a-failed": "A", "feed-b-failed": "B"}


class Consumer(BaseModel):
    """Something in the rack that draws power through one or more cords."""

    device: str
    name: str
    wall_w: float
    wall_va: float
    heat_btu_hr: float
    inlets: list[str]
    inlet_assumed: bool = False
    power_known: bool = True
    # Inputs no PDU outlet feeds (a DC terminal, a hard-wired or a locking-plug input): not corded.
    unfed_inlets: list[str] = []
    # For machines: each PSU's rating and the DC load, to check what survives a feed loss.
    psu_watts_each: float | None = None
    dc_load_w: float | None = None

    @property
    def outlet_types(self) -> list[str]:
        """The PDU outlet each cord plugs into, by its inlet (C14 and C16 to C13, C20 to C19)."""
        return [OUTLET_FOR_INLET.get(inlet, "iec-60320-c13") for inlet in self.inlets]


class CordAssignment(BaseModel):
    device: str
    device_name: str
    psu_index: int
    pdu: str
    outlet_group: str
    outlet_type: str
    line: str
    manual: bool


class LineLoad(BaseModel):
    line: str
    current_a: float
    limit_a: float
    percent: float
    over: bool


class BreakerLoad(BaseModel):
    outlet_group: str
    line: str
    current_a: float
    breaker_a: float | None
    limit_a: float | None
    percent: float | None
    over: bool


class PduLoad(BaseModel):
    """One PDU in one scenario."""

    pdu: str
    name: str
    part: str
    feed: str | None
    side: str | None
    alive: bool
    wiring: str
    lines: list[LineLoad]
    breakers: list[BreakerLoad]
    neutral_a: float | None
    imbalance_percent: float
    load_w: float
    load_va: float
    usable_va: float
    limit_basis: str


class ScenarioResult(BaseModel):
    scenario: str
    label: str
    pdus: list[PduLoad]
    unpowered: list[str]
    load_w: float
    load_va: float


class OutletUse(BaseModel):
    pdu: str
    outlet_type: str
    used: int
    total: int


class GroupOutlets(BaseModel):
    """Outlets of one type in one outlet group of a PDU, and how many cords use them."""

    pdu: str
    pdu_name: str
    outlet_group: str
    line: str
    outlet_type: str
    used: int
    total: int

    @property
    def free(self) -> int:
        return self.total - self.used


class RackPower(BaseModel):
    rack: str
    name: str
    consumers: list[Consumer]
    cords: list[CordAssignment]
    scenarios: list[ScenarioResult]
    outlets: list[OutletUse]
    group_outlets: list[GroupOutlets]
    load_w: float
    load_va: float
    heat_btu_hr: float
    power_factor: float
    findings: list[RackFinding]

    def scenario(self, name: str) -> ScenarioResult:
        return next(s for s in self.scenarios if s.scenario == name)

    def pdu_load(self, scenario: str, pdu: str) -> PduLoad:
        return next(p for p in self.scenario(scenario).pdus if p.pdu == pdu)


def short_connector(connector: str) -> str:
    return connector.removeprefix("iec-60320-").upper()
