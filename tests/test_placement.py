"""Drop verdicts per slot come from the same rules as the findings."""

from __future__ import annotations

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.machine.placement import slot_verdicts
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.model import Plan
from tests.conftest import EXAMPLES


def test_b550_verdicts(catalog: Catalog) -> None:
    plan = edits.add_machine(Plan(name="p"), name="Rig", board="proart-b550-creator", catalog=catalog).plan
    plan = edits.place_card(plan, machine="rig", slot="pciex16-2", part="rtx-3090", catalog=catalog).plan
    verdicts = slot_verdicts(plan, "rig", "rtx-3060-12gb", catalog)
    # PCIEX16_2 (position 4) holds a three-slot RTX 3090, which covers positions 5 and 6.
    assert not verdicts["pciex16-2"].ok and "already holds" in (verdicts["pciex16-2"].reason or "")
    assert not verdicts["pciex16-3"].ok and "covers" in (verdicts["pciex16-3"].reason or "")
    assert verdicts["pciex16-1"].ok
    # A GPU does not go into an M.2 socket.
    assert not verdicts["m2-1"].ok and "M.2" in (verdicts["m2-1"].reason or "")


def test_whole_build_problems_do_not_refuse_a_slot(catalog: Catalog) -> None:
    # The home rig's PSU cannot carry a third GPU's transient budget; that is a finding after
    # the drop, not a reason to refuse the chipset slot.
    plan = load_plan(EXAMPLES / "home-rig-2x3090.json", catalog)
    verdicts = slot_verdicts(plan, plan.machines[0].id, "rtx-4090", catalog)
    assert verdicts["pciex16-chipset"].ok
    assert any("x2" in note for note in verdicts["pciex16-chipset"].notes)


def test_moving_a_card_frees_its_own_slot(catalog: Catalog) -> None:
    plan = load_plan(EXAMPLES / "sys-4028gr-trt2-8gpu.json", catalog)
    plan = edits.remove_card(plan, machine="trainer", slot="gpu8").plan
    verdicts = slot_verdicts(plan, "trainer", "v100-32gb-pcie", catalog, from_slot="gpu1")
    assert verdicts["gpu8"].ok
    assert not verdicts["gpu1"].ok and verdicts["gpu1"].reason == "the card is already here"
