"""The catalog palette: parts grouped by kind with the figures people choose by, searchable and
filterable, favourite and recent parts on top, a drag source that shows the part itself.

The model, filter and row delegate are in ``palette_model``; the rich-text specification in
``palette_spec``; the filter bar and the per-user shelves in ``palette_extras``; the drag picture
in ``palette_drag``.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPoint, QSettings, Qt, Signal
from PySide6.QtGui import QDrag, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDockWidget,
    QLabel,
    QLineEdit,
    QMenu,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from rackplanner.core.catalog.loading import Catalog
from rackplanner.gui.docks.palette_drag import part_pixmap
from rackplanner.gui.docks.palette_extras import FilterBar, PartShelf
from rackplanner.gui.docks.palette_model import (
    EXPANDED_BY_DEFAULT,
    FIGURES_ROLE,
    GROUP_TITLES,
    KIND_ROLE,
    PART_ID_ROLE,
    SEARCH_TEXT_ROLE,
    SHELF_KIND,
    CatalogFilter,
    CatalogModel,
    PartDelegate,
    compact_figures,
)
from rackplanner.gui.docks.palette_spec import part_tooltip
from rackplanner.gui.document import PlanDocument
from rackplanner.gui.mime import part_mime

__all__ = [
    "FAVOURITES_TITLE",
    "FIGURES_ROLE",
    "GROUP_TITLES",
    "KIND_ROLE",
    "PART_ID_ROLE",
    "RECENT_TITLE",
    "SEARCH_TEXT_ROLE",
    "PaletteDock",
    "PartTree",
    "compact_figures",
    "part_tooltip",
]

FAVOURITES_TITLE = "★ Favourites"
RECENT_TITLE = "Recent"
# Where the cursor holds a dragged part's picture: on its name label, near the left.
DRAG_HOT_SPOT = QPoint(10, 8)


class PaletteDock(QDockWidget):
    """The catalog, grouped by kind: type or filter to narrow it, drag a part out, double-click or
    Enter to add it, right-click for favourites and properties."""

    # A part id, when the user asks to add it (double-click, Enter, or Add to machine).
    part_activated = Signal(str)

    def __init__(
        self, document: PlanDocument, parent: QWidget | None = None, *, settings: QSettings | None = None
    ) -> None:
        super().__init__("Catalog", parent)
        self.setObjectName("palette-dock")
        self._document = document
        # Favourites and Recent live in the user's settings (the window's, or a test's ini file).
        self.shelf = PartShelf(settings)
        self._shown_catalog = document.catalog
        # The groups the user had open before the list was narrowed, to go back to after it.
        self._user_expanded: set[str] | None = None

        self.search = QLineEdit()
        self.search.setPlaceholderText("Search parts (id, vendor, model)")
        self.search.setClearButtonEnabled(True)
        self.search.setObjectName("palette-search")
        self.filters = FilterBar(document.catalog, GROUP_TITLES)
        self.empty_hint = QLabel("No part matches. <a href='clear'>Clear search and filters</a>")
        self.empty_hint.setObjectName("palette-empty")
        self.empty_hint.setWordWrap(True)
        self.empty_hint.hide()

        self.model = CatalogModel(document.catalog, self, self._shelves())
        self.proxy = CatalogFilter(self)
        self.proxy.catalog = document.catalog
        self.proxy.setSourceModel(self.model)
        self.view = PartTree(self)
        self._set_up_view()

        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addWidget(self.search)
        layout.addWidget(self.filters)
        layout.addWidget(self.empty_hint)
        layout.addWidget(self.view)
        self.setWidget(body)

        self.search.textChanged.connect(lambda text: self._narrow(lambda: self.proxy.set_search(text)))
        self.search.returnPressed.connect(self._on_search_return)
        self.filters.changed.connect(lambda: self._narrow(lambda: self.proxy.set_part_filter(self.filters.current())))
        self.empty_hint.linkActivated.connect(lambda _link: self.clear_filters())
        self.view.activated.connect(self._on_activated)
        self.view.customContextMenuRequested.connect(self._show_context_menu)
        # The menu key and Shift+F10 open the current part's menu under it, as a right-click does.
        self.view.installEventFilter(self)
        document.reset.connect(self._on_reset)

        self._set_expanded(EXPANDED_BY_DEFAULT | {SHELF_KIND})

    def _set_up_view(self) -> None:
        view = self.view
        view.setObjectName("palette-tree")
        view.setModel(self.proxy)
        view.setItemDelegate(PartDelegate(view))
        view.setHeaderHidden(True)
        view.setAlternatingRowColors(True)
        view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        view.setDragEnabled(True)
        view.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        view.setDefaultDropAction(Qt.DropAction.CopyAction)
        view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        view.setTextElideMode(Qt.TextElideMode.ElideRight)
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)

    # --- queries (for the window and the tests) --------------------------------------

    def visible_part_ids(self) -> list[str]:
        """Ids of the part rows the filter shows, in view order (Favourites and Recent left out)."""
        return [str(index.data(PART_ID_ROLE)) for index in self._kind_rows()]

    def proxy_index_of(self, part_id: str) -> QModelIndex:
        """The view's index of a part row in its kind's group (invalid if filtered out)."""
        return next((index for index in self._kind_rows() if index.data(PART_ID_ROLE) == part_id), QModelIndex())

    def _kind_rows(self) -> list[QModelIndex]:
        rows = []
        for g in range(self.proxy.rowCount()):
            group = self.proxy.index(g, 0)
            if group.data(KIND_ROLE) == SHELF_KIND:
                continue
            rows += [self.proxy.index(r, 0, group) for r in range(self.proxy.rowCount(group))]
        return [index for index in rows if index.data(PART_ID_ROLE)]

    def selected_part_id(self) -> str | None:
        index = self.view.currentIndex()
        part_id = index.data(PART_ID_ROLE) if index.isValid() else None
        return str(part_id) if part_id else None

    def shelf_part_ids(self, title: str) -> list[str]:
        """The part ids the Favourites or Recent group shows, in order (empty when the group is not shown)."""
        for g in range(self.model.rowCount()):
            group = self.model.item(g)
            if group is not None and group.data(KIND_ROLE) == SHELF_KIND and group.text() == title:
                return [str(group.child(r).data(PART_ID_ROLE)) for r in range(group.rowCount())]
        return []

    @property
    def catalog(self) -> Catalog:
        return self._document.catalog

    def is_favourite(self, part_id: str) -> bool:
        return part_id in self.shelf.favourites(self._document.catalog)

    # --- actions ---------------------------------------------------------------------

    def activate(self, part_id: str) -> None:
        """Ask to add the part (double-click, Enter, Add to machine); it becomes the most recent."""
        self.part_activated.emit(part_id)
        self.mark_used(part_id)

    def mark_used(self, part_id: str) -> None:
        """The part was added or dragged out: first in Recent."""
        self.shelf.used(part_id, self._document.catalog)
        self._refresh_shelves()

    def toggle_favourite(self, part_id: str) -> bool:
        """Add the part to Favourites or take it out; True when it is now a favourite."""
        now = self.shelf.toggle_favourite(part_id)
        self._refresh_shelves()
        return now

    def context_menu_for(self, part_id: str) -> QMenu:
        """Add to machine, Add to (or Remove from) favourites, Properties."""
        menu = QMenu(self)
        menu.addAction("Add to machine", lambda: self.activate(part_id))
        favourite = "Remove from favourites" if self.is_favourite(part_id) else "Add to favourites"
        menu.addAction(favourite, lambda: self.toggle_favourite(part_id))
        menu.addSeparator()
        # Named as on the board's, the rack's and the diagram's menus, which open the same window.
        menu.addAction("Properties…", lambda: self.show_properties(part_id))
        return menu

    def show_properties(self, part_id: str) -> QDialog:
        """A non-modal window with the part's specification and sources (raised if already open)."""
        from rackplanner.gui.dialogs.properties import PropertiesDialog

        name = f"properties-{part_id}"
        for open_dialog in self.findChildren(PropertiesDialog, name):
            if open_dialog.isVisible():
                open_dialog.raise_()
                open_dialog.activateWindow()
                return open_dialog
        dialog = PropertiesDialog(self._document.catalog, part_id, self)
        dialog.setObjectName(name)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    def clear_filters(self) -> None:
        """Search box and every filter back to empty: the whole catalog shows."""
        self.search.clear()
        self.filters.clear()

    def reveal_part(self, part_id: str) -> bool:
        """Select the part in its kind's group, clearing the search and filters if they hide it."""
        index = self.proxy_index_of(part_id)
        if not index.isValid():
            self.clear_filters()
            index = self.proxy_index_of(part_id)
        if not index.isValid():
            return False
        self.view.scrollTo(index)
        self.view.setCurrentIndex(index)
        return True

    # --- handlers --------------------------------------------------------------------

    def _narrowed(self) -> bool:
        return bool(self.search.text().strip()) or self.proxy.part_filter.active

    def _narrow(self, change: Callable[[], None]) -> None:
        """Apply a search or filter change. While the list is narrowed every group is open, so each
        match shows; once it is not, the groups the user had open come back."""
        was_narrowed = self._narrowed()
        if not was_narrowed:
            self._user_expanded = self._expanded_kinds()
        change()
        if self._narrowed():
            self.view.expandAll()
        elif was_narrowed and self._user_expanded is not None:
            self._set_expanded(self._user_expanded)
            self._user_expanded = None
            current = self.view.currentIndex()
            if current.isValid():
                self.view.scrollTo(current)
        self._update_empty_hint()

    def _update_empty_hint(self) -> None:
        """Say so when nothing matches, and how to get the parts back."""
        empty = self._narrowed() and not self.visible_part_ids()
        if empty:
            # Most parts have no price: the likeliest reason a price filter empties the list.
            unpriced = (
                " Parts without a known price are hidden while a price is set."
                if self.filters.price.currentData()
                else ""
            )
            self.empty_hint.setText(f"No part matches.{unpriced} <a href='clear'>Clear search and filters</a>")
        self.empty_hint.setVisible(empty)

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

    def _show_context_menu(self, pos: QPoint) -> None:
        part_id = self.view.indexAt(pos).data(PART_ID_ROLE)
        if part_id:
            menu = self.context_menu_for(str(part_id))
            menu.exec(self.view.viewport().mapToGlobal(pos))
            menu.deleteLater()  # one menu per right-click: not kept as the dock's child

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.view and event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            shift_f10 = event.key() == Qt.Key.Key_F10 and event.modifiers() == Qt.KeyboardModifier.ShiftModifier
            if event.key() == Qt.Key.Key_Menu or shift_f10:
                index = self.view.currentIndex()
                if index.isValid():
                    self._show_context_menu(self.view.visualRect(index).center())
                return True
        return super().eventFilter(watched, event)

    def _on_reset(self) -> None:
        # The catalog may have been reloaded with the plan.
        if self._document.catalog is not self._shown_catalog:
            self._rebuild()

    # --- helpers ---------------------------------------------------------------------

    def _shelves(self) -> list[tuple[str, list[str]]]:
        catalog = self._document.catalog
        return [(FAVOURITES_TITLE, self.shelf.favourites(catalog)), (RECENT_TITLE, self.shelf.recent(catalog))]

    def _refresh_shelves(self) -> None:
        """Favourites and Recent redrawn in place: the kind groups keep their state and the list its place."""
        index = self.view.currentIndex()
        in_shelf = index.isValid() and index.parent().data(KIND_ROLE) == SHELF_KIND
        shelf = self.proxy.mapToSource(index.parent()).data() if in_shelf else None
        part_id = index.data(PART_ID_ROLE) if index.isValid() else None
        closed = {
            str(self.model.item(g).text())
            for g in range(self.model.rowCount())
            if self.model.item(g).data(KIND_ROLE) == SHELF_KIND
            and not self.view.isExpanded(self.proxy.mapFromSource(self.model.index(g, 0)))
        }
        self.model.set_shelves(self._document.catalog, self._shelves())
        for g in range(self.model.rowCount()):
            group = self.model.item(g)
            if group.data(KIND_ROLE) == SHELF_KIND:
                self.view.setExpanded(self.proxy.mapFromSource(group.index()), group.text() not in closed)
        if shelf is not None and part_id:
            # The row the user was on went with the old shelf: select the part in the new one.
            self._select_in_shelf(str(shelf), str(part_id))

    def _select_in_shelf(self, title: str, part_id: str) -> None:
        for g in range(self.proxy.rowCount()):
            group = self.proxy.index(g, 0)
            if self.proxy.mapToSource(group).data() != title:
                continue
            for r in range(self.proxy.rowCount(group)):
                if self.proxy.index(r, 0, group).data(PART_ID_ROLE) == part_id:
                    self.view.setCurrentIndex(self.proxy.index(r, 0, group))
                    return

    def _rebuild(self) -> None:
        """A new catalog: every row made again, with the groups open as they were."""
        expanded = self._expanded_kinds() | {SHELF_KIND}
        current = self.selected_part_id()
        self.model = CatalogModel(self._document.catalog, self, self._shelves())
        self.proxy.catalog = self._document.catalog
        self.proxy.setSourceModel(self.model)
        self._shown_catalog = self._document.catalog
        self.filters.blockSignals(True)
        self.filters.set_catalog(self._document.catalog)
        self.filters.blockSignals(False)
        self.proxy.set_part_filter(self.filters.current())
        if self._narrowed():
            self.view.expandAll()
        else:
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


