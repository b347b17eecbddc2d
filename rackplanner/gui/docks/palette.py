"""The catalog palette: parts grouped by kind with the figures people choose by, searchable, a drag source."""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import (
    QMimeData,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QRect,
    QSettings,
    QSize,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QDrag, QPainter, QPalette, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QDialog,
    QDockWidget,
    QLineEdit,
    QMenu,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from rackplanner.core.catalog.figures import UNKNOWN, key_figures
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import PART_KINDS, Part
from rackplanner.gui.docks.palette_extras import FilterBar, PartFilter, PartShelf, part_pixmap
from rackplanner.gui.document import PlanDocument
from rackplanner.gui.mime import PART_MIME, part_mime

# The part id of a row (None on kind groups), and the text the search box matches.
PART_ID_ROLE = Qt.ItemDataRole.UserRole + 1
SEARCH_TEXT_ROLE = Qt.ItemDataRole.UserRole + 2
KIND_ROLE = Qt.ItemDataRole.UserRole + 3
# The one-line figures under a part's name.
FIGURES_ROLE = Qt.ItemDataRole.UserRole + 4

GROUP_TITLES: dict[str, str] = {
    "gpu": "GPUs",
    "cpu": "CPUs",
    "memory": "Memory",
    "drive": "Drives",
    "nic": "NICs",
    "pcie-switch": "PCIe switches",
    "nvlink-bridge": "NVLink bridges",
    "board": "Boards",
    "server": "Servers",
    "chassis": "Cases",
    "psu": "PSUs",
    "rack": "Racks",
    "pdu": "PDUs",
    "switch": "Switches",
    "rack-device": "Rack devices",
    "llm": "LLMs",
}
# The kind role of the Favourites and Recent groups, which repeat parts of the kind groups.
SHELF_KIND = "@shelf"
# Shown in this order; kinds added to the core later follow at the end.
GROUP_ORDER = list(GROUP_TITLES)
EXPANDED_BY_DEFAULT = frozenset({"gpu"})


# Figures left out of the one-line summary (the tooltip has them) to keep the row short.
_TOOLTIP_ONLY = {"gpu": frozenset({"FP16 tensor", "FP32", "PCIe"})}


def compact_figures(part: Part) -> str:
    """The known key figures on one line: '24 GB · 936 GB/s · 350 W · 3 slots · $1,499'."""
    parts = []
    skip = _TOOLTIP_ONLY.get(part.kind, frozenset())
    figures = key_figures(part)
    # The price goes up front with the main figures, so a narrow dock still shows it.
    price = [f for f in figures if f[0] == "price"]
    figures = [f for f in figures if f[0] != "price"]
    figures[3:3] = price
    for label, value in figures:
        if value == UNKNOWN or label in skip:
            continue
        # A bare number needs its label to be read ("3 slots", "16 cores").
        bare = value.replace(",", "").replace(".", "").isdigit()
        parts.append(f"{value} {label}" if bare else value)
    return " · ".join(parts)


def part_tooltip(part: Part) -> str:
    """Rich text with every key figure, the notes and the sources of a part."""
    rows = "".join(
        f"<tr><td>{html.escape(label)}</td><td><b>{html.escape(value)}</b></td></tr>"
        for label, value in key_figures(part)
    )
    text = f"<b>{html.escape(part.label)}</b><br><i>{html.escape(part.id)}</i><table>{rows}</table>"
    if part.price_usd is not None and part.price_date is not None:
        text += f"<p>price seen {part.price_date.isoformat()}</p>"
    if part.notes:
        text += f"<p>{html.escape(part.notes)}</p>"
    sources = "".join(f"<li>{html.escape(s)}</li>" for s in part.source)
    return text + f"<p>Sources:</p><ul>{sources}</ul>"


def _kind_order(kind: str) -> tuple[int, str]:
    return (GROUP_ORDER.index(kind) if kind in GROUP_ORDER else len(GROUP_ORDER), kind)


class CatalogModel(QStandardItemModel):
    """The catalog as a two-level tree (kind, then parts); part rows drag out as PART_MIME."""

    def __init__(
        self, catalog: Catalog, parent: QWidget | None = None, shelves: Sequence[tuple[str, list[str]]] = ()
    ) -> None:
        super().__init__(parent)
        self.setHorizontalHeaderLabels(["Part"])
        for title, part_ids in shelves:
            self._shelf(catalog, title, part_ids)
        self._fill(catalog)

    def _shelf(self, catalog: Catalog, title: str, part_ids: list[str]) -> None:
        """Favourites or Recent: a group of its own at the top (its rows repeat parts listed below)."""
        parts = [p for p in (catalog.get(i) for i in part_ids) if p is not None]
        if not parts:
            return
        group = QStandardItem(title)
        group.setData(SHELF_KIND, KIND_ROLE)
        group.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
        font = group.font()
        font.setBold(True)
        group.setFont(font)
        for part in parts:
            group.appendRow(self._part_item(part))
        self.appendRow(group)

    def _fill(self, catalog: Catalog) -> None:
        by_kind: dict[str, list[Part]] = {kind: [] for kind in PART_KINDS}
        for part in catalog:
            by_kind.setdefault(part.kind, []).append(part)
        for kind in sorted(by_kind, key=_kind_order):
            group = QStandardItem(GROUP_TITLES.get(kind, kind))
            group.setData(kind, KIND_ROLE)
            group.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
            font = group.font()
            font.setBold(True)
            group.setFont(font)
            for part in sorted(by_kind[kind], key=lambda p: p.label.lower()):
                group.appendRow(self._part_item(part))
            self.appendRow(group)

    @staticmethod
    def _part_item(part: Part) -> QStandardItem:
        item = QStandardItem(part.label)
        item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsDragEnabled)
        item.setData(part.id, PART_ID_ROLE)
        item.setData(compact_figures(part), FIGURES_ROLE)
        item.setData(f"{part.id} {part.vendor} {part.model}".lower(), SEARCH_TEXT_ROLE)
        item.setData(part.kind, KIND_ROLE)
        item.setToolTip(part_tooltip(part))
        return item

    def mimeTypes(self) -> list[str]:
        return [PART_MIME, "text/plain"]

    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:
        for index in indexes:
            part_id = index.data(PART_ID_ROLE)
            if part_id:
                return part_mime(str(part_id))
        return QMimeData()

    def supportedDragActions(self) -> Qt.DropAction:
        return Qt.DropAction.CopyAction


