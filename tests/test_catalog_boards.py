"""Boards, servers and cases: every entry validates and is sourced, and the new layouts give the
link widths and lane-sharing findings their sources state (each expected figure names its source)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from rackplanner.core.catalog.loading import Catalog, load_catalog
from rackplanner.core.catalog.parts import Board, Chassis, Psu, Server
from rackplanner.core.machine.fit import Finding, check_machine
from rackplanner.core.machine.topology import Topology, check_board, derive_topology, pcie_gbs
from rackplanner.core.plan import edits
from tests.machinefixtures import build


def derive(catalog: Catalog, **kwargs: object) -> Topology:
    plan = build(catalog, **kwargs)  # type: ignore[arg-type]
    return derive_topology(plan.machines[0], catalog)


def findings(catalog: Catalog, **kwargs: object) -> dict[str, list[Finding]]:
    plan = build(catalog, **kwargs)  # type: ignore[arg-type]
    machine = plan.machines[0]
    found: dict[str, list[Finding]] = {}
    for f in check_machine(machine, catalog, derive_topology(machine, catalog)):
        found.setdefault(f.code, []).append(f)
    return found


# --- every entry ------------------------------------------------------------------------


def test_boards_servers_cases_are_sourced_and_consistent(catalog: Catalog) -> None:
    boards = catalog.of_kind(Board)
    for part in [*boards, *catalog.of_kind(Server), *catalog.of_kind(Chassis)]:
        assert part.source and all(s.strip() for s in part.source), part.id
    for board in boards:
        # Lane budgets hold on every catalog board (no port feeds more lanes than it has).
        assert check_board(board, catalog) == [], board.id
        slot_ids = {s.id for s in board.slots}
        for share in board.lane_sharing:
            assert {share.when_used, share.slot} <= slot_ids, board.id


def test_every_server_resolves_its_parts(catalog: Catalog) -> None:
    servers = catalog.of_kind(Server)
    assert {"sys-4028gr-trt2", "sys-4029gp-trt3"} <= {s.id for s in servers}
    for server in servers:
        assert catalog.get_as(server.board, Board) is not None, server.id
        chassis = catalog.get_as(server.chassis, Chassis)
        assert chassis is not None, server.id
        assert catalog.get_as(server.psu, Psu) is not None, server.id
        assert server.psu_count <= chassis.psu_bays, server.id
        assert chassis.height_u in (0, server.height_u), server.id


def test_lane_sharing_must_name_slots_of_the_board() -> None:
    """A share naming a slot the board lacks is a catalog error with the slot in the message."""
    raw = {
        "id": "bad-share",
        "vendor": "Me",
        "model": "Bad",
        "source": "fixture",
        "platform": "consumer",
        "form_factor": "ATX",
        "cpu_socket": "AM5",
        "sockets": 1,
        "root_complexes": [{"id": "cpu", "socket": 0}],
        "slots": [{"id": "a", "label": "A", "physical_lanes": 16, "electrical_lanes": 16, "gen": 5, "parent": "cpu"}],
        "lane_sharing": [{"when_used": "m2-9", "slot": "a"}],
    }
    with pytest.raises(ValidationError, match="lane sharing: slot 'm2-9' is not on this board"):
        Board.model_validate(raw)
    raw["lane_sharing"] = [{"when_used": "a", "slot": "a", "lanes_left": 8}]
    assert Board.model_validate(raw).lane_sharing[0].lanes_left == 8


# --- consumer bifurcation --------------------------------------------------------------


def test_z790_formula_two_gpus_run_x8_x8(catalog: Catalog) -> None:
    """ROG MAXIMUS Z790 FORMULA spec: 2x PCIe 5.0 x16 slots, x16 or x8/x8 (gdgtme copy of the ASUS table)."""
    alone = derive(catalog, board="rog-maximus-z790-formula", cards={"pciex16-g5-1": "rtx-4090"}, cpu="core-i9-14900k")
    # RTX 4090 is a PCIe 4.0 x16 card (catalog/gpu.yaml): alone it gets all 16 lanes at Gen4.
    assert (alone.device("GPU0").gen, alone.device("GPU0").lanes) == (4, 16)
    both = derive(
        catalog,
        board="rog-maximus-z790-formula",
        cards={"pciex16-g5-1": "rtx-4090", "pciex16-g5-2": "rtx-4090"},
        cpu="core-i9-14900k",
    )
    assert [(d.gen, d.lanes) for d in both.devices] == [(4, 8), (4, 8)]
    # PCIe 4.0 x8 = 8 x 1.969 GB/s = 15.75 GB/s per direction.
    assert both.device("GPU1").gbs == pytest.approx(pcie_gbs(4, 8), abs=0.01) == pytest.approx(15.75, abs=0.01)
    # Both slots hang off the CPU's one root complex: PHB between them, GeForce without P2P.
    assert both.matrix["GPU0"]["GPU1"] == "PHB"
    assert not both.pair("GPU0", "GPU1").p2p


def test_z790_formula_gen5_m2_halves_the_gpu_slot(catalog: Catalog) -> None:
    """Tom's Hardware review (quoted in its thread): with M.2_1 in use PCIEX16(G5)_1 runs x8 only."""
    topo = derive(
        catalog,
        board="rog-maximus-z790-formula",
        cards={"pciex16-g5-1": "rtx-5090", "m2-1": "samsung-990-pro-2tb"},
    )
    gpu = topo.device("GPU0")
    # RTX 5090 is PCIe 5.0 x16 (catalog/gpu.yaml): x8 at Gen5 = 31.5 GB/s per direction.
    assert (gpu.gen, gpu.lanes) == (5, 8)
    assert gpu.gbs == pytest.approx(31.5, abs=0.05)


