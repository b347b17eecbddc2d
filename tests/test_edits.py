"""Every edit is a pure function: new plan plus change flags; the old plan is untouched."""

from __future__ import annotations

import pytest

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan import edits
from rackplanner.core.plan.edits import Change, EditRefused
from rackplanner.core.plan.files import plan_to_json
from rackplanner.core.plan.model import Machine, PartCount, Plan, Rack


@pytest.fixture
def empty() -> Plan:
    return Plan(name="Test plan")


@pytest.fixture
def rig(empty: Plan, catalog: Catalog) -> Plan:
    """A home rig: X670E board with one RTX 3090 in the first x16 slot."""
    plan = edits.add_machine(
        empty,
        name="Home rig",
        board="proart-x670e-creator",
        chassis="fractal-define-7-xl",
        catalog=catalog,
    ).plan
    return edits.place_card(plan, machine="home-rig", slot="pciex16-g5-1", part="rtx-3090", catalog=catalog).plan


@pytest.fixture
def colo(empty: Plan, catalog: Catalog) -> Plan:
    plan = edits.add_machine(empty, name="GPU 1", server="sys-4028gr-trt2", catalog=catalog).plan
    plan = edits.add_machine(plan, name="GPU 2", server="sys-4028gr-trt2", catalog=catalog).plan
    plan = edits.add_rack(plan, name="Rack A", part="apc-ar3300", catalog=catalog).plan
    plan = edits.add_rack(plan, name="Rack B", part="apc-ar3300", catalog=catalog).plan
    plan = edits.add_feed(plan, name="Feed A", side="A", phases=3, voltage_v=400, breaker_a=16).plan
    plan = edits.mount_device(plan, rack="rack-a", name="GPU 1", machine="gpu-1", position_u=10, catalog=catalog).plan
    return edits.mount_device(
        plan, rack="rack-a", name="PDU A", part="apc-ap8881", side="left", feed="feed-a", catalog=catalog
    ).plan


def machine_of(plan: Plan, machine_id: str) -> Machine:
    found = plan.machine(machine_id)
    assert found is not None, f"no machine {machine_id}"
    return found


def rack_of(plan: Plan, rack_id: str) -> Rack:
    found = plan.rack(rack_id)
    assert found is not None, f"no rack {rack_id}"
    return found


def unchanged(before: Plan, snapshot: str) -> None:
    assert plan_to_json(before) == snapshot, "the edit modified the old plan"


def test_add_machine(empty: Plan, catalog: Catalog) -> None:
    snapshot = plan_to_json(empty)
    result = edits.add_machine(empty, name="Home rig", board="proart-x670e-creator", catalog=catalog)
    unchanged(empty, snapshot)
    assert [m.id for m in result.plan.machines] == ["home-rig"]
    assert result.changes >= {Change.MACHINES, Change.TOPOLOGY, Change.POWER, Change.BOM}
    assert result.label == "Add machine Home rig"
    again = edits.add_machine(result.plan, name="Home rig", board="proart-x670e-creator", catalog=catalog)
    assert [m.id for m in again.plan.machines] == ["home-rig", "home-rig-2"]


def test_add_machine_refuses_unknown_and_wrong_parts(empty: Plan, catalog: Catalog) -> None:
    with pytest.raises(EditRefused, match="board 'no-such-board' is not in the catalog"):
        edits.add_machine(empty, name="x", board="no-such-board", catalog=catalog)
    with pytest.raises(EditRefused, match="is a gpu, not a board"):
        edits.add_machine(empty, name="x", board="rtx-3090", catalog=catalog)
    with pytest.raises(EditRefused, match="either a server or a board"):
        edits.add_machine(empty, name="x", server="sys-4028gr-trt2", board="proart-x670e-creator", catalog=catalog)


def test_rename_and_remove_machine(colo: Plan) -> None:
    snapshot = plan_to_json(colo)
    renamed = edits.rename_machine(colo, machine="gpu-1", name="Trainer")
    assert machine_of(renamed.plan, "gpu-1").name == "Trainer"
    assert renamed.changes == {Change.MACHINES, Change.BOM}
    removed = edits.remove_machine(colo, machine="gpu-1")
    unchanged(colo, snapshot)
    assert [m.id for m in removed.plan.machines] == ["gpu-2"]
    # Its rack position goes with it.
    assert [d.id for d in rack_of(removed.plan, "rack-a").devices] == ["pdu-a"]
    assert Change.RACK_LAYOUT in removed.changes and removed.racks == {"rack-a"}
    with pytest.raises(EditRefused, match="no machine 'gpu-9'"):
        edits.remove_machine(colo, machine="gpu-9")


