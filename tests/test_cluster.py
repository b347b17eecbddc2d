"""A 16,384-GPU cluster as one plan: the fat-tree sizing, the generated plan and incremental re-analysis."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from rackplanner.core.analysis import analyse_plan
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan import edits
from rackplanner.core.rack.cable_plan import cable_kind, stock_length_m
from rackplanner.core.rack.cluster_fabric import cluster_fabric
from rackplanner.core.rack.cluster_plan import generate_cluster
from rackplanner.core.rack.fat_tree import size_fat_tree, split_ports


def test_a_full_k_ary_fat_tree_matches_the_textbook_counts() -> None:
    # Al-Fares, Loukissas, Vahdat, "A Scalable, Commodity Data Center Network Architecture"
    # (SIGCOMM 2008): a fat tree of k-port switches holds k^3/4 hosts on 5k^2/4 switches.
    k = 16
    tree = size_fat_tree(k**3 // 4, 1, k)
    assert [t.name for t in tree.tiers] == ["leaf", "spine", "core"]
    assert tree.switches == 5 * k * k // 4
    assert all(t.free == 0 for t in tree.tiers)


def test_16384_gpus_on_64_port_ndr_switches_need_three_tiers() -> None:
    # 2,048 nodes x 8 rails on 64-port QM9700 (catalog/switch.yaml: 64 x 400 Gb/s): leaves take
    # 32 nodes down and 32 up; two tiers hold only 64 x 32 = 2,048 ports, so a third is needed.
    tree = size_fat_tree(2048, 8, 64)
    leaf, spine, core = tree.tiers
    assert (leaf.switches, spine.switches, core.switches) == (512, 512, 256)
    assert tree.nodes_per_unit == 32 and tree.units == 64 and tree.pods == 16
    # Every GPU port is connected once, and each tier's links are the next tier's down ports.
    assert leaf.down_used == 16_384
    assert leaf.up_used == spine.down_used and spine.up_used == core.down_used
    assert tree.links() == {"node-leaf": 16_384, "leaf-spine": 16_384, "spine-core": 16_384}
    assert all(t.free == 0 for t in tree.tiers)


def test_four_scalable_units_fit_two_tiers() -> None:
    # NVIDIA DGX SuperPOD H100 reference architecture, network fabrics, Table 4: four scalable units
    # (127 DGX H100 plus the fabric manager, i.e. 128 ports per rail) take 32 leaf and 16 spine QM9700.
    tree = size_fat_tree(128, 8, 64)
    assert [(t.name, t.switches) for t in tree.tiers] == [("leaf", 32), ("spine", 16)]


def test_oversubscription_moves_ports_from_up_to_down() -> None:
    assert split_ports(64, 1) == (32, 32)
    assert split_ports(64, 3) == (48, 16)  # 3:1, as often used for a storage or front-end network
    tree = size_fat_tree(480, 1, 64, leaf_oversubscription=3)
    assert tree.tiers[0].switches == 10 and tree.tiers[0].oversubscription == 3


def test_too_few_tiers_is_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match=r"2 tier\(s\) of 64-port switches hold 2,048 ports"):
        size_fat_tree(2048, 8, 64, tiers=2)
    with pytest.raises(ValueError, match="oversubscription must be from 1 to 63"):
        split_ports(64, 0.5)


def test_the_generated_cluster_has_every_switch_its_fabric_needs(catalog: Catalog) -> None:
    plan = generate_cluster(2048)
    assert len(plan.machines) == 2048
    assert sum(len(m.cards) for m in plan.machines) == 2048 * 16  # 8 GPUs and 8 rail NICs each
    switches = [d.id.split("-")[0] for r in plan.racks for d in r.devices if d.part == "nvidia-qm9700"]
    assert (switches.count("leaf"), switches.count("spine"), switches.count("core")) == (512, 512, 256)
    compute_racks = [r for r in plan.racks if any(d.machine for d in r.devices)]
    assert len(compute_racks) == 512  # four DGX H100 (8U each) to a rack


def test_an_edit_reanalyses_only_what_it_touched_and_agrees_with_a_full_analysis(catalog: Catalog) -> None:
    plan = generate_cluster(64)
    before = analyse_plan(plan, catalog)
    machine = plan.machines[9]
    edited = edits.set_power_limit(plan, machine=machine.id, slot="sxm2", watts=500, catalog=catalog).plan
    after = analyse_plan(edited, catalog, before)
    untouched = plan.machines[0].id
    assert after.topologies[untouched] is before.topologies[untouched]
    assert after.racks != before.racks  # the edited server's rack draws less
    full = analyse_plan(edited, catalog)
    assert (after.topologies, after.machine_findings, after.racks, after.fabrics) == (
        full.topologies,
        full.machine_findings,
        full.racks,
        full.fabrics,
    )
    # Compute racks hold four 8U servers from U1 to U32, so U33 and up is free.
    moved = edits.move_device(
        edited, rack="su01-rack-001", device="node-0001", to_rack="su01-rack-002", position_u=33
    ).plan
    again = analyse_plan(moved, catalog, after)
    assert again.racks == analyse_plan(moved, catalog).racks


def test_compute_ports_cabled_to_other_racks_are_not_errors(catalog: Catalog) -> None:
    plan = generate_cluster(32)
    report = analyse_plan(plan, catalog).racks["su01-rack-001"]
    codes = {f.code for f in report.findings}
    assert "no-switch-port" not in codes and "ports-outside-rack" in codes


def test_the_fabric_command_accounts_for_every_port_and_writes_the_schedule(tmp_path: Path) -> None:
    plan = tmp_path / "cluster.json"
    plan.write_text(generate_cluster(256).model_dump_json(), encoding="utf-8")
    schedule = tmp_path / "cables.csv"
    result = subprocess.run(
        [sys.executable, "-m", "rackplanner", "fabric", str(plan), "--cables", str(schedule), "--json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    # 256 DGX x 8 rails = 2,048 ports: two tiers of 64-port QM9700 hold exactly that (64 leaves, 32 spines).
    assert data["needed"] == {"leaf": 64, "spine": 32} == data["in_plan"]
    for tier in data["tree"]["tiers"]:
        assert tier["switches"] * tier["ports_per_switch"] == tier["down_used"] + tier["up_used"]
    rows = list(csv.DictReader(schedule.open(encoding="utf-8")))
    assert len(rows) == 2048 + 2048
    ends = Counter((r["from_rack"], r["from_device"], r["from_port"]) for r in rows)
    ends += Counter((r["to_rack"], r["to_device"], r["to_port"]) for r in rows)
    assert max(ends.values()) == 1  # no port used twice
    node_ports = {(r["from_device"], r["from_port"]) for r in rows if r["level"] == "node-leaf"}
    assert len(node_ports) == 2048  # every GPU NIC port once
    # Rail n of every node goes to rail n's leaf of its unit: GPUs of one rank are one hop apart.
    first = [r for r in rows if r["level"] == "node-leaf" and r["from_port"] == "rail 3"]
    assert {r["to_device"] for r in first[:32]} == {"leaf-3"}
    assert all(float(r["length_m"]) > 0 and r["cable"] for r in rows)


def test_cable_kind_follows_length_and_says_when_it_cannot_choose() -> None:
    # MCP4Y10 passive DAC to 2 m, MMA4Z00-NS multimode to 50 m, MMS4X00-NS single-mode DR8 to 100 m.
    assert cable_kind(2.0, 400) == "DAC (passive copper)"
    assert cable_kind(2.5, 400).startswith("multimode")
    assert cable_kind(80, 400).startswith("single-mode transceivers + fibre (DR")
    assert cable_kind(3, 200).startswith("kind not chosen")
    assert cable_kind(None, 400) == "length unknown"
    assert stock_length_m(2.01) == 2.5 and stock_length_m(7.2) == 8


def test_switches_the_plan_lacks_are_named_and_still_counted(catalog: Catalog) -> None:
    plan = generate_cluster(256)
    # Take away the spines: the fabric still wires every leaf uplink, to spines marked not in the plan.
    racks = [
        r.model_copy(update={"devices": [d for d in r.devices if not d.id.startswith("spine")]}) for r in plan.racks
    ]
    fabric = cluster_fabric(plan.model_copy(update={"racks": racks}), catalog)
    assert fabric.needed["spine"] == 32 and fabric.in_plan["spine"] == 0
    assert any("lacks 32 spine" in note for note in fabric.notes)
    upper = [link for link in fabric.links if link.level == "leaf-spine"]
    assert len(upper) == 2048 and all(link.length_m is None for link in upper)


def test_training_across_the_cluster_gives_interruptions_and_goodput(catalog: Catalog) -> None:
    from rackplanner.core.capacity.estimate import get_model
    from rackplanner.core.capacity.plan_training import plan_training

    training = plan_training(generate_cluster(2048), catalog, get_model(catalog, "llama-3.1-405b"))
    assert training is not None and training.gpus == 16_384 and training.machines == 2048
    budget = training.failures
    assert budget is not None
    # Llama 3 (arXiv 2407.21783, section 3.3.4): 419 unexpected interruptions in 54 days on about
    # 16,000 H100s, one every ~3 hours; the same rates on 16,384 GPUs in 2,048 hosts.
    assert 419 / 54 * 0.95 < budget.interruptions_per_day < 419 / 54 * 1.1
    assert 0.8 < budget.goodput < 1.0


def test_the_bom_lists_the_fabrics_cables_and_the_switches_it_lacks(catalog: Catalog) -> None:
    from rackplanner.core.analysis import analyse

    plan = generate_cluster(256)
    racks = [
        r.model_copy(update={"devices": [d for d in r.devices if not d.id.startswith("spine")]}) for r in plan.racks
    ]
    bom = analyse(plan.model_copy(update={"racks": racks}), catalog).bom()
    assert bom.fabric is not None
    switches = [line for line in bom.fabric.lines if line.category == "switch"]
    assert [(s.part, s.quantity) for s in switches] == [("nvidia-qm9700", 32)]  # the 32 spines taken away
    cables = [line for line in bom.fabric.lines if line.category == "cable"]
    # 2,048 node-leaf links between racks, and 2,048 leaf uplinks to spines that are not placed.
    assert sum(c.quantity for c in cables) == 4096
    assert sum(c.quantity for c in cables if "not in the plan" in c.model) == 2048
    assert all(not c.priced for c in cables)  # no price for them: the total says so
    assert "without a price" in bom.totals.total_text
    # The plan's own QM9700s (64 leaves) and the 32 the fabric needs are one line in the totals.
    total = next(line for line in bom.totals.lines if line.part == "nvidia-qm9700")
    assert total.quantity == 64 + 32


def test_a_single_rack_with_its_own_leaf_adds_nothing_to_the_bom(catalog: Catalog) -> None:
    from rackplanner.core.analysis import analyse
    from rackplanner.core.plan.files import load_plan

    examples = Path(__file__).resolve().parent.parent / "resources" / "examples"
    plan = load_plan(examples / "colo-rack.json", catalog)
    assert analyse(plan, catalog).bom().fabric is None


def test_alike_racks_get_alike_cords_whether_searched_or_replayed(catalog: Catalog) -> None:
    from rackplanner.core.catalog.loading import load_catalog
    from rackplanner.core.rack.power import rack_power

    plan = generate_cluster(64)
    # su01-rack-002 is balanced after su01-rack-001 (its choices replayed), then on a new catalog
    # on its own (searched): the same cords, loads and findings either way.
    rack_power(plan, "su01-rack-001", catalog)
    replayed = rack_power(plan, "su01-rack-002", catalog)
    searched = rack_power(plan, "su01-rack-002", load_catalog(include_user=False))
    assert replayed == searched
    first = rack_power(plan, "su01-rack-001", catalog)
    # The same outlet group for the n-th cord of the n-th server of each rack.
    assert [(c.pdu, c.outlet_group, c.psu_index) for c in first.cords] == [
        (c.pdu, c.outlet_group, c.psu_index) for c in replayed.cords
    ]


def test_storage_is_sized_as_its_own_oversubscribed_network(catalog: Catalog) -> None:
    from rackplanner.core.rack.side_networks import size_side_networks

    plan = generate_cluster(32)
    # 4,096 storage ports of 200 GbE on 32-port SN4700 (catalog/switch.yaml) at 3:1: leaves take 24 down
    # and 8 up; two tiers hold 32 x 24 = 768 ports, so three: 171 leaves in 8 pods of 24, 8 spines a pod.
    (side,) = size_side_networks(
        plan, catalog, {"storage": Counter({200.0: 4096})}, switch="nvidia-sn4700", oversubscription=3
    )
    assert side.tree is not None
    assert [(t.name, t.switches) for t in side.tree.tiers] == [("leaf", 171), ("spine", 64), ("core", 16)]
    for tier in side.tree.tiers:
        assert tier.ports == tier.down_used + tier.up_used + tier.free
    assert side.tree.tiers[0].down_used == 4096


def test_storage_without_a_fast_enough_switch_says_so(catalog: Catalog) -> None:
    from rackplanner.core.rack.side_networks import size_side_networks

    # The generated cluster's only Ethernet switch is the 1 GbE / 100 GbE SN2201.
    (side,) = size_side_networks(generate_cluster(32), catalog, {"storage": Counter({200.0: 64})})
    assert side.tree is None and "no Ethernet switch of 200 Gb/s" in side.notes[0]


def test_a_director_is_a_two_tier_fat_tree_inside() -> None:
    # The seed's CS7520 (002_daeb2f0cc80a7fe9.txt): 216 ports built from 36-port switches need 6 spines
    # for full bandwidth; its 12 leaves give 18 ports down and 18 up each.
    tree = size_fat_tree(216, 1, 36)
    assert [(t.name, t.switches) for t in tree.tiers] == [("leaf", 12), ("spine", 6)]
    assert tree.tiers[0].down_per_switch == 18 and tree.tiers[0].up_per_switch == 18


def test_another_switch_model_is_sized_and_its_missing_switches_named(catalog: Catalog) -> None:
    # SN5600 (catalog/switch.yaml: 64 x 800 GbE OSFP) as the rail switch of 256 DGX: 2,048 ports fit two
    # tiers of 64-port switches (64 x 32), as with the QM9700; the plan holds none of them.
    fabric = cluster_fabric(generate_cluster(256), catalog, switch="nvidia-sn5600")
    assert fabric.switch_part == "nvidia-sn5600" and fabric.tree is not None
    assert fabric.needed == {"leaf": 64, "spine": 32}
    assert fabric.in_plan == {"leaf": 0, "spine": 0}
    assert any("lacks 64 leaf, 32 spine" in note for note in fabric.notes)
    # Nodes keep their 400 Gb/s NICs; switch-to-switch links run at the switch's 800 Gb/s.
    speeds = {(link.level, link.speed_gbps) for link in fabric.links}
    assert speeds == {("node-leaf", 400.0), ("leaf-spine", 800.0)}


def test_a_breakout_doubles_the_radix_and_halves_the_port_speed(catalog: Catalog) -> None:
    # SN5600's 64 x 800 GbE cages as 128 x 400 GbE (NVIDIA SN5000 manual, Data Interfaces: "128 | 400GbE").
    fabric = cluster_fabric(generate_cluster(2048), catalog, switch="nvidia-sn5600", split=2, wire=False)
    assert fabric.tree is not None and fabric.tree.radix == 128
    # 128-port switches: leaves take 64 nodes down and 64 up; two tiers hold 128 x 64 = 8,192 ports, so
    # 16,384 take three: 256 leaves, 256 spines, 128 cores (5k^2/4 switches for k^3/4 ports, halved).
    assert fabric.needed == {"leaf": 256, "spine": 256, "core": 128}
    with pytest.raises(ValueError, match="1 to 8 ports"):
        cluster_fabric(generate_cluster(32), catalog, split=0)


def test_dgx_storage_cards_are_sized_as_their_own_network(catalog: Catalog) -> None:
    from rackplanner.core.plan import edits

    plan = generate_cluster(32)
    # DGX H100: two dual-port QSFP112 ConnectX-7 for storage and in-band (NVIDIA BasePOD reference);
    # one dual-port 200 GbE card each here, an Ethernet card, so its ports serve the in-band network.
    for machine in plan.machines:
        plan = edits.place_card(
            plan, machine=machine.id, slot="storage0", part="connectx-7-mcx713106as-veat", catalog=catalog
        ).plan
    fabric = cluster_fabric(plan, catalog, storage_switch="nvidia-sn4700", wire=False)
    (side,) = fabric.side_networks
    assert side.network == "in-band management" and side.ports == 64
    # 64 ports on 32-port SN4700 (catalog/switch.yaml) at 1:1: 4 leaves of 16 down, 16 up; 2 spines.
    assert side.tree is not None and [(t.name, t.switches) for t in side.tree.tiers] == [("leaf", 4), ("spine", 2)]
    assert fabric.needed == {"leaf": 8, "spine": 4}  # the compute fabric is unchanged
