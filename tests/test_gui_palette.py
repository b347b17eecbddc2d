"""The catalog palette: grouping, search as you type, drag payloads, activation."""

from __future__ import annotations

import html
import os
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, QPoint, QSettings, Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from rackplanner.core.catalog.figures import key_figures
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import PART_KINDS, Gpu
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.model import Plan
from rackplanner.gui.docks.palette import FIGURES_ROLE, KIND_ROLE, PART_ID_ROLE, PaletteDock, compact_figures
from rackplanner.gui.docks.palette_extras import part_pixmap
from rackplanner.gui.document import PlanDocument
from rackplanner.gui.mime import PART_MIME, part_from_mime
from tests.conftest import EXAMPLES


@pytest.fixture
def dock(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> PaletteDock:
    document = PlanDocument(load_plan(EXAMPLES / "home-rig-2x3090.json", catalog), catalog)
    widget = PaletteDock(document, settings=settings_in(tmp_path))
    qtbot.addWidget(widget)
    widget.resize(420, 640)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("RACKPLANNER_SHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def double_click(qtbot: QtBot, widget: QWidget, pos: QPoint) -> None:
    # A real double-click is a press and release, then the double-click event; QTest's
    # mouseDClick sends only the second half, which item views ignore without the press.
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton, pos=pos)
    qtbot.mouseDClick(widget, Qt.MouseButton.LeftButton, pos=pos)


def _groups(dock: PaletteDock) -> dict[str, QModelIndex]:
    return {str(dock.proxy.index(g, 0).data(KIND_ROLE)): dock.proxy.index(g, 0) for g in range(dock.proxy.rowCount())}


def test_every_part_sits_under_its_kind(dock: PaletteDock, catalog: Catalog) -> None:
    groups = _groups(dock)
    assert set(groups) == set(PART_KINDS)
    for kind, index in groups.items():
        expected = sorted(p.id for p in catalog if p.kind == kind)
        shown = sorted(str(dock.proxy.index(r, 0, index).data(PART_ID_ROLE)) for r in range(dock.proxy.rowCount(index)))
        assert shown == expected, kind
    # GPUs open, the rest closed, as the palette starts.
    assert dock.view.isExpanded(groups["gpu"])
    assert not dock.view.isExpanded(groups["llm"])
    assert groups["gpu"].data() == f"GPUs ({len(catalog.of_kind(Gpu))})"


def test_gpu_row_shows_key_figures_and_sources(dock: PaletteDock, catalog: Catalog) -> None:
    index = dock.proxy_index_of("rtx-3090")
    gpu = catalog.get_as("rtx-3090", Gpu)
    assert gpu is not None
    assert index.data() == gpu.label
    figures = index.data(FIGURES_ROLE)
    # VRAM and bandwidth from catalog/gpu.yaml via key_figures, e.g. "24 GB" and "936 GB/s".
    vram = dict(key_figures(gpu))["VRAM"]
    bandwidth = dict(key_figures(gpu))["bandwidth"]
    assert figures == compact_figures(gpu)
    assert vram in figures and bandwidth in figures
    assert f"{gpu.slot_width:g} slots" in figures
    tip = index.data(Qt.ItemDataRole.ToolTipRole)
    assert all(html.escape(source) in tip for source in gpu.source)
    assert bandwidth in tip


def test_typing_a100_leaves_only_the_a100_parts(
    dock: PaletteDock, catalog: Catalog, qtbot: QtBot, tmp_path: Path
) -> None:
    qtbot.keyClicks(dock.search, "a100")
    hits = catalog.search("a100")
    expected = sorted(p.id for p in hits)
    assert expected, "the catalog has A100 parts"
    assert sorted(dock.visible_part_ids()) == expected
    groups = _groups(dock)
    # Only the kinds that hold a match are left, all opened.
    assert set(groups) == {p.kind for p in hits}
    assert all(dock.view.isExpanded(i) for i in groups.values())
    path = shots(tmp_path) / "palette-search-a100.png"
    dock.grab().save(str(path))
    print(f"screenshot: {path}")
    # Every word must match: "a100 80gb" is narrower still.
    qtbot.keyClicks(dock.search, " 80gb")
    assert sorted(dock.visible_part_ids()) == sorted(p.id for p in catalog.search("a100 80gb"))
    assert len(dock.visible_part_ids()) < len(expected)
    dock.search.clear()
    assert len(dock.visible_part_ids()) == len(catalog)
    # Clearing the search restores the expansion the user had.
    groups = _groups(dock)
    assert dock.view.isExpanded(groups["gpu"]) and not dock.view.isExpanded(groups["cpu"])


def test_gpu_row_mime_carries_the_part_id(dock: PaletteDock) -> None:
    index = dock.proxy.mapToSource(dock.proxy_index_of("rtx-3090"))
    assert PART_MIME in dock.model.mimeTypes()
    data = dock.model.mimeData([index])
    assert data.hasFormat(PART_MIME)
    assert part_from_mime(data) == "rtx-3090"
    assert data.text() == "rtx-3090"
    # The view drags through the filter model, which hands the same payload on.
    through_view = dock.proxy.mimeData([dock.proxy_index_of("rtx-3090")])
    assert part_from_mime(through_view) == "rtx-3090"
    assert dock.proxy.supportedDragActions() & Qt.DropAction.CopyAction
    # Group rows are not draggable.
    group = dock.proxy.mapToSource(_groups(dock)["gpu"])
    assert not dock.model.flags(group) & Qt.ItemFlag.ItemIsDragEnabled
    assert dock.model.flags(index) & Qt.ItemFlag.ItemIsDragEnabled


def test_double_click_and_enter_emit_part_activated(dock: PaletteDock, qtbot: QtBot) -> None:
    index = dock.proxy_index_of("rtx-3090")
    dock.view.scrollTo(index)
    rect = dock.view.visualRect(index)
    with qtbot.waitSignal(dock.part_activated, timeout=1000) as blocker:
        double_click(qtbot, dock.view.viewport(), rect.center())
    assert blocker.args == ["rtx-3090"]

    # Search, Enter picks the first hit, Enter again adds it.
    qtbot.keyClicks(dock.search, "5090")
    qtbot.keyClick(dock.search, Qt.Key.Key_Return)
    first = dock.visible_part_ids()[0]
    assert dock.selected_part_id() == first
    with qtbot.waitSignal(dock.part_activated, timeout=1000) as blocker:
        qtbot.keyClick(dock.view, Qt.Key.Key_Return)
    assert blocker.args == [first]


def test_group_activation_emits_nothing(dock: PaletteDock, qtbot: QtBot) -> None:
    seen: list[str] = []
    dock.part_activated.connect(seen.append)
    group = _groups(dock)["cpu"]
    double_click(qtbot, dock.view.viewport(), dock.view.visualRect(group).center())
    assert seen == []


def test_palette_screenshot(dock: PaletteDock, tmp_path: Path) -> None:
    path = shots(tmp_path) / "palette.png"
    assert dock.grab().save(str(path))
    print(f"screenshot: {path}")


def settings_in(tmp_path: Path) -> QSettings:
    return QSettings(str(tmp_path / "palette.ini"), QSettings.Format.IniFormat)


def test_filters_by_kind_vendor_memory_and_price(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    document = PlanDocument(Plan(name="Empty"), catalog)
    dock = PaletteDock(document, settings=settings_in(tmp_path))
    qtbot.addWidget(dock)
    bar = dock.filters
    bar.kind.setCurrentIndex(bar.kind.findData("gpu"))
    bar.vendor.setCurrentIndex(bar.vendor.findData("AMD"))
    # Worked out from the catalog itself (catalog/gpu.yaml): every AMD GPU, and no other part.
    assert set(dock.visible_part_ids()) == {p.id for p in catalog.of_kind(Gpu) if p.vendor == "AMD"}
    bar.vendor.setCurrentIndex(0)
    bar.memory.setCurrentIndex(bar.memory.findData(80.0))
    assert set(dock.visible_part_ids()) == {p.id for p in catalog.of_kind(Gpu) if p.vram_gb >= 80}
    bar.memory.setCurrentIndex(0)
    bar.price.setCurrentIndex(bar.price.findData(2000.0))
    expected = {p.id for p in catalog.of_kind(Gpu) if p.price_usd is not None and p.price_usd <= 2000}
    assert expected and set(dock.visible_part_ids()) == expected
    dock.search.setText("3090")
    assert set(dock.visible_part_ids()) == {i for i in expected if "3090" in i}


def test_favourites_and_recent_are_kept_per_user(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    document = PlanDocument(Plan(name="Empty"), catalog)
    dock = PaletteDock(document, settings=settings_in(tmp_path))
    qtbot.addWidget(dock)
    assert dock.shelf_part_ids("★ Favourites") == [] and dock.shelf_part_ids("Recent") == []
    menu = dock.context_menu_for("rtx-3090")
    assert [a.text() for a in menu.actions() if a.text()] == ["Add to machine", "Add to favourites", "Properties…"]
    next(a for a in menu.actions() if a.text() == "Add to favourites").trigger()
    with qtbot.waitSignal(dock.part_activated) as added:
        next(a for a in dock.context_menu_for("a100-80gb-pcie").actions() if a.text() == "Add to machine").trigger()
    assert added.args == ["a100-80gb-pcie"]
    dock.activate("rtx-4090")
    assert dock.shelf_part_ids("Recent") == ["rtx-4090", "a100-80gb-pcie"]
    again = PaletteDock(document, settings=settings_in(tmp_path))
    qtbot.addWidget(again)
    assert again.shelf_part_ids("★ Favourites") == ["rtx-3090"]
    assert again.shelf_part_ids("Recent") == ["rtx-4090", "a100-80gb-pcie"]
    # The shelves repeat parts: the kind groups still list each part once.
    assert again.visible_part_ids().count("rtx-3090") == 1
    dialog = again.show_properties("rtx-3090")
    assert "24 GB" in dialog.browser.toPlainText()


def test_a_dragged_part_shows_a_picture_of_itself(catalog: Catalog) -> None:
    gpu, server = catalog.get("rtx-3090"), catalog.get("sys-4028gr-trt2")
    assert gpu is not None and server is not None
    card = part_pixmap(gpu)
    # A 313 mm, three-slot card (catalog/gpu.yaml) is drawn longer than tall.
    assert not card.isNull() and card.width() > card.height()
    assert not part_pixmap(server).isNull()
