"""Fit rules fire with the numbers, and stay quiet on a sound build."""

from __future__ import annotations

from pathlib import Path

from rackplanner.core.catalog.loading import Catalog, load_catalog
from rackplanner.core.catalog.parts import Gpu
from rackplanner.core.machine.fit import Finding, check_machine
from rackplanner.core.machine.power import gpu_budget_w
from rackplanner.core.machine.topology import derive_topology
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.model import Plan
from tests.conftest import EXAMPLES
from tests.machinefixtures import build


def findings_of(plan: Plan, catalog: Catalog) -> dict[str, Finding]:
    machine = plan.machines[0]
    return {f.code: f for f in check_machine(machine, catalog, derive_topology(machine, catalog))}


def test_teaching_example_explains_each_mistake(catalog: Catalog) -> None:
    found = findings_of(load_plan(EXAMPLES / "teaching-mistakes.json", catalog), catalog)
    assert found["bridge-mismatch"].severity == "error"
    assert found["bridge-mismatch"].slots == ["pciex16-g5-1", "pciex16-g5-2"]
    # Budget: 3090 at 600 W (001_1caa315e8577a206.txt) twice, 4090 at its 450 W board power,
    # Ryzen 9 7950X 170 W, one DIMM at the 4 W allowance and the 75 W desktop allowance
    # (core/machine/power.py) = 1,899 W against a 1,600 W PSU.
    assert found["psu-too-small"].message.startswith("The PSU gives 1,600 W but the build can draw 1,899 W")
    assert found["risers"].severity == "warning" and "3 GPUs" in found["risers"].message
    # 32 GB of RAM for 24 + 24 + 24 GB of VRAM.
    assert "System RAM is 32 GB, below the 72 GB of VRAM" in found["ram-below-vram"].message
    assert found["dimm-count"].message.startswith("1 DIMM on ")
    # Sustained: 350 + 450 + 350 + 170 + 4 + 75 = 1,399 W DC on a 1,600 W Titanium PSU (87.4%
    # load): 80 PLUS Titanium 115 V is 94% at 50% and 90% at 100%, so 91.0% and 1,537 W from
    # the wall, over 120 V x 15 A x 0.8 = 1,440 W.
    assert "about 1,537 W from the wall" in found["wall-circuit"].message
    assert "(1,440 W at 80%)" in found["wall-circuit"].message
    severities = [
        f.severity for f in check_machine(load_plan(EXAMPLES / "teaching-mistakes.json", catalog).machines[0], catalog)
    ]
    assert severities == sorted(severities, key=["error", "warning", "info"].index)


def test_sound_home_rig_has_no_errors(catalog: Catalog) -> None:
    plan = load_plan(EXAMPLES / "home-rig-2x3090.json", catalog)
    found = findings_of(plan, catalog)
    assert not [f for f in found.values() if f.severity == "error"]
    # 2 x 600 + 170 + 8 + 8.6 + 75 = 1,462 W fits the 1,600 W PSU; sustained 962 W / 0.93 = 1,032 W.
    assert "psu-too-small" not in found and "wall-circuit" not in found
    assert "ram-below-vram" not in found  # 2 x 48 GB = 96 GB >= 48 GB VRAM


def test_a_machine_with_no_ram_drawn_is_not_told_it_has_0_gb(catalog: Catalog) -> None:
    # A plan still being drawn, or a DGX the advice takes as sold whole (its memory in its
    # price), holds no DIMMs: "System RAM is 0 GB" would be a wrong figure. It is a note
    # naming what the machine needs, 2 x 24 GB = 48 GB for two RTX 3090s.
    plan = load_plan(EXAMPLES / "home-rig-2x3090.json", catalog)
    bare = plan.model_copy(update={"machines": [plan.machines[0].model_copy(update={"memory": []})]})
    found = findings_of(bare, catalog)
    assert found["ram-below-vram"].severity == "info"
    assert found["ram-below-vram"].message == (
        "No system RAM in the plan, so RAM against VRAM is not checked; the machine needs at least 48 GB "
        "(as much as its VRAM)."
    )
    assert "System RAM is 0 GB" not in " ".join(f.message for f in found.values())


def test_power_limit_lowers_the_budget(catalog: Catalog) -> None:
    gpu = catalog.get_as("rtx-3090", Gpu)
    assert gpu is not None
    # nvidia-smi -pl 280 on a 350 W card scales its 600 W transient budget to 480 W.
    assert gpu_budget_w(gpu, 280) == (480.0, True)
    assert gpu_budget_w(gpu, None) == (600.0, True)


