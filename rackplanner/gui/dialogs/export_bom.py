"""File → Export BOM…: the plan's PDF report and the CSV of its lines, then open the PDF."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox, QProgressDialog

from rackplanner.core.errors import OutputError
from rackplanner.report.export import ExportResult, export_report
from rackplanner.report.pdf import ExportCancelled, PageSizeName

if TYPE_CHECKING:
    from rackplanner.gui.main_window import MainWindow

PDF_FILTER = "PDF report (*.pdf)"
# Plans with more racks or machine configurations than this show a progress dialog.
PROGRESS_FROM_PAGES = 12


def default_pdf_path(window: MainWindow) -> Path:
    doc = window.document
    if doc.path is not None:
        return doc.path.with_name(f"{doc.path.stem}-bom.pdf")
    return Path.home() / f"{doc.plan.name}-bom.pdf"


def run_export(
    window: MainWindow, pdf: Path, *, page_size: PageSizeName = "a4", open_result: bool = True
) -> ExportResult | None:
    """Write ``pdf`` and the CSV beside it with a cancellable progress dialog; None if cancelled or failed."""
    doc = window.document
    csv = pdf.with_suffix(".csv")
    dialog = QProgressDialog("Writing the bill of materials…", "Cancel", 0, 0, window)
    dialog.setWindowTitle("Export BOM")
    dialog.setMinimumDuration(400)
    dialog.setAutoClose(False)
    expected = len(doc.plan.racks) + len(doc.plan.machines) + 6
    if expected < PROGRESS_FROM_PAGES:
        dialog.setMinimumDuration(60_000)

    def progress(done: int, total: int, section: str) -> bool:
        dialog.setMaximum(total)
        dialog.setValue(done)
        dialog.setLabelText(f"Page {min(done + 1, total)} of {total}: {section}")
        QApplication.processEvents()
        return not dialog.wasCanceled()

    try:
        result = export_report(doc.plan, doc.catalog, pdf=pdf, csv=csv, page_size=page_size, progress=progress)
    except ExportCancelled:
        window.show_status("Export cancelled: nothing was written")
        return None
    except (OutputError, OSError) as exc:
        QMessageBox.warning(window, "Export BOM", str(exc))
        return None
    finally:
        dialog.close()
        dialog.deleteLater()
    pages = result.pdf.pages if result.pdf else 0
    window.show_status(f"Wrote {pdf.name} ({pages} pages) and {csv.name}")
    if open_result:
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(pdf)))
    return result


def export_bom(window: MainWindow) -> ExportResult | None:
    """Ask where to save the PDF (the CSV goes beside it), write both and open the PDF."""
    name, _ = QFileDialog.getSaveFileName(window, "Export bill of materials", str(default_pdf_path(window)), PDF_FILTER)
    if not name:
        return None
    path = Path(name)
    if path.suffix.lower() != ".pdf":
        path = path.with_suffix(".pdf")
    return run_export(window, path)
