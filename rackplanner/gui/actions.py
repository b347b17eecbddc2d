"""The window's menus and toolbar, declared once as data and built from it.

Each action names the window method it calls; menus and the toolbar list actions by name. Undo
and Redo come from the document's undo stack; on the toolbar they keep a fixed label.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QHelpEvent, QIcon, QKeySequence, QUndoStack
from PySide6.QtWidgets import QMenu, QStyle, QToolBar, QToolTip, QWidget

if TYPE_CHECKING:
    from rackplanner.gui.main_window import MainWindow

Shortcut = QKeySequence.StandardKey | str | None


@dataclass(frozen=True)
class ActionSpec:
    """One menu or toolbar command: the window gets it as ``<name>_action``."""

    name: str
    text: str
    slot: Callable[[MainWindow], object]
    shortcut: Shortcut = None
    tip: str = ""
    icon: QStyle.StandardPixmap | None = None


KEYS = QKeySequence.StandardKey
PIXMAPS = QStyle.StandardPixmap

ACTIONS = (
    ActionSpec("new", "&New", lambda w: w.new_plan(), KEYS.New, "Start an empty plan", PIXMAPS.SP_FileIcon),
    ActionSpec("open", "&Open…", lambda w: w.open_dialog(), KEYS.Open, icon=PIXMAPS.SP_DialogOpenButton),
    ActionSpec("save", "&Save", lambda w: w.save(), KEYS.Save, icon=PIXMAPS.SP_DialogSaveButton),
    ActionSpec("save_as", "Save &As…", lambda w: w.save_as(), KEYS.SaveAs),
    ActionSpec(
        "export_bom", "&Export BOM…", lambda w: w.export_bom(), tip="Bill of materials as a PDF report and a CSV"
    ),
    ActionSpec(
        "import_prices",
        "Import &Price List…",
        lambda w: w.import_prices(),
        tip="Your prices (CSV: part, price, currency, date, note), kept with the plan; they replace the catalog's",
    ),
    ActionSpec(
        "export_elevation",
        "Export E&levation…",
        lambda w: w.export_elevation(),
        tip="The current rack's elevation, front and rear, as SVG or PNG",
    ),
    ActionSpec(
        "export_image",
        "Export &Image…",
        lambda w: w.export_image("centre"),
        "Ctrl+Shift+E",
        "The board or rack row in the centre as a PNG or SVG picture",
    ),
    ActionSpec(
        "export_diagram_image",
        "Export Diagram Ima&ge…",
        lambda w: w.export_image("diagram"),
        tip="The block diagram as a PNG or SVG picture",
    ),
    ActionSpec("quit", "&Quit", lambda w: w.close(), KEYS.Quit),
    ActionSpec(
        "copy_image",
        "&Copy Image",
        lambda w: w.copy_image("centre"),
        "Ctrl+Shift+C",
        "The board or rack row in the centre, as a picture to paste",
    ),
    ActionSpec(
        "copy_diagram_image",
        "Copy Diagram I&mage",
        lambda w: w.copy_image("diagram"),
        tip="The block diagram, as a picture to paste",
    ),
    ActionSpec("delete", "&Delete", lambda w: w.delete_selected(), KEYS.Delete),
    ActionSpec("add_rack", "&Add Rack…", lambda w: w.add_rack(), "Ctrl+Shift+R", "Add a rack to the row"),
    ActionSpec("add_feed", "Add &Feed…", lambda w: w.add_feed(), tip="Add a facility circuit for PDUs"),
    ActionSpec("fit", "&Fit to View", lambda w: w.fit_view(), "Ctrl+0", icon=PIXMAPS.SP_TitleBarMaxButton),
    ActionSpec("zoom_in", "Zoom &In", lambda w: w.zoom_view(1.25), KEYS.ZoomIn),
    ActionSpec("zoom_out", "Zoom &Out", lambda w: w.zoom_view(0.8), KEYS.ZoomOut),
    ActionSpec("guide", "rackplanner &Guide", lambda w: w.show_help("guide"), KEYS.HelpContents),
    ActionSpec("shortcuts", "&Keyboard Shortcuts", lambda w: w.show_help("shortcuts"), "Ctrl+/"),
    ActionSpec("about", "&About rackplanner", lambda w: w.show_help("about")),
    ActionSpec(
        "new_board", "New &Board…", lambda w: w.edit_board(None), tip="A board the catalog lacks, with a live drawing"
    ),
    ActionSpec(
        "copy_board",
        "&Edit Board as New…",
        lambda w: w.edit_board("current"),
        tip="A copy of the current machine's board to change and save under a new id",
    ),
    ActionSpec(
        "new_server", "New &Server…", lambda w: w.edit_server(None), tip="A GPU server from a board, chassis and PSUs"
    ),
    ActionSpec(
        "copy_server",
        "Edit Ser&ver as New…",
        lambda w: w.edit_server("current"),
        tip="A copy of the current machine's server to change and save under a new id",
    ),
    ActionSpec(
        "advise",
        "&Advise a Build…",
        lambda w: w.advise(),
        "Ctrl+Shift+A",
        "Ranked, checked builds for a model, a speed, a budget and a circuit; apply one as a new machine",
    ),
    ActionSpec("reset_layout", "&Reset Layout", lambda w: w.reset_layout(), tip="Every dock back where it first opens"),
)

# Menus by title: action names, "-" for a separator, "@recent" for the Open Recent submenu.
MENUS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "&File",
        (
            "new",
            "open",
            "@recent",
            "-",
            "save",
            "save_as",
            "-",
            "import_prices",
            "export_bom",
            "export_elevation",
            "export_image",
            "export_diagram_image",
            "-",
            "quit",
        ),
    ),
    ("&Edit", ("undo", "redo", "-", "copy_image", "copy_diagram_image", "-", "delete")),
    ("&Rack", ("add_rack", "add_feed")),
    ("&Catalog", ("new_board", "copy_board", "-", "new_server", "copy_server")),
    ("&Tools", ("advise",)),
    ("&View", ("fit", "zoom_in", "zoom_out", "-")),
    ("&Help", ("guide", "shortcuts", "-", "about")),
)
TOOLBAR = ("new", "open", "save", "-", "@undo-buttons", "-", "fit")


def build_actions(window: MainWindow, stack: QUndoStack) -> dict[str, QAction]:
    """Every action of ``ACTIONS`` plus the stack's Undo and Redo, set on the window as ``<name>_action``."""
    style = window.style()
    actions: dict[str, QAction] = {}
    for spec in ACTIONS:
        action = QAction(spec.text, window)
        if spec.shortcut is not None:
            action.setShortcut(QKeySequence(spec.shortcut))
        if spec.tip:
            action.setStatusTip(spec.tip)
        if spec.icon is not None:
            action.setIcon(style.standardIcon(spec.icon))
        action.triggered.connect(lambda _checked=False, slot=spec.slot: slot(window))
        actions[spec.name] = action
    undo = stack.createUndoAction(window, "&Undo")
    undo.setShortcut(KEYS.Undo)
    undo.setIcon(style.standardIcon(PIXMAPS.SP_ArrowBack))
    redo = stack.createRedoAction(window, "&Redo")
    redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence(KEYS.Redo)])
    redo.setIcon(style.standardIcon(PIXMAPS.SP_ArrowForward))
    actions["undo"], actions["redo"] = undo, redo
    for name, action in actions.items():
        setattr(window, f"{name}_action", action)
    return actions


