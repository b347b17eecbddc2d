"""Each example as a new user first sees it, at 1366x768 and 1920x1080: fitted, readable, nothing cut.

The screenshots are written to ``$RACKPLANNER_SHOTS`` (else ``build/screenshots`` in the
repository), which the test run keeps; the README's pictures are made this way.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QGraphicsItem, QGraphicsView, QTabBar
from pytestqt.qtbot import QtBot

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan.files import load_plan
from rackplanner.gui.app import application
from rackplanner.gui.canvases.zoom_view import ZoomView
from rackplanner.gui.main_window import MainWindow, open_window
from tests.conftest import EXAMPLES, REPO

SIZES = ((1366, 768), (1920, 1080))
EXAMPLE_NAMES = ("home-rig-2x3090", "sys-4028gr-trt2-8gpu", "colo-rack", "teaching-mistakes")
# The bar: the central drawing fills 80% of its view in one dimension, a dock drawing
# opens at 60% scale or more, scene text is 7 px or taller on screen.
MIN_FILL = 0.8
MIN_DOCK_SCALE = 0.6
MIN_TEXT_PX = 7.0


def shots_folder() -> Path:
    folder = Path(os.environ.get("RACKPLANNER_SHOTS") or REPO / "build" / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(autouse=True)
def _recovery_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RACKPLANNER_RECOVERY_DIR", str(tmp_path / "recovery"))


def open_as_a_user(qtbot: QtBot, tmp_path: Path, catalog: Catalog, name: str, size: tuple[int, int]) -> MainWindow:
    """The window ``rackplanner PLAN`` opens, at a screen size, after its docks have settled."""
    application()
    settings = QSettings(str(tmp_path / f"{name}-{size[0]}.ini"), QSettings.Format.IniFormat)
    path = EXAMPLES / f"{name}.json"
    window = open_window(catalog, load_plan(path, catalog), path, settings)
    qtbot.addWidget(window, before_close_func=lambda w: window.document.undo_stack.setClean())
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: "CapacityDock" in window.docks)
    qtbot.wait(50)
    return window


def font_px(font: QFont, view: QGraphicsView) -> float:
    """A font's em height in scene units (a point font at the view's resolution)."""
    return float(font.pixelSize()) if font.pixelSize() > 0 else font.pointSizeF() * view.logicalDpiY() / 72


def drawn_text_px(item: QGraphicsItem, view: QGraphicsView) -> list[float]:
    """The on-screen height of each text the item draws at the view's zoom (text hidden by level of detail left out)."""
    lod = view.transform().m11()
    if hasattr(item, "drawn_text_px"):
        return list(item.drawn_text_px(lod))
    if hasattr(item, "texts"):
        return [font_px(t.font, view) * lod for t in item.texts if t.text]
    font, text = getattr(item, "font", None), getattr(item, "text", None)
    if callable(font) and callable(text) and text():
        return [font_px(font(), view) * lod]
    return []


def smallest_text(view: QGraphicsView) -> tuple[float, str]:
    """The smallest text drawn in the view's visible part, and what it says."""
    found = (float("inf"), "")
    for item in view.items(view.viewport().rect()):
        if not item.isVisible() or item.effectiveOpacity() == 0:
            continue
        for px in drawn_text_px(item, view):
            if px < found[0]:
                text = getattr(item, "text", None)
                found = (px, text() if callable(text) else type(item).__name__)
    return found


def cut_tabs(window: MainWindow) -> list[str]:
    """Tab titles shown shorter than they are (elided), in every visible tab bar of the window."""
    cut = []
    for bar in window.findChildren(QTabBar):
        if not bar.isVisible():
            continue
        for index in range(bar.count()):
            if bar.tabRect(index).width() + 1 < bar.tabSizeHint(index).width():
                cut.append(bar.tabText(index))
    return cut


