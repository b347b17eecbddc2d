"""The network dock: switch ports, needs by network, cables and row fabric from the fabric core, live on edits."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.model import Plan
from rackplanner.core.rack.fabric import rack_network, row_fabric
from rackplanner.gui.docks.network import NetworkDock
from rackplanner.gui.document import PlanDocument
from tests.conftest import EXAMPLES
from tests.guihelpers import screenshot_dir, shown_dock


def shoot(dock: NetworkDock, tmp_path: Path, name: str) -> None:
    for _ in range(3):  # nested layouts settle over a few passes of the event loop
        QApplication.processEvents()
    path = screenshot_dir(tmp_path) / name
    assert dock.grab().save(str(path))
    print(f"screenshot: {path}")


def make_dock(qtbot: QtBot, document: PlanDocument) -> NetworkDock:
    dock = shown_dock(qtbot, NetworkDock(document), (460, 900))
    return dock


@pytest.fixture
def colo(qtbot: QtBot, catalog: Catalog) -> tuple[PlanDocument, NetworkDock]:
    document = PlanDocument(load_plan(EXAMPLES / "colo-rack.json", catalog), catalog)
    return document, make_dock(qtbot, document)


def cells(dock: NetworkDock, table: str) -> list[list[str]]:
    widget = getattr(dock, table)
    return [[widget.item(r, c).text() for c in range(widget.columnCount())] for r in range(widget.rowCount())]


def need_row(dock: NetworkDock, label: str) -> list[str]:
    return next(row for row in cells(dock, "needs_table") if row[0] == label)


def test_colo_switch_ports_match_the_fabric_core(
    colo: tuple[PlanDocument, NetworkDock], catalog: Catalog, tmp_path: Path
) -> None:
    document, dock = colo
    net = rack_network(document.plan, "rack-1", catalog)
    by_speed = {(p.part, p.speed_gbps): p for p in net.switch_ports}
    # QM8700: 40 HDR 200 Gb/s QSFP56 ports (catalog/network_switch.yaml); the four servers'
    # ConnectX-6 HDR cards take 4 of them.
    hdr = by_speed[("mellanox-qm8700", 200.0)]
    assert (hdr.used, hdr.free) == (4, 36)
    # SN2201: 48 1 GbE RJ45 ports; the four servers' BMCs take 4 (44 free).
    gbe = by_speed[("nvidia-sn2201", 1.0)]
    assert (gbe.free, gbe.total) == (44, 48)
    rows = cells(dock, "switches")
    assert ["HDR leaf", "200 Gb/s", "QSFP56", "4", "36", "40"] in rows
    assert ["Management switch", "1 Gb/s", "RJ45", "4", "44", "48"] in rows
    assert len(rows) == len(net.switch_ports)
    # Needs: four compute ports and four BMC ports, all connected; no in-band NIC in this plan.
    assert need_row(dock, "compute fabric") == ["compute fabric", "4", "4", "–"]
    assert need_row(dock, "out-of-band management") == ["out-of-band management", "4", "4", "–"]
    assert need_row(dock, "in-band management")[1] == str(net.ports_needed("in-band"))
    shoot(dock, tmp_path, "network-dock-colo.png")


def test_colo_cables_and_row_fabric(colo: tuple[PlanDocument, NetworkDock], catalog: Catalog) -> None:
    document, dock = colo
    net = rack_network(document.plan, "rack-1", catalog)
    rows = cells(dock, "cables")
    assert len(rows) == len(net.cables) == 8
    # One HDR DAC and one Cat6 patch lead per server (4 servers, colo-rack.json).
    dac = [r for r in rows if r[3] == "200G IB QSFP56 DAC"]
    cat6 = [r for r in rows if r[3] == "1GbE RJ45 Cat6"]
    assert len(dac) == 4 and len(cat6) == 4
    assert ["GPU 1", "HDR leaf", "compute", "200G IB QSFP56 DAC", "1"] in rows
    assert ["GPU 4", "Management switch", "OOB", "1GbE RJ45 Cat6", "1"] in rows
    assert "4 × 1GbE RJ45 Cat6" in dock.cable_totals.text()
    assert "4 × 200G IB QSFP56 DAC" in dock.cable_totals.text()
    fabric = row_fabric(document.plan, "row-1", catalog)
    assert fabric.size is not None
    # Four HDR endpoints fit one 40-port QM8700: one leaf, no spine.
    assert (fabric.size.leaves, fabric.size.spines) == (1, 0)
    assert dock.endpoints.text() == "4 compute port(s) at 200 Gb/s"
    assert dock.leaves.text().startswith("1 needed")
    assert dock.spines.text().startswith("none")
    assert "4 × 200G IB QSFP56 DAC (node to leaf)" in dock.fabric_cables.text()


def test_unmounting_the_leaf_shows_the_shortfall_and_undo_restores(
    colo: tuple[PlanDocument, NetworkDock], catalog: Catalog, tmp_path: Path
) -> None:
    document, dock = colo
    before = cells(dock, "switches")
    document.apply(edits.unmount_device, rack="rack-1", device="hdr-leaf")
    net = rack_network(document.plan, "rack-1", catalog)
    assert net.ports_needed("compute") == 4
    assert not any(c.network == "compute" for c in net.cables)
    # Four compute ports needed, none connected: 4 short, and the core's finding is listed.
    assert need_row(dock, "compute fabric") == ["compute fabric", "4", "0", "4"]
    assert all(r[0] != "HDR leaf" for r in cells(dock, "switches"))
    assert "no free switch port" in dock.findings.text()
    assert len(cells(dock, "cables")) == 4
    assert dock.leaf_switch.text() == "none"
    shoot(dock, tmp_path, "network-dock-colo-no-leaf.png")
    document.undo_stack.undo()
    assert cells(dock, "switches") == before
    assert need_row(dock, "compute fabric") == ["compute fabric", "4", "4", "–"]
    assert len(cells(dock, "cables")) == 8


def test_hidden_dock_refreshes_when_shown(colo: tuple[PlanDocument, NetworkDock], qtbot: QtBot) -> None:
    document, dock = colo
    dock.hide()
    document.apply(edits.unmount_device, rack="rack-1", device="management-switch")
    # Out of sight nothing is recomputed; shown again, the management ports are gone.
    assert any(r[0] == "Management switch" for r in cells(dock, "switches"))
    dock.show()
    qtbot.waitUntil(lambda: all(r[0] != "Management switch" for r in cells(dock, "switches")))
    assert need_row(dock, "out-of-band management") == ["out-of-band management", "4", "0", "4"]


def test_plans_without_racks(qtbot: QtBot, catalog: Catalog) -> None:
    document = PlanDocument(load_plan(EXAMPLES / "home-rig-2x3090.json", catalog), catalog)
    dock = make_dock(qtbot, document)
    assert document.current_rack == ""
    assert dock.title.text() == "No rack"
    assert dock.network is None
    empty = PlanDocument(Plan(name="Empty"), catalog)
    dock2 = make_dock(qtbot, empty)
    assert dock2.title.text() == "No rack"
    # Switching the first document to the colo plan fills the dock.
    document.replace(load_plan(EXAMPLES / "colo-rack.json", catalog), None)
    assert dock.network is not None and dock.title.text().startswith("Rack 1")


def test_removing_a_servers_nic_updates_needs_and_cables(
    colo: tuple[PlanDocument, NetworkDock], catalog: Catalog
) -> None:
    document, dock = colo
    # GPU 2's ConnectX-6 sits in slot cpu1-x8 (colo-rack.json); without it GPU 2 needs no HDR port.
    document.apply(edits.remove_card, machine="gpu-2", slot="cpu1-x8")
    net = rack_network(document.plan, "rack-1", catalog)
    assert net.ports_needed("compute") == 3
    assert need_row(dock, "compute fabric") == ["compute fabric", "3", "3", "–"]
    assert ["HDR leaf", "200 Gb/s", "QSFP56", "3", "37", "40"] in cells(dock, "switches")
    assert all(not (r[0] == "GPU 2" and r[2] == "compute") for r in cells(dock, "cables"))
    assert dock.endpoints.text() == "3 compute port(s) at 200 Gb/s"
    document.undo_stack.undo()
    assert need_row(dock, "compute fabric") == ["compute fabric", "4", "4", "–"]
