"""Airflow and drive bays: catalog figures, the rack's cold-aisle check, NetBox import and the drawing."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.netbox import import_device_type
from rackplanner.core.catalog.parts import NetworkSwitch, RackDevice, rack_airflow
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.model import Plan
from rackplanner.core.rack.mounting import rack_layout
from rackplanner.draw.rack_art import air_word, airflow_text, device_look
from tests.conftest import EXAMPLES, REPO
from tests.test_report_pdf import export, flat, needs_pdftotext, page_text

LIBRARY = REPO / "tests" / "data" / "netbox" / "library"


def _turned(plan: Plan, device_id: str, face: str) -> Plan:
    rack = plan.rack("rack-1")
    assert rack is not None
    devices = [d.model_copy(update={"face": face}) if d.id == device_id else d for d in rack.devices]
    racks = [rack.model_copy(update={"devices": devices})]
    return plan.model_copy(update={"racks": racks})


def test_turning_a_device_round_turns_its_airflow() -> None:
    assert rack_airflow("front-to-rear", "front") == "front-to-rear"
    assert rack_airflow("front-to-rear", "rear") == "rear-to-front"
    assert rack_airflow("left-to-right", "rear") == "right-to-left"
    assert rack_airflow("passive", "rear") == "passive"
    assert rack_airflow(None, "rear") is None


def test_colo_leaf_faces_the_rear_so_its_p2c_air_goes_the_right_way(catalog: Catalog) -> None:
    # catalog/switch.yaml: MQM8700-HS2F is the P2C (power-to-connector) model, rear-to-front with the
    # ports as its front (NVIDIA SN3000 manual, Air Flow). colo-rack.json mounts it ports to the rear.
    leaf = catalog.get_as("mellanox-qm8700", NetworkSwitch)
    assert leaf is not None and leaf.airflow == "rear-to-front"
    plan = load_plan(EXAMPLES / "colo-rack.json", catalog)
    findings = rack_layout(plan, "rack-1", catalog).findings
    assert not [f for f in findings if f.code == "airflow-into-cold-aisle"]
    # The SN2201 is sold in both directions and the catalog does not say which: not checked, and said so.
    unknown = [f for f in findings if f.code == "airflow-unknown"]
    assert len(unknown) == 1 and unknown[0].devices == ["management-switch"] and "not checked" in unknown[0].message

    # Mounted ports to the front, the same switch blows its exhaust into the cold aisle.
    turned = _turned(plan, "hdr-leaf", "front")
    warnings = [f for f in rack_layout(turned, "rack-1", catalog).findings if f.code == "airflow-into-cold-aisle"]
    assert len(warnings) == 1 and warnings[0].severity == "warning" and warnings[0].devices == ["hdr-leaf"]
    assert "rear-to-front airflow blows hot air out of the rack's front" in warnings[0].message


def test_a_server_mounted_back_to_front_is_caught(catalog: Catalog) -> None:
    # catalog/chassis.yaml: the SYS-4028GR chassis moves air front-to-rear (NetBox SuperServer-4028GR-TRT.yml).
    plan = _turned(load_plan(EXAMPLES / "colo-rack.json", catalog), "gpu-1", "rear")
    warnings = [f for f in rack_layout(plan, "rack-1", catalog).findings if f.code == "airflow-into-cold-aisle"]
    assert [f.devices for f in warnings] == [["gpu-1"]]
    assert "mounted facing the rear, its front-to-rear airflow" in warnings[0].message


def test_storage_server_bays_from_its_panel_drawings(catalog: Catalog) -> None:
    # NetBox elevation images of the SSG-6049P-E1CR36H: 24 x 3.5-inch at the front, 12 x 3.5-inch and
    # 2 x 2.5-inch at the rear, the 36 of its model name plus two.
    part = catalog.get_as("supermicro-ssg-6049p-e1cr36h", RackDevice)
    assert part is not None and part.drive_bays is not None
    by_face = {(b.face, b.size): b.count for b in part.drive_bays}
    assert by_face == {("front", "3.5-inch"): 24, ("rear", "3.5-inch"): 12, ("rear", "2.5-inch"): 2}
    plan = edits.add_rack(Plan(name="p"), name="R1", part="apc-ar3100", catalog=catalog).plan
    plan = edits.mount_device(
        plan, rack="r1", name="Store", part=part.id, position_u=1, face="front", catalog=catalog
    ).plan
    layout = rack_layout(plan, "r1", catalog)
    look = device_look(layout.devices[0], plan, catalog, None)
    assert look.front_bays == ((24, "3.5-inch"),) and look.rear_bays == ((12, "3.5-inch"), (2, "2.5-inch"))
    assert airflow_text(look, "rear") == "Airflow: front-to-rear, rear-to-front in the rack (mounted facing the rear)"


def test_the_mark_says_where_air_goes_in_and_out() -> None:
    assert air_word("front-to-rear", "front")[0] == "air in"
    assert air_word("front-to-rear", "rear")[0] == "air out"
    assert air_word("rear-to-front", "front")[0] == "air out"
    # Left-to-right seen from the device's rear runs right to left on the page.
    assert air_word("left-to-right", "front")[0] == "air →" and air_word("left-to-right", "rear")[0] == "air ←"
    assert air_word("passive", "front")[1] is None


@pytest.mark.parametrize(
    ("name", "airflow"),
    [
        # Each file's own airflow field (tests/data/netbox/library).
        ("Arista/DCS-7010T-48-F.yaml", "front-to-rear"),
        ("Dell/PowerEdge-R750.yml", "front-to-rear"),
    ],
)
def test_netbox_airflow_is_imported(name: str, airflow: str) -> None:
    path = LIBRARY / name
    assert yaml.safe_load(path.read_text())["airflow"] == airflow
    result = import_device_type(path)
    assert result.part is not None and result.part["airflow"] == airflow


def test_an_airflow_netbox_does_not_know_is_left_unknown_and_said(tmp_path: Path) -> None:
    path = tmp_path / "reverse.yaml"
    path.write_text("manufacturer: X\nmodel: R\nslug: x-r\nu_height: 1\nairflow: rear-to-front\n")
    result = import_device_type(path, as_kind="rack-device")
    assert result.part is not None and result.part["airflow"] == "rear-to-front"
    path = tmp_path / "odd.yaml"
    path.write_text(
        "manufacturer: X\nmodel: Odd\nslug: x-odd\nu_height: 1\nairflow: sideways-ish\n"
        "interfaces:\n  - {name: e1, type: 10gbase-t}\n"
    )
    result = import_device_type(path)
    assert result.part is not None and "airflow" not in result.part
    assert any("'sideways-ish' is not one of NetBox's airflow values" in w for w in result.warnings)


@needs_pdftotext
def test_the_report_explains_the_airflow_strip(qapp: object, catalog: Catalog, tmp_path: Path) -> None:
    plan = load_plan(EXAMPLES / "colo-rack.json", catalog)
    path = tmp_path / "colo.pdf"
    export(plan, catalog, path)
    assert "blue where air goes in, orange where it comes out" in flat(page_text(path))


def test_the_palette_lists_the_bays(qapp: object, catalog: Catalog) -> None:
    from rackplanner.gui.docks.palette_spec import spec_rows

    rows = dict(spec_rows(catalog.get("supermicro-ssg-6049p-e1cr36h")))  # type: ignore[arg-type]
    assert rows["drive bays"] == "24 × 3.5-inch front, 12 × 3.5-inch rear, 2 × 2.5-inch rear"
    assert rows["airflow"] == "front-to-rear"