def fill_of(view: ZoomView) -> float:
    target = view.fit_target()
    assert target is not None, "the central canvas has nothing drawn"
    shown = view.mapFromScene(target[0]).boundingRect()
    room = view.viewport().rect()
    return max(shown.width() / room.width(), shown.height() / room.height())


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_example_at_first_sight(
    qtbot: QtBot, tmp_path: Path, catalog: Catalog, name: str, size: tuple[int, int]
) -> None:
    window = open_as_a_user(qtbot, tmp_path, catalog, name, size)
    window.grab().save(str(shots_folder() / f"{name}-{size[0]}x{size[1]}.png"))
    centre = window.tabs.currentWidget()
    assert isinstance(centre, ZoomView)
    assert centre.auto_fit
    assert fill_of(centre) >= MIN_FILL, f"the drawing fills {fill_of(centre):.0%} of its view"
    assert cut_tabs(window) == []
    views = [v for v in window.findChildren(ZoomView) if v.isVisible() and not v.visibleRegion().isEmpty()]
    assert centre in views
    for view in views:
        if view is not centre:
            assert view.transform().m11() >= MIN_DOCK_SCALE, (
                f"{type(view).__name__} opens at {view.transform().m11():.0%}"
            )
        px, text = smallest_text(view)
        assert px >= MIN_TEXT_PX, f"{text!r} is {px:.1f} px high in {type(view).__name__}"
    menus = {
        m.title().replace("&", ""): [a.text().replace("&", "") for a in m.actions()]
        for m in window.view_menu.parent().findChildren(type(window.view_menu))
    }
    assert "Export Image…" in menus["File"]
    assert {"About rackplanner", "Keyboard Shortcuts"} <= set(menus["Help"])


def test_parts_are_drawn_from_their_catalog_figures(qtbot: QtBot, tmp_path: Path, catalog: Catalog) -> None:
    from rackplanner.core.catalog.parts import Gpu, NetworkSwitch, Pdu, Server
    from rackplanner.gui.canvases.machine import MachineCanvas
    from rackplanner.gui.canvases.rack_row import RackRowCanvas

    window = open_as_a_user(qtbot, tmp_path, catalog, "home-rig-2x3090", SIZES[0])
    canvas = window.tabs.currentWidget()
    assert isinstance(canvas, MachineCanvas)
    gpu = catalog.get_as("rtx-3090", Gpu)
    assert gpu is not None
    look = canvas.card_items["pciex16-g5-1"].look
    # catalog/gpu.yaml: the RTX 3090 is open-air cooled, takes two 8-pin plugs and has NVLink.
    assert look.cooling == gpu.cooling == "open-air"
    assert look.power_connectors == tuple(gpu.power_connectors) == ("pcie-8pin", "pcie-8pin")
    assert look.nvlink and look.bracket

    window = open_as_a_user(qtbot, tmp_path, catalog, "colo-rack", SIZES[0])
    row = window.tabs.currentWidget()
    assert isinstance(row, RackRowCanvas)
    plan = window.document.plan
    for (rack_id, device_id), blocks in row.items_by_device.items():
        device = plan.rack(rack_id).device(device_id)
        part = catalog.get(device.part) if device.part else None
        for block in blocks:
            if isinstance(part, NetworkSwitch):
                assert block.look.ports == sum(g.count for g in part.ports)
            elif isinstance(part, Pdu):
                assert block.look.outlet_groups == tuple(sum(g.outlets.values()) for g in part.outlet_groups)
            elif device.machine:
                server = catalog.get_as(plan.machine(device.machine).server or "", Server)
                assert server is not None and block.look.psus == server.psu_count
    # colo-rack.json: the SYS-4028GR-TRT2 ships four PSUs (catalog/server.yaml); the rear block is the rear.
    rear = row.items_by_device[("rack-1", "gpu-1")]
    assert [b.side for b in rear] == ["front", "rear"] and rear[0].look.psus == 4
    # catalog/switch.yaml: the HDR leaf (MQM8700-HS2F, P2C) moves air rear-to-front; colo-rack.json
    # mounts it ports to the rear, so in the rack it runs front-to-rear and its block says so.
    leaf = row.items_by_device[("rack-1", "hdr-leaf")]
    assert leaf[0].look.airflow == "rear-to-front"
    assert "Airflow: rear-to-front, front-to-rear in the rack (mounted facing the rear)" in leaf[0].toolTip()


@pytest.mark.parametrize("board_id", ["hgx-a100-4gpu", "dgx-a100-baseboard", "hgx-h100-8gpu"])
def test_host_slots_of_a_gpu_baseboard_sit_below_it(catalog: Catalog, board_id: str) -> None:
    from rackplanner.core.catalog.parts import Board
    from rackplanner.draw.board import slot_layout

    board = catalog.get_as(board_id, Board)
    assert board is not None
    geometry = slot_layout(board)
    modules = [g.rect for g in geometry if g.slot.kind == "sxm"]
    host = [g.rect for g in geometry if g.slot.kind != "sxm"]
    # catalog/board.yaml: each of these boards has SXM bays and PCIe slots for its NICs.
    assert modules and host
    baseboard_bottom = max(r.bottom() for r in modules)
    assert all(r.top() > baseboard_bottom for r in host)
    assert not any(m.intersects(n) for i, m in enumerate(modules) for n in modules[i + 1 :])
