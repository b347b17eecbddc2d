"""The plan's report as a PDF: cover, bill of materials, racks, machines, power, capacity, findings.

Written with Qt's ``QPdfWriter`` and ``QPainter``: text is real text, drawings are the app's
scenes rendered as vectors. Needs a ``QApplication`` (the scenes are Qt graphics scenes);
``export_report`` in ``rackplanner.report.export`` creates one when run headless.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Literal

from PySide6.QtCore import QBuffer, QIODevice, QMarginsF, QRectF, Qt
from PySide6.QtGui import QColor, QPageSize, QPainter, QPdfWriter, QPen

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.files import write_atomic_with
from rackplanner.core.plan.model import Plan
from rackplanner.report import sections
from rackplanner.report.drawings import Drawings
from rackplanner.report.facts import plan_facts
from rackplanner.report.pages import DPI, FOOTER, MARGIN, MUTED, RULE, Composer, Page, font

PageSizeName = Literal["a4", "letter"]
PAGE_SIZES: dict[str, QPageSize.PageSizeId] = {"a4": QPageSize.PageSizeId.A4, "letter": QPageSize.PageSizeId.Letter}

# (pages done, pages in all, what is being drawn) -> False to cancel.
Progress = Callable[[int, int, str], bool]


class ExportCancelled(Exception):
    """The user cancelled the export; no file is left behind."""


@dataclass
class PdfResult:
    path: Path
    pages: int
    sections: dict[str, int]  # section title -> first page (1-based)


def write_pdf(
    plan: Plan,
    catalog: Catalog,
    path: Path,
    *,
    page_size: PageSizeName = "a4",
    today: date | None = None,
    progress: Progress | None = None,
) -> PdfResult:
    """Lay out and write the report of ``plan`` to ``path``; raises ExportCancelled if ``progress`` says so.

    The PDF is written beside ``path`` and renamed over it when complete: a cancelled or failed
    export leaves whatever was there before.
    """
    done: list[PdfResult] = []

    def write(temp: Path) -> None:
        result = _write_pdf_to(temp, plan, catalog, page_size=page_size, today=today, progress=progress)
        done.append(PdfResult(path=path, pages=result.pages, sections=result.sections))

    write_atomic_with(path, write)
    return done[0]


def _write_pdf_to(
    path: Path,
    plan: Plan,
    catalog: Catalog,
    *,
    page_size: PageSizeName,
    today: date | None,
    progress: Progress | None,
) -> PdfResult:
    when = today or date.today()
    # Qt's PDF engine does not report a failed write (a full disk left a truncated file that
    # was renamed over a good one): the document is made in memory and written by Python,
    # which raises on any short write.
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setResolution(DPI)
    writer.setPageSize(QPageSize(PAGE_SIZES[page_size]))
    writer.setPageMargins(QMarginsF(0, 0, 0, 0))
    writer.setTitle(f"Bill of materials: {plan.name}")
    writer.setCreator("rackplanner")
    size = QPageSize(PAGE_SIZES[page_size]).sizePixels(DPI)
    facts = plan_facts(plan, catalog)
    drawings = Drawings(plan, catalog)
    composer = Composer(size.width(), size.height(), writer)
    try:
        sections.compose(composer, facts, drawings, when)
        pages = composer.pages
        painter = QPainter()
        if not painter.begin(writer):
            raise OSError(f"cannot write the PDF at {path}")
        cancelled = False
        try:
            for index, page in enumerate(pages):
                if progress is not None and not progress(index, len(pages), page.section):
                    cancelled = True
                    break
                if index:
                    writer.newPage()
                for op in page.ops:
                    op(painter)
                _footer(painter, composer, page, index, len(pages), plan.name, when)
        finally:
            painter.end()
        if cancelled:
            raise ExportCancelled(str(path))
        data = bytes(buffer.data().data())
        if not data.startswith(b"%PDF") or b"%%EOF" not in data[-1024:]:
            raise OSError(f"the PDF engine made no whole document ({len(data):,} bytes)")
        with path.open("wb") as handle:
            handle.write(data)
        if progress is not None:
            progress(len(pages), len(pages), "done")
    finally:
        drawings.close()
        buffer.close()
    return PdfResult(path=path, pages=len(pages), sections={name: i + 1 for name, i in composer.section_pages.items()})


def _footer(painter: QPainter, composer: Composer, page: Page, index: int, count: int, name: str, when: date) -> None:
    y = composer.height - MARGIN - FOOTER + 12
    left, right = composer.left, composer.right
    painter.setPen(QPen(RULE, 0.6))
    painter.drawLine(left, y, right, y)  # type: ignore[call-overload]
    painter.setFont(font(7.5))
    painter.setPen(QPen(MUTED))
    label = f"{name}  ·  {page.section}  ·  {when.isoformat()}" if page.section else name
    rect = QRectF(left, y + 4, right - left, 16)
    metrics = composer.metrics(font(7.5))
    number = f"Page {index + 1} of {count}"
    room = rect.width() - metrics.horizontalAdvance(number) - 20
    painter.drawText(
        rect, int(Qt.AlignmentFlag.AlignLeft), metrics.elidedText(label, Qt.TextElideMode.ElideRight, room)
    )
    painter.setPen(QPen(QColor("#1d2330")))
    painter.drawText(rect, int(Qt.AlignmentFlag.AlignRight), number)
