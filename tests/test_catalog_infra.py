"""Rack, power, network, PSU and drive catalog entries: sourced, internally consistent, key figures as cited."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from rackplanner.core.catalog.loading import BUILTIN_CATALOG_DIR, Catalog, load_catalog_file
from rackplanner.core.catalog.parts import PCIE_GBS_PER_LANE, NetworkSwitch, Nic, OutletGroup, Pdu, Psu, Rack
from rackplanner.core.rack.power import rack_power
from tests.rackfixtures import build_catalog, mount_loads, rack_with_pdus

INFRA_FILES = ("rack", "pdu", "switch", "nic", "psu", "drive")

# Lines an outlet group may sit on, by wiring: a wye PDU feeds outlets line-to-neutral, a delta
# PDU line-to-line, a single-phase PDU its one line (DESIGN.md, Power; 002_daeb2f0cc80a7fe9.txt).
LINES_BY_WIRING = {
    "single": {"L1"},
    "wye": {"L1", "L2", "L3"},
    "delta": {"L1-L2", "L2-L3", "L3-L1"},
}

# Maximum power of an IEC inlet, 002_daeb2f0cc80a7fe9.txt ("Receptacles & plugs"):
# C13/C14 15 A, max 2.5 kW; C19/C20 20 A, max 3.2 kW.
INLET_MAX_W = {"iec-60320-c14": 2500, "iec-60320-c20": 3200}

# Server PSUs whose efficiency level no reachable source gives; each says so in its notes.
SERVER_PSU_EFFICIENCY_GAPS = {
    "supermicro-pws-2k04a-1r",
    "dell-2400w-psu-r750xa",
    "delta-dps-2200ab-2",
    "nvidia-dgx-a100-3000w-psu",
    "nvidia-dgx-h100-3300w-psu",
    "nvidia-dgx-1-1600w-psu",
}
# Server PSUs whose inlet no reachable source gives (the PDU outlet check then says "not checked").
SERVER_PSU_INLET_GAPS = {
    "asus-3000w-titanium-esc8000a-e12",
    "asus-2200w-platinum-esc4000a-e10",
    "nvidia-dgx-a100-3000w-psu",
    "nvidia-dgx-1-1600w-psu",
}
# Above the seed's 200 V figure for a C20 but within its 16 A at 240 V (3.84 kW): NVIDIA ships
# the DGX H100's 3.3 kW supplies with C19/C20 cords and specifies 200-240 V input.
ABOVE_200V_INLET_FIGURE = {"nvidia-dgx-h100-3300w-psu"}


def _pdu(catalog: Catalog, part_id: str) -> Pdu:
    pdu = catalog.get_as(part_id, Pdu)
    assert pdu is not None, part_id
    return pdu


def usable_va(pdu: Pdu) -> float:
    """Derated capacity: V x I (single-phase) or sqrt(3) x V(line-line) x I (3-phase), times derating."""
    factor = math.sqrt(3) if pdu.phases == 3 else 1.0
    return factor * pdu.voltage_v * pdu.input_current_a * pdu.derating


def breaker_violations(pdu: Pdu) -> list[str]:
    """Outlet groups whose breaker is rated above the PDU's input current (a typo or a wrong unit)."""
    return [g.id for g in pdu.outlet_groups if g.breaker_a is not None and g.breaker_a > pdu.input_current_a]


def outlet_totals(pdu: Pdu) -> dict[str, int]:
    totals: dict[str, int] = {}
    for group in pdu.outlet_groups:
        for outlet, count in group.outlets.items():
            totals[outlet] = totals.get(outlet, 0) + count
    return totals


@pytest.mark.parametrize("kind", INFRA_FILES)
def test_every_entry_validates_and_cites_a_source(kind: str) -> None:
    entries = load_catalog_file(BUILTIN_CATALOG_DIR / f"{kind}.yaml", kind)
    assert entries, f"{kind}.yaml is empty"
    for _, part in entries:
        assert part.source, part.id
        for source in part.source:
            # Something a user can open: a URL, a seed file name or an index id to look up.
            assert "http" in source or "seed 0" in source or "search-index id" in source, (part.id, source)


