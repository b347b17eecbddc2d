"""The catalog palette: grouping, search as you type, filters, tooltips, favourites and recent
parts, the context menu, drag payloads and the dragged part's picture, activation."""

from __future__ import annotations

import html
import os
import re
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, QPoint, QSettings, Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from rackplanner.core.catalog.figures import key_figures
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import PART_KINDS, Cpu, Gpu, Nic
from rackplanner.core.plan.files import load_plan
from rackplanner.core.plan.model import Plan
from rackplanner.gui.dialogs.properties import PropertiesDialog
from rackplanner.gui.docks.palette import (
    FAVOURITES_TITLE,
    FIGURES_ROLE,
    KIND_ROLE,
    PART_ID_ROLE,
    RECENT_TITLE,
    PaletteDock,
    compact_figures,
)
from rackplanner.gui.docks.palette_drag import part_pixmap
from rackplanner.gui.docks.palette_extras import RECENT_KEPT
from rackplanner.gui.docks.palette_spec import part_tooltip
from rackplanner.gui.document import PlanDocument
from rackplanner.gui.mime import PART_MIME, part_from_mime
from tests.conftest import EXAMPLES
from tests.guihelpers import shown_dock


@pytest.fixture
def dock(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> PaletteDock:
    document = PlanDocument(load_plan(EXAMPLES / "home-rig-2x3090.json", catalog), catalog)
    widget = shown_dock(qtbot, PaletteDock(document, settings=settings_in(tmp_path)), (420, 640))
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
    # Each citation is in the tooltip, its web address as a link named by its host.
    for source in gpu.source:
        text, _, url = source.partition(" — ")
        assert html.escape(text) in tip
        assert not url or f'href="{html.escape(url)}"' in tip
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


def empty_dock(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> PaletteDock:
    """A palette over an empty plan, its favourites and recent parts in an ini file under tmp_path."""
    widget = PaletteDock(PlanDocument(Plan(name="Empty"), catalog), settings=settings_in(tmp_path))
    qtbot.addWidget(widget)
    return widget


def action(dock: PaletteDock, part_id: str, text: str) -> None:
    """Trigger one entry of a part row's context menu, as a click on it would."""
    menu = dock.context_menu_for(part_id)
    next(a for a in menu.actions() if a.text() == text).trigger()


# --- the tooltip ------------------------------------------------------------------------


def test_gpu_tooltip_gives_the_full_specification_and_its_sources(dock: PaletteDock, catalog: Catalog) -> None:
    gpu = catalog.get_as("rtx-3090", Gpu)
    assert gpu is not None
    tip = str(dock.proxy_index_of("rtx-3090").data(Qt.ItemDataRole.ToolTipRole))
    # catalog/gpu.yaml, rtx-3090: 24 GB GDDR6X at 936 GB/s on a 384-bit bus, 350 W, Ampere (GA102).
    for figure in ("24 GB", "936 GB/s", "350 W", "GDDR6X", "384 bits", "Ampere (GA102)"):
        assert f"<b>{html.escape(figure)}</b>" in tip, figure
    # catalog/gpu.yaml: launch price $1,499, seen 2020-09-01; two 8-pin plugs; 600 W transient peak.
    assert "$1,499 (2020-09-01)" in tip and "2 × 8-pin" in tip and "600 W" in tip
    # catalog/gpu.yaml: the Tom's Hardware review cited for the 350 W, a link named by its host.
    assert html.escape("Tom's Hardware, Nvidia GeForce RTX 3090 Founders Edition Review (350 W TGP)") in tip
    assert 'href="https://www.tomshardware.com/reviews/nvidia-geforce-rtx-3090-review">tomshardware.com</a>' in tip
    assert f"{len(gpu.source)} sources" in tip
    # catalog/gpu.yaml: the notes run past 400 characters; the tooltip gives their start.
    assert gpu.notes and html.escape(gpu.notes[:200]) in tip and "more under Properties" in tip
    # Readable labels, not the model's field names or a dict.
    assert "vram_gb" not in tip and "{" not in tip


def test_tooltip_escapes_what_the_catalog_says(catalog: Catalog) -> None:
    gpu = catalog.get("rtx-3090")
    assert gpu is not None
    odd = gpu.model_copy(update={"model": "<RTX & co>", "notes": "a <b>bold</b> claim", "source": ["x < y — no link"]})
    tip = part_tooltip(odd, notes=True)
    assert "&lt;RTX &amp; co&gt;" in tip and "a &lt;b&gt;bold&lt;/b&gt; claim" in tip and "x &lt; y" in tip
    assert "<RTX" not in tip and "<b>bold" not in tip


def test_every_kind_has_a_tooltip_with_its_key_figures_and_sources(catalog: Catalog) -> None:
    for kind in PART_KINDS:
        part = next(p for p in catalog if p.kind == kind)
        tip = part_tooltip(part)
        for _label, value in key_figures(part):
            assert html.escape(value.split(" (")[0]) in tip, (part.id, value)
        for source in part.source:
            # The citation's words all there, each web address as a link to it.
            urls = re.findall(r"https?://[^\s)]+", source)
            assert all(f'href="{html.escape(u.rstrip(".,;"))}"' in tip for u in urls), (part.id, source)
            words = re.split(r"https?://[^\s)]+", source)
            assert all(html.escape(w.rstrip(".,;")) in tip for w in words), (part.id, source)


# --- the filter bar ---------------------------------------------------------------------


def test_kind_filter_offers_the_kinds_present_and_their_vendors(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    dock = empty_dock(qtbot, catalog, tmp_path)
    bar = dock.filters
    assert bar.kind.itemText(0) == "All kinds"
    assert {bar.kind.itemData(i) for i in range(1, bar.kind.count())} == {p.kind for p in catalog}
    bar.kind.setCurrentIndex(bar.kind.findData("cpu"))
    # Every CPU of catalog/cpu.yaml and nothing else, its group opened to show them.
    assert set(dock.visible_part_ids()) == {p.id for p in catalog.of_kind(Cpu)}
    assert dock.view.isExpanded(dock.proxy_index_of(dock.visible_part_ids()[0]).parent())
    # The vendor list is the CPU makers only (AMD, Apple, Intel in catalog/cpu.yaml).
    vendors = [bar.vendor.itemText(i) for i in range(1, bar.vendor.count())]
    assert vendors == sorted({p.vendor for p in catalog.of_kind(Cpu)}, key=str.lower)
    bar.vendor.setCurrentIndex(bar.vendor.findData("Intel"))
    assert set(dock.visible_part_ids()) == {p.id for p in catalog.of_kind(Cpu) if p.vendor == "Intel"}
    # CPUs have no GPU memory to filter by: the memory filter is off, and says why.
    assert not bar.memory.isEnabled() and "GPUs" in bar.memory.toolTip()
    bar.kind.setCurrentIndex(0)
    assert bar.memory.isEnabled()


def test_memory_filter_keeps_gpus_with_that_much_memory(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    dock = empty_dock(qtbot, catalog, tmp_path)
    bar = dock.filters
    bar.memory.setCurrentIndex(bar.memory.findData(48.0))
    # catalog/gpu.yaml: the 48 GB cards (A40, L40S, RTX A6000, RTX 6000 Ada) and the larger ones.
    expected = {p.id for p in catalog.of_kind(Gpu) if p.vram_gb >= 48}
    assert {"a40", "l40s", "rtx-a6000", "h100-pcie"} <= expected
    assert set(dock.visible_part_ids()) == expected
    # Choosing a kind without memory clears the minimum rather than hiding every part of it.
    bar.kind.setCurrentIndex(bar.kind.findData("psu"))
    assert bar.memory.currentData() is None
    assert set(dock.visible_part_ids()) == {p.id for p in catalog if p.kind == "psu"}


def test_price_filter_says_unpriced_parts_are_hidden(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    dock = empty_dock(qtbot, catalog, tmp_path)
    bar = dock.filters
    assert "without a known price" in bar.price.toolTip()
    # catalog/switch.yaml: the Spectrum SN2201 has no price (none in catalog/prices); with no maximum it is listed.
    switch = catalog.get("nvidia-sn2201")
    assert switch is not None and switch.price_usd is None
    assert "nvidia-sn2201" in dock.visible_part_ids()
    bar.price.setCurrentIndex(bar.price.findData(1000.0))
    expected = {p.id for p in catalog if p.price_usd is not None and p.price_usd <= 1000}
    assert set(dock.visible_part_ids()) == expected
    # catalog/prices: every GPU of 80 GB or more with a price costs more than $1,000.
    bar.memory.setCurrentIndex(bar.memory.findData(80.0))
    assert dock.visible_part_ids() == []
    assert dock.empty_hint.isVisibleTo(dock) and "without a known price" in dock.empty_hint.text()
    dock.empty_hint.linkActivated.emit("clear")
    assert bar.current().active is False and len(dock.visible_part_ids()) == len(catalog)
    assert not dock.empty_hint.isVisibleTo(dock)


def test_filters_fit_a_300px_dock(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    dock = empty_dock(qtbot, catalog, tmp_path)
    dock.activate("rtx-4090")
    action(dock, "rtx-3090", "Add to favourites")
    dock.resize(300, 700)
    dock.show()
    qtbot.waitExposed(dock)
    assert dock.minimumSizeHint().width() <= 300 and dock.width() == 300
    combos = (dock.filters.kind, dock.filters.vendor, dock.filters.memory, dock.filters.price)
    # One row under the search box, each box wide enough for a short label.
    assert len({c.geometry().top() for c in combos}) == 1
    assert all(c.width() >= 60 for c in combos)
    assert dock.filters.geometry().top() > dock.search.geometry().bottom()
    path = shots(tmp_path) / "palette-300px.png"
    assert dock.grab().save(str(path))
    print(f"screenshot: {path}")


# --- favourites, recent parts and the context menu ----------------------------------------


def test_favourite_toggled_from_the_menu_is_kept_for_the_next_dock(
    qtbot: QtBot, catalog: Catalog, tmp_path: Path
) -> None:
    dock = empty_dock(qtbot, catalog, tmp_path)
    action(dock, "rtx-3090", "Add to favourites")
    action(dock, "a100-80gb-pcie", "Add to favourites")
    assert dock.shelf_part_ids(FAVOURITES_TITLE) == ["rtx-3090", "a100-80gb-pcie"]
    again = empty_dock(qtbot, catalog, tmp_path)
    assert again.shelf_part_ids(FAVOURITES_TITLE) == ["rtx-3090", "a100-80gb-pcie"]
    assert [a.text() for a in again.context_menu_for("rtx-3090").actions()][1] == "Remove from favourites"
    action(again, "rtx-3090", "Remove from favourites")
    action(again, "a100-80gb-pcie", "Remove from favourites")
    # No favourites left: the group is gone, here and in the next dock.
    assert again.shelf_part_ids(FAVOURITES_TITLE) == []
    assert empty_dock(qtbot, catalog, tmp_path).shelf_part_ids(FAVOURITES_TITLE) == []
    assert FAVOURITES_TITLE not in {str(again.model.item(g).text()) for g in range(again.model.rowCount())}


def test_activating_a_part_puts_it_first_in_recent(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    dock = empty_dock(qtbot, catalog, tmp_path)
    dock.resize(300, 700)
    dock.show()
    qtbot.waitExposed(dock)
    cpus = dock.proxy_index_of("xeon-platinum-8280").parent()
    dock.view.setExpanded(cpus, True)  # the user opened CPUs: Recent changing must not close it
    index = dock.proxy_index_of("rtx-3090")
    dock.view.scrollTo(index)
    with qtbot.waitSignal(dock.part_activated) as blocker:
        double_click(qtbot, dock.view.viewport(), dock.view.visualRect(index).center())
    assert blocker.args == ["rtx-3090"]
    assert dock.shelf_part_ids(RECENT_TITLE) == ["rtx-3090"]
    dock.activate("l40s")
    assert dock.shelf_part_ids(RECENT_TITLE) == ["l40s", "rtx-3090"]
    dock.activate("rtx-3090")
    assert dock.shelf_part_ids(RECENT_TITLE) == ["rtx-3090", "l40s"]
    assert dock.view.isExpanded(dock.proxy_index_of("xeon-platinum-8280").parent())
    # The last eight, newest first.
    gpus = sorted(p.id for p in catalog.of_kind(Gpu))[:10]
    for part_id in gpus:
        dock.activate(part_id)
    assert dock.shelf_part_ids(RECENT_TITLE) == gpus[::-1][:RECENT_KEPT]


def test_recent_parts_gone_from_the_catalog_are_dropped(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    settings = settings_in(tmp_path)
    settings.setValue("palette/recent", ["no-such-part", "rtx-3090"])
    settings.setValue("palette/favourites", ["gone-too"])
    settings.sync()
    dock = empty_dock(qtbot, catalog, tmp_path)
    assert dock.shelf_part_ids(RECENT_TITLE) == ["rtx-3090"]
    assert dock.shelf_part_ids(FAVOURITES_TITLE) == []


def test_context_menu_adds_and_shows_properties(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    dock = empty_dock(qtbot, catalog, tmp_path)
    with qtbot.waitSignal(dock.part_activated) as added:
        action(dock, "l40s", "Add to machine")
    assert added.args == ["l40s"] and dock.shelf_part_ids(RECENT_TITLE) == ["l40s"]
    action(dock, "rtx-3090", "Properties…")
    dialogs = [d for d in dock.findChildren(PropertiesDialog) if d.isVisible()]
    assert len(dialogs) == 1 and not dialogs[0].isModal()
    text = dialogs[0].browser.toPlainText()
    # catalog/gpu.yaml, rtx-3090: what the tooltip says, 936 GB/s and the cited review.
    assert "936 GB/s" in text and "350 W TGP" in text
    # The notes whole, which the tooltip cuts short ("Price is the launch price." ends them).
    assert "Price is the launch price." in text
    action(dock, "rtx-3090", "Properties…")
    assert len([d for d in dock.findChildren(PropertiesDialog) if d.isVisible()]) == 1
    dialogs[0].close()


def test_reveal_part_clears_the_filters_hiding_it(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    dock = empty_dock(qtbot, catalog, tmp_path)
    dock.filters.kind.setCurrentIndex(dock.filters.kind.findData("cpu"))
    assert not dock.proxy_index_of("rtx-3090").isValid()
    assert dock.reveal_part("rtx-3090")
    assert dock.selected_part_id() == "rtx-3090" and not dock.filters.current().active


# --- the drag picture --------------------------------------------------------------------


def test_a_dragged_card_is_drawn_to_its_length_and_slots(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    dock = empty_dock(qtbot, catalog, tmp_path)
    drag = dock.view.drag_for("rtx-3090")
    assert drag is not None and part_from_mime(drag.mimeData()) == "rtx-3090"
    card = drag.pixmap()
    # catalog/gpu.yaml: the RTX 3090 is 313 mm long and three slots wide, a long flat card.
    assert not card.isNull() and card.width() > card.height()
    # catalog/gpu.yaml: the L4 is 169 mm long and one slot wide: shorter and thinner.
    l4_card = catalog.get_as("l4", Gpu)
    assert l4_card is not None
    l4 = part_pixmap(l4_card)
    assert l4.width() < card.width() and l4.height() < card.height()
    nic = next(iter(catalog.of_kind(Nic)))
    assert part_pixmap(nic).width() > part_pixmap(nic).height()
    assert dock.view.drag_for("no-such-part") is None
    # The view's own drag: offscreen there is no drop target, nothing takes the part, and only a
    # drop that takes it makes it recent.
    dock.view.setCurrentIndex(dock.proxy_index_of("rtx-3090"))
    dock.view.startDrag(Qt.DropAction.CopyAction)
    assert dock.shelf_part_ids(RECENT_TITLE) == []


def test_the_menu_key_opens_the_current_parts_menu(qtbot: QtBot, catalog: Catalog, tmp_path: Path) -> None:
    dock = empty_dock(qtbot, catalog, tmp_path)
    opened: list[tuple[str, QPoint]] = []
    real_menu = dock.context_menu_for

    class Shown:
        """The real menu, shown without blocking: where it would pop up is recorded."""

        def __init__(self, part_id: str) -> None:
            self.menu = real_menu(part_id)
            self.part_id = part_id

        def exec(self, at: QPoint) -> None:
            opened.append((self.part_id, at))

        def deleteLater(self) -> None:
            self.menu.deleteLater()

    dock.context_menu_for = Shown  # type: ignore[assignment,method-assign]
    dock.resize(300, 700)
    dock.show()
    qtbot.waitExposed(dock)
    index = dock.proxy_index_of("rtx-3090")
    dock.view.scrollTo(index)
    dock.view.setCurrentIndex(index)
    qtbot.keyClick(dock.view, Qt.Key.Key_Menu)
    qtbot.keyClick(dock.view, Qt.Key.Key_F10, Qt.KeyboardModifier.ShiftModifier)
    # Both keys open the current row's menu, under the row (not at the mouse).
    under_row = dock.view.viewport().mapToGlobal(dock.view.visualRect(index).center())
    assert opened == [("rtx-3090", under_row), ("rtx-3090", under_row)]