class PartDelegate(QStyledItemDelegate):
    """Draws a part as two lines: its name, and under it its key figures in a quieter colour.

    Two lines keep both readable in a narrow dock, where a second column would be cut off.
    """

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        size = super().sizeHint(option, index)
        if index.data(FIGURES_ROLE):
            size.setHeight(size.height() + option.fontMetrics.lineSpacing())
        return size

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        figures = index.data(FIGURES_ROLE)
        if not figures:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        name = opt.text
        opt.text = ""
        style = opt.widget.style() if opt.widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        text_rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, opt, opt.widget).adjusted(2, 1, -2, -1)
        metrics = opt.fontMetrics
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        group = (
            QPalette.ColorGroup.Normal if opt.state & QStyle.StateFlag.State_Active else QPalette.ColorGroup.Inactive
        )
        main = opt.palette.color(group, QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text)
        quiet = main if selected else opt.palette.color(group, QPalette.ColorRole.PlaceholderText)
        painter.save()
        line = QRect(text_rect.left(), text_rect.top(), text_rect.width(), metrics.lineSpacing())
        painter.setPen(main)
        painter.drawText(
            line,
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
            metrics.elidedText(name, Qt.TextElideMode.ElideRight, line.width()),
        )
        line.translate(0, metrics.lineSpacing())
        painter.setPen(quiet)
        painter.drawText(
            line,
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
            metrics.elidedText(str(figures), Qt.TextElideMode.ElideRight, line.width()),
        )
        painter.restore()


