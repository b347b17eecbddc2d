"""The catalog palette's helpers: the filter bar (kind, vendor, memory, price), favourite and recent
parts kept per user, and the picture a dragged part shows under the cursor."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRectF, QSettings, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QWidget

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Gpu, Nic, Part

MEMORY_STEPS_GB = (16, 24, 32, 48, 80, 141)
PRICE_STEPS_USD = (500, 1_000, 2_000, 5_000, 10_000, 30_000)
RECENT_KEPT = 8
KIND_COLOURS = {"gpu": "#4078c8", "nic": "#8a6ec8", "cpu": "#8a8f98", "server": "#3d6fb0", "switch": "#2f9e77"}


@dataclass(frozen=True)
class PartFilter:
    """What the filter bar asks for; ``None`` is "any"."""

    kind: str | None = None
    vendor: str | None = None
    min_memory_gb: float | None = None
    max_price_usd: float | None = None

    def accepts(self, part: Part) -> bool:
        if self.kind is not None and part.kind != self.kind:
            return False
        if self.vendor is not None and part.vendor != self.vendor:
            return False
        if self.min_memory_gb is not None and (not isinstance(part, Gpu) or part.vram_gb < self.min_memory_gb):
            return False
        # A part with no known price cannot be said to be under a maximum: it is left out.
        return self.max_price_usd is None or (part.price_usd is not None and part.price_usd <= self.max_price_usd)

    @property
    def active(self) -> bool:
        return any(v is not None for v in (self.kind, self.vendor, self.min_memory_gb, self.max_price_usd))


class FilterBar(QWidget):
    """Four small combo boxes in a row: kind, vendor, minimum GPU memory, maximum price."""

    changed = Signal()

    def __init__(self, catalog: Catalog, titles: dict[str, str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self.kind = QComboBox()
        self.kind.addItem("Kind", None)
        kinds = {p.kind for p in catalog.parts.values()}
        for kind in [k for k in titles if k in kinds] + sorted(kinds - set(titles)):
            self.kind.addItem(titles.get(kind, kind), kind)
        self.kind.setToolTip("Only parts of this kind")
        self.vendor = QComboBox()
        self.vendor.setToolTip("Only this vendor's parts")
        self.memory = QComboBox()
        self.memory.addItem("Memory", None)
        for gb in MEMORY_STEPS_GB:
            self.memory.addItem(f"≥ {gb} GB", float(gb))
        self.memory.setToolTip("GPUs with at least this much memory (other parts are hidden)")
        self.price = QComboBox()
        self.price.addItem("Price", None)
        for usd in PRICE_STEPS_USD:
            self.price.addItem(f"≤ ${usd:,}", float(usd))
        self.price.setToolTip("Parts at or under this price; parts without a known price are hidden")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(3)
        for combo in (self.kind, self.vendor, self.memory, self.price):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(4)
            layout.addWidget(combo, 1)
            combo.currentIndexChanged.connect(self._changed)
        self._fill_vendors()

    def _fill_vendors(self) -> None:
        kind = self.kind.currentData()
        chosen = self.vendor.currentData()
        vendors = sorted({p.vendor for p in self.catalog.parts.values() if kind is None or p.kind == kind})
        self.vendor.blockSignals(True)
        self.vendor.clear()
        self.vendor.addItem("Vendor", None)
        for vendor in vendors:
            self.vendor.addItem(vendor, vendor)
        index = self.vendor.findData(chosen)
        self.vendor.setCurrentIndex(max(0, index))
        self.vendor.blockSignals(False)

    def _changed(self) -> None:
        if self.sender() is self.kind:
            self._fill_vendors()
        self.changed.emit()

    def current(self) -> PartFilter:
        return PartFilter(
            self.kind.currentData(), self.vendor.currentData(), self.memory.currentData(), self.price.currentData()
        )


class PartShelf:
    """Favourite and recently used part ids, kept in the user's settings."""

    def __init__(self, settings: QSettings | None = None) -> None:
        self.settings = settings or QSettings()

    def _read(self, key: str) -> list[str]:
        value = self.settings.value(key, [])
        if isinstance(value, str):
            value = [value] if value else []
        return [str(v) for v in value] if isinstance(value, list) else []

    def favourites(self, catalog: Catalog) -> list[str]:
        return [p for p in self._read("palette/favourites") if catalog.get(p) is not None]

    def recent(self, catalog: Catalog) -> list[str]:
        return [p for p in self._read("palette/recent") if catalog.get(p) is not None]

    def toggle_favourite(self, part_id: str) -> bool:
        """Add or remove a favourite; True when it is now one."""
        current = self._read("palette/favourites")
        now = part_id not in current
        current = [*current, part_id] if now else [p for p in current if p != part_id]
        self.settings.setValue("palette/favourites", current)
        return now

    def used(self, part_id: str) -> None:
        """A part was dragged out or added: it goes first in Recent."""
        current = [part_id] + [p for p in self._read("palette/recent") if p != part_id]
        self.settings.setValue("palette/recent", current[:RECENT_KEPT])


def part_pixmap(part: Part, ratio: float = 1.0) -> QPixmap:
    """A small picture of the part for the drag cursor: a card to its length and slot width, else a tile."""
    width, height = 170.0, 56.0
    if isinstance(part, (Gpu, Nic)):
        length = (part.length_mm or 267.0) if isinstance(part, Gpu) else (part.length_mm or 168.0)
        slots = (part.slot_width or 2) if isinstance(part, Gpu) else part.slot_width
        width = max(90.0, min(220.0, length * 0.62))
        height = 16.0 + 12.0 * slots
    pixmap = QPixmap(int(width * ratio), int(height * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    colour = QColor(KIND_COLOURS.get(part.kind, "#7d6bb3"))
    colour.setAlpha(225)
    body = QRectF(6, 1, width - 7, height - 2)
    painter.setPen(QPen(QColor("#10233f"), 1))
    painter.setBrush(QBrush(colour))
    painter.drawRoundedRect(body, 4, 4)
    if isinstance(part, (Gpu, Nic)):
        painter.setBrush(QBrush(QColor("#b8bec7")))
        painter.drawRect(QRectF(1, 0, 5, height))  # the bracket
    painter.setPen(QColor("white"))
    painter.drawText(body.adjusted(6, 2, -4, -2), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, part.model)
    painter.end()
    return pixmap