class PartTree(QTreeView):
    """The palette's tree: a dragged part shows a picture of itself and becomes a recent part."""

    def __init__(self, dock: PaletteDock) -> None:
        super().__init__()
        self.dock = dock
        # Rows with a figures line are taller; scrolling by item misjudges what is in view
        # with mixed heights (scrollTo then leaves a part below the fold), by pixel does not.
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)

    def drag_for(self, part_id: str) -> QDrag | None:
        """The drag of a part: its id as PART_MIME (as the model gives it) and its picture."""
        part = self.dock.catalog.get(part_id)
        if part is None:
            return None
        drag = QDrag(self)
        drag.setMimeData(part_mime(part.id))
        drag.setPixmap(part_pixmap(part, self.devicePixelRatioF()))
        drag.setHotSpot(DRAG_HOT_SPOT)
        return drag

    def startDrag(self, supportedActions: Qt.DropAction) -> None:
        index = next(iter(self.selectedIndexes()), self.currentIndex())
        part_id = index.data(PART_ID_ROLE) if index.isValid() else None
        drag = self.drag_for(str(part_id)) if part_id else None
        if drag is None:
            return
        # Only a drop that took the part makes it recent; a drag let go elsewhere does not.
        if drag.exec(Qt.DropAction.CopyAction) != Qt.DropAction.IgnoreAction:
            self.dock.mark_used(str(part_id))