def test_place_move_remove_card(rig: Plan, catalog: Catalog) -> None:
    snapshot = plan_to_json(rig)
    placed = edits.place_card(rig, machine="home-rig", slot="pciex16-g5-2", part="rtx-3090", catalog=catalog)
    unchanged(rig, snapshot)
    assert [c.slot for c in machine_of(placed.plan, "home-rig").cards] == ["pciex16-g5-1", "pciex16-g5-2"]
    assert Change.TOPOLOGY in placed.changes and placed.machines == {"home-rig"}
    assert placed.label.startswith("Place ") and placed.label.endswith(" in PCIEX16(G5)_2")

    moved = edits.move_card(
        rig, machine="home-rig", from_slot="pciex16-g5-1", to_slot="pciex16-chipset", catalog=catalog
    )
    unchanged(rig, snapshot)
    assert [c.slot for c in machine_of(moved.plan, "home-rig").cards] == ["pciex16-chipset"]

    removed = edits.remove_card(rig, machine="home-rig", slot="pciex16-g5-1")
    assert machine_of(removed.plan, "home-rig").cards == []
    unchanged(rig, snapshot)


def test_place_card_refusals(rig: Plan, catalog: Catalog) -> None:
    with pytest.raises(EditRefused, match=r"slot PCIEX16\(G5\)_1 already holds rtx-3090"):
        edits.place_card(rig, machine="home-rig", slot="pciex16-g5-1", part="rtx-4090", catalog=catalog)
    with pytest.raises(EditRefused, match="has no slot 'pcie-7'"):
        edits.place_card(rig, machine="home-rig", slot="pcie-7", part="rtx-4090", catalog=catalog)
    with pytest.raises(EditRefused, match="is a board, not a card"):
        edits.place_card(rig, machine="home-rig", slot="pciex16-g5-2", part="x9drg-o-pcie", catalog=catalog)
    with pytest.raises(EditRefused, match=r"M.2 socket"):
        edits.place_card(rig, machine="home-rig", slot="m2-1", part="rtx-4090", catalog=catalog)


def test_card_needs_a_board(empty: Plan, catalog: Catalog) -> None:
    plan = edits.add_machine(empty, name="Bare", catalog=catalog).plan
    with pytest.raises(EditRefused, match="has no board yet"):
        edits.place_card(plan, machine="bare", slot="pciex16-g5-1", part="rtx-3090", catalog=catalog)


def test_power_limit(rig: Plan, catalog: Catalog) -> None:
    snapshot = plan_to_json(rig)
    limited = edits.set_power_limit(rig, machine="home-rig", slot="pciex16-g5-1", watts=280, catalog=catalog)
    unchanged(rig, snapshot)
    assert machine_of(limited.plan, "home-rig").cards[0].power_limit_w == 280
    assert limited.changes == {Change.POWER, Change.CAPACITY, Change.MACHINES}
    cleared = edits.set_power_limit(limited.plan, machine="home-rig", slot="pciex16-g5-1", watts=None, catalog=catalog)
    assert machine_of(cleared.plan, "home-rig").cards[0].power_limit_w is None
    # RTX 3090 board power 350 W (catalog/gpu.yaml): a higher limit is refused.
    with pytest.raises(EditRefused, match=r"400 W is above the .*350 W board power"):
        edits.set_power_limit(rig, machine="home-rig", slot="pciex16-g5-1", watts=400, catalog=catalog)
    # A limit survives a move.
    moved = edits.move_card(
        limited.plan, machine="home-rig", from_slot="pciex16-g5-1", to_slot="pciex16-g5-2", catalog=catalog
    )
    assert machine_of(moved.plan, "home-rig").cards[0].power_limit_w == 280


def test_nvlink_bridge(rig: Plan, catalog: Catalog) -> None:
    two = edits.place_card(rig, machine="home-rig", slot="pciex16-g5-2", part="rtx-3090", catalog=catalog).plan
    snapshot = plan_to_json(two)
    bridged = edits.add_bridge(
        two,
        machine="home-rig",
        slots=("pciex16-g5-1", "pciex16-g5-2"),
        part="nvlink-bridge-3090-4slot",
        catalog=catalog,
    )
    unchanged(two, snapshot)
    assert len(machine_of(bridged.plan, "home-rig").bridges) == 1
    with pytest.raises(EditRefused, match="already has a bridge"):
        edits.add_bridge(
            bridged.plan,
            machine="home-rig",
            slots=("pciex16-g5-1", "pciex16-g5-2"),
            part="nvlink-bridge-3090-4slot",
            catalog=catalog,
        )
    # Removing a bridged card takes the bridge off too.
    without = edits.remove_card(bridged.plan, machine="home-rig", slot="pciex16-g5-2")
    assert machine_of(without.plan, "home-rig").bridges == []
    unbridged = edits.remove_bridge(bridged.plan, machine="home-rig", slot="pciex16-g5-1")
    assert machine_of(unbridged.plan, "home-rig").bridges == []


