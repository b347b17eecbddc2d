"""The context-menu entries every drawn part shares: Duplicate, Remove, Show in catalog, Properties."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QPoint
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QGraphicsView, QMenu, QWidget

from rackplanner.core.catalog.loading import Catalog
from rackplanner.gui.dialogs.properties import PropertiesDialog


def add_part_entries(
    menu: QMenu,
    owner: QWidget,
    catalog: Catalog,
    part_id: str | None,
    *,
    duplicate: Callable[[], object] | None = None,
    remove: tuple[str, Callable[[], object]] | None = None,
) -> None:
    """Append the shared entries; those that do not apply (no part, nothing to duplicate) are left out."""
    if duplicate is not None:
        menu.addAction("Duplicate", duplicate)
    if remove is not None:
        menu.addAction(remove[0], remove[1])
    if part_id is None or catalog.get(part_id) is None:
        return
    menu.addSeparator()
    menu.addAction("Show in catalog", lambda: show_in_catalog(owner, part_id))
    menu.addAction("Properties…", lambda: show_properties(owner, catalog, part_id))


def menu_point(view: QGraphicsView, event: QContextMenuEvent, kind: type) -> QPoint:
    """Where a context menu is about, in viewport pixels: the mouse, or for the menu key the selected item."""
    if event.reason() != QContextMenuEvent.Reason.Keyboard:
        return event.pos()
    scene = view.scene()
    selected = [item for item in scene.selectedItems() if isinstance(item, kind)] if scene else []
    if selected:
        # The first in reading order: a full-depth device's front block before its rear one.
        first = min(selected, key=lambda item: (item.sceneBoundingRect().top(), item.sceneBoundingRect().left()))
        return view.mapFromScene(first.sceneBoundingRect().center())
    return view.viewport().rect().center()


def show_in_catalog(owner: QWidget, part_id: str) -> None:
    window = owner.window()
    show = getattr(window, "show_in_catalog", None)
    if callable(show):
        show(part_id)


def show_properties(owner: QWidget, catalog: Catalog, part_id: str) -> PropertiesDialog:
    dialog = PropertiesDialog(catalog, part_id, owner.window())
    dialog.show()
    owner.setProperty("last_properties", part_id)
    return dialog