def test_x870e_carbon_second_cpu_slot_is_x4(catalog: Catalog) -> None:
    """hardwareluxx (MPG X870E CARBON WIFI): with slot 2 in use the GPU slot gets x8 and slot 2 x4."""
    topo = derive(
        catalog,
        board="mpg-x870e-carbon-wifi",
        cards={"pcie-1": "rtx-3090", "pcie-2": "rtx-3090", "pcie-3": "rtx-3090"},
        cpu="ryzen-9-7950x",
    )
    # RTX 3090: PCIe 4.0 x16 card (catalog/gpu.yaml).
    assert [(d.slot, d.gen, d.lanes) for d in topo.devices] == [("pcie-1", 4, 8), ("pcie-2", 4, 4), ("pcie-3", 4, 4)]
    # The chipset slot sits behind the X870E's PCIe 4.0 x4 uplink: a host-bridge path to the CPU slots.
    assert topo.matrix["GPU0"]["GPU2"] == "PHB" and topo.matrix["GPU0"]["GPU1"] == "PHB"
    alone = derive(catalog, board="mpg-x870e-carbon-wifi", cards={"pcie-1": "rtx-3090"})
    assert alone.device("GPU0").lanes == 16


def test_x870e_carbon_m2_2_takes_gpu_lanes(catalog: Catalog) -> None:
    """hardwareluxx (MPG X870E CARBON WIFI): M.2_2 in use drops the GPU slot to x8; M.2_1 does not."""
    shared = derive(catalog, board="mpg-x870e-carbon-wifi", cards={"pcie-1": "rtx-4090", "m2-2": "samsung-990-pro-2tb"})
    assert shared.device("GPU0").lanes == 8
    own = derive(catalog, board="mpg-x870e-carbon-wifi", cards={"pcie-1": "rtx-4090", "m2-1": "samsung-990-pro-2tb"})
    assert own.device("GPU0").lanes == 16


def test_strix_x870e_e_both_shared_m2_leave_x8(catalog: Catalog) -> None:
    """hardwareluxx (ROG Strix X870E-E): configuration 4 is x8 for the slot, x4 for M.2_2 and M.2_3."""
    topo = derive(
        catalog,
        board="rog-strix-x870e-e-gaming-wifi",
        cards={"pciex16-1": "rtx-4090", "m2-2": "samsung-990-pro-2tb", "m2-3": "samsung-990-pro-2tb"},
    )
    assert [(d.kind, d.lanes) for d in topo.devices] == [("gpu", 8), ("nvme", 4), ("nvme", 4)]


# --- lane sharing the bifurcation groups cannot express -------------------------------------