def test_card_too_long_and_wide_card_covering(catalog: Catalog, tmp_path: Path) -> None:
    """With a case and board whose geometry is known, length and slot covering are checked."""
    (tmp_path / "chassis.yaml").write_text(
        "- {id: small-case, vendor: Me, model: Small case, source: fixture, form: tower,\n"
        "   board_form_factors: [ATX], expansion_slots: 7, max_gpu_length_mm: 300}\n"
    )
    (tmp_path / "board.yaml").write_text(
        "- id: spaced-board\n  vendor: Me\n  model: Spaced board\n  source: fixture\n  platform: consumer\n"
        "  form_factor: ATX\n  cpu_socket: AM5\n  sockets: 1\n  root_complexes: [{id: cpu, socket: 0}]\n"
        "  slots:\n"
        "    - {id: a, label: SLOT_A, position: 0, physical_lanes: 16, electrical_lanes: 16, gen: 4, parent: cpu}\n"
        "    - {id: b, label: SLOT_B, position: 2, physical_lanes: 16, electrical_lanes: 16, gen: 4, parent: cpu}\n"
        "    - {id: c, label: SLOT_C, position: 4, physical_lanes: 16, electrical_lanes: 16, gen: 4, parent: cpu}\n"
    )
    mine = load_catalog([tmp_path], include_user=False)
    plan = edits.add_machine(Plan(name="t"), name="m", board="spaced-board", chassis="small-case", catalog=mine).plan
    # RTX 3090 Founders Edition: 313 mm long, 3 slots wide (catalog/gpu.yaml).
    plan = edits.place_card(plan, machine="m", slot="a", part="rtx-3090", catalog=mine).plan
    plan = edits.place_card(plan, machine="m", slot="b", part="rtx-3060-12gb", catalog=mine).plan
    found = check_machine(plan.machines[0], mine)
    codes = [f.code for f in found]
    covered = next(f for f in found if f.code == "slot-covered")
    assert covered.message == "rtx-3090 in SLOT_A is 3 slots wide and covers SLOT_B, where rtx-3060-12gb is placed."
    too_long = next(f for f in found if f.code == "too-long")
    assert too_long.message == "rtx-3090 is 313 mm long; Small case takes cards up to 300 mm."
    assert "slot-blocked" not in codes  # SLOT_C at position 4 is beyond the 3090's reach


def test_a_server_gpu_bay_takes_cards_up_to_its_width(catalog: Catalog) -> None:
    # SYS-521GE-TNRT: eight double-width GPU bays (data sheet, catalog board x13deg-oa).
    plan = edits.add_machine(Plan(name="bays"), name="5U", catalog=catalog, server="sys-521ge-tnrt").plan
    machine = plan.machines[0].id
    for slot, part in (("gpu1", "rtx-4090"), ("gpu2", "a100-80gb-pcie"), ("gpu3", "rtx-6000-ada")):
        plan = edits.place_card(plan, machine=machine, slot=slot, part=part, catalog=catalog).plan
    found = check_machine(plan.machines[0], catalog, derive_topology(plan.machines[0], catalog))
    narrow = [f for f in found if f.code == "bay-too-narrow"]
    # The RTX 4090 Founders Edition is three slots wide (61 mm, catalog gpu.yaml); the A100 PCIe two.
    assert [(f.severity, f.slots, f.parts) for f in narrow] == [("error", ["gpu1"], ["rtx-4090"])]
    assert "3 slots wide" in narrow[0].message and "up to 2 slots wide" in narrow[0].message
    # The RTX 6000 Ada's width is not in the catalog: said, not guessed.
    unknown = [f for f in found if f.code == "bay-width-unknown"]
    assert [f.slots for f in unknown] == [["gpu3"]] and "not checked" in unknown[0].message
    # Bays are walled off: the wide card covers no neighbour, and no spacing caveat is printed.
    assert not {"slot-covered", "slot-blocked", "spacing-unknown"} & {f.code for f in found}


def test_a_passive_card_in_a_tower_needs_forced_airflow(catalog: Catalog) -> None:
    # The A100 PCIe is passively cooled (catalog gpu.yaml cooling: passive); the RTX 3090 has fans.
    tower = build(catalog, board="proart-x670e-creator", cards={"pciex16-g5-1": "a100-80gb-pcie"})
    found = check_machine(tower.machines[0], catalog)
    passive = [f for f in found if f.code == "passive-cooling"]
    assert len(passive) == 1 and passive[0].severity == "warning" and passive[0].slots == ["pciex16-g5-1"]
    fans = build(catalog, board="proart-x670e-creator", cards={"pciex16-g5-1": "rtx-3090"})
    assert not [f for f in check_machine(fans.machines[0], catalog) if f.code == "passive-cooling"]
    # In a GPU server the chassis fans push air through it: nothing to say.
    server = build(catalog, server="sys-4028gr-trt2", cards={"gpu1": "a100-80gb-pcie"})
    assert not [f for f in check_machine(server.machines[0], catalog) if f.code == "passive-cooling"]