def test_bridge_refuses_cards_it_does_not_fit(rig: Plan, catalog: Catalog) -> None:
    plan = edits.place_card(rig, machine="home-rig", slot="pciex16-g5-2", part="rtx-4090", catalog=catalog).plan
    with pytest.raises(EditRefused, match="does not fit rtx-4090"):
        edits.add_bridge(
            plan,
            machine="home-rig",
            slots=("pciex16-g5-1", "pciex16-g5-2"),
            part="nvlink-bridge-3090-4slot",
            catalog=catalog,
        )


def test_configure_machine_drops_cards_the_new_board_lacks(rig: Plan, catalog: Catalog) -> None:
    result = edits.configure_machine(rig, machine="home-rig", board="x9drg-o-pcie", catalog=catalog)
    assert machine_of(result.plan, "home-rig").board == "x9drg-o-pcie"
    assert machine_of(result.plan, "home-rig").cards == []
    assert "1 cards taken out" in result.label
    psus = edits.configure_machine(
        rig, machine="home-rig", psus=[PartCount(part="seasonic-prime-tx-1600", count=1)], catalog=catalog
    )
    assert machine_of(psus.plan, "home-rig").psus[0].part == "seasonic-prime-tx-1600"
    assert machine_of(psus.plan, "home-rig").cards == machine_of(rig, "home-rig").cards


def test_racks_and_devices(colo: Plan, catalog: Catalog) -> None:
    snapshot = plan_to_json(colo)
    moved = edits.move_device(colo, rack="rack-a", device="gpu-1", position_u=20)
    unchanged(colo, snapshot)
    assert rack_of(moved.plan, "rack-a").device("gpu-1").position_u == 20
    assert moved.changes >= {Change.RACK_LAYOUT, Change.POWER}
    across = edits.move_device(colo, rack="rack-a", device="gpu-1", to_rack="rack-b", position_u=5)
    assert rack_of(across.plan, "rack-a").device("gpu-1") is None
    assert rack_of(across.plan, "rack-b").device("gpu-1").position_u == 5
    assert across.racks == {"rack-a", "rack-b"}
    unmounted = edits.unmount_device(colo, rack="rack-a", device="gpu-1")
    assert rack_of(unmounted.plan, "rack-a").device("gpu-1") is None
    assert machine_of(unmounted.plan, "gpu-1") is not None  # the machine stays in the plan
    with pytest.raises(EditRefused, match="already mounted in Rack A"):
        edits.mount_device(colo, rack="rack-b", name="again", machine="gpu-1", position_u=1, catalog=catalog)
    with pytest.raises(EditRefused, match="is a gpu, not a rack device"):
        edits.mount_device(colo, rack="rack-b", name="card", part="rtx-3090", position_u=1, catalog=catalog)
    with pytest.raises(EditRefused, match="needs a position_u or, for 0U devices, a side"):
        edits.mount_device(colo, rack="rack-b", name="GPU 2", machine="gpu-2", catalog=catalog)


def test_add_rename_remove_rack(colo: Plan, catalog: Catalog) -> None:
    snapshot = plan_to_json(colo)
    renamed = edits.rename_rack(colo, rack="rack-b", name="Spare")
    assert rack_of(renamed.plan, "rack-b").name == "Spare"
    removed = edits.remove_rack(colo, rack="rack-a")
    unchanged(colo, snapshot)
    assert [r.id for r in removed.plan.racks] == ["rack-b"]
    assert machine_of(removed.plan, "gpu-1") is not None
    with pytest.raises(EditRefused, match=r"'apc-ap8881'.*is a pdu, not a rack|is a pdu, not a rack"):
        edits.add_rack(colo, name="Bad", part="apc-ap8881", catalog=catalog)