def test_m2_in_use_disables_the_second_gpu_slot(catalog: Catalog) -> None:
    """Tom's Hardware review of the Z790 FORMULA: M.2_1 enabled disables PCIEX16(G5)_2."""
    found = findings(
        catalog,
        board="rog-maximus-z790-formula",
        cards={"pciex16-g5-1": "rtx-4090", "pciex16-g5-2": "rtx-4090", "m2-1": "samsung-990-pro-2tb"},
    )
    shared = found["lanes-shared"]
    assert [f.severity for f in shared] == ["error"]
    assert shared[0].message == "M.2_1 in use disables PCIEX16(G5)_2, where rtx-4090 is placed."
    assert shared[0].slots == ["m2-1", "pciex16-g5-2"]


def test_slot_in_use_disables_an_m2_socket(catalog: Catalog) -> None:
    """hardwareluxx (ROG Strix B850-A): a card in the chipset x16 slot switches M.2_3 off."""
    found = findings(
        catalog,
        board="rog-strix-b850-a-gaming-wifi",
        cards={"pciex16-chipset": "rtx-3090", "m2-3": "samsung-990-pro-2tb"},
    )
    assert found["lanes-shared"][0].severity == "error"
    assert found["lanes-shared"][0].message == (
        "PCIe 4.0 x16 slot (chipset, x4) in use disables M.2_3, where samsung-990-pro-2tb is placed."
    )
    quiet = findings(catalog, board="rog-strix-b850-a-gaming-wifi", cards={"pciex16-chipset": "rtx-3090"})
    assert [f.severity for f in quiet["lanes-shared"]] == ["info"]
    none = findings(catalog, board="rog-strix-b850-a-gaming-wifi", cards={"m2-3": "samsung-990-pro-2tb"})
    assert "lanes-shared" not in none


def test_narrowing_share_is_a_warning(tmp_path: Path) -> None:
    """A share that leaves lanes (lanes_left) warns with the width instead of an error."""
    (tmp_path / "board.yaml").write_text(
        "- id: narrow\n  vendor: Me\n  model: Narrow\n  source: fixture\n  platform: consumer\n"
        "  form_factor: ATX\n  cpu_socket: AM5\n  sockets: 1\n  root_complexes: [{id: cpu, socket: 0}]\n"
        "  slots:\n"
        "    - {id: a, label: SLOT_A, physical_lanes: 16, electrical_lanes: 4, gen: 4, parent: cpu}\n"
        "    - {id: m, label: M.2_9, kind: m2, physical_lanes: 4, electrical_lanes: 4, gen: 4, parent: cpu}\n"
        "  lane_sharing:\n    - {when_used: m, slot: a, lanes_left: 2}\n"
    )
    (tmp_path / "gpu.yaml").write_text((Path(__file__).parent.parent / "catalog" / "gpu.yaml").read_text())
    (tmp_path / "drive.yaml").write_text((Path(__file__).parent.parent / "catalog" / "drive.yaml").read_text())
    mine = load_catalog([tmp_path], include_user=False)
    found = findings(mine, board="narrow", cards={"a": "rtx-3090", "m": "samsung-990-pro-2tb"})
    assert found["lanes-shared"][0].severity == "warning"
    assert found["lanes-shared"][0].message == "M.2_9 in use leaves SLOT_A x2, so rtx-3090 gets at most 2 lanes."


# --- servers ---------------------------------------------------------------------------


def test_4029gp_trt3_server_paths(catalog: Catalog) -> None:
    """Supermicro PCIe Root Architectures page: SYS-4029GP-TRT3 GPUs talk through the PCIe switches
    over one x16 Gen3 CPU link; NetBox 4029GP device types: 4U, 45.3 kg, four 2000 W C14 PSUs."""
    server = catalog.get_as("sys-4029gp-trt3", Server)
    assert server is not None
    assert (server.height_u, server.weight_kg, server.psu_count) == (4, 45.3, 4)
    psu = catalog.get_as(server.psu, Psu)
    assert psu is not None and (psu.watts, psu.inlet) == (2000, "iec-60320-c14")
    cards = {f"gpu{i}": "v100-32gb-pcie" for i in range(1, 9)}
    topo = derive(catalog, server="sys-4029gp-trt3", cards=cards, cpu="xeon-platinum-8280", cpu_count=2)
    codes = {topo.matrix[a][b] for a in topo.gpus for b in topo.gpus if a != b}
    assert codes == {"PIX", "PXB"}
    assert {d.socket for d in topo.devices} == {0}
    assert max(u.ratio for u in topo.uplinks) == 8.0