def test_catalog_has_racks_of_each_common_height(catalog: Catalog) -> None:
    heights = {rack.height_u for rack in catalog.of_kind(Rack)}
    assert {42, 45, 48} <= heights
    for rack in catalog.of_kind(Rack):
        if rack.max_mounting_depth_mm is not None:
            assert rack.max_mounting_depth_mm < rack.depth_mm, rack.id


@pytest.mark.parametrize(
    ("part_id", "height_u", "width_mm", "depth_mm"),
    [
        # NetBox rack-types/APC/AR3150.yaml: 42U, 750 W x 1070 D mm.
        ("apc-ar3150", 42, 750, 1070),
        # NetBox rack-types/APC/AR3357.yaml: 48U, 750 W x 1200 D mm.
        ("apc-ar3357", 48, 750, 1200),
        # NetBox rack-types/Conteg/RI7-45-60-120.yaml: 45U, 600 x 1200 mm.
        ("conteg-ri7-45-60-120", 45, 600, 1200),
        # Used by resources/examples/colo-rack.json; NetBox AR3300: 42U, 600 x 1200 mm.
        ("apc-ar3300", 42, 600, 1200),
    ],
)
def test_rack_dimensions(catalog: Catalog, part_id: str, height_u: int, width_mm: float, depth_mm: float) -> None:
    rack = catalog.get_as(part_id, Rack)
    assert rack is not None, part_id
    assert (rack.height_u, rack.width_mm, rack.depth_mm) == (height_u, width_mm, depth_mm)


def test_pdu_outlet_groups_sit_on_lines_of_their_wiring(catalog: Catalog) -> None:
    pdus = catalog.of_kind(Pdu)
    assert {p.wiring for p in pdus} == {"single", "wye", "delta"}
    for pdu in pdus:
        allowed = LINES_BY_WIRING[pdu.wiring]
        lines = [g.line for g in pdu.outlet_groups]
        assert set(lines) <= allowed, (pdu.id, lines)
        assert len({g.id for g in pdu.outlet_groups}) == len(pdu.outlet_groups), pdu.id
        if pdu.phases == 3 and pdu.outlet_groups:
            # A 3-phase PDU with a known layout uses all three lines (or line pairs).
            assert set(lines) == allowed, (pdu.id, lines)


def test_breakers_never_exceed_input_current(catalog: Catalog) -> None:
    for pdu in catalog.of_kind(Pdu):
        assert breaker_violations(pdu) == [], pdu.id
    # The check itself catches a 40 A breaker behind a 30 A input.
    bad = _pdu(catalog, "raritan-px3-5724v").model_copy(
        update={"outlet_groups": [OutletGroup(id="g", line="L1-L2", breaker_a=40, outlets={"iec-60320-c13": 1})]}
    )
    assert breaker_violations(bad) == ["g"]


@pytest.mark.parametrize(
    ("part_id", "c13", "c19"),
    [
        # NetBox AP8886.yaml comment: "(30) C13 & (12) C19".
        ("apc-ap8886", 30, 12),
        # NetBox AP8853.yaml comment: "32A, 230V, (36) C13 & (6) C19".
        ("apc-ap8853", 36, 6),
        # NetBox PX3-5724V.yaml comment: "8.6kVA, 208V, (24) C13 & (12) C19".
        ("raritan-px3-5724v", 24, 12),
        # NetBox AP8881.yaml: 36 x C13 and 6 x C19.
        ("apc-ap8881", 36, 6),
        # NetBox AP8965.yaml: 24 outlets, C19 at outlets 8, 16 and 24.
        ("apc-ap8965", 21, 3),
    ],
)
def test_pdu_outlet_counts_match_their_sheets(catalog: Catalog, part_id: str, c13: int, c19: int) -> None:
    assert outlet_totals(_pdu(catalog, part_id)) == {"iec-60320-c13": c13, "iec-60320-c19": c19}