def test_price_override(colo: Plan, catalog: Catalog) -> None:
    snapshot = plan_to_json(colo)
    priced = edits.set_price_override(colo, part="rtx-3090", price_usd=750.0, catalog=catalog)
    unchanged(colo, snapshot)
    assert {k: v.price_usd for k, v in priced.plan.user_prices.items()} == {"rtx-3090": 750.0}
    assert priced.changes == {Change.BOM}
    restored = edits.set_price_override(priced.plan, part="rtx-3090", price_usd=None, catalog=catalog)
    assert restored.plan.user_prices == {}
    with pytest.raises(EditRefused, match="cannot be negative"):
        edits.set_price_override(colo, part="rtx-3090", price_usd=-1, catalog=catalog)


def test_outlet_assignment(colo: Plan, catalog: Catalog) -> None:
    snapshot = plan_to_json(colo)
    plugged = edits.set_outlet_assignment(
        colo, rack="rack-a", device="gpu-1", psu_index=0, pdu="pdu-a", outlet_group="l2", catalog=catalog
    )
    unchanged(colo, snapshot)
    assert [(a.device, a.outlet_group) for a in plugged.plan.outlet_assignments] == [("gpu-1", "l2")]
    assert plugged.changes == {Change.OUTLETS, Change.POWER}
    with pytest.raises(EditRefused, match="has no outlet group 'l9'"):
        edits.set_outlet_assignment(
            colo, rack="rack-a", device="gpu-1", psu_index=0, pdu="pdu-a", outlet_group="l9", catalog=catalog
        )
    with pytest.raises(EditRefused, match="'gpu-1' is not a PDU"):
        edits.set_outlet_assignment(
            colo, rack="rack-a", device="gpu-1", psu_index=0, pdu="gpu-1", outlet_group="l1", catalog=catalog
        )
    auto = edits.set_outlet_assignment(
        plugged.plan, rack="rack-a", device="gpu-1", psu_index=0, pdu=None, outlet_group=None, catalog=catalog
    )
    assert auto.plan.outlet_assignments == []
    # Unmounting the server drops its override.
    gone = edits.unmount_device(plugged.plan, rack="rack-a", device="gpu-1")
    assert gone.plan.outlet_assignments == []


def test_feeds(colo: Plan) -> None:
    removed = edits.remove_feed(colo, feed="feed-a")
    assert removed.plan.feeds == []
    assert rack_of(removed.plan, "rack-a").device("pdu-a").feed is None
    assert removed.racks == {"rack-a"}


def test_plan_details(empty: Plan) -> None:
    result = edits.set_plan_notes(empty, name="Cage 12", notes="Quote from 2026-11")
    assert (result.plan.name, result.plan.notes) == ("Cage 12", "Quote from 2026-11")
    with pytest.raises(EditRefused):
        edits.set_plan_notes(empty, name="  ")


def test_first_rack_creates_row_1(empty: Plan, catalog: Catalog) -> None:
    snapshot = plan_to_json(empty)
    result = edits.add_rack(empty, name="Rack A", part="apc-ar3300", catalog=catalog)
    unchanged(empty, snapshot)
    assert [(r.id, r.name) for r in result.plan.rows] == [("row-1", "Row 1")]
    assert rack_of(result.plan, "rack-a").row == "row-1"
    # Loads back as a valid plan: the rack's row exists.
    assert Plan.model_validate_json(plan_to_json(result.plan)) == result.plan
    # Later racks go to the plan's first row; no second default row appears.
    with_row = edits.add_row(result.plan, name="Hall B").plan
    again = edits.add_rack(with_row, name="Rack B", part="apc-ar3300", catalog=catalog).plan
    assert [r.id for r in again.rows] == ["row-1", "hall-b"]
    assert rack_of(again, "rack-b").row == "row-1"


def test_add_rack_to_a_named_row(empty: Plan, catalog: Catalog) -> None:
    plan = edits.add_row(empty, name="Cage 4 / Row 2").plan
    assert [(r.id, r.name) for r in plan.rows] == [("cage-4-row-2", "Cage 4 / Row 2")]
    placed = edits.add_rack(plan, name="R1", part="apc-ar3300", row="cage-4-row-2", catalog=catalog).plan
    assert rack_of(placed, "r1").row == "cage-4-row-2"
    with pytest.raises(EditRefused, match="no row 'row-9' in the plan"):
        edits.add_rack(plan, name="R2", part="apc-ar3300", row="row-9", catalog=catalog)