def build_menus(window: MainWindow, actions: dict[str, QAction], recent: QMenu | None = None) -> dict[str, QMenu]:
    """The menu bar from ``MENUS``; returns the menus by title without '&' (and "Open Recent")."""
    menus: dict[str, QMenu] = {}
    for title, entries in MENUS:
        menu = window.menuBar().addMenu(title)
        menus[title.replace("&", "")] = menu
        for entry in entries:
            if entry == "-":
                menu.addSeparator()
            elif entry == "@recent":
                menus["Open Recent"] = menu.addMenu("Open &Recent")
            else:
                menu.addAction(actions[entry])
    return menus


def build_toolbar(window: MainWindow, actions: dict[str, QAction], stack: QUndoStack) -> QToolBar:
    toolbar = window.addToolBar("Main")
    toolbar.setObjectName("main-toolbar")
    toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    for entry in TOOLBAR:
        if entry == "-":
            toolbar.addSeparator()
        elif entry == "@undo-buttons":
            add_undo_buttons(toolbar, stack, actions["undo"], actions["redo"], window)
        else:
            toolbar.addAction(actions[entry])
    return toolbar


class LabelledAction(QAction):
    """A toolbar action with a fixed label whose tooltip says what it would do.

    The tooltip is given when asked for, not set on the action: any change to an action, its
    tooltip included, lays out the toolbar and with it the whole window, on every edit.
    """

    def __init__(self, icon: QIcon, text: str, parent: QObject) -> None:
        super().__init__(icon, text, parent)
        self.description = text

    def describe(self, what: str) -> None:
        self.description = f"{self.text()} {what}".strip()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent) and isinstance(watched, QWidget):
            QToolTip.showText(event.globalPos(), self.description, watched)
            return True
        return False


def add_undo_buttons(toolbar: QToolBar, stack: QUndoStack, undo: QAction, redo: QAction, parent: QObject) -> None:
    """Undo and Redo for the toolbar: a fixed label (what they undo is in the tooltip and the Edit menu).

    The stack's own actions rename themselves after every edit ("Undo Place …"), which would
    resize the toolbar and relayout the whole window on every drop.
    """
    for label, full, trigger, can_changed, text_changed, can in (
        ("Undo", undo, stack.undo, stack.canUndoChanged, stack.undoTextChanged, stack.canUndo),
        ("Redo", redo, stack.redo, stack.canRedoChanged, stack.redoTextChanged, stack.canRedo),
    ):
        action = LabelledAction(full.icon(), label, parent)
        action.triggered.connect(trigger)
        # Bound to the action's own slot, so the connection ends when the window (and action) goes.
        text_changed.connect(action.describe)
        toolbar.addAction(action)
        button = toolbar.widgetForAction(action)
        assert button is not None
        button.installEventFilter(action)
        # The button, not the action, is enabled and disabled: any change to an action lays out
        # the toolbar and the whole window again.
        button.setEnabled(can())
        can_changed.connect(button.setEnabled)