def test_ap8966_known_answer() -> None:
    # 002_daeb2f0cc80a7fe9.txt: 208 V 3PH, max input 60 A, regulatory derated 48 A,
    # P = sqrt(3) x 208 x 60 x 0.8 = 17292.8 VA, "Load Capacity 17300VA".
    pdu = load_catalog_file(BUILTIN_CATALOG_DIR / "pdu.yaml", "pdu")
    ap8966 = next(p for _, p in pdu if p.id == "apc-ap8966")
    assert isinstance(ap8966, Pdu)
    assert ap8966.input_current_a * ap8966.derating == pytest.approx(48)
    assert usable_va(ap8966) == pytest.approx(17292.8, abs=0.1)
    assert ap8966.load_capacity_va == 17300
    # Its outlet layout is in no source we could open: unknown, not guessed.
    assert ap8966.outlet_groups == []


@pytest.mark.parametrize(
    ("part_id", "va"),
    [
        # 400 V 32 A wye: sqrt(3) x 400 x 32 x 0.8 = 17,736 VA usable (22.2 kVA before derating).
        ("apc-ap8886", 17736.2),
        # 230 V 32 A single-phase: 230 x 32 x 0.8 = 5,888 VA.
        ("apc-ap8853", 5888.0),
        # 208 V 30 A delta: sqrt(3) x 208 x 30 x 0.8 = 8,646 VA, Raritan's "8.6kVA".
        ("raritan-px3-5724v", 8646.4),
    ],
)
def test_usable_capacity(catalog: Catalog, part_id: str, va: float) -> None:
    assert usable_va(_pdu(catalog, part_id)) == pytest.approx(va, abs=0.5)


def test_rated_capacity_agrees_with_voltage_and_current(catalog: Catalog) -> None:
    # A vendor's kVA figure is sqrt(3) x V x I either derated (North American 208 V sheets, like
    # the AP8966 of 002_daeb2f0cc80a7fe9.txt) or not (IEC 400 V sheets): within 2 % of one of them.
    checked = 0
    for pdu in catalog.of_kind(Pdu):
        if pdu.load_capacity_va is None:
            continue
        derated = usable_va(pdu)
        full = derated / pdu.derating
        rated = [derated, full]
        # Where the bank breakers limit the PDU (Schneider FAQ FA156194 on the AP8868), the rating is
        # the sum over banks of outlet voltage x breaker current x derating.
        if pdu.outlet_groups and all(g.breaker_a for g in pdu.outlet_groups):
            volts = pdu.voltage_v if pdu.wiring != "wye" else pdu.voltage_v / math.sqrt(3)
            rated.append(sum(volts * (g.breaker_a or 0) * pdu.derating for g in pdu.outlet_groups))
        assert min(abs(pdu.load_capacity_va / va - 1) for va in rated) < 0.02, pdu.id
        checked += 1
    assert checked >= 4


def test_ap8868_is_limited_by_its_bank_breakers(catalog: Catalog) -> None:
    """Schneider FAQ FA156194: three banks on phase pairs 1-2, 2-3, 1-3, each behind a 20 A breaker
    (16 A per UL); 3 x 208 V x 16 A = 9984 W, below the 50 A plug's derated sqrt(3) x 208 V x 40 A."""
    pdu = _pdu(catalog, "apc-ap8868")
    assert (pdu.phases, pdu.wiring, pdu.voltage_v, pdu.input_current_a, pdu.inlet) == (3, "delta", 208, 50, "cs8365c")
    assert [(g.line, g.breaker_a) for g in pdu.outlet_groups] == [("L1-L2", 20), ("L2-L3", 20), ("L3-L1", 20)]
    # NetBox AP8868.yaml: (36) C13 & (6) C19 in three banks.
    assert sum(g.outlets.get("iec-60320-c13", 0) for g in pdu.outlet_groups) == 36
    assert sum(g.outlets.get("iec-60320-c19", 0) for g in pdu.outlet_groups) == 6
    breakers_va = sum(pdu.voltage_v * (g.breaker_a or 0) * pdu.derating for g in pdu.outlet_groups)
    assert breakers_va == pytest.approx(9984) == pdu.load_capacity_va
    assert usable_va(pdu) == pytest.approx(math.sqrt(3) * 208 * 40, abs=0.5)
    assert breakers_va < usable_va(pdu)