def test_proart_b550_two_3090s_bridge_three_slots_apart(catalog: Catalog) -> None:
    """hardwareluxx (ProArt B550-CREATOR): CPU slots x16/0 or x8/x8, in the second and fifth positions
    of its slot table; 3-slot bridge spacing from catalog/nvlink-bridge.yaml; NV4 and 56.25 GB/s from
    the issue's known answer for two NVLinked RTX 3090s."""
    plan = build(
        catalog,
        board="proart-b550-creator",
        cards={"pciex16-1": "rtx-3090", "pciex16-2": "rtx-3090"},
        cpu="ryzen-9-7950x",
    )
    bridged = edits.add_bridge(
        plan, machine="m", slots=("pciex16-1", "pciex16-2"), part="nvlink-bridge-3090-3slot", catalog=catalog
    ).plan
    machine = bridged.machines[0]
    topo = derive_topology(machine, catalog)
    assert [(d.gen, d.lanes) for d in topo.devices] == [(4, 8), (4, 8)]
    assert topo.matrix["GPU0"]["GPU1"] == "NV4"
    assert topo.pair("GPU0", "GPU1").gbs == pytest.approx(56.25, abs=0.01)
    codes = {f.code for f in check_machine(machine, catalog, topo)}
    assert "bridge-spacing" not in codes and "bridge-spacing-unknown" not in codes
    # 3-slot RTX 3090s (catalog/gpu.yaml) in positions 1 and 4 cover 2-3 and 5-6: both x1 slots and
    # the chipset x16 slot in position 6 are blocked.
    blocked = [f for f in check_machine(machine, catalog, topo) if f.code == "slot-blocked"]
    assert [f.slots[0] for f in blocked] == ["pciex1-1", "pciex1-2", "pciex16-3"]
    four_slot = edits.add_bridge(
        plan, machine="m", slots=("pciex16-1", "pciex16-2"), part="nvlink-bridge-3090-4slot", catalog=catalog
    ).plan
    wrong = {f.code: f for f in check_machine(four_slot.machines[0], catalog)}
    assert wrong["bridge-spacing"].message.startswith("The cards sit 3 slots apart; ")
    assert wrong["bridge-spacing"].message.endswith(" spans 4.")


def test_4029gp_single_and_dual_root_servers(catalog: Catalog) -> None:
    """Supermicro PCIe Root Architectures page: TRT2 puts all GPUs on one CPU root complex, TRT splits
    them between the two CPUs; NetBox device types: both 4U, 45.3 kg, four 2000 W C14 inlets."""
    cards = {f"gpu{i}": "v100-32gb-pcie" for i in range(1, 9)}
    single = derive(catalog, server="sys-4029gp-trt2", cards=cards, cpu="xeon-platinum-8280", cpu_count=2)
    assert {d.socket for d in single.devices} == {0}
    assert "SYS" not in {single.matrix[a][b] for a in single.gpus for b in single.gpus if a != b}
    assert single.matrix["GPU0"]["GPU4"] == "PHB"
    dual = derive(catalog, server="sys-4029gp-trt", cards=cards, cpu="xeon-platinum-8280", cpu_count=2)
    assert [d.socket for d in dual.devices] == [0, 0, 0, 0, 1, 1, 1, 1]
    assert dual.matrix["GPU0"]["GPU4"] == "SYS" and dual.matrix["GPU3"]["GPU7"] == "SYS"
    assert dual.matrix["GPU0"]["GPU1"] != "SYS"
    for server_id in ("sys-4029gp-trt", "sys-4029gp-trt2"):
        server = catalog.get_as(server_id, Server)
        assert server is not None and (server.height_u, server.weight_kg) == (4, 45.3)


