"""Export a plan's bill of materials (PDF report and CSV), from the command line or the app."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from rackplanner.core.analysis import analyse
from rackplanner.core.bom import write_bom_csv
from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.plan.model import Plan
from rackplanner.report.pdf import PageSizeName, PdfResult, Progress, write_pdf


@dataclass
class ExportResult:
    pdf: PdfResult | None
    csv: Path | None


def ensure_application() -> None:
    """A QApplication for the drawings' scenes; offscreen when there is no display."""
    from PySide6.QtWidgets import QApplication

    if QApplication.instance() is not None:
        return
    chosen = os.environ.get("QT_QPA_PLATFORM")
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY") and not chosen:
        # No screen and no platform chosen (an empty value counts as none): draw offscreen.
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    QApplication(["rackplanner"])


def export_report(
    plan: Plan,
    catalog: Catalog,
    *,
    pdf: Path | None = None,
    csv: Path | None = None,
    page_size: PageSizeName = "a4",
    today: date | None = None,
    progress: Progress | None = None,
) -> ExportResult:
    """Write the PDF report and/or the CSV of the BOM lines.

    The PDF first: cancelled or failed, it leaves both files as they were.
    """
    result = None
    if pdf is not None:
        ensure_application()
        result = write_pdf(plan, catalog, pdf, page_size=page_size, today=today, progress=progress)
    csv_path = write_bom_csv(analyse(plan, catalog).bom(), csv) if csv is not None else None
    return ExportResult(pdf=result, csv=csv_path)
