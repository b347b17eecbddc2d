"""File → Import Price List…: the user's prices (CSV: part, price, currency, date, note) into the plan.

The prices are one undoable edit and are saved with the plan; rows for parts the catalog does not
have are named and left out, after the user agrees.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFileDialog, QMessageBox

from rackplanner.core.catalog.prices import read_price_csv
from rackplanner.core.errors import InputError
from rackplanner.core.plan import edits
from rackplanner.core.plan.edits.document import describe_unknown_parts, unknown_parts

if TYPE_CHECKING:
    from rackplanner.gui.main_window import MainWindow

TITLE = "Import price list"


def import_prices(window: MainWindow, path: Path | None = None, today: date | None = None) -> int:
    """Ask for a CSV (unless ``path`` is given) and put its prices in the plan; the count imported."""
    if path is None:
        chosen, _ = QFileDialog.getOpenFileName(window, TITLE, "", "Price lists (*.csv);;All files (*)")
        if not chosen:
            return 0
        path = Path(chosen)
    doc = window.document
    try:
        quotes = read_price_csv(path, today or date.today())
    except InputError as exc:
        QMessageBox.warning(window, TITLE, str(exc))
        return 0
    unknown = unknown_parts(quotes, doc.catalog)
    if unknown:
        shown = describe_unknown_parts(unknown, doc.catalog)
        answer = QMessageBox.question(
            window,
            TITLE,
            f"{path.name}: {len(unknown)} part id(s) are not in the catalog: {shown}.\n\n"
            "Import the other rows and leave these out?",
        )
        if answer != QMessageBox.StandardButton.Yes:
            return 0
        quotes = [q for q in quotes if q.part not in set(unknown)]
    if doc.apply(edits.import_price_list, quotes=quotes, name=path.name, catalog=doc.catalog) is None:
        return 0
    window.show_status(f"Imported {len(quotes)} price{'s' if len(quotes) != 1 else ''} from {path.name}")
    return len(quotes)