def test_r750xa_pairs_per_cpu_and_bridged_pair(catalog: Catalog) -> None:
    """STH R750xa review: GPUs in pairs on the same CPU, NVLink bridges within a pair, pairs talk
    across UPI; reseller page: GPUs direct-attached to the CPUs at PCIe Gen4 without switches."""
    cards = {f"gpu{i}": "a100-80gb-pcie" for i in range(1, 5)}
    plan = build(catalog, board="poweredge-r750xa-board", cards=cards, cpu="xeon-platinum-8380", cpu_count=2)
    topo = derive_topology(plan.machines[0], catalog)
    assert topo.matrix["GPU0"]["GPU1"] == "NODE" and topo.matrix["GPU2"]["GPU3"] == "NODE"
    assert topo.matrix["GPU0"]["GPU2"] == "SYS" and topo.matrix["GPU1"]["GPU3"] == "SYS"
    # A100 PCIe: Gen4 x16 = 31.5 GB/s per direction on every GPU (no switch uplink to share).
    assert [d.gbs for d in topo.devices] == pytest.approx([31.5] * 4, abs=0.05)
    assert topo.uplinks == []
    bridged = edits.add_bridge(
        plan, machine="m", slots=("gpu1", "gpu2"), part="nvlink-bridge-a100-2slot", catalog=catalog
    ).plan
    paired = derive_topology(bridged.machines[0], catalog)
    # NVIDIA: A100 bridge set = 12 third-generation links, 300 GB/s per direction (catalog/nvlink-bridge.yaml).
    assert paired.matrix["GPU0"]["GPU1"] == "NV12"
    assert paired.pair("GPU0", "GPU1").gbs == 300
    chassis = catalog.get_as("dell-poweredge-r750xa-chassis", Chassis)
    assert chassis is not None and (chassis.height_u, chassis.depth_mm, chassis.weight_kg) == (2, 737.5, 28.6)


def test_gpu_server_enclosures(catalog: Catalog) -> None:
    """NetBox/NVIDIA datasheet: DGX A100 6U, 897.1 mm deep, 123.16 kg, six 3 kW supplies (pcnews);
    DGX H100 8U, 14 x 19.0 x 35.3 in, six 3.3 kW supplies; NetBox G292-Z46: 2U, 36.89 kg, two PSUs."""
    a100 = catalog.get_as("nvidia-dgx-a100-chassis", Chassis)
    h100 = catalog.get_as("nvidia-dgx-h100-chassis", Chassis)
    g292 = catalog.get_as("gigabyte-g292-z46-chassis", Chassis)
    assert a100 is not None and h100 is not None and g292 is not None
    assert (a100.height_u, a100.depth_mm, a100.weight_kg, a100.psu_bays) == (6, 897.1, 123.16, 6)
    assert (h100.height_u, h100.psu_bays) == (8, 6)
    # 35.3 in x 25.4 mm/in = 896.6 mm; 14 in = 355.6 mm.
    assert h100.depth_mm == pytest.approx(35.3 * 25.4, abs=0.1)
    assert h100.height_mm == pytest.approx(14 * 25.4, abs=0.1)
    assert (g292.height_u, g292.weight_kg, g292.psu_bays) == (2, 36.89, 2)


@pytest.mark.parametrize(
    ("board", "gpu_slot", "shared_m2", "own_m2"),
    [
        # hardwareluxx TUF GAMING X870-PLUS WIFI: M.2_2 takes 4 of the 16 GPU lanes, M.2_1 has its own.
        ("tuf-gaming-x870-plus-wifi", "pciex16-1", "m2-2", "m2-1"),
        # hardwareluxx Z890 AORUS MASTER: M.2_D takes 4 of the 16 GPU lanes, M.2_A has its own.
        ("z890-aorus-master", "pciex16", "m2-d", "m2-a"),
    ],
)
def test_shared_m2_halves_the_gpu_slot(
    catalog: Catalog, board: str, gpu_slot: str, shared_m2: str, own_m2: str
) -> None:
    ssd = "samsung-990-pro-2tb"
    shared = derive(catalog, board=board, cards={gpu_slot: "rtx-5090", shared_m2: ssd})
    own = derive(catalog, board=board, cards={gpu_slot: "rtx-5090", own_m2: ssd})
    # RTX 5090: PCIe 5.0 x16 card; x8 at Gen5 = 31.5 GB/s, x16 = 63 GB/s per direction.
    assert (shared.device("GPU0").lanes, shared.device("GPU0").gbs) == (8, pytest.approx(31.5, abs=0.05))
    assert (own.device("GPU0").lanes, own.device("GPU0").gbs) == (16, pytest.approx(63.0, abs=0.1))