class CatalogFilter(QSortFilterProxyModel):
    """Keeps the parts whose id, vendor or model contain every word typed (as ``Catalog.search``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._words: list[str] = []
        self.part_filter = PartFilter()
        self.catalog: Catalog | None = None
        self.setRecursiveFilteringEnabled(True)

    def set_part_filter(self, part_filter: PartFilter) -> None:
        self.beginFilterChange()
        self.part_filter = part_filter
        self.endFilterChange()

    def set_search(self, text: str) -> None:
        self.beginFilterChange()
        self._words = text.lower().split()
        self.endFilterChange()

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        index = self.sourceModel().index(source_row, 0, source_parent)
        if self.part_filter.active and self.catalog is not None:
            part = self.catalog.get(str(index.data(PART_ID_ROLE) or ""))
            if part is None or not self.part_filter.accepts(part):
                return False
        if not self._words:
            return True
        haystack = index.data(SEARCH_TEXT_ROLE)
        # Groups show when a part in them matches (recursive filtering), never by their title.
        return bool(haystack) and all(w in haystack for w in self._words)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if role == Qt.ItemDataRole.DisplayRole and index.column() == 0 and not index.parent().isValid():
            return f"{super().data(index, role)} ({self.rowCount(index)})"
        return super().data(index, role)


class PaletteDock(QDockWidget):
    """The catalog, grouped by kind: type to filter, drag a part out, double-click or Enter to add it."""

    # A part id, when the user asks to add it (double-click or Enter).
    part_activated = Signal(str)

    def __init__(
        self, document: PlanDocument, parent: QWidget | None = None, *, settings: QSettings | None = None
    ) -> None:
        super().__init__("Catalog", parent)
        self.setObjectName("palette-dock")
        self._document = document
        self.shelf = PartShelf(settings)
        self._shown_catalog = document.catalog
        self._user_expanded: set[str] | None = None

        self.search = QLineEdit()
        self.search.setPlaceholderText("Search parts (id, vendor, model)")
        self.search.setClearButtonEnabled(True)
        self.search.setObjectName("palette-search")

        self.model = CatalogModel(document.catalog, self, self._shelves())
        self.proxy = CatalogFilter(self)
        self.proxy.catalog = document.catalog
        self.proxy.setSourceModel(self.model)
        self.filters = FilterBar(document.catalog, GROUP_TITLES)
        self.filters.changed.connect(lambda: self.proxy.set_part_filter(self.filters.current()))

        self.view = PartTree(self)
        self.view.setObjectName("palette-tree")
        self.view.setModel(self.proxy)
        self.view.setItemDelegate(PartDelegate(self.view))
        self.view.setHeaderHidden(True)
        self.view.setAlternatingRowColors(True)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setDragEnabled(True)
        self.view.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.view.setDefaultDropAction(Qt.DropAction.CopyAction)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)

        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addWidget(self.search)
        layout.addWidget(self.filters)
        layout.addWidget(self.view)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._show_context_menu)
        self.setWidget(body)

        self.search.textChanged.connect(self._on_search_changed)
        self.search.returnPressed.connect(self._on_search_return)
        self.view.activated.connect(self._on_activated)
        document.reset.connect(self._on_reset)

        self._expand_defaults()

    # --- queries (for the window and the tests) --------------------------------------

    def visible_part_ids(self) -> list[str]:
        """Ids of the part rows the filter shows, in view order (Favourites and Recent left out)."""
        ids = []
        for g in range(self.proxy.rowCount()):
            group = self.proxy.index(g, 0)
            if group.data(KIND_ROLE) == SHELF_KIND:
                continue
            for r in range(self.proxy.rowCount(group)):
                part_id = self.proxy.index(r, 0, group).data(PART_ID_ROLE)
                if part_id:
                    ids.append(str(part_id))
        return ids

    def proxy_index_of(self, part_id: str) -> QModelIndex:
        """The view's index of a part row in its kind's group (invalid if filtered out)."""
        for g in range(self.proxy.rowCount()):
            group = self.proxy.index(g, 0)
            if group.data(KIND_ROLE) == SHELF_KIND:
                continue
            for r in range(self.proxy.rowCount(group)):
                index = self.proxy.index(r, 0, group)
                if index.data(PART_ID_ROLE) == part_id:
                    return index
        return QModelIndex()

    def selected_part_id(self) -> str | None:
        index = self.view.currentIndex()
        part_id = index.data(PART_ID_ROLE) if index.isValid() else None
        return str(part_id) if part_id else None

    # --- handlers --------------------------------------------------------------------

    def _on_search_changed(self, text: str) -> None:
        if text.strip() and self._user_expanded is None:
            self._user_expanded = self._expanded_kinds()
        self.proxy.set_search(text)
        if text.strip():
            self.view.expandAll()
        elif self._user_expanded is not None:
            # Back to what the user had open before searching.
            self._set_expanded(self._user_expanded)
            self._user_expanded = None
            current = self.view.currentIndex()
            if current.isValid():
                self.view.scrollTo(current)

    def _on_search_return(self) -> None:
        # Enter in the search box takes the first hit into the tree, ready for Enter again.
        ids = self.visible_part_ids()
        if ids:
            index = self.proxy_index_of(ids[0])
            self.view.setCurrentIndex(index)
            self.view.setFocus()

    def _on_activated(self, index: QModelIndex) -> None:
        part_id = index.data(PART_ID_ROLE)
        if part_id:
            self.activate(str(part_id))

    def activate(self, part_id: str) -> None:
        """Ask to add the part (double-click, Enter, Add to machine); it becomes the most recent."""
        self.part_activated.emit(part_id)
        self.mark_used(part_id)

    def mark_used(self, part_id: str) -> None:
        self.shelf.used(part_id)
        self._rebuild()

    def shelf_part_ids(self, title: str) -> list[str]:
        """The part ids the Favourites or Recent group shows, in order (empty when the group is not shown)."""
        for g in range(self.model.rowCount()):
            group = self.model.item(g)
            if group is not None and group.data(KIND_ROLE) == SHELF_KIND and group.text() == title:
                return [str(group.child(r).data(PART_ID_ROLE)) for r in range(group.rowCount())]
        return []

    def context_menu_for(self, part_id: str) -> QMenu:
        """Add to machine, Add to (or Remove from) favourites, Properties."""
        menu = QMenu(self)
        menu.addAction("Add to machine", lambda: self.activate(part_id))
        favourite = part_id in self.shelf.favourites(self._document.catalog)
        menu.addAction(
            "Remove from favourites" if favourite else "Add to favourites", lambda: self.toggle_favourite(part_id)
        )
        menu.addSeparator()
        menu.addAction("Properties…", lambda: self.show_properties(part_id))
        return menu

    def toggle_favourite(self, part_id: str) -> None:
        self.shelf.toggle_favourite(part_id)
        self._rebuild()

    def show_properties(self, part_id: str) -> QDialog:
        from rackplanner.gui.dialogs.properties import PropertiesDialog

        dialog = PropertiesDialog(self._document.catalog, part_id, self)
        dialog.show()
        return dialog

    def _show_context_menu(self, pos: QPoint) -> None:
        part_id = self.view.indexAt(pos).data(PART_ID_ROLE)
        if part_id:
            self.context_menu_for(str(part_id)).exec(self.view.viewport().mapToGlobal(pos))

    def _shelves(self) -> list[tuple[str, list[str]]]:
        catalog = self._document.catalog
        return [("★ Favourites", self.shelf.favourites(catalog)), ("Recent", self.shelf.recent(catalog))]

    def _on_reset(self) -> None:
        # The catalog may have been reloaded with the plan.
        if self._document.catalog is not self._shown_catalog:
            self._rebuild()

    # --- helpers ---------------------------------------------------------------------

    def _rebuild(self) -> None:
        expanded = self._expanded_kinds() | {SHELF_KIND}
        current = self.selected_part_id()
        self.model = CatalogModel(self._document.catalog, self, self._shelves())
        self.proxy.catalog = self._document.catalog
        self.proxy.setSourceModel(self.model)
        self._shown_catalog = self._document.catalog
        self._set_expanded(expanded)
        if current:
            self.view.setCurrentIndex(self.proxy_index_of(current))

    def _expanded_kinds(self) -> set[str]:
        kinds = set()
        for g in range(self.proxy.rowCount()):
            index = self.proxy.index(g, 0)
            if self.view.isExpanded(index):
                kinds.add(str(index.data(KIND_ROLE)))
        return kinds

    def _set_expanded(self, kinds: set[str] | frozenset[str]) -> None:
        for g in range(self.proxy.rowCount()):
            index = self.proxy.index(g, 0)
            self.view.setExpanded(index, str(index.data(KIND_ROLE)) in kinds)

    def _expand_defaults(self) -> None:
        self._set_expanded(EXPANDED_BY_DEFAULT | {SHELF_KIND})


class PartTree(QTreeView):
    """The palette's tree: a dragged part shows a picture of itself and becomes a recent part."""

    def __init__(self, dock: PaletteDock) -> None:
        super().__init__()
        self.dock = dock

    def startDrag(self, supportedActions: Qt.DropAction) -> None:
        index = self.currentIndex()
        part_id = index.data(PART_ID_ROLE) if index.isValid() else None
        part = self.dock._document.catalog.get(str(part_id)) if part_id else None
        if part is None:
            return
        drag = QDrag(self)
        drag.setMimeData(part_mime(part.id))
        pixmap = part_pixmap(part, self.devicePixelRatioF())
        drag.setPixmap(pixmap)
        drag.setHotSpot(QPoint(12, 12))
        result = drag.exec(Qt.DropAction.CopyAction)
        if result != Qt.DropAction.IgnoreAction:
            self.dock.mark_used(part.id)
