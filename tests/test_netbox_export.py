"""Plans to NetBox and back: device types valid for the library's schema, CSV files NetBox's import forms
take, the plan read back unchanged; every mountable kind saved from the app's document and reopened;
rack elevations as SVG and PNG."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
import yaml
from pytestqt.qtbot import QtBot

from rackplanner.core.catalog.loading import Catalog, load_catalog
from rackplanner.core.catalog.netbox import add_to_catalog, import_device_type
from rackplanner.core.catalog.netbox.device_types import validator
from rackplanner.core.catalog.parts import MOUNTABLE_PARTS, Pdu
from rackplanner.core.errors import InputError
from rackplanner.core.plan.edits import add_feed, add_rack, mount_device
from rackplanner.core.plan.files import load_plan, plan_to_json
from rackplanner.core.plan.from_netbox import plan_from_netbox_export
from rackplanner.report.netbox_export import COLUMNS, export_netbox
from tests.conftest import REPO

EXAMPLES = REPO / "resources" / "examples"
LIBRARY = REPO / "tests" / "data" / "netbox" / "library"

# The fields NetBox 4.6.8's bulk-import forms accept (netbox/dcim/forms/bulk_import.py at that release:
# ManufacturerImportForm, DeviceRoleImportForm, SiteImportForm, RackImportForm, PowerPanelImportForm,
# PowerFeedImportForm, DeviceImportForm, PowerPortImportForm, InterfaceImportForm, CableImportForm).
# Each export file's header must be a subset of its form's fields.
NETBOX_FIELDS = {
    "manufacturers.csv": {"name", "slug", "description", "owner", "comments", "tags"},
    "device-roles.csv": {"name", "slug", "parent", "color", "vm_role", "config_template", "description", "comments"},
    "sites.csv": {"name", "slug", "status", "region", "group", "tenant", "facility", "time_zone", "description"}
    | {"physical_address", "shipping_address", "latitude", "longitude", "owner", "comments", "tags"},
    "racks.csv": {"site", "location", "group", "name", "facility_id", "tenant", "status", "role", "rack_type"}
    | {"form_factor", "serial", "asset_tag", "width", "u_height", "desc_units", "outer_width", "outer_height"}
    | {"outer_depth", "outer_unit", "mounting_depth", "airflow", "weight", "max_weight", "weight_unit"}
    | {"description", "owner", "comments", "tags"},
    "power-panels.csv": {"site", "location", "name", "description", "owner", "comments", "tags"},
    "power-feeds.csv": {"site", "power_panel", "location", "rack", "name", "status", "type", "mark_connected"}
    | {"supply", "phase", "voltage", "amperage", "max_utilization", "tenant", "description", "comments", "tags"},
    "devices.csv": {"name", "role", "tenant", "manufacturer", "device_type", "platform", "serial", "asset_tag"}
    | {"status", "site", "location", "rack", "position", "face", "latitude", "longitude", "parent", "device_bay"}
    | {"airflow", "virtual_chassis", "vc_position", "vc_priority", "cluster", "description", "comments", "tags"},
    "power-ports.csv": {"device", "name", "label", "type", "mark_connected", "maximum_draw", "allocated_draw"}
    | {"description", "owner", "tags"},
    "interfaces.csv": {"device", "name", "label", "parent", "bridge", "lag", "type", "speed", "duplex", "enabled"}
    | {"mark_connected", "wwn", "mtu", "mgmt_only", "description", "tags"},
    "cables.csv": {"side_a_site", "side_a_device", "side_a_power_panel", "side_a_type", "side_a_name"}
    | {"side_b_site", "side_b_device", "side_b_power_panel", "side_b_type", "side_b_name", "type", "status"}
    | {"profile", "tenant", "bundle", "label", "color", "length", "length_unit", "description", "comments", "tags"},
}
NETBOX_FIELDS["power-feed-cables.csv"] = NETBOX_FIELDS["cables.csv"]


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.json")))
def test_export_is_valid_and_reads_back_as_the_same_plan(example: str, catalog: Catalog, tmp_path: Path) -> None:
    plan = load_plan(EXAMPLES / example, catalog)
    result = export_netbox(plan, catalog, tmp_path)
    check = validator()
    for path in result.device_types:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert not list(check.iter_errors(data)), path  # the library's own schema, vendored
    for name, columns in COLUMNS.items():
        with (tmp_path / name).open(encoding="utf-8", newline="") as handle:
            header = next(csv.reader(handle))
        assert header == columns and set(header) <= NETBOX_FIELDS[name], name
    back = plan_from_netbox_export(tmp_path, catalog)
    assert json.loads(plan_to_json(back)) == json.loads(plan_to_json(plan))


def test_colo_export_figures(catalog: Catalog, tmp_path: Path) -> None:
    plan = load_plan(EXAMPLES / "colo-rack.json", catalog)
    result = export_netbox(plan, catalog, tmp_path)
    # colo-rack.json: one rack, 4 servers + 2 switches + 2 zero-U PDUs, feeds A and B.
    assert (result.tables["racks.csv"], result.tables["devices.csv"], result.tables["power-feeds.csv"]) == (1, 8, 2)
    devices = {r["name"]: r for r in rows(tmp_path / "devices.csv")}
    assert (devices["GPU 1"]["position"], devices["GPU 1"]["face"], devices["GPU 1"]["rack"]) == (
        "1",
        "front",
        "Rack 1",
    )
    # Zero-U PDUs have no position or face in NetBox (those live in the comments).
    assert (devices["PDU A"]["position"], devices["PDU A"]["face"]) == ("", "")
    feeds = {r["name"]: r for r in rows(tmp_path / "power-feeds.csv")}
    assert {r["type"] for r in feeds.values()} == {"primary", "redundant"}
    power = [r for r in rows(tmp_path / "cables.csv") if r["side_b_type"] == "dcim.poweroutlet"]
    # Every PSU corded: 4 servers x 4 PSUs (catalog/server.yaml: SYS-4028GR-TRT2, 2+2) + 2 switches x 2 PSUs.
    assert len(power) == 20
    outlets = [(r["side_b_device"], r["side_b_name"]) for r in power]
    assert len(set(outlets)) == len(outlets)  # no outlet used twice
    fed = rows(tmp_path / "power-feed-cables.csv")
    assert sorted((r["side_a_device"], r["side_b_name"]) for r in fed) == [("PDU A", "Feed A"), ("PDU B", "Feed B")]
    # The PDU's device type names its outlets 1..42 (AP8886: 30 C13 + 12 C19) and its input "Input".
    ap8886 = yaml.safe_load((tmp_path / "device-types" / "APC" / "apc-ap8886.yaml").read_text(encoding="utf-8"))
    assert len(ap8886["power-outlets"]) == 42 and ap8886["power-ports"][0]["name"] == "Input"
    names = {o["name"] for o in ap8886["power-outlets"]}
    assert {n for _, n in outlets if _.startswith("PDU")} <= names


def test_an_edit_made_in_the_csv_is_read_back(catalog: Catalog, tmp_path: Path) -> None:
    plan = load_plan(EXAMPLES / "colo-rack.json", catalog)
    export_netbox(plan, catalog, tmp_path)
    path = tmp_path / "devices.csv"
    table = rows(path)
    for row in table:
        if row["name"] == "GPU 4":
            row["position"] = "20"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerows(table)
    back = plan_from_netbox_export(tmp_path, catalog)
    device = back.racks[0].device("gpu-4")
    assert device is not None and device.position_u == 20


def test_names_netbox_would_refuse_are_made_unique_and_short(catalog: Catalog, tmp_path: Path) -> None:
    plan = load_plan(EXAMPLES / "colo-rack.json", catalog)
    long_name = "X" * 80
    racks = [
        r.model_copy(update={"devices": [d.model_copy(update={"name": long_name}) for d in r.devices]})
        for r in plan.racks
    ]
    plan = plan.model_copy(update={"racks": racks})
    export_netbox(plan, catalog, tmp_path)
    names = [r["name"] for r in rows(tmp_path / "devices.csv")]
    # NetBox: a device name is at most 64 characters and unique in its site.
    assert len(set(names)) == len(names) == 8 and max(len(n) for n in names) <= 64
    back = plan_from_netbox_export(tmp_path, catalog)
    assert json.loads(plan_to_json(back)) == json.loads(plan_to_json(plan))


def test_broken_export_folders_name_file_row_and_field(catalog: Catalog, tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"sites\.csv: missing"):
        plan_from_netbox_export(tmp_path, catalog)
    plan = load_plan(EXAMPLES / "colo-rack.json", catalog)
    export_netbox(plan, catalog, tmp_path)
    devices = tmp_path / "devices.csv"
    text = devices.read_text(encoding="utf-8")
    devices.write_text(text.replace("rackplanner: {", "rackplanner: [", 1), encoding="utf-8")
    with pytest.raises(InputError, match=r"devices\.csv: row 2: comments: the rackplanner data is damaged"):
        plan_from_netbox_export(tmp_path, catalog)
    devices.write_text(text.replace(",Rack 1,", ",Rack 9,", 1), encoding="utf-8")
    with pytest.raises(InputError, match=r"devices\.csv: row 2: rack: 'Rack 9' is not in racks\.csv"):
        plan_from_netbox_export(tmp_path, catalog)
    devices.write_text(text.replace(",Rack 1,1,", ",Rack 1,1.5,", 1), encoding="utf-8")
    with pytest.raises(InputError, match=r"row 2: position: half units"):
        plan_from_netbox_export(tmp_path, catalog)
    feeds = tmp_path / "power-feeds.csv"
    feeds.write_text(feeds.read_text(encoding="utf-8").replace(",400,", ",lots,", 1), encoding="utf-8")
    devices.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=r"power-feeds\.csv: row 2: voltage: 'lots' is not a number"):
        plan_from_netbox_export(tmp_path, catalog)


def test_every_mountable_kind_saves_from_the_document_and_reopens(qtbot: QtBot, tmp_path: Path) -> None:
    from rackplanner.gui.document import PlanDocument

    mine = tmp_path / "mine"
    # An imported rack device (a NetBox server) alongside the built-in switch, PDU and server kinds.
    add_to_catalog([import_device_type(LIBRARY / "Dell" / "PowerEdge-R7525.yaml")], mine)
    catalog = load_catalog([mine], include_user=False)
    plan = load_plan(EXAMPLES / "sys-4028gr-trt2-8gpu.json", catalog)
    document = PlanDocument(plan, catalog)
    document.apply(add_rack, name="Rack 1", part="apc-ar3300", catalog=catalog)
    document.apply(add_feed, name="Feed A", side="A", phases=3, voltage_v=208, breaker_a=50)
    kinds = {}
    for kind in MOUNTABLE_PARTS:
        part = next(p for p in catalog.parts.values() if isinstance(p, kind) and not p.id.startswith("netbox"))
        kinds[kind.__name__] = part.id
    assert set(kinds) == {"NetworkSwitch", "Pdu", "RackDevice"}
    kinds["RackDevice"] = "dell-poweredge-r7525"
    position = 1
    for kind_name, part_id in kinds.items():
        if kind_name == "Pdu":
            assert isinstance(catalog.get(part_id), Pdu)
            document.apply(
                mount_device, rack="rack-1", name=kind_name, catalog=catalog, part=part_id, side="left", feed="feed-a"
            )
        else:
            document.apply(
                mount_device, rack="rack-1", name=kind_name, catalog=catalog, part=part_id, position_u=position
            )
            position += 4
    document.apply(mount_device, rack="rack-1", name="Trainer", catalog=catalog, machine="trainer", position_u=20)
    assert len(document.plan.racks[0].devices) == 4
    saved = document.save(tmp_path / "every-kind.json")
    reopened = load_plan(saved, catalog)
    assert reopened == document.plan
    # And through NetBox and back (the imported part's own catalog file comes along).
    export_netbox(reopened, catalog, tmp_path / "netbox")
    assert plan_from_netbox_export(tmp_path / "netbox", catalog) == reopened


def test_export_of_an_imported_part_reimports_as_itself(tmp_path: Path) -> None:
    """A part imported from the library, written as a device type, imports again with the same figures."""
    for name in ("APC/APDU10350SW.yaml", "Arista/DCS-7010T-48-F.yaml", "Dell/PowerEdge-R7525.yaml"):
        first = import_device_type(LIBRARY / name)
        folder = tmp_path / Path(name).stem
        add_to_catalog([first], folder)
        catalog = load_catalog([folder], include_user=False)
        part = catalog.get(str(first.part and first.part["id"]))
        assert part is not None
        from rackplanner.core.catalog.netbox.device_types import to_device_type

        out = folder / "out.yaml"
        out.write_text(yaml.safe_dump(to_device_type(part)), encoding="utf-8")
        again = import_device_type(out, as_kind=first.kind)
        assert again.part is not None and first.part is not None
        keep = {"source", "notes", "id"}
        assert {k: v for k, v in again.part.items() if k not in keep} == {
            k: v for k, v in first.part.items() if k not in keep
        }, name
    shutil.rmtree(tmp_path)


def test_cli_export_and_read_back(tmp_path: Path) -> None:
    import subprocess
    import sys

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "rackplanner", *args], capture_output=True, text=True, check=False)

    plan = EXAMPLES / "colo-rack.json"
    done = run("export", str(plan), "--netbox", str(tmp_path / "nb"), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)["netbox"]
    assert (report["device_types"], report["devices.csv"], report["cables.csv"]) == (4, 8, 28)
    back = run("import-netbox-export", str(tmp_path / "nb"), "--out", str(tmp_path / "back.json"))
    assert back.returncode == 0, back.stderr
    assert back.stdout == f"wrote {tmp_path / 'back.json'}: 1 rack, 8 rack devices, 4 machines\n"
    assert json.loads((tmp_path / "back.json").read_text()) == json.loads(plan.read_text())
    broken = run("import-netbox-export", str(tmp_path / "nowhere"), "--out", str(tmp_path / "x.json"))
    assert broken.returncode == 2 and "nowhere: not a folder" in broken.stderr
