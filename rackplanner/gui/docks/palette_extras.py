"""The catalog palette's helpers: the filter bar (kind, vendor, GPU memory, price) and the favourite
and recent parts kept per user."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from PySide6.QtCore import QSettings, QSize, Qt, Signal
from PySide6.QtGui import QPaintEvent, QPalette
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QStyle, QStyleOptionComboBox, QStylePainter, QWidget

from rackplanner.core.catalog.loading import Catalog
from rackplanner.core.catalog.parts import Gpu, Part

MEMORY_STEPS_GB = (16, 24, 32, 48, 80)
PRICE_STEPS_USD = (500, 1_000, 2_000, 5_000, 10_000, 30_000)
RECENT_KEPT = 8
# Kinds the memory filter applies to (None: all kinds, where it keeps GPUs only).
MEMORY_KINDS = (None, "gpu")
# The short text a combo box shows for an item, where the list's text is longer.
SHORT_TEXT_ROLE = Qt.ItemDataRole.UserRole + 1
FAVOURITES_KEY = "palette/favourites"
RECENT_KEY = "palette/recent"

MEMORY_TIP = "Only GPUs with at least this much memory"
MEMORY_OFF_TIP = "Memory applies to GPUs: choose All kinds or GPUs to use it"
PRICE_TIP = "Only parts at or under this price.\nParts without a known price are shown only while no maximum is set."


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


class CompactCombo(QComboBox):
    """A narrow combo box: shows its item's short text, elided, in the link colour while it filters.

    Four of them share a row of a 300 px dock, so the list says "All kinds" but the box "Kind".
    """

    def add(self, text: str, data: object, short: str | None = None) -> None:
        self.addItem(text, data)
        self.setItemData(self.count() - 1, short or text, SHORT_TEXT_ROLE)

    def minimumSizeHint(self) -> QSize:
        return QSize(44, super().minimumSizeHint().height())

    def sizeHint(self) -> QSize:
        return QSize(70, super().sizeHint().height())

    def fit_popup(self) -> None:
        """The drop-down list as wide as its longest entry, however narrow the box."""
        self.view().setMinimumWidth(self.view().sizeHintForColumn(0) + 24)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        field = self.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox, option, QStyle.SubControl.SC_ComboBoxEditField, self
        )
        if self.currentIndex() > 0 and self.isEnabled():
            # A filter in force is told by colour: bold would leave too little room for its value.
            option.palette.setColor(QPalette.ColorRole.ButtonText, self.palette().color(QPalette.ColorRole.Link))
        short = self.itemData(self.currentIndex(), SHORT_TEXT_ROLE) if self.currentIndex() >= 0 else ""
        option.currentText = self.fontMetrics().elidedText(
            str(short or self.currentText()), Qt.TextElideMode.ElideRight, max(0, field.width() - 2)
        )
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)


def _usd(value: int) -> str:
    """'$500', '$2k', '$30k': short enough for the narrow box."""
    return f"${value // 1000}k" if value >= 1000 and value % 1000 == 0 else f"${value:,}"


class FilterBar(QWidget):
    """Four small combo boxes in a row: kind, vendor, minimum GPU memory, maximum price."""

    changed = Signal()

    def __init__(self, catalog: Catalog, titles: Mapping[str, str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("palette-filters")
        self.catalog = catalog
        self.titles = dict(titles)
        self.kind = CompactCombo()
        self.kind.setToolTip("Only parts of this kind")
        self.vendor = CompactCombo()
        self.vendor.setToolTip("Only this vendor's parts (the vendors of the chosen kind)")
        self.memory = CompactCombo()
        self.memory.add("Any GPU memory", None, "VRAM")
        for gb in MEMORY_STEPS_GB:
            self.memory.add(f"At least {gb} GB", float(gb), f"≥{gb}GB")
        self.memory.setToolTip(MEMORY_TIP)
        self.price = CompactCombo()
        self.price.add("Any price", None, "Price")
        for usd in PRICE_STEPS_USD:
            self.price.add(f"Up to ${usd:,}", float(usd), f"≤{_usd(usd)}")
        self.price.setToolTip(PRICE_TIP)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(3)
        for combo, name in (
            (self.kind, "Kind"),
            (self.vendor, "Vendor"),
            (self.memory, "Memory"),
            (self.price, "Price"),
        ):
            combo.setAccessibleName(f"{name} filter")
            layout.addWidget(combo, 1)
            combo.currentIndexChanged.connect(self._changed)
        self.set_catalog(catalog)
        self.memory.fit_popup()
        self.price.fit_popup()

    def set_catalog(self, catalog: Catalog) -> None:
        """Kinds and vendors of this catalog; the choices still offered are kept."""
        self.catalog = catalog
        chosen = self.kind.currentData()
        kinds = {p.kind for p in catalog}
        self.kind.blockSignals(True)
        self.kind.clear()
        self.kind.add("All kinds", None, "Kind")
        for kind in [k for k in self.titles if k in kinds] + sorted(kinds - set(self.titles)):
            self.kind.add(self.titles.get(kind, kind), kind)
        self.kind.setCurrentIndex(max(0, self.kind.findData(chosen)))
        self.kind.blockSignals(False)
        self.kind.fit_popup()
        self._kind_chosen()

    def _kind_chosen(self) -> None:
        """Vendors of the chosen kind; the memory filter only where the kind has memory to filter by."""
        kind = self.kind.currentData()
        chosen = self.vendor.currentData()
        vendors = sorted({p.vendor for p in self.catalog if kind is None or p.kind == kind}, key=str.lower)
        self.vendor.blockSignals(True)
        self.vendor.clear()
        self.vendor.add("All vendors", None, "Vendor")
        for vendor in vendors:
            self.vendor.add(vendor, vendor)
        self.vendor.setCurrentIndex(max(0, self.vendor.findData(chosen)))
        self.vendor.blockSignals(False)
        self.vendor.fit_popup()
        has_memory = kind in MEMORY_KINDS
        if not has_memory:
            # A memory minimum left set would hide every part of a kind without memory.
            self.memory.blockSignals(True)
            self.memory.setCurrentIndex(0)
            self.memory.blockSignals(False)
        self.memory.setEnabled(has_memory)
        self.memory.setToolTip(MEMORY_TIP if has_memory else MEMORY_OFF_TIP)

    def _changed(self) -> None:
        if self.sender() is self.kind:
            self._kind_chosen()
        self.changed.emit()

    def clear(self) -> None:
        """Every filter back to "any"."""
        for combo in (self.kind, self.vendor, self.memory, self.price):
            combo.setCurrentIndex(0)

    def current(self) -> PartFilter:
        return PartFilter(
            self.kind.currentData(), self.vendor.currentData(), self.memory.currentData(), self.price.currentData()
        )


class PartShelf:
    """Favourite and recently used part ids, kept in the user's settings."""

    def __init__(self, settings: QSettings | None = None) -> None:
        self.settings = settings if settings is not None else QSettings()

    def _read(self, key: str) -> list[str]:
        value = self.settings.value(key, [])
        # An ini file gives back a one-item list as a plain string.
        if isinstance(value, str):
            value = [value] if value else []
        return [str(v) for v in value] if isinstance(value, list) else []

    def favourites(self, catalog: Catalog) -> list[str]:
        """Favourite part ids in the order they were added; ids the catalog lacks are left out."""
        return [p for p in self._read(FAVOURITES_KEY) if catalog.get(p) is not None]

    def recent(self, catalog: Catalog) -> list[str]:
        """The last parts used, newest first; ids the catalog lacks are left out."""
        return [p for p in self._read(RECENT_KEY) if catalog.get(p) is not None][:RECENT_KEPT]

    def toggle_favourite(self, part_id: str) -> bool:
        """Add or remove a favourite; True when it is now one."""
        current = self._read(FAVOURITES_KEY)
        now = part_id not in current
        current = [*current, part_id] if now else [p for p in current if p != part_id]
        self.settings.setValue(FAVOURITES_KEY, current)
        return now

    def used(self, part_id: str, catalog: Catalog) -> None:
        """A part was dragged out or added: it goes first in Recent (ids gone from the catalog are dropped)."""
        current = [part_id] + [p for p in self._read(RECENT_KEY) if p != part_id and catalog.get(p) is not None]
        self.settings.setValue(RECENT_KEY, current[:RECENT_KEPT])
