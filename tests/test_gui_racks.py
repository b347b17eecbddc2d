"""The rack tab: mount by dragging from the catalog, refuse collisions, move, unmount, undo."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan.files import plan_to_json
from rackplanner.core.rack.power import rack_power
from rackplanner.gui.canvases.rack_row import RackRowCanvas
from rackplanner.gui.docks.power import PowerDock
from rackplanner.gui.mime import device_mime, part_mime
from tests.conftest import EXAMPLES
from tests.guihelpers import drop, keep, make_window, screenshot_dir
from tests.test_gui_power_dock import heights

COLO = EXAMPLES / "colo-rack.json"


@pytest.fixture(autouse=True)
def _recovery_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RACKPLANNER_RECOVERY_DIR", str(tmp_path / "recovery"))


def _rack_tab(window: object) -> RackRowCanvas:
    canvas = next(iter(window.row_canvases.values()))  # type: ignore[attr-defined]
    window.tabs.setCurrentWidget(canvas)  # type: ignore[attr-defined]
    return canvas


def test_drag_a_server_into_a_free_u_then_undo(qtbot: QtBot, tmp_path: Path, catalog: Catalog) -> None:
    window = make_window(tmp_path, catalog, COLO)
    keep(qtbot, window)
    window.show()
    doc = window.document
    canvas = _rack_tab(window)
    window.build_rack_docks()
    power_dock = window.docks["PowerDock"]
    assert isinstance(power_dock, PowerDock)
    qtbot.wait(1)  # the new dock joins the tab group on the next pass of the event loop
    power_dock.raise_()
    qtbot.waitUntil(lambda: power_dock.is_showing() and bool(power_dock.bars))
    bars_before = heights(power_dock, "pdu-a")
    before = rack_power(doc.plan, "rack-1", catalog)
    start = plan_to_json(doc.plan)
    # The colo rack is free from U17 to U40 (four 4U servers at U1-U16, switches at U41-42).
    point = canvas.device_point("rack-1", 20, "front", height_u=4).toPoint()
    moved, dropped = drop(canvas, part_mime("sys-4028gr-trt2"), point)
    assert moved and dropped
    mounted = [d for d in doc.plan.racks[0].devices if d.position_u == 20]
    assert len(mounted) == 1 and mounted[0].machine is not None
    after = rack_power(doc.plan, "rack-1", catalog)
    # A fifth server adds its wall power and four cords (two per feed).
    assert after.load_w > before.load_w
    assert len(after.cords) == len(before.cords) + 4
    assert ("rack-1", mounted[0].id) in canvas.items_by_device
    # The power dock's bars follow: PDU A's lines carry the new server's share, as core says.
    expected = [line.current_a for line in after.pdu_load("normal", "pdu-a").lines]
    assert heights(power_dock, "pdu-a") == pytest.approx(expected)
    assert sum(heights(power_dock, "pdu-a")) > sum(bars_before)
    # One undo step takes both the new machine and its mounting back, and the bars with them.
    doc.undo_stack.undo()
    assert plan_to_json(doc.plan) == start
    assert rack_power(doc.plan, "rack-1", catalog).load_w == pytest.approx(before.load_w)
    assert heights(power_dock, "pdu-a") == pytest.approx(bars_before)


def test_colliding_drop_is_refused_with_the_reason(qtbot: QtBot, tmp_path: Path, catalog: Catalog) -> None:
    window = make_window(tmp_path, catalog, COLO)
    keep(qtbot, window)
    canvas = _rack_tab(window)
    start = plan_to_json(window.document.plan)
    point = canvas.device_point("rack-1", 3, "front", height_u=4).toPoint()
    moved, dropped = drop(canvas, part_mime("sys-4028gr-trt2"), point)
    assert not moved and not dropped
    assert plan_to_json(window.document.plan) == start
    assert "is taken by GPU 1" in window._status.text()


def test_move_and_unmount_devices(qtbot: QtBot, tmp_path: Path, catalog: Catalog) -> None:
    window = make_window(tmp_path, catalog, COLO)
    keep(qtbot, window)
    doc = window.document
    canvas = _rack_tab(window)
    # Drag the management switch from U41 down to U30.
    point = canvas.device_point("rack-1", 30, "front").toPoint()
    assert drop(canvas, device_mime("rack-1", "management-switch"), point)[1]
    assert doc.plan.racks[0].device("management-switch").position_u == 30  # type: ignore[union-attr]
    doc.undo_stack.undo()
    assert doc.plan.racks[0].device("management-switch").position_u == 41  # type: ignore[union-attr]
    # Select GPU 4's front item and press Delete: unmounted, one undo step restores it.
    canvas.items_by_device[("rack-1", "gpu-4")][0].setSelected(True)
    canvas.delete_selected()
    assert doc.plan.racks[0].device("gpu-4") is None
    doc.undo_stack.undo()
    assert doc.plan.racks[0].device("gpu-4") is not None


def test_screenshot_of_the_rack_tab(qtbot: QtBot, tmp_path: Path, catalog: Catalog) -> None:
    window = make_window(tmp_path, catalog, COLO)
    keep(qtbot, window)
    window.show()
    canvas = _rack_tab(window)
    canvas.fit()
    path = screenshot_dir(tmp_path) / "rack-tab-colo.png"
    assert window.grab().save(str(path))
    print(f"screenshot: {path}")
    # Four servers, two switches and two 0U PDUs drawn; full-depth servers on both faces.
    assert len(canvas.items_by_device) == 8
    assert len(canvas.items_by_device[("rack-1", "gpu-1")]) == 2


def test_move_a_selection_together(qtbot: QtBot, tmp_path: Path, catalog: Catalog) -> None:
    window = make_window(tmp_path, catalog, COLO)
    keep(qtbot, window)
    doc = window.document
    canvas = _rack_tab(window)
    # Select both switches (U41 and U42) and drag the lower one to U30: they land at U30 and U31.
    for device in ("management-switch", "hdr-leaf"):
        canvas.items_by_device[("rack-1", device)][0].setSelected(True)
    point = canvas.device_point("rack-1", 30, "front").toPoint()
    assert drop(canvas, device_mime("rack-1", "management-switch"), point)[1]
    rack = doc.plan.racks[0]
    assert (rack.device("management-switch").position_u, rack.device("hdr-leaf").position_u) == (30, 31)  # type: ignore[union-attr]
    doc.undo_stack.undo()
    rack = doc.plan.racks[0]
    assert (rack.device("management-switch").position_u, rack.device("hdr-leaf").position_u) == (41, 42)  # type: ignore[union-attr]


def test_plan_a_colo_rack_from_nothing(
    qtbot: QtBot, tmp_path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rackplanner.gui.dialogs.feed import FeedDialog

    window = make_window(tmp_path, catalog, None)
    keep(qtbot, window)
    window.show()
    doc = window.document
    rack_label = catalog.get("apc-ar3300").label  # type: ignore[union-attr]
    monkeypatch.setattr("PySide6.QtWidgets.QInputDialog.getItem", lambda *a, **k: (rack_label, True))
    window.add_rack()
    monkeypatch.setattr(FeedDialog, "exec", lambda self: FeedDialog.DialogCode.Accepted)
    window.add_feed()  # the dialog's defaults: Feed A, 400 V 3-phase, 32 A
    window.add_feed()  # then Feed B
    assert [(f.side, f.voltage_v, f.breaker_a) for f in doc.plan.feeds] == [("A", 400, 32), ("B", 400, 32)]
    canvas = _rack_tab(window)
    rack_id = doc.plan.racks[0].id
    for u in (1, 5):
        point = canvas.device_point(rack_id, u, "front", height_u=4).toPoint()
        assert drop(canvas, part_mime("sys-4028gr-trt2"), point)[1]
    assert drop(canvas, part_mime("mellanox-qm8700"), canvas.device_point(rack_id, 42).toPoint())[1]
    for side in ("left", "right"):
        assert drop(canvas, part_mime("apc-ap8886"), canvas.channel_point(rack_id, side).toPoint())[1]
    pdus = {d.side: d.feed for d in doc.plan.racks[0].devices if d.part == "apc-ap8886"}
    assert pdus == {"left": "feed-a", "right": "feed-b"}
    power = rack_power(doc.plan, rack_id, catalog)
    # Two servers with four PSUs each (2+2) and a switch with two: ten cords, five per feed.
    assert len(power.cords) == 10
    feed_of = {d.id: d.feed for d in doc.plan.racks[0].devices if d.part == "apc-ap8886"}
    servers = [d.id for d in doc.plan.racks[0].devices if d.machine is not None]
    assert len(servers) == 2
    for device in servers:
        feeds = sorted(feed_of[c.pdu] or "" for c in power.cords if c.device == device)
        assert feeds == ["feed-a", "feed-a", "feed-b", "feed-b"]  # PSU 1 and 3 on A, 2 and 4 on B
    normal, failed = power.scenario("normal"), power.scenario("feed-a-failed")
    assert failed.load_w == pytest.approx(normal.load_w)
    surviving = next(p for p in failed.pdus if p.alive)
    assert surviving.load_va == pytest.approx(power.load_va)
    assert not [f for f in power.findings if f.severity == "error"]


def test_double_click_opens_a_racked_server_in_a_closable_tab(qtbot: QtBot, tmp_path: Path, catalog: Catalog) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from rackplanner.gui.canvases.machine import MachineCanvas

    window = make_window(tmp_path, catalog, COLO)
    keep(qtbot, window)
    window.show()
    canvas = _rack_tab(window)
    # Every machine of the colo example is racked: no machine tabs until one is opened, so a
    # row of hundreds of servers does not make hundreds of tabs.
    assert window.canvases == {} and window.tabs.count() == 1
    point = canvas.device_point("rack-1", 5, "front", height_u=4).toPoint()  # GPU 2 sits at U5-U8
    QTest.mouseDClick(canvas.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
    assert list(window.canvases) == ["gpu-2"]
    assert isinstance(window.tabs.currentWidget(), MachineCanvas)
    assert window.document.current_machine == "gpu-2"
    assert window.tabs.tabText(window.tabs.currentIndex()) == "GPU 2"
    # The rack tab has no close button; the opened server's tab has one and closing it keeps the server racked.
    bar = window.tabs.tabBar()
    row_index = window.tabs.indexOf(canvas)
    assert bar.tabButton(row_index, bar.ButtonPosition.RightSide) is None
    close = bar.tabButton(window.tabs.currentIndex(), bar.ButtonPosition.RightSide)
    assert close is not None
    QTest.mouseClick(close, Qt.MouseButton.LeftButton)
    assert window.canvases == {} and window.tabs.count() == 1
    assert window.document.plan.racks[0].device("gpu-2") is not None


def test_a_hovered_move_works_out_both_racks_power_before_the_drop(
    qtbot: QtBot, tmp_path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtCore import QSettings

    from rackplanner.bench.events import drag_over, drop_at
    from rackplanner.core.plan.generate import generate_row
    from rackplanner.core.rack import power as rackpower
    from rackplanner.gui.main_window import open_window

    plan = generate_row(2, seed=5)  # two racks of eight servers, U33-U40 free in each
    window = open_window(catalog, plan, None, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window.resize(1366, 768)
    keep(qtbot, window)
    window.show()
    canvas = _rack_tab(window)
    computed: list[str] = []
    real = rackpower._rack_power

    def counting(plan: object, rack: object, catalog: object) -> object:
        computed.append(rack.id)  # type: ignore[attr-defined]
        return real(plan, rack, catalog)  # type: ignore[arg-type]

    monkeypatch.setattr(rackpower, "_rack_power", counting)
    data = device_mime("rack-01", "r01-s1")
    point = canvas.device_point("rack-02", 33, "front", height_u=4).toPoint()
    assert drag_over(canvas, data, point)
    # Hovering rack 2 works out both racks as the drop would leave them.
    assert sorted(computed) == ["rack-01", "rack-02"]
    assert drop_at(canvas, data, point)
    assert window.document.plan.rack("rack-02").device("r01-s1").position_u == 33  # type: ignore[union-attr]
    # The drop itself recomputes no rack's power: both come from what hovering worked out.
    assert sorted(computed) == ["rack-01", "rack-02"]
    # And they are the figures core gives for the plan after the move.
    after = rackpower.rack_power(window.document.plan, "rack-02", catalog)
    assert len(after.cords) == len(rackpower.rack_power(plan, "rack-02", catalog).cords) + 4
