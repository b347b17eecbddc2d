"""Page composition for the report: text blocks and tables laid out first, painted after.

Layout runs before painting so every page knows the page count ("Page 2 of 9") and the
cover can list where each section starts. A page is a list of paint operations in device
units (pixels at ``DPI``); text is drawn as text, so the PDF stays selectable and searchable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontDatabase, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QGraphicsScene

# The writer's resolution: 96 dpi, the screen's, so scene items whose fonts are given in
# points keep the proportions they have in the app when rendered onto the page.
DPI = 96
MM = DPI / 25.4
MARGIN = 16 * MM
FOOTER = 10 * MM

INK = QColor("#1d2330")
MUTED = QColor("#5b6472")
RULE = QColor("#c9ced6")
BAND = QColor("#eef1f5")
ACCENT = QColor("#27548a")
ERROR = QColor("#b42318")
WARNING = QColor("#a15c07")

Op = Callable[[QPainter], None]
Align = Literal["left", "right", "center"]
_ALIGN = {
    "left": Qt.AlignmentFlag.AlignLeft,
    "right": Qt.AlignmentFlag.AlignRight,
    "center": Qt.AlignmentFlag.AlignHCenter,
}
_WRAP = int(Qt.TextFlag.TextWordWrap)


def base_family() -> str:
    """A sans-serif family the machine has (DejaVu Sans where present)."""
    families = QFontDatabase.families()
    for name in ("DejaVu Sans", "Liberation Sans", "Arial", "Helvetica"):
        if name in families:
            return name
    return QFont().family()


def font(points: float, *, bold: bool = False, family: str | None = None) -> QFont:
    f = QFont(family or base_family())
    f.setPointSizeF(points)
    f.setBold(bold)
    # No "fi"/"fl" ligatures: the PDF's text then reads and searches as the letters typed.
    f.setFeature(QFont.Tag("liga"), 0)
    return f


@dataclass
class Page:
    ops: list[Op] = field(default_factory=list)
    section: str = ""


@dataclass
class Column:
    title: str
    width: float  # a share of the table's width
    align: Align = "left"


@dataclass
class Row:
    cells: Sequence[str]
    kind: Literal["line", "band", "subtotal", "total"] = "line"
    colors: dict[int, QColor] = field(default_factory=dict)
    subs: dict[int, str] = field(default_factory=dict)  # smaller grey text under a cell


class Composer:
    """Places blocks top to bottom on pages of ``size`` (device units), opening pages as needed."""

    def __init__(self, width: float, height: float, device: object) -> None:
        self.width = width
        self.height = height
        self.device = device
        self.pages: list[Page] = []
        self.left = MARGIN
        self.right = width - MARGIN
        self.top = MARGIN
        self.bottom = height - MARGIN - FOOTER
        self.y = self.top
        self.section = ""
        self.section_pages: dict[str, int] = {}
        self._continued: Callable[[], None] | None = None
        self._heights: dict[tuple[str, str, float], float] = {}

    @property
    def content_width(self) -> float:
        return self.right - self.left

    @property
    def room(self) -> float:
        return self.bottom - self.y

    def metrics(self, f: QFont) -> QFontMetricsF:
        return QFontMetricsF(f, self.device)  # type: ignore[call-overload]

    # --- pages -----------------------------------------------------------------------

    def new_page(self, section: str | None = None) -> Page:
        if section is not None:
            self.section = section
            self.section_pages.setdefault(section, len(self.pages))
        page = Page(section=self.section)
        self.pages.append(page)
        self.y = self.top
        return page

    @property
    def page(self) -> Page:
        if not self.pages:
            return self.new_page()
        return self.pages[-1]

    def ensure(self, height: float) -> None:
        """Start a new page unless ``height`` fits below the current position."""
        if self.y + height > self.bottom and self.y > self.top:
            self.new_page()
            if self._continued is not None:
                self._continued()

    def draw(self, op: Op) -> None:
        self.page.ops.append(op)

    # --- text ------------------------------------------------------------------------

    def text_height(self, text: str, f: QFont, width: float) -> float:
        key = (text, f.key(), round(width, 2))
        height = self._heights.get(key)
        if height is None:
            height = self.metrics(f).boundingRect(QRectF(0, 0, width, 1e6), _WRAP, text).height()
            self._heights[key] = height
        return height

    def heading(self, text: str, points: float = 15, *, color: QColor = ACCENT, space_after: float = 6) -> None:
        f = font(points, bold=True)
        h = self.text_height(text, f, self.content_width)
        self.ensure(h + 40)
        self.text_at(self.left, self.y, self.content_width, text, f, color)
        self.y += h + space_after

    def paragraph(self, text: str, points: float = 9, *, color: QColor = INK, space_after: float = 6) -> None:
        f = font(points)
        h = self.text_height(text, f, self.content_width)
        self.ensure(h)
        self.text_at(self.left, self.y, self.content_width, text, f, color)
        self.y += h + space_after

    def text_at(
        self, x: float, y: float, width: float, text: str, f: QFont, color: QColor = INK, align: Align = "left"
    ) -> float:
        """Draw wrapped text with its top-left at (x, y); returns its height."""
        h = self.text_height(text, f, width)
        rect = QRectF(x, y, width, h + 2)
        flags = int(_ALIGN[align]) | _WRAP | int(Qt.AlignmentFlag.AlignTop)

        def op(p: QPainter) -> None:
            p.setFont(f)
            p.setPen(QPen(color))
            p.drawText(rect, flags, text)

        self.draw(op)
        return h

    def rule(self, color: QColor = RULE, width: float = 0.8) -> None:
        y, left, right = self.y, self.left, self.right

        def op(p: QPainter) -> None:
            p.setPen(QPen(color, width))
            p.drawLine(left, y, right, y)  # type: ignore[call-overload]

        self.draw(op)

    def space(self, height: float) -> None:
        self.y += height

    # --- drawings ----------------------------------------------------------------------

    def scene(self, scene: QGraphicsScene, source: QRectF, height: float) -> QRectF:
        """Render ``source`` of ``scene`` into the next ``height`` (full width), scaled to fit, as vectors."""
        self.ensure(height)
        scale = min(self.content_width / source.width(), height / source.height())
        w, h = source.width() * scale, source.height() * scale
        target = QRectF(self.left + (self.content_width - w) / 2, self.y, w, h)

        def op(p: QPainter) -> None:
            p.save()
            p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            p.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
            scene.render(p, target, source, Qt.AspectRatioMode.KeepAspectRatio)
            p.restore()

        self.draw(op)
        self.y += h
        return target

    # --- tables ----------------------------------------------------------------------

    def table(self, columns: list[Column], rows: list[Row], *, points: float = 7.5, caption: str = "") -> None:
        """A table whose header row repeats at the top of every page it runs onto."""
        normal, bold, small = font(points), font(points, bold=True), font(points - 1)
        share = sum(c.width for c in columns)
        widths = [c.width / share * self.content_width for c in columns]
        pad = 3.0

        def header() -> None:
            if caption:
                self.text_at(self.left, self.y, self.content_width, caption, font(9, bold=True), MUTED)
                self.y += self.text_height(caption, font(9, bold=True), self.content_width) + 3
            h = (
                max(self.text_height(c.title, bold, w - 2 * pad) for c, w in zip(columns, widths, strict=True))
                + 2 * pad
            )
            self._band(self.y, h, ACCENT)
            x = self.left
            for col, w in zip(columns, widths, strict=True):
                self.text_at(x + pad, self.y + pad, w - 2 * pad, col.title, bold, QColor("white"), col.align)
                x += w
            self.y += h

        saved = self._continued
        self.ensure(60)
        header()
        self._continued = header
        try:
            for row in rows:
                self._table_row(row, columns, widths, normal, bold, small, pad)
        finally:
            self._continued = saved
        self.y += 8

    def _table_row(
        self,
        row: Row,
        columns: list[Column],
        widths: list[float],
        normal: QFont,
        bold: QFont,
        small: QFont,
        pad: float,
    ) -> None:
        f = normal if row.kind == "line" else bold
        if row.kind == "band":
            text = row.cells[0]
            h = self.text_height(text, f, self.content_width - 2 * pad) + 2 * pad
            self.ensure(h + 14)  # keep a group's title with its first line
            self._band(self.y, h, BAND)
            self.text_at(self.left + pad, self.y + pad, self.content_width - 2 * pad, text, f, INK)
            self.y += h
            return
        heights = []
        for i, (cell, w) in enumerate(zip(row.cells, widths, strict=True)):
            h = self.text_height(cell, f, w - 2 * pad) if cell else 0.0
            if i in row.subs:
                h += self.text_height(row.subs[i], small, w - 2 * pad) + 1
            heights.append(h)
        h = max(heights) + 2 * pad
        self.ensure(h)
        if row.kind == "total":
            self._band(self.y, h, BAND)
        x = self.left
        for i, (cell, col, w) in enumerate(zip(row.cells, columns, widths, strict=True)):
            color = row.colors.get(i, INK)
            used = self.text_at(x + pad, self.y + pad, w - 2 * pad, cell, f, color, col.align) if cell else 0.0
            if i in row.subs:
                self.text_at(x + pad, self.y + pad + used + 1, w - 2 * pad, row.subs[i], small, MUTED, col.align)
            x += w
        self.y += h
        y, left, right = self.y, self.left, self.right
        heavy = row.kind in ("subtotal", "total")

        def line(p: QPainter) -> None:
            p.setPen(QPen(INK if heavy else RULE, 0.8 if heavy else 0.5))
            p.drawLine(left, y, right, y)  # type: ignore[call-overload]

        self.draw(line)

    def _band(self, y: float, h: float, color: QColor) -> None:
        rect = QRectF(self.left, y, self.content_width, h)

        def op(p: QPainter) -> None:
            p.fillRect(rect, color)

        self.draw(op)
