"""The palette's model: the catalog as a tree of kind groups (Favourites and Recent on top), the
filter that search and the filter bar drive, and the two-line delegate that draws a part row."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QMimeData, QModelIndex, QPersistentModelIndex, QRect, QSize, QSortFilterProxyModel, Qt
from PySide6.QtGui import QPainter, QPalette, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from rackplanner.core.catalog.figures import UNKNOWN, key_figures
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import PART_KINDS, Part
from rackplanner.gui.docks.palette_extras import PartFilter
from rackplanner.gui.docks.palette_spec import part_tooltip
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
    "unified-system": "Unified-memory machines",
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


def _kind_order(kind: str) -> tuple[int, str]:
    return (GROUP_ORDER.index(kind) if kind in GROUP_ORDER else len(GROUP_ORDER), kind)


class CatalogModel(QStandardItemModel):
    """The catalog as a two-level tree (kind, then parts); part rows drag out as PART_MIME."""

    def __init__(
        self, catalog: Catalog, parent: QWidget | None = None, shelves: Sequence[tuple[str, list[str]]] = ()
    ) -> None:
        super().__init__(parent)
        self.setHorizontalHeaderLabels(["Part"])
        self._fill(catalog)
        self.set_shelves(catalog, shelves)

    def set_shelves(self, catalog: Catalog, shelves: Sequence[tuple[str, list[str]]]) -> None:
        """Favourites and Recent as groups at the top (their rows repeat parts listed below), replacing
        those shown; an empty one is left out. The kind groups are left as they are, open or closed."""
        while self.rowCount() and self.item(0).data(KIND_ROLE) == SHELF_KIND:
            self.removeRow(0)
        row = 0
        for title, part_ids in shelves:
            parts = [p for p in (catalog.get(i) for i in part_ids) if p is not None]
            if not parts:
                continue
            group = self._group(title, SHELF_KIND)
            for part in parts:
                group.appendRow(self._part_item(part))
            self.insertRow(row, group)
            row += 1

    def _fill(self, catalog: Catalog) -> None:
        by_kind: dict[str, list[Part]] = {kind: [] for kind in PART_KINDS}
        for part in catalog:
            by_kind.setdefault(part.kind, []).append(part)
        for kind in sorted(by_kind, key=_kind_order):
            group = self._group(GROUP_TITLES.get(kind, kind), kind)
            for part in sorted(by_kind[kind], key=lambda p: p.label.lower()):
                group.appendRow(self._part_item(part))
            self.appendRow(group)

    @staticmethod
    def _group(title: str, kind: str) -> QStandardItem:
        group = QStandardItem(title)
        group.setData(kind, KIND_ROLE)
        group.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
        font = group.font()
        font.setBold(True)
        group.setFont(font)
        return group

    @staticmethod
    def _part_item(part: Part) -> QStandardItem:
        item = QStandardItem(part.label)
        item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsDragEnabled)
        item.setData(part.id, PART_ID_ROLE)
        item.setData(compact_figures(part), FIGURES_ROLE)
        item.setData(f"{part.id} {part.vendor} {part.model}".lower(), SEARCH_TEXT_ROLE)
        item.setData(part.kind, KIND_ROLE)
        item.setToolTip(part_tooltip(part, notes=True))
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