def test_add_rename_remove_row(colo: Plan) -> None:
    snapshot = plan_to_json(colo)
    added = edits.add_row(colo, name="Row 1")
    unchanged(colo, snapshot)
    # colo already has row-1 (made by its first rack), so the new one gets the next free id.
    assert [r.id for r in added.plan.rows] == ["row-1", "row-1-2"]
    assert added.changes == {Change.RACK_LAYOUT, Change.NETWORK}
    assert added.label == "Add row Row 1"
    with pytest.raises(EditRefused, match="a row with id 'row-1' already exists"):
        edits.add_row(colo, name="Again", row_id="row-1")
    with pytest.raises(EditRefused, match="a row name cannot be empty"):
        edits.add_row(colo, name="  ")

    renamed = edits.rename_row(added.plan, row="row-1", name="Hall A, row 1")
    assert renamed.plan.row("row-1") is not None
    assert [r.name for r in renamed.plan.rows] == ["Hall A, row 1", "Row 1"]
    assert renamed.label == "Rename Row 1 to Hall A, row 1"
    with pytest.raises(EditRefused, match="no row 'row-7'"):
        edits.rename_row(colo, row="row-7", name="x")
    with pytest.raises(EditRefused, match="a row name cannot be empty"):
        edits.rename_row(colo, row="row-1", name="")

    removed = edits.remove_row(added.plan, row="row-1-2")
    assert [r.id for r in removed.plan.rows] == ["row-1"]
    # Row 1 holds Rack A and Rack B: refused, and nothing changed.
    with pytest.raises(EditRefused, match=r"Row 1 still holds 2 rack\(s\): Rack A, Rack B"):
        edits.remove_row(colo, row="row-1")
    unchanged(colo, snapshot)
    emptied = edits.remove_rack(edits.remove_rack(colo, rack="rack-a").plan, rack="rack-b").plan
    assert edits.remove_row(emptied, row="row-1").plan.rows == []


def test_move_rack_to_row(colo: Plan) -> None:
    snapshot = plan_to_json(colo)
    plan = edits.add_row(colo, name="Row 2").plan
    moved = edits.move_rack_to_row(plan, rack="rack-b", row="row-2")
    unchanged(colo, snapshot)
    assert [(r.id, r.row) for r in moved.plan.racks] == [("rack-a", "row-1"), ("rack-b", "row-2")]
    assert moved.label == "Move Rack B to Row 2" and moved.racks == {"rack-b"}
    assert Change.NETWORK in moved.changes
    with pytest.raises(EditRefused, match="Rack B is already in Row 2"):
        edits.move_rack_to_row(moved.plan, rack="rack-b", row="row-2")
    with pytest.raises(EditRefused, match="no row 'row-9'"):
        edits.move_rack_to_row(plan, rack="rack-b", row="row-9")
    # Row 1 now holds only Rack A.
    with pytest.raises(EditRefused, match=r"Row 1 still holds 1 rack\(s\): Rack A"):
        edits.remove_row(moved.plan, row="row-1")


def test_set_card_network(empty: Plan, catalog: Catalog) -> None:
    plan = edits.add_machine(empty, name="GPU 1", server="sys-4028gr-trt2", catalog=catalog).plan
    plan = edits.place_card(
        plan, machine="gpu-1", slot="cpu1-x8", part="connectx-6-mcx653105a-hdat", catalog=catalog
    ).plan
    plan = edits.place_card(plan, machine="gpu-1", slot="gpu1", part="a100-80gb-pcie", catalog=catalog).plan
    snapshot = plan_to_json(plan)
    result = edits.set_card_network(plan, machine="gpu-1", slot="cpu1-x8", network="storage", catalog=catalog)
    unchanged(plan, snapshot)
    card = machine_of(result.plan, "gpu-1").card_in("cpu1-x8")
    assert card is not None and card.network == "storage"
    assert result.changes == {Change.NETWORK, Change.MACHINES}
    cleared = edits.set_card_network(result.plan, machine="gpu-1", slot="cpu1-x8", network=None, catalog=catalog)
    assert plan_to_json(cleared.plan) == snapshot
    with pytest.raises(EditRefused, match="a100-80gb-pcie is not a NIC"):
        edits.set_card_network(plan, machine="gpu-1", slot="gpu1", network="compute", catalog=catalog)
    with pytest.raises(EditRefused, match="already serves storage"):
        edits.set_card_network(result.plan, machine="gpu-1", slot="cpu1-x8", network="storage", catalog=catalog)
    with pytest.raises(EditRefused, match="slot 'gpu2' holds no card"):
        edits.set_card_network(plan, machine="gpu-1", slot="gpu2", network="compute", catalog=catalog)
