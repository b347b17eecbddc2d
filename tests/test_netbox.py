"""NetBox device-type import: fields, the library's known faults, bad input, round trip."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rackplanner.core.catalog.loading import load_catalog
from rackplanner.core.catalog.netbox import NetboxError, add_to_catalog, import_device_type
from rackplanner.core.catalog.netbox.device_types import check_device_type, to_device_type
from rackplanner.core.catalog.parts import NetworkSwitch, Pdu, RackDevice
from tests.conftest import REPO

FIXTURES = REPO / "tests" / "data" / "netbox"


def test_switch_import(tmp_path: Path) -> None:
    result = import_device_type(FIXTURES / "leaf-switch.yaml")
    assert result.kind == "switch"
    switch = NetworkSwitch.model_validate(result.part)
    # 8 x 25G SFP28 + 2 x 100G QSFP28 data ports; the management port and LAG are not data ports.
    assert [(g.count, g.speed_gbps, g.connector) for g in switch.ports] == [(8, 25, "sfp28"), (2, 100, "qsfp28")]
    assert (switch.height_u, switch.is_full_depth, switch.weight_kg, switch.psu_count) == (1, False, 9.5, 2)
    # Equal round maximum_draw on both PSUs is the nameplate fault. allocated_draw 210 W on both
    # redundant PSUs is the switch's draw repeated per feed: 210 W, not 420 (NetBox adds ports up).
    assert switch.power_max_w == 210
    assert any("nameplate" in w for w in result.warnings)


def test_nameplate_given_as_draw_is_not_trusted() -> None:
    result = import_device_type(FIXTURES / "gpu-server-nameplate.yaml")
    device = RackDevice.model_validate(result.part)
    # Four C14 ports each "2000 W": an 8 kW server if trusted. The draw is left unknown instead.
    assert [p.type for p in device.power_ports] == ["iec-60320-c14"] * 4
    assert all(p.maximum_draw_w is None for p in device.power_ports)
    assert device.mgmt_ports == 1
    assert (device.height_u, device.weight_kg) == (4, 45.3)
    assert "supermicro.com" in device.source[0]


def test_psus_as_module_bays_are_reported() -> None:
    result = import_device_type(FIXTURES / "storage-module-bays.yaml")
    assert result.kind == "rack-device"
    # Two PSU bays: two cords (C14 assumed, said so), draw unknown rather than guessed.
    assert result.part["power_ports"] == [{"type": "iec-60320-c14"}] * 2
    assert "power_max_w" not in result.part
    assert any("module bays (PSU1, PSU2)" in w for w in result.warnings)


def test_pdu_with_every_outlet_on_one_leg() -> None:
    result = import_device_type(FIXTURES / "pdu-one-leg.yaml")
    pdu = Pdu.model_validate(result.part)
    # NEMA L15-30P: 3-phase delta, 30 A (NEMA WD 6); taken at 208 V.
    assert (pdu.phases, pdu.wiring, pdu.voltage_v, pdu.input_current_a) == (3, "delta", 208, 30)
    # Nine outlets on leg A spread in order over the three line pairs, with a warning.
    assert [g.line for g in pdu.outlet_groups] == ["L1-L2", "L2-L3", "L3-L1"]
    assert sum(sum(g.outlets.values()) for g in pdu.outlet_groups) == 9
    assert pdu.weight_kg == pytest.approx(18 * 0.45359237, abs=0.01)
    assert any("one feed leg" in w for w in result.warnings)


def test_missing_and_bad_fields_name_file_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("model: X\nu_height: 1\n", encoding="utf-8")
    with pytest.raises(NetboxError, match=r"bad\.yaml: manufacturer: required"):
        import_device_type(bad)
    bad.write_text("manufacturer: A\nmodel: X\nu_height: 1.5\n", encoding="utf-8")
    # A 1.5 U box takes 2 U in a rack of whole units (9 of 339 library files were refused before).
    half = import_device_type(bad)
    assert half.part["height_u"] == 2
    assert any("u_height 1.5 U is not a whole number of rack units: it takes 2 U here" in w for w in half.warnings)
    bad.write_text("- not\n- a mapping\n", encoding="utf-8")
    with pytest.raises(NetboxError, match="expected a NetBox device type"):
        import_device_type(bad)
    pdu = tmp_path / "pdu.yaml"
    pdu.write_text(
        "manufacturer: A\nmodel: P\nu_height: 0\npower-ports:\n  - {name: in, type: iec-60309-3p-n-e-6h}\n"
        "power-outlets:\n  - {name: '1', type: iec-60320-c13, feed_leg: A}\n",
        encoding="utf-8",
    )
    # An IEC 60309 plug says the voltage band but not the current.
    with pytest.raises(NetboxError, match="give --current"):
        import_device_type(pdu)
    assert import_device_type(pdu, current_a=32).part["input_current_a"] == 32


def test_round_trip_through_netbox_form(tmp_path: Path) -> None:
    for name in ("leaf-switch.yaml", "pdu-one-leg.yaml", "storage-module-bays.yaml"):
        first = import_device_type(FIXTURES / name)
        model = {"switch": NetworkSwitch, "pdu": Pdu, "rack-device": RackDevice}[first.kind]
        part = model.model_validate(first.part)
        exported = tmp_path / f"out-{name}"
        device_type = to_device_type(part)
        check_device_type(device_type, name)  # valid for the NetBox library's own schema
        exported.write_text(yaml.safe_dump(device_type), encoding="utf-8")
        again = model.model_validate(import_device_type(exported, as_kind=first.kind).part)
        keep = {"source", "notes"}
        assert again.model_dump(exclude=keep) == part.model_dump(exclude=keep), name


def test_added_entries_load_as_a_catalog_and_reimport_replaces(tmp_path: Path) -> None:
    results = [import_device_type(FIXTURES / n) for n in ("leaf-switch.yaml", "storage-module-bays.yaml")]
    folder = tmp_path / "mine"
    written = add_to_catalog(results, folder)
    assert sorted(p.name for p in written) == ["rack-device.yaml", "switch.yaml"]
    add_to_catalog(results, folder)  # the same ids again: replaced, not duplicated
    catalog = load_catalog([folder], include_user=False)
    assert isinstance(catalog.get("example-ex-4816"), NetworkSwitch)
    assert isinstance(catalog.get("supermicro-ssg-6049p-e1cr36h"), RackDevice)
    assert len(yaml.safe_load((folder / "switch.yaml").read_text())) == 1


FORK = FIXTURES / "fork"


def _device_type(tmp_path: Path, name: str, text: str) -> Path:
    """A small device-type file written for a test."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_poe_switch_keeps_its_maximum_not_its_idle_draw() -> None:
    # Meraki MS120-48LP (tests/data/netbox/fork): one PSU, maximum_draw 477 W with its PoE budget,
    # allocated_draw 37 W. A rack must hold the 477 W; 37 W was taken before, 13 times too low.
    result = import_device_type(FORK / "Cisco" / "Meraki-MS120-48LP.yaml")
    assert NetworkSwitch.model_validate(result.part).power_max_w == 477
    assert any("far above allocated_draw 37 W" in w for w in result.warnings)