def test_z890_second_gpu_behind_the_chipset(catalog: Catalog) -> None:
    """hardwareluxx (Z890 AORUS MASTER): the second x16 slot is PCIe 4.0 x4 from the Z890, which hangs
    off the CPU by DMI 4.0 x8 (Corsair Z790 vs Z890 page)."""
    topo = derive(catalog, board="z890-aorus-master", cards={"pciex16": "rtx-4090", "pciex4": "rtx-4090"})
    assert [(d.gen, d.lanes) for d in topo.devices] == [(4, 16), (4, 4)]
    assert topo.matrix["GPU0"]["GPU1"] == "PHB"
    # The chipset's DMI 4.0 x8 uplink (15.75 GB/s) carries the x4 slot: 4 of 8 lanes.
    uplink = next(u for u in topo.uplinks if u.switch == "z890")
    assert uplink.upstream_gbs == pytest.approx(pcie_gbs(4, 8), abs=0.01)


# --- LGA1700 B760/Z790 layouts --------------------------------------------------------


@pytest.mark.parametrize(
    ("board", "cpu_slot", "chipset_slot", "chipset_gen"),
    [
        # hardwareluxx ProArt B760-CREATOR D4: CPU x16 Gen5 slot, chipset slot PCIe 4.0 x4.
        ("proart-b760-creator-d4", "pciex16-cpu", "pciex16-chipset", 4),
        # hardwareluxx ROG STRIX B760-F GAMING WIFI: chipset slot PCIe 3.0 x4.
        ("rog-strix-b760-f-gaming-wifi", "pciex16-cpu", "pciex16-chipset", 3),
        # hardwareluxx B760M PROJECT ZERO: chipset slot PCIe 4.0 x4.
        ("b760m-project-zero", "pcie-1", "pcie-2", 4),
    ],
)
def test_b760_second_gpu_behind_the_dmi_x4_link(
    catalog: Catalog, board: str, cpu_slot: str, chipset_slot: str, chipset_gen: int
) -> None:
    """hardwareluxx 700-series table: B760 has no x8/x8 split and hangs off the CPU by DMI 4.0 x4."""
    topo = derive(catalog, board=board, cards={cpu_slot: "rtx-4090", chipset_slot: "rtx-4090"})
    # RTX 4090: PCIe 4.0 x16 card (catalog/gpu.yaml).
    assert [(d.gen, d.lanes) for d in topo.devices] == [(4, 16), (chipset_gen, 4)]
    assert topo.matrix["GPU0"]["GPU1"] == "PHB"
    uplink = next(u for u in topo.uplinks if u.switch == "b760")
    # DMI 4.0 x4 = 4 x 1.969 GB/s = 7.88 GB/s per direction.
    assert uplink.upstream_gbs == pytest.approx(pcie_gbs(4, 4), abs=0.01) == pytest.approx(7.88, abs=0.01)


def test_proart_b760_middle_m2_switches_off_the_x1_slot(catalog: Catalog) -> None:
    """hardwareluxx ProArt B760-CREATOR D4: an SSD in the middle M.2 disables the PCIe 3.0 x1 slot."""
    found = findings(catalog, board="proart-b760-creator-d4", cards={"m2-middle": "samsung-990-pro-2tb"})
    assert any("x1" in f.message for f in found.get("lanes-shared", []))


def test_proart_z790_creator_has_one_cpu_slot_and_two_chipset_x4(catalog: Catalog) -> None:
    """linuxhw/DMI probes of the ProArt Z790-CREATOR WIFI (SMBIOS type 9): PCIEx16(G5) is x16 at
    Gen5; PCIEX16(G4)_1 and _2 are x4 at Gen4 on PCH root ports 00:1c.4 and 00:1a.0."""
    both = derive(catalog, board="proart-z790-creator-wifi", cards={"pcie-1": "rtx-5090", "pcie-2": "rtx-5090"})
    # RTX 5090: PCIe 5.0 x16 card; the second card trains at the chipset slot's Gen4 x4.
    assert [(d.gen, d.lanes) for d in both.devices] == [(5, 16), (4, 4)]
    # Behind the chipset the two GPUs meet at the CPU's host bridge.
    assert both.matrix["GPU0"]["GPU1"] == "PHB"
    # Gen4 x4 = 4 x 1.969 GB/s = 7.88 GB/s per direction.
    assert both.device("GPU1").gbs == pytest.approx(7.88, abs=0.01)


