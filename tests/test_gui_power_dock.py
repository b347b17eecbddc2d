"""The rack power dock: bars equal to the rack power core's line currents, per scenario, live on edits."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QToolTip
from pytestqt.qtbot import QtBot

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan import edits
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.model import Plan
from rackplanner.core.rack.power import rack_power
from rackplanner.gui.docks.plot_scale import nice_ticks
from rackplanner.gui.docks.power import PowerDock
from rackplanner.gui.docks.power.common import OK_COLOUR, OVER_COLOUR, TIGHT_COLOUR
from rackplanner.gui.docks.power.line_chart import _axis_top
from rackplanner.gui.document import PlanDocument
from tests.conftest import EXAMPLES
from tests.guihelpers import screenshot_dir, shown_dock
from tests.rackfixtures import build_catalog, mount_loads, rack_with_pdus

LINES = ("L1", "L2", "L3")


def click_scenario(qtbot: QtBot, dock: PowerDock, scenario: str) -> None:
    qtbot.mouseClick(dock.scenario_buttons[scenario], Qt.MouseButton.LeftButton)


def make_dock(qtbot: QtBot, document: PlanDocument) -> PowerDock:
    dock = shown_dock(qtbot, PowerDock(document), (480, 900))
    return dock


@pytest.fixture
def colo(qtbot: QtBot, catalog: Catalog) -> tuple[PlanDocument, PowerDock]:
    document = PlanDocument(load_plan(EXAMPLES / "colo-rack.json", catalog), catalog)
    return document, make_dock(qtbot, document)


def heights(dock: PowerDock, pdu: str) -> list[float]:
    return [dock.bar_height(pdu, line) for line in LINES]


def core_currents(document: PlanDocument, scenario: str, pdu: str) -> list[float]:
    power = rack_power(document.plan, "rack-1", document.catalog)
    return [line.current_a for line in power.pdu_load(scenario, pdu).lines]


def bar_colour(dock: PowerDock, pdu: str, line: str) -> str:
    return dock.bar_colour(pdu, line)


def test_normal_bars_equal_the_core_line_currents(
    colo: tuple[PlanDocument, PowerDock], catalog: Catalog, tmp_path: Path
) -> None:
    document, dock = colo
    assert dock.scenario == "normal" and dock.scenario_buttons["normal"].isChecked()
    # Colo example (resources/examples/colo-rack.json): four servers of 2,179 VA at the wall each over
    # four cords, on two AP8886 230/400 V wye PDUs; PDU A carries 3, 3 and 2 cords of 545 VA on
    # L1, L2, L3: 7.1, 7.1, 4.7 A (what `rackplanner power` prints for the example).
    assert heights(dock, "pdu-a") == pytest.approx(core_currents(document, "normal", "pdu-a"))
    assert heights(dock, "pdu-a") == pytest.approx([7.08, 7.08, 4.72], abs=0.01)
    # Each bar carries its figure, to one decimal.
    assert [dock.value_label("pdu-a", line) for line in LINES] == ["7.1 A", "7.1 A", "4.7 A"]
    assert heights(dock, "pdu-b") == pytest.approx(core_currents(document, "normal", "pdu-b"))
    power = rack_power(document.plan, "rack-1", catalog)
    # Below 80% of the 25.6 A limit: green.
    assert {bar_colour(dock, "pdu-a", line) for line in LINES} == {OK_COLOUR.name()}
    # The limit basis from the core (AP8886: 32 A input, 0.8 derating, catalog/pdu.yaml).
    tip = dock.bars[("pdu-a", "L1")].toolTip()
    assert "PDU input 32 A x 0.8 derating = 25.6 A" in tip and "7.1 A" in tip
    assert dock.limit_marks is not None
    assert list(dock.limit_marks.yData) == pytest.approx([power.pdu_load("normal", "pdu-a").lines[0].limit_a] * 12)
    assert list(dock.limit_marks.yData) == pytest.approx([25.6] * 12)
    assert not dock.dead_labels
    # Totals from the core: 8.28 kW, 8.72 kVA, 28,255 BTU/hr for the rack.
    assert f"{power.load_w / 1000:,.2f} kW" in dock.totals.text()
    assert "8.28 kW" in dock.totals.text() and "8.72 kVA" in dock.totals.text()
    assert f"{power.heat_btu_hr:,.0f} BTU/hr" in dock.totals.text()
    assert "C13 10/30" in dock.outlets.text() and "C19 0/12" in dock.outlets.text()
    pdu_a = power.pdu_load("normal", "pdu-a")
    assert dock.pdu_table.item(0, 3).text() == f"{pdu_a.imbalance_percent:.0f}%"
    assert dock.pdu_table.item(0, 4).text() == f"{pdu_a.neutral_a:.1f} A"
    # The AP8886's breakers are not in the catalog: the table says so instead of a figure.
    assert dock.breakers.rowCount() == 6
    assert dock.breakers.item(0, 4).text() == "unknown"
    assert "not in the catalog" in dock.breaker_note.text()
    path = screenshot_dir(tmp_path) / "power-dock-colo-normal.png"
    QApplication.processEvents()  # let the layout settle before the picture
    dock.grab().save(str(path))
    print(f"screenshot: {path}")


def test_feed_a_failed_moves_the_load_to_pdu_b(
    qtbot: QtBot, colo: tuple[PlanDocument, PowerDock], tmp_path: Path
) -> None:
    document, dock = colo
    click_scenario(qtbot, dock, "feed-a-failed")
    assert dock.scenario == "feed-a-failed"
    # PDU B carries every cord's share: 14.2, 14.2, 9.4 A (double the normal figures).
    expected = core_currents(document, "feed-a-failed", "pdu-b")
    assert heights(dock, "pdu-b") == pytest.approx(expected)
    assert heights(dock, "pdu-b") == pytest.approx([2 * a for a in core_currents(document, "normal", "pdu-b")])
    # PDU A is dead: grey, "no power", no current.
    assert "pdu-a" in dock.dead_labels and dock.dead_labels["pdu-a"].textItem.toPlainText() == "no power"
    assert heights(dock, "pdu-a") == [0.0, 0.0, 0.0]
    assert [dock.value_label("pdu-a", line) for line in LINES] == ["", "", ""]
    assert [dock.value_label("pdu-b", line) for line in LINES] == ["14.2 A", "14.2 A", "9.4 A"]
    assert "no power" in dock.bars[("pdu-a", "L1")].toolTip()
    assert dock.breakers.item(0, 3).text() == "no power"
    assert dock.pdu_table.item(0, 2).text() == "no power"
    assert "with feed A failed" in dock.title.text()
    path = screenshot_dir(tmp_path) / "power-dock-colo-feed-a-failed.png"
    QApplication.processEvents()  # let the layout settle before the picture
    dock.grab().save(str(path))
    print(f"screenshot: {path}")
    click_scenario(qtbot, dock, "normal")
    assert heights(dock, "pdu-a") == pytest.approx(core_currents(document, "normal", "pdu-a"))
    assert not dock.dead_labels


def test_power_limit_lowers_the_bars_and_undo_restores_them(
    colo: tuple[PlanDocument, PowerDock], catalog: Catalog
) -> None:
    document, dock = colo
    before = heights(dock, "pdu-a")
    # GPU 1's first A100 80GB PCIe (300 W board power, catalog/gpu.yaml) limited to 200 W.
    document.apply(edits.set_power_limit, machine="gpu-1", slot="gpu1", watts=200.0, catalog=catalog)
    after = core_currents(document, "normal", "pdu-a")
    assert heights(dock, "pdu-a") == pytest.approx(after)
    # GPU 1's cords on PDU A sit on L1 and L2 (auto-assigned): those bars drop, L3 stays.
    assert after[0] < before[0] and after[1] < before[1]
    assert after[2] == pytest.approx(before[2])
    document.undo_stack.undo()
    assert heights(dock, "pdu-a") == pytest.approx(before)


def test_the_amps_scale_is_round_and_stays_put_for_small_changes(
    colo: tuple[PlanDocument, PowerDock], catalog: Catalog
) -> None:
    document, dock = colo
    # AP8886 lines are derated to 25.6 A (catalog/pdu.yaml: 32 A x 0.8); the scale leaves room for
    # twice that (a failed feed's load), 51.2 A, rounded up to 60 A with ticks every 10 A.
    assert dock.plot.getViewBox().viewRange()[1] == pytest.approx([0.0, 60.0])
    assert [value for value, _text in dock.plot.getAxis("left")._tickLevels[0]] == [0, 10, 20, 30, 40, 50]
    assert dock.grid is not None and sorted(set(dock.grid.yData)) == [10, 20, 30, 40, 50]
    # A lower GPU limit moves the bars, not the scale.
    document.apply(edits.set_power_limit, machine="gpu-1", slot="gpu1", watts=200.0, catalog=catalog)
    assert dock.plot.getViewBox().viewRange()[1] == pytest.approx([0.0, 60.0])


def test_axis_top_rounds_up_to_a_round_figure() -> None:
    # 2 x the limit, or 1.5 x the highest current where that is more, rounded up to 1, 1.5, 2, 2.5,
    # 3, 4, 5, 6, 8 or 10 times a power of ten.
    assert _axis_top([25.6], [14.2]) == 60.0
    assert _axis_top([25.6], [47.4]) == 80.0  # 71.1 A
    assert _axis_top([12.8], [3.0]) == 30.0  # 25.6 A
    assert _axis_top([40.0], [0.0]) == 80.0
    assert _axis_top([], []) == 1.0
    assert nice_ticks(60.0) == [0, 10, 20, 30, 40, 50, 60]
    assert nice_ticks(150.0) == [0, 25, 50, 75, 100, 125, 150]


def test_hidden_dock_refreshes_when_shown(colo: tuple[PlanDocument, PowerDock], catalog: Catalog) -> None:
    document, dock = colo
    before = heights(dock, "pdu-a")
    dock.hide()
    document.apply(edits.set_power_limit, machine="gpu-2", slot="gpu1", watts=150.0, catalog=catalog)
    # Not redrawn while hidden.
    assert heights(dock, "pdu-a") == pytest.approx(before)
    dock.show()
    assert heights(dock, "pdu-a") == pytest.approx(core_currents(document, "normal", "pdu-a"))
    assert heights(dock, "pdu-a") != pytest.approx(before)


def test_colours_follow_the_share_of_the_limit(qtbot: QtBot, tmp_path: Path) -> None:
    cat = build_catalog(tmp_path / "cat")
    # AP8881 (16 A, catalog/pdu.yaml) on 13 A feeds: limit 13 A x 0.8 = 10.4 A. Five 2-cord
    # loads of 2,000 VA (tests/rackfixtures.py) put 2, 2, 1 cords of 1,000 VA on PDU B's lines:
    # 8.66 A (83%, amber) twice and 4.33 A (42%, green); with feed A down 17.3 A (red) twice and 8.66 A.
    plan = mount_loads(rack_with_pdus(cat, "apc-ap8881", voltage_v=400, phases=3, breaker_a=13), cat, 5)
    document = PlanDocument(plan, cat)
    dock = make_dock(qtbot, document)
    power = rack_power(plan, "r1", cat)
    normal = power.pdu_load("normal", "pdu-b")
    assert normal.lines[0].limit_a == pytest.approx(10.4)
    assert "Feed B breaker 13 A" in dock.bars[("pdu-b", "L1")].toolTip()
    for line in normal.lines:
        expected = TIGHT_COLOUR if line.percent >= 80 else OK_COLOUR
        assert bar_colour(dock, "pdu-b", line.line) == expected.name()
    assert sorted(bar_colour(dock, "pdu-b", line) for line in LINES) == sorted(
        [TIGHT_COLOUR.name(), TIGHT_COLOUR.name(), OK_COLOUR.name()]
    )
    click_scenario(qtbot, dock, "feed-a-failed")
    failed = power.pdu_load("feed-a-failed", "pdu-b")
    for line in failed.lines:
        expected = OVER_COLOUR if line.over else TIGHT_COLOUR if line.percent >= 80 else OK_COLOUR
        assert bar_colour(dock, "pdu-b", line.line) == expected.name()
    assert sum(line.over for line in failed.lines) == 2


def test_rack_change_and_empty_plan(qtbot: QtBot, catalog: Catalog) -> None:
    document = PlanDocument(Plan(name="Empty"), catalog)
    dock = make_dock(qtbot, document)
    assert dock.title.text() == "No rack"
    assert not dock.bars and dock.breakers.rowCount() == 0
    assert not dock.scenario_buttons["normal"].isEnabled()
    document.replace(load_plan(EXAMPLES / "colo-rack.json", catalog), None)
    assert dock.title.text().startswith("Rack 1")
    assert heights(dock, "pdu-b") == pytest.approx(core_currents(document, "normal", "pdu-b"))
    # A rack without PDUs: no bars, and it says so.
    document.apply(edits.add_rack, name="Rack 2", part="apc-ar3300", catalog=catalog)
    document.set_current_rack("rack-2")
    assert "no PDU" in dock.title.text()
    assert not dock.bars


def test_only_edits_of_the_current_rack_redraw(
    colo: tuple[PlanDocument, PowerDock], catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    document, dock = colo
    calls: list[str] = []
    original = dock.refresh
    monkeypatch.setattr(dock, "refresh", lambda: (calls.append(document.current_rack), original())[1])
    # A machine outside every rack: its power is no business of the rack's bars.
    document.apply(edits.add_machine, name="Bench box", server="sys-4028gr-trt2", catalog=catalog)
    assert calls == []
    # A server mounted in the rack (GPU 4 is at U13 of rack-1 in the colo example): redrawn.
    document.apply(edits.set_power_limit, machine="gpu-4", slot="gpu1", watts=250.0, catalog=catalog)
    assert calls == ["rack-1"]
    assert heights(dock, "pdu-b") == pytest.approx(core_currents(document, "normal", "pdu-b"))
    # Renaming the plan touches no rack.
    document.apply(edits.set_plan_notes, name="Renamed")
    assert calls == ["rack-1"]


def test_hovering_a_bar_shows_its_limit_basis(colo: tuple[PlanDocument, PowerDock], catalog: Catalog) -> None:
    document, dock = colo
    bar = dock.bars[("pdu-a", "L2")]
    # A point inside the bar: x = 1 is L2's position, 3 A is below its 7.1 A top.
    point = dock.plot.mapFromScene(bar.mapToScene(QPointF(1.0, 3.0)))
    viewport = dock.plot.viewport()
    QApplication.sendEvent(viewport, QHelpEvent(QEvent.Type.ToolTip, point, viewport.mapToGlobal(point)))
    load = rack_power(document.plan, "rack-1", catalog).pdu_load("normal", "pdu-a")
    assert QToolTip.isVisible()
    # AP8886 input 32 A, derating 0.8 (catalog/pdu.yaml), as the core states it.
    assert load.limit_basis == "PDU input 32 A x 0.8 derating = 25.6 A"
    assert QToolTip.text() == (
        f"PDU A L2: {load.lines[1].current_a:.1f} A, {load.lines[1].percent:.0f}% of the limit\n"
        f"Limit 25.6 A: {load.limit_basis}"
    )
    QToolTip.hideText()


# A single-phase test PDU whose two outlet groups sit behind 16 A breakers (round figures for hand checks).
TEST_PDU = [
    {
        "id": "test-pdu-breakers",
        "vendor": "Test",
        "model": "PDU with 16 A breakers",
        "source": ["test fixture"],
        "phases": 1,
        "wiring": "single",
        "voltage_v": 230,
        "input_current_a": 32,
        "inlet": "iec-60309-p-n-e-6h",
        "metering": "metered",
        "outlet_groups": [
            {"id": "g1", "line": "L1", "breaker_a": 16, "outlets": {"iec-60320-c13": 8}},
            {"id": "g2", "line": "L1", "breaker_a": 16, "outlets": {"iec-60320-c13": 8}},
        ],
    }
]


def test_breaker_rows_with_known_ratings(qtbot: QtBot, tmp_path: Path) -> None:
    folder = tmp_path / "cat"
    folder.mkdir()
    (folder / "pdu.yaml").write_text(yaml.safe_dump(TEST_PDU), encoding="utf-8")
    cat = build_catalog(folder)
    # Three 2,000 VA loads with two cords each (tests/rackfixtures.py) on 230 V single-phase PDUs.
    plan = mount_loads(rack_with_pdus(cat, "test-pdu-breakers", voltage_v=230, phases=1, breaker_a=32), cat, 3)
    document = PlanDocument(plan, cat)
    dock = make_dock(qtbot, document)
    power = rack_power(plan, "r1", cat)
    for scenario in ("normal", "feed-a-failed"):
        if scenario != "normal":
            click_scenario(qtbot, dock, scenario)
        load = power.pdu_load(scenario, "pdu-b")
        table = dock.breakers
        rows = {table.item(r, 1).text(): r for r in range(table.rowCount()) if table.item(r, 0).text() == "PDU B"}
        assert len(rows) == 2
        for breaker in load.breakers:
            row = rows[breaker.outlet_group]
            # 16 A x 0.8 = 12.8 A per group.
            assert breaker.limit_a == pytest.approx(12.8)
            assert dock.breakers.item(row, 3).text() == f"{breaker.current_a:.1f} A"
            assert dock.breakers.item(row, 4).text() == "12.8 A"
            assert dock.breakers.item(row, 4).toolTip() == "16 A breaker x 0.8 derating = 12.8 A"
            assert dock.breakers.item(row, 5).text() == f"{breaker.percent:.0f}%"
        assert dock.breaker_note.text() == ""
    # With feed A down PDU B carries 6,000 VA: 26.1 A on its one line, over 32 A x 0.8 = 25.6 A.
    failed = power.pdu_load("feed-a-failed", "pdu-b")
    assert failed.lines[0].current_a == pytest.approx(6000 / 230)
    assert bar_colour(dock, "pdu-b", "L1") == OVER_COLOUR.name()
    assert dock.bar_height("pdu-b", "L1") == pytest.approx(6000 / 230)
    path = screenshot_dir(tmp_path) / "power-dock-breakers-feed-a-failed.png"
    QApplication.processEvents()  # let the layout settle before the picture
    dock.grab().save(str(path))
    print(f"screenshot: {path}")