@pytest.mark.parametrize(
    ("part_id", "ports", "total_gbps"),
    [
        # 002_daeb2f0cc80a7fe9.txt and NetBox qm8700.yml: 40 x 200 Gb/s HDR.
        ("mellanox-qm8700", 40, 8000),
        # NVIDIA QM97X0 manual, Interfaces: 32 OSFP cages x 2 logical NDR ports x 400 Gb/s.
        ("nvidia-qm9700", 32 * 2, 32 * 2 * 400),
        # mlxsw 5.13 release notes: SN2700 32 x QSFP28 100GbE; SN4600C 64 x QSFP28.
        ("nvidia-sn2700", 32, 3200),
        ("nvidia-sn4600c", 64, 6400),
        # NetBox SN4700.yml: 32 x 400GbE QSFP-DD.
        ("nvidia-sn4700", 32, 12800),
        # NetBox SN2201.yml: 48 x 1GbE + 4 x 100GbE.
        ("nvidia-sn2201", 52, 448),
        # NetBox DCS-7060CX-32S.yaml: 32 x 100GbE QSFP28 + 2 x 10GbE SFP+.
        ("arista-dcs-7060cx-32s", 34, 3220),
        # NetBox DCS-7010T-48.yaml: 48 x 1000BASE-T + 4 x 10GbE SFP+.
        ("arista-dcs-7010t-48", 52, 88),
    ],
)
def test_switch_port_totals(catalog: Catalog, part_id: str, ports: int, total_gbps: float) -> None:
    switch = catalog.get_as(part_id, NetworkSwitch)
    assert switch is not None, part_id
    assert sum(g.count for g in switch.ports) == ports
    assert sum(g.count * g.speed_gbps for g in switch.ports) == total_gbps


def test_sn4600c_is_two_units_high(catalog: Catalog) -> None:
    # mlxsw 5.13 release notes: "Spectrum-3 based 100GbE 2U"; NetBox's u_height 1 is wrong.
    switch = catalog.get_as("nvidia-sn4600c", NetworkSwitch)
    assert switch is not None and switch.height_u == 2


def test_connectx7_typical_power(catalog: Catalog) -> None:
    """NVIDIA ConnectX-7 user manual, Specifications: MCX75310AAS-NEAT 24.9 W typical with passive cables, Gen5 x16."""
    nic = catalog.get_as("connectx-7-mcx75310aas-neat", Nic)
    assert nic is not None and nic.tdp_w == 24.9


def test_single_port_nics_fit_their_pcie_link(catalog: Catalog) -> None:
    # One port must not be faster than the card's PCIe link (GB/s per lane x lanes x 8 bit).
    nics = catalog.of_kind(Nic)
    assert len(nics) >= 8
    for nic in nics:
        if nic.ports == 1:
            assert nic.port_speed_gbps <= PCIE_GBS_PER_LANE[nic.pcie_gen] * nic.pcie_lanes * 8, nic.id
    # KCORES table: MCX75310AAS-NEAT is 1 x OSFP NDR 400 Gb/s on PCIe Gen5 x16 (504 Gb/s).
    cx7 = catalog.get_as("connectx-7-mcx75310aas-neat", Nic)
    assert cx7 is not None
    assert (cx7.ports, cx7.port_speed_gbps, cx7.connector, cx7.pcie_gen) == (1, 400, "osfp", 5)
    # DOCA installation guide: BlueField-3 B3240 is the dual-slot 400GbE model.
    b3240 = catalog.get_as("bluefield-3-b3240", Nic)
    assert b3240 is not None and b3240.slot_width == 2