# --- TRX50 -------------------------------------------------------------------------------


def test_trx50_aero_d_gen5_and_gen4_cpu_slots(catalog: Catalog) -> None:
    """Owner's TRX50 AERO D audit (public GitHub file, search-index id 53247189062): the slot behind
    root port 40:01.1 runs an RTX 5090 at Gen5 x16, the one behind 80:03.1 reports a Gen4 x16
    maximum, nvidia-smi prints NODE between the two; three Gen5 x4 M.2 sit behind host bridge 00."""
    board = catalog.get_as("trx50-aero-d", Board)
    assert board is not None
    roots = {rc.id for rc in board.root_complexes}
    cpu_gen5_x16 = [
        s.id for s in board.slots if s.kind == "pcie" and s.parent in roots and (s.gen, s.electrical_lanes) == (5, 16)
    ]
    assert cpu_gen5_x16 == ["pcie-x16-1"]
    assert {s.id: s.parent for s in board.slots if s.kind == "m2"} == {f"m2-cpu-{i}": "rc-00" for i in (1, 2, 3)}
    topo = derive(
        catalog,
        board="trx50-aero-d",
        cards={"pcie-x16-1": "rtx-5090", "pcie-x16-2": "rtx-5090"},
        cpu="threadripper-7960x",
    )
    # RTX 5090: PCIe 5.0 x16 card (catalog/gpu.yaml); the second slot caps it at Gen4.
    assert [(d.gen, d.lanes) for d in topo.devices] == [(5, 16), (4, 16)]
    assert topo.device("GPU0").gbs == pytest.approx(pcie_gbs(5, 16), abs=0.01) == pytest.approx(63.0, abs=0.05)
    assert topo.device("GPU1").gbs == pytest.approx(31.5, abs=0.05)
    assert topo.matrix["GPU0"]["GPU1"] == "NODE"
    # ASCII: the Threadripper 7000 package links its chipset by PCIe Gen4 x4 (7.88 GB/s per direction).
    assert board.chipset is not None and (board.chipset.uplink_gen, board.chipset.uplink_lanes) == (4, 4)


# --- G292-Z20 ------------------------------------------------------------------------------

# nvidia-smi topo -m of an eight-RTX-5090 G292-Z20 host (ec-jt/gpu-test,
# gpu_profiler_dc-kh-inferno-04_20260328_015339/11_p2p_capability.txt), GPU columns only.
G292_Z20_MATRIX = """
X    PIX  NODE NODE NODE NODE NODE NODE
PIX  X    NODE NODE NODE NODE NODE NODE
NODE NODE X    PIX  NODE NODE NODE NODE
NODE NODE PIX  X    NODE NODE NODE NODE
NODE NODE NODE NODE X    PIX  NODE NODE
NODE NODE NODE NODE PIX  X    NODE NODE
NODE NODE NODE NODE NODE NODE X    PIX
NODE NODE NODE NODE NODE NODE PIX  X
"""


def test_g292_z20_pairs_behind_four_switches_on_one_socket(catalog: Catalog) -> None:
    """Owners' G292-Z20 hosts (lspci -tv of ec-jt/gpu-test; MI50 hosts at buses 06/09, 45/48, 89/8c,
    c5/c8): one Switchtec PFX 52xG4 per EPYC host bridge, two GPUs per switch, one NUMA node."""
    board = catalog.get_as("mz22-g20-g292-z20", Board)
    assert board is not None and board.sockets == 1
    assert {sw.upstream for sw in board.switches} == {rc.id for rc in board.root_complexes}
    topo = derive(
        catalog, board="mz22-g20-g292-z20", cards={f"gpu{i}": "rtx-a6000" for i in range(1, 9)}, cpu="epyc-7742"
    )
    expected = [row.split() for row in G292_Z20_MATRIX.strip().splitlines()]
    assert [[topo.matrix[a][b] for b in topo.gpus] for a in topo.gpus] == expected
    assert {topo.device(g).numa_node for g in topo.gpus} == {0}
    # RTX A6000: PCIe 4.0 x16 card (catalog/gpu.yaml); Gen4 x16 = 31.5 GB/s per direction.
    assert [topo.device(g).gbs for g in topo.gpus] == [pytest.approx(pcie_gbs(4, 16), abs=0.01)] * 8