def test_redundant_psus_with_nearly_equal_allocations_are_one_draw() -> None:
    # HPE Aruba 8320: two 400 W PSUs with allocated_draw 357 and 347 W, the switch's draw given
    # per feed; summed it was 704 W, more than one of its PSUs can deliver.
    result = import_device_type(FORK / "HPE" / "Aruba-8320-48XF6Q.yaml")
    assert NetworkSwitch.model_validate(result.part).power_max_w == 357
    assert any("357/347 W on the 2 power ports is one figure repeated" in w for w in result.warnings)


def test_a_module_type_is_not_imported_as_a_rack_device() -> None:
    # The library's PSU module types (tests/data/netbox/library/module-types) have no slug and no
    # u_height; one was imported as a 1 U box drawing its PSU's rating.
    for path in sorted((FIXTURES / "library" / "module-types").rglob("*.y*ml")):
        with pytest.raises(NetboxError, match="a NetBox module type"):
            import_device_type(path)


def test_yes_and_no_written_as_text_are_read_as_such(tmp_path: Path) -> None:
    path = _device_type(
        tmp_path,
        "strbool.yaml",
        "manufacturer: A\nmodel: B\nslug: a-b\nu_height: 1\nis_full_depth: 'false'\ninterfaces:\n"
        "  - {name: eth0, type: 10gbase-t, mgmt_only: 'false'}\n  - {name: eth1, type: 10gbase-t}\n",
    )
    part = import_device_type(path, as_kind="rack-device").part
    # bool("false") is True: the device was full depth and eth0 a management port.
    assert part["is_full_depth"] is False and part["mgmt_ports"] == 0
    path.write_text("manufacturer: A\nmodel: B\nslug: a-b\nu_height: 1\nis_full_depth: maybe\n", encoding="utf-8")
    with pytest.raises(NetboxError, match=r"strbool\.yaml: is_full_depth: expected true or false, found 'maybe'"):
        import_device_type(path)