def test_server_psus_have_efficiency_and_inlet(catalog: Catalog) -> None:
    servers = [p for p in catalog.of_kind(Psu) if p.form == "server"]
    assert len(servers) >= 3
    for psu in servers:
        if psu.id in SERVER_PSU_INLET_GAPS:
            assert psu.inlet is None and psu.notes and "Inlet: not found" in psu.notes, psu.id
        else:
            assert psu.inlet in INLET_MAX_W, psu.id
        if psu.id in SERVER_PSU_EFFICIENCY_GAPS:
            said = ("Efficiency" in (psu.notes or "")) or ("80 PLUS level: not found" in (psu.notes or ""))
            assert psu.efficiency is None and said, psu.id
        else:
            assert psu.efficiency is not None, f"{psu.id}: server PSU without an 80 PLUS level"


@pytest.mark.parametrize(
    ("part_id", "watts", "efficiency", "inlet"),
    [
        # Lambda PSU table: PWS-2K08A-1R 2000 W at 230-240 V, C14, 80 Plus Titanium.
        ("supermicro-pws-2k08a-1r", 2000, "80plus-titanium", "iec-60320-c14"),
        # Lambda PSU table: PWS-3K02G-2R 3000 W at 207.1-240 V, C20, 80 Plus Titanium.
        ("supermicro-pws-3k02g-2r", 3000, "80plus-titanium", "iec-60320-c20"),
        # AnandTech AX1600i review: 1600 W, C20 receptacle.
        ("corsair-ax1600i", 1600, None, "iec-60320-c20"),
        # comptoir-hardware / hwlegend: PRIME TX-1300, 80 PLUS Titanium.
        ("seasonic-prime-tx-1300", 1300, "80plus-titanium", None),
        # nexthardware PRIME PX-2200 review: 2200 W; no page read gives its 80 PLUS level or inlet.
        ("seasonic-prime-px-2200", 2200, None, None),
    ],
)
def test_psu_figures(catalog: Catalog, part_id: str, watts: float, efficiency: str | None, inlet: str | None) -> None:
    psu = catalog.get_as(part_id, Psu)
    assert psu is not None, part_id
    assert (psu.watts, psu.efficiency, psu.inlet) == (watts, efficiency, inlet)


def test_desktop_psus_span_850_to_2000_w(catalog: Catalog) -> None:
    # Desktop (ATX) units are offered from 850 W up to the 2000 W class.
    desktop = [p.watts for p in catalog.of_kind(Psu) if p.form == "atx"]
    assert min(desktop) <= 850 and max(desktop) >= 2000, sorted(desktop)


def test_psu_output_fits_its_inlet(catalog: Catalog) -> None:
    # A PSU cannot deliver more than its inlet carries (002_daeb2f0cc80a7fe9.txt: C14 2.5 kW,
    # C20 3.2 kW), so a 3000 W unit with a C14 inlet would be a typo.
    checked = 0
    for psu in catalog.of_kind(Psu):
        if psu.inlet in INLET_MAX_W:
            limit = 16 * 240 if psu.id in ABOVE_200V_INLET_FIGURE else INLET_MAX_W[psu.inlet]
            assert psu.watts <= limit, psu.id
            checked += 1
    assert checked >= 5


def test_ap8868_bank_breakers_carry_each_branch(tmp_path: Path) -> None:
    """Schneider FAQ FA156194: each AP8868 bank sits on a phase pair behind a 20 A breaker rated 16 A per UL."""
    cat = build_catalog(tmp_path / "cat")
    plan = mount_loads(rack_with_pdus(cat, "apc-ap8868", voltage_v=208, phases=3, breaker_a=50), cat, 3)
    power = rack_power(plan, "r1", cat)
    breakers = power.pdu_load("normal", "pdu-a").breakers
    assert {b.line for b in breakers} == {"L1-L2", "L2-L3", "L3-L1"}
    # 20 A breaker x 0.8 = 16 A continuous, the figure Schneider's 9984 W is built on.
    assert all(b.breaker_a == 20 and b.limit_a == pytest.approx(16) for b in breakers)
