"""Real files of the NetBox community device-type library imported in one batch, then used in a plan.

The files are in tests/data/netbox/library (commit 56ea927 of netbox-community/devicetype-library,
see SOURCES.md there). Each expected figure comes from the file itself read as an engineer reads
it (the plug's standard, the comments' ratings), or from a public reference named beside it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rackplanner.core.catalog.loading import Catalog, load_catalog
from rackplanner.core.catalog.netbox import ImportResult, PerFile, add_to_catalog, import_batch
from rackplanner.core.catalog.netbox.vocabulary import INTERFACE_TYPES, PLUGS, POWER_OUTLET_TYPES, POWER_PORT_TYPES
from rackplanner.core.plan.files import load_plan, save_plan
from rackplanner.core.plan.model import Plan
from tests.conftest import REPO

LIBRARY = REPO / "tests" / "data" / "netbox" / "library"
FILES = sorted(p for p in LIBRARY.rglob("*.y*ml") if "module-types" not in p.parts)
# The one figure a file lacks, given per file as a user gives it on the command line.
VOLTAGE = PerFile(
    by_file=(
        # "Rack PDU, Basic, 1U, 22kW, 400V" (its comments): the 9h clock position in the file is 208 V.
        ("AP7526", 400.0),
        # "22.0kW(32A) ... 230V": 3 x 230 V x 32 A = 22 kW, a 230/400 V wye, not the file's 9h (208 V).
        ("AP8886", 400.0),
        # The file's inlet maximum_draw 7360 W = 230 V x 32 A; its 4h clock position (110 V) is wrong.
        ("geist-rpdu-gi10022l", 230.0),
        # A C20 inlet takes whatever cord the site uses; "16A, 120-240V" (comments): the site's 208 V.
        ("C1W08HC-0ABA2BAC", 208.0),
    )
)
CURRENT = PerFile(by_file=(("geist-rpdu-gi10022l", 32.0),))


@pytest.fixture(scope="module")
def batch() -> dict[str, ImportResult]:
    catalog = load_catalog(include_user=False)
    # --replace: five of these files have the id of a built-in part (see the next test).
    results = import_batch(FILES, catalog=catalog, voltage_v=VOLTAGE, current_a=CURRENT, replace=True)
    return {str(Path(r.path).relative_to(LIBRARY)): r for r in results}


def test_a_file_with_a_built_in_id_is_refused_without_replace() -> None:
    catalog = load_catalog(include_user=False)
    results = import_batch(FILES, catalog=catalog, voltage_v=VOLTAGE, current_a=CURRENT)
    refused = {Path(r.path).name: r.error for r in results if r.status == "collision"}
    # The built-in catalog holds these parts under the same manufacturer-namespaced ids.
    assert sorted(refused) == [
        "AP8868.yaml",
        "AP8886.yaml",
        "AP8965.yaml",
        "PX3-5724V.yaml",
        "SSG-6049P-E1CR36H.yml",
    ]
    assert "already APC AP8868" in str(refused["AP8868.yaml"]) and "--replace" in str(refused["AP8868.yaml"])
    replaced = import_batch(FILES[:5], catalog=catalog, voltage_v=VOLTAGE, replace=True)
    assert any("Replaces the catalog's" in w for r in replaced for w in r.warnings)


def test_the_library_set_is_real_and_broad() -> None:
    assert len(FILES) >= 60
    makers = {p.parent.name for p in FILES}
    assert {"APC", "Raritan", "Server Technology", "Vertiv", "Eaton", "Supermicro", "Dell", "Mellanox"} <= makers


def test_one_batch_every_file_reports(batch: dict[str, ImportResult]) -> None:
    assert len(batch) == len(FILES)
    failed = {name: r.error for name, r in batch.items() if r.status != "imported"}
    # What cannot be imported says why, naming the figure to give; the rest of the batch went on.
    assert set(failed) == {
        "APC/AP8881.yaml",  # IEC 60309 3P+N+E 6h: 16 or 32 A is not in the type code nor the file
        "APC/AP8888.yaml",
        "Raritan/PX3-5516.yml",
        "Panduit/P36G18M.yaml",  # NEMA L6-30P runs at 208 or 240 V; no comments
        "DataDirect Networks/SFA200NVX2-Controller.yaml",  # child devices: u_height 0 in a parent's bay
        "Mellanox/SX6012F-2BFS.yaml",
        "Mellanox/SX6012T-2BFS.yaml",
    }
    assert "give --current" in str(failed["APC/AP8881.yaml"])
    assert "give --voltage" in str(failed["Panduit/P36G18M.yaml"])
    assert "import the parent" in str(failed["Mellanox/SX6012F-2BFS.yaml"])
    kinds = [r.kind for r in batch.values() if r.status == "imported"]
    assert (kinds.count("pdu"), kinds.count("switch"), kinds.count("rack-device")) == (19, 16, 20)


def outlets(result: ImportResult) -> dict[str, int]:
    assert result.part is not None
    counts: dict[str, int] = {}
    for group in result.part["outlet_groups"]:
        for kind, n in group["outlets"].items():
            counts[kind] = counts.get(kind, 0) + n
    return counts


def lines(result: ImportResult) -> list[str]:
    assert result.part is not None
    return sorted({g["line"] for g in result.part["outlet_groups"]})


PAIRS = ["L1-L2", "L2-L3", "L3-L1"]
C13, C19 = "iec-60320-c13", "iec-60320-c19"
# file: (phases, wiring, volts, amps, outlets by type, lines)
PDUS: dict[str, tuple[int, str, float, float, dict[str, int], list[str]]] = {
    # Hubbell CS8365C: 250 V three-phase 3-pole 4-wire (no neutral) 50 A: delta at 208 V; 36 C13 + 6 C19
    # all on leg A in the file, spread over the three line pairs.
    "APC/AP8868.yaml": (3, "delta", 208, 50, {C13: 36, C19: 6}, PAIRS),
    "APC/AP7868.yml": (3, "delta", 208, 50, {C13: 30, C19: 6}, PAIRS),
    # NEMA L21-30P: 120/208 V wye, 30 A; C13/C19 on line pairs (208 V), the two 5-20R (120 V) line to neutral.
    "APC/AP8865.yaml": (3, "wye", 208, 30, {C13: 36, C19: 6, "nema-5-20r": 2}, ["L1", "L2", *PAIRS]),
    "APC/AP8965.yaml": (3, "wye", 208, 30, {C13: 21, C19: 3}, PAIRS),
    # With --voltage 400: 230/400 V wye; 32 A from "22.0kW(32A) 17.3kW(24A)" (comments).
    "APC/AP8886.yaml": (3, "wye", 400, 32, {C13: 30, C19: 12}, ["L1", "L2", "L3"]),
    # With --voltage 400: 22 kW / (sqrt 3 x 400 V) = 31.8 A, an IEC 60309 32 A housing.
    "APC/AP7526.yaml": (3, "wye", 400, 32, {C19: 6}, ["L1", "L2", "L3"]),
    # "3Phase, 400V, 32A" (comments); 24 C39 combination outlets (take C14 or C20 plugs).
    "APC/APDU10350SW.yaml": (3, "wye", 400, 32, {C13: 24, "eaton-c39": 24}, ["L1", "L2", "L3"]),
    # IEC 60309 2P+E 6h (blue, 230 V single phase), "32A, 230V" (comments).
    "APC/APDU9953.yaml": (1, "single", 230, 32, {C13: 21, C19: 3}, ["L1"]),
    # NEMA L15-30P: three-phase delta, 30 A; "10.4kVA, 200V" (comments): a Japanese 200 V model.
    "Raritan/PX3-5702JV.yaml": (3, "delta", 200, 30, {C13: 36}, PAIRS),
    # "8.6kVA, 208V" = sqrt 3 x 208 V x 24 A; the file types 13 outlets C19 (the comments say 12).
    "Raritan/PX3-5724V.yaml": (3, "delta", 208, 30, {C13: 23, C19: 13}, PAIRS),
    "Raritan/PX3-5664U.yaml": (3, "wye", 208, 30, {C13: 24, C19: 6}, PAIRS),
    # NEMA L6-30P single phase; "5kVA, 208V" (comments); feed legs A/B/C are branches, not phases. The
    # file lists 19 C13 + 5 C19 where its comments say (20) C13 & (4) C19: the file's are used, and said.
    "Raritan/PX3-5497V.yaml": (1, "single", 208, 30, {C13: 19, C19: 5}, ["L1"]),
    "Eaton/EMA107-10.yaml": (1, "single", 208, 30, {C13: 20, C19: 4}, ["L1"]),
    # IEC 60309 P+N+E 6h; "7.4 kW, 200-240V": 7.4 kW / 230 V = 32 A.
    "Eaton/ESWB05.yaml": (1, "single", 230, 32, {C13: 20, C19: 4}, ["L1"]),
    # "(18) C13 & (6) Cx/C19/C13" (comments): six Server Technology Cx outlets the file types as C19.
    "Server Technology/C2WG24SN-4PJN5D.yaml": (3, "wye", 400, 32, {C13: 18, "hdot-cx": 6}, ["L1", "L2", "L3"]),
    "Server Technology/C2WG24SN-YCLN5D6.yaml": (3, "wye", 208, 30, {C13: 18, "hdot-cx": 6}, PAIRS),
    # IEC 60309 3P+E 9h: 200-250 V three-phase, no neutral (delta); "60A, 208V" (comments).
    "Server Technology/PRO3X-C3WG36RL-DQJE2NT2.yaml": (3, "delta", 208, 60, {C13: 16, C19: 2, "hdot-cx": 18}, PAIRS),
    "Server Technology/C1W08HC-0ABA2BAC.yaml": (1, "single", 208, 16, {C13: 8}, ["L1"]),
    "Vertiv/geist-rpdu-gi10022l.yaml": (1, "single", 230, 32, {C13: 20, C19: 4}, ["L1"]),
}


@pytest.mark.parametrize("name", sorted(PDUS))
def test_pdu_electrics(batch: dict[str, ImportResult], name: str) -> None:
    result = batch[name]
    assert result.status == "imported" and result.kind == "pdu", result.error
    phases, wiring, volts, amps, expected_outlets, expected_lines = PDUS[name]
    part = result.part
    assert part is not None
    assert (part["phases"], part["wiring"], part["voltage_v"], part["input_current_a"]) == (
        phases,
        wiring,
        volts,
        amps,
    )
    assert outlets(result) == expected_outlets
    assert lines(result) == sorted(expected_lines)


def test_pdu_warnings_say_what_was_not_trusted(batch: dict[str, ImportResult]) -> None:
    def said(name: str, text: str) -> bool:
        return any(text in w for w in batch[name].warnings)

    assert said("APC/AP8868.yaml", "one feed leg")  # every outlet on leg A
    assert said("Raritan/PX3-5664U.yaml", "comments say 5 kVA")  # an L21-30P carries 10.8 kVA
    assert said("Eaton/EMA107-10.yaml", "comments say 5.76 kW")  # 240 V x 24 A, not 208 V
    assert said("Raritan/PX3-5497V.yaml", "branch circuits")
    assert said("Server Technology/C2WG24SN-4PJN5D.yaml", "6 Cx combination outlets")
    assert said("Eaton/ESWB05.yaml", "worked out from the 7.4 kW")
    assert said("Raritan/PX3-5497V.yaml", "comments say 20 C13 and 4 C19; the file lists 19 C13 and 5 C19")


# file: (fabric, [(count, Gb/s)], PSUs, draw W or None)
SWITCHES: dict[str, tuple[str, list[tuple[int, float]], int, float | None]] = {
    # allocated_draw 52 W on each of two PSUs: the switch's draw repeated per feed, not 104 W.
    "Arista/DCS-7010T-48-F.yaml": ("ethernet", [(48, 1), (4, 10)], 2, 52),
    # 342 W allocated per PSU (1600 W maximum_draw is the PSU rating); Management1 is not a data port.
    "Arista/DCS-7060DX4-32.yaml": ("ethernet", [(2, 10), (32, 400)], 2, 342),
    # PSUs as module bays: two PSUs, the draw unknown.
    "Arista/DCS-7050CX3-32S-F.yaml": ("ethernet", [(2, 10), (32, 100)], 2, None),
    "Arista/DCS-7060X6-64PE.yaml": ("ethernet", [(2, 1), (64, 800)], 2, None),
    "Cisco/N9K-C93180YC-FX.yaml": ("ethernet", [(48, 25), (6, 100)], 2, None),
    "Dell/PowerSwitch-N3248TE-ON.yaml": ("ethernet", [(48, 1), (4, 10), (2, 100)], 2, 212),
    "Dell/PowerSwitch-s5248f-on.yaml": ("ethernet", [(48, 25), (8, 100)], 2, 310),
    # maximum_draw 750 W equal on both PSUs: the PSU nameplate, not used.
    "Edgecore/5812-54X-O-AC-B.yaml": ("ethernet", [(48, 10), (6, 40)], 2, None),
    "Juniper/QFX5120-48Y-AFO2.yaml": ("ethernet", [(48, 25), (8, 100)], 2, None),
    "Juniper/QFX5130-32CD-AFO.yaml": ("ethernet", [(2, 10), (32, 400)], 2, None),
    # SB7800: EDR InfiniBand (ports named IB1/n) the file types as 100GbE.
    "Mellanox/SB7800.yml": ("infiniband", [(36, 100)], 2, 460),
    "Mellanox/SX6036.yml": ("infiniband", [(36, 40)], 2, None),
    # eth0 beside swp1..swp22 is the management port the file does not flag.
    "Mellanox/SN2010.yml": ("ethernet", [(18, 25), (4, 100)], 2, None),
    "Mellanox/SN2700.yml": ("ethernet", [(32, 100)], 2, None),
    "Mellanox/SN4600.yml": ("ethernet", [(64, 200)], 2, None),
    "Mellanox/SN4700.yml": ("ethernet", [(32, 400)], 2, None),
}


@pytest.mark.parametrize("name", sorted(SWITCHES))
def test_switches(batch: dict[str, ImportResult], name: str) -> None:
    result = batch[name]
    assert result.kind == "switch", result.error
    fabric, ports, psus, draw = SWITCHES[name]
    part = result.part
    assert part is not None
    assert part["fabric"] == fabric
    assert [(g["count"], g["speed_gbps"]) for g in part["ports"]] == ports
    assert part["psu_count"] == psus
    assert part.get("power_max_w") == draw


# file: (height U, data ports [(count, Gb/s)], management ports, power cords)
SERVERS: dict[str, tuple[int, list[tuple[int, float]], int, int]] = {
    # Four PSU module bays (PSU 1-4): four cords, the draw unknown (2700 W is each PSU's nameplate).
    "Supermicro/SYS-421GE-TNRT.yaml": (4, [(2, 10)], 1, 4),
    "Supermicro/SuperServer-4028GR-TRT.yml": (4, [(2, 1)], 1, 4),
    "Supermicro/SSG-6049P-E1CR36H.yml": (4, [(2, 10)], 1, 2),
    "Dell/PowerEdge-R650.yaml": (1, [(2, 1)], 1, 2),  # 800 W per port is the PSU rating
    "Dell/PowerEdge-R640.yaml": (1, [(4, 1)], 1, 2),
    "Dell/PowerEdge-R7525.yaml": (2, [(2, 1)], 1, 2),
    "Dell/PowerEdge-R750.yml": (2, [], 1, 2),
    "HPE/ProLiant-DL380-Gen11.yaml": (2, [(4, 1)], 1, 2),
    "HPE/ProLiant-DL380-Gen6.yml": (2, [(2, 1)], 1, 2),
    "Lenovo/ThinkSystem-SR665-v3.yaml": (2, [], 1, 2),
    "Lenovo/ThinkSystem-SR650.yaml": (2, [], 1, 2),
    "ASUS/RS300-E11-RS4.yaml": (1, [(2, 1)], 1, 2),
    "QCT/QuantaGrid-D51B-2U.yml": (2, [(2, 1)], 1, 2),
    "Fujitsu/primergy-rx2530-m6.yml": (1, [], 1, 2),
    "Inspur/NF5180M6.yaml": (1, [(2, 10)], 1, 2),
    "Inspur/NF8260M6.yaml": (2, [], 1, 2),
}


@pytest.mark.parametrize("name", sorted(SERVERS))
def test_servers_are_rack_devices_with_unknown_draw(batch: dict[str, ImportResult], name: str) -> None:
    result = batch[name]
    # Many data ports or few, a server is never a switch.
    assert result.kind == "rack-device", result.error
    height, ports, mgmt, cords = SERVERS[name]
    part = result.part
    assert part is not None
    assert part["height_u"] == height
    assert [(g["count"], g["speed_gbps"]) for g in part["interfaces"]] == ports
    assert (part["mgmt_ports"], len(part["power_ports"])) == (mgmt, cords)
    # No file of these gives a draw that can be trusted: unknown, with a warning, never 0 W or a nameplate.
    assert "power_max_w" not in part
    assert any("draw" in w for w in result.warnings), result.warnings


def test_vocabulary_is_the_schemas() -> None:
    # Generated from the vendored schema, not retyped: a few values the library uses, and the plug table's keys.
    assert {"iec-60320-c14", "nema-l21-30p", "cs8365c", "iec-60309-3p-n-e-6h"} <= POWER_PORT_TYPES
    assert {"iec-60320-c13", "hdot-cx", "eaton-c39"} <= POWER_OUTLET_TYPES
    assert {"infiniband-edr", "400gbase-x-qsfpdd", "1000base-t"} <= INTERFACE_TYPES
    assert set(PLUGS) <= POWER_PORT_TYPES


# A built-in PDU pair for the racks of imported servers and switches: APC AP8868, 208 V delta, 50 A.
HOUSE_PDU = "apc-ap8868"


def _plan_using(results: list[ImportResult], catalog: Catalog) -> dict[str, Any]:
    """A plan with a rack per imported part: a PDU alone on a feed that matches its plug; a server or switch at
    U1 between an A and a B PDU, each on its own feed."""
    racks: list[dict[str, Any]] = []
    feeds: list[dict[str, Any]] = [
        {
            "id": f"house-{side.lower()}",
            "name": f"House {side}",
            "side": side,
            "phases": 3,
            "voltage_v": 208,
            "breaker_a": 50,
        }
        for side in "AB"
    ]
    for index, result in enumerate(results):
        part = result.part
        assert part is not None
        device: dict[str, Any] = {"id": "d", "name": part["model"][:60], "part": part["id"]}
        if result.kind == "pdu":
            feed_id = f"feed-{index}"
            feeds.append(
                {
                    "id": feed_id,
                    "name": f"Feed {index}",
                    "side": "A",
                    "phases": part["phases"],
                    "voltage_v": part["voltage_v"],
                    "breaker_a": part["input_current_a"],
                }
            )
            device["feed"] = feed_id
            if part["height_u"] == 0:
                device["side"] = "left"
            else:
                device["position_u"] = 1
            devices = [device]
        else:
            device["position_u"] = 1
            devices = [device] + [
                {
                    "id": f"pdu-{s.lower()}",
                    "name": f"PDU {s}",
                    "part": HOUSE_PDU,
                    "feed": f"house-{s.lower()}",
                    "side": side,
                }
                for s, side in (("A", "left"), ("B", "right"))
            ]
        racks.append({"id": f"rack-{index}", "name": f"Rack {index}", "part": "apc-ar3300", "devices": devices})
    return {"schema_version": 1, "name": "Every imported part", "racks": racks, "feeds": feeds}


def test_a_plan_using_every_imported_part_saves_reopens_and_checks(
    batch: dict[str, ImportResult], tmp_path: Path
) -> None:
    imported = [r for r in batch.values() if r.status == "imported"]
    folder = tmp_path / "mine"
    add_to_catalog(imported, folder)
    catalog = load_catalog([folder], include_user=False)
    assert not catalog.problems
    plan_path = tmp_path / "every-part.json"
    plan_path.write_text(json.dumps(_plan_using(imported, catalog)), encoding="utf-8")
    plan: Plan = load_plan(plan_path, catalog)
    assert len(plan.racks) == len(imported) == 55
    again = tmp_path / "again.json"
    save_plan(plan, again)
    assert load_plan(again, catalog) == plan
    result = subprocess.run(
        [sys.executable, "-m", "rackplanner", "check", str(again), "--catalog", str(folder), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["valid"] is True
    errors = {(f["code"], f["message"]) for f in report["rack_findings"] if f["severity"] == "error"}
    # Nothing is wrong: every cord finds an outlet of its type, every PDU suits its feed, no line or
    # breaker is over its limit. A server's ports have no switch in its own rack, but the imported
    # switches stand in other racks of the plan, so those ports are cabled there (an info, not an error).
    assert not errors, errors
    infos = {f["code"] for f in report["rack_findings"] if f["severity"] == "info"}
    assert "ports-outside-rack" in infos
    warnings = {f["code"] for f in report["rack_findings"] if f["severity"] == "warning"}
    # The imported servers' draws are unknown (not 0 W in silence); the Nuvo-8240GC's DC input is not on a PDU.
    assert {"power-unknown", "inlet-not-pdu"} <= warnings


def test_cli_batch_reports_each_file_and_ends_with_a_table(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rackplanner", "import-netbox", *map(str, FILES), "--dry-run", "--to", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    # Some files fail (they need a figure) or collide with built-ins: exit 2, the rest still reported.
    assert done.returncode == 2
    table = done.stdout.split("\n\n")[-1].splitlines()
    assert table[0].split() == ["file", "result", "part", "figures"]
    rows = {line.split()[0]: line for line in table[1:-1]}
    assert len(rows) == len(FILES)
    assert rows["AP8881.yaml"].split()[1:] == ["failed", "needs", "--current"]
    assert rows["AP8868.yaml"].split()[1:] == ["collision", "needs", "--replace"]
    assert rows["DCS-7060DX4-32.yaml"].endswith("ethernet 2x10G + 32x400G, 342 W")
    assert rows["APDU10350SW.yaml"].endswith("3-phase wye 400 V 32 A, 48 outlets")
    assert rows["PowerEdge-R650.yaml"].endswith("1 U, 2 cords, draw unknown")
    assert table[-1] == "62 file(s): 4 collision, 11 failed, 12 pdu, 19 rack-device, 16 switch"
    assert "give --current" in done.stderr and not list(tmp_path.iterdir())  # dry run: nothing written