def test_a_dc_switch_says_its_input_cannot_be_kept() -> None:
    # Juniper EX2300-24T-DC (tests/data/netbox/fork): a dc-terminal input. A switch entry takes
    # one IEC inlet kind, so the import says the input became C14 and how to keep it as given.
    result = import_device_type(FORK / "Juniper" / "EX2300-24T-DC.yaml")
    assert result.kind == "switch"
    assert any("its dc-terminal input is recorded as iec-60320-c14" in w for w in result.warnings)
    assert not any("kept as given, so a rack" in w for w in result.warnings)
    kept = import_device_type(FORK / "Juniper" / "EX2300-24T-DC.yaml", as_kind="rack-device")
    assert kept.part["power_ports"] == [{"type": "dc-terminal"}]


@pytest.mark.parametrize(
    ("path", "said"),
    [
        # Eight 10G ports and a console port made this server a switch (tests/data/netbox/fork).
        ("Dell/PowerEdge-R940.yaml", "PowerEdge R940 is a server model name"),
        # A modular chassis whose ports are on its line cards failed as "a switch with no data port".
        ("Allied Telesis/SwitchBlade-x908-Gen2.yaml", "only 0 data ports"),
    ],
)
def test_a_product_line_outweighs_the_ports(path: str, said: str) -> None:
    result = import_device_type(FORK / path)
    assert result.kind == "rack-device"
    assert said in result.role_reasons


def test_keys_the_schema_does_not_name_are_said(tmp_path: Path) -> None:
    # A misspelt power_ports made a device with no power ports, said nowhere.
    path = _device_type(
        tmp_path,
        "typo.yaml",
        "manufacturer: A\nmodel: B\nslug: a-b\nu_height: 2\npower_ports:\n  - {name: PSU1, type: iec-60320-c14}\n",
    )
    result = import_device_type(path)
    assert any("not read: power_ports (did you mean power-ports?)" in w for w in result.warnings)
    # None of the library's own files has such a key (tests/data/netbox/library).
    checked = 0
    for real in sorted((FIXTURES / "library").rglob("*.y*ml")):
        try:
            warnings = import_device_type(real).warnings
        except NetboxError:
            continue  # module types, and PDUs that ask for a figure
        checked += 1
        assert not any("Keys not in" in w for w in warnings), real
    assert checked >= 30


def test_a_ups_is_not_imported_as_a_pdu(tmp_path: Path) -> None:
    # Eaton 5PX3000IRT2U (tests/data/netbox/fork): its outlets made it a PDU, which asked for
    # wiring and, given it, planned a UPS as a PDU with its own draw never counted.
    with pytest.raises(NetboxError, match=r"a UPS or its battery pack \(5PX3000IRT2U is a UPS model name\)"):
        import_device_type(FORK / "Eaton" / "5PX3000IRT2U.yaml", voltage_v=230, current_a=16)
    assert import_device_type(FORK / "Eaton" / "5PX3000IRT2U.yaml", as_kind="rack-device").kind == "rack-device"
    # A file that calls itself a UPS in its comments.
    path = _device_type(
        tmp_path,
        "ups.yaml",
        "manufacturer: A\nmodel: X6K\nslug: a-x6k\nu_height: 2\ncomments: 6kVA online double conversion UPS\n"
        "power-outlets:\n  - {name: '1', type: iec-60320-c13}\n",
    )
    with pytest.raises(NetboxError, match="the file says 'UPS'"):
        import_device_type(path)
