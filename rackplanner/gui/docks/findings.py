"""The findings dock: errors, warnings and notes about the current machine (and racks), most severe first.

Selecting a machine finding selects the slots it concerns, so the canvas shows them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rackplanner.core.findings import SEVERITY_ORDER, FindingSummary, RackFinding
from rackplanner.core.machine.fit import Finding
from rackplanner.gui.document import ChangeSet, PlanDocument

SEVERITIES = ("error", "warning", "info")
_NOUN = {"error": ("error", "errors"), "warning": ("warning", "warnings"), "info": ("note", "notes")}
_ICON = {
    "error": QStyle.StandardPixmap.SP_MessageBoxCritical,
    "warning": QStyle.StandardPixmap.SP_MessageBoxWarning,
    "info": QStyle.StandardPixmap.SP_MessageBoxInformation,
}
FINDING_ROLE = Qt.ItemDataRole.UserRole + 1
SEVERITY_ROLE = Qt.ItemDataRole.UserRole + 2
SUMMARY_ROLE = Qt.ItemDataRole.UserRole + 3  # a whole-plan finding (FindingSummary)
PLACE_ROLE = Qt.ItemDataRole.UserRole + 4  # one of its places: ("machine" | "rack", id)


def count_text(severity: str, count: int) -> str:
    singular, plural = _NOUN[severity]
    return f"{count} {singular if count == 1 else plural}"


class _WrapDelegate(QStyledItemDelegate):
    """Rows as tall as their wrapped message at the current column width."""

    def __init__(self, tree: QTreeWidget) -> None:
        super().__init__(tree)
        self.tree = tree
        self._heights: dict[tuple[str, int, bool], int] = {}
        self._base_heights: dict[tuple[bool, bool], int] = {}

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        bold = index.data(Qt.ItemDataRole.FontRole)
        is_bold = isinstance(bold, QFont) and bold.bold()
        shape = (is_bold, index.data(Qt.ItemDataRole.DecorationRole) is not None)
        if shape not in self._base_heights:
            # The one-line height (icon, padding) is the same for every row of a weight, with or without an icon.
            self._base_heights[shape] = super().sizeHint(option, index).height()
        base_height = self._base_heights[shape]
        depth = 0
        parent = index.parent()
        while parent.isValid():
            depth += 1
            parent = parent.parent()
        icon = self.tree.iconSize().width() + 8
        width = self.tree.viewport().width() - self.tree.indentation() * (depth + 1) - icon - 12
        text = str(index.data(Qt.ItemDataRole.DisplayRole) or "")
        key = (text, max(80, width), is_bold)
        if key not in self._heights:
            # Wrapping a message is the costly part of a relayout; the same text at the same width
            # wraps the same way, so it is measured once.
            metrics = QFontMetrics(bold) if isinstance(bold, QFont) else self.tree.fontMetrics()
            rect = metrics.boundingRect(QRect(0, 0, max(80, width), 100_000), Qt.TextFlag.TextWordWrap, text)
            if len(self._heights) > 2000:
                self._heights.clear()
            self._heights[key] = rect.height()
        return QSize(max(80, width), max(base_height, self._heights[key] + 8))


class _FindingsTree(QTreeWidget):
    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        # Re-wrap every row at the new width.
        self.scheduleDelayedItemsLayout()


class FindingsDock(QDockWidget):
    """Findings of the current machine from the fit rules, and rack findings given by the main window."""

    # A rack finding the user selected (the main window may show its rack).
    rack_finding_selected = Signal(object)
    # A place of a whole-plan finding the user selected: ("machine" | "rack", id).
    place_selected = Signal(str, str)

    def __init__(self, document: PlanDocument, parent: QWidget | None = None) -> None:
        super().__init__("Findings", parent)
        self.setObjectName("findingsDock")
        self.document = document
        self.findings: list[Finding] = []
        self.rack_findings: list[RackFinding] = []
        self.counts: Counter[str] = Counter()

        body = QWidget(self)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        header = QHBoxLayout()
        header.setSpacing(4)
        self.icons = {sev: self.style().standardIcon(_ICON[sev]) for sev in SEVERITIES}
        self.count_labels: dict[str, QLabel] = {}
        for sev in SEVERITIES:
            icon = QLabel(body)
            icon.setPixmap(self.icons[sev].pixmap(16, 16))
            label = QLabel(body)
            # Room for "999 warnings" from the start: a count that grows would otherwise lay out the
            # dock, and with it the window's docks, again.
            metrics = label.fontMetrics()
            label.setFixedSize(metrics.horizontalAdvance(count_text(sev, 999)) + 4, metrics.height() + 2)
            header.addWidget(icon)
            header.addWidget(label)
            header.addSpacing(8)
            self.count_labels[sev] = label
        header.addStretch(1)
        layout.addLayout(header)

        self.tree = _FindingsTree(body)
        # Rows wrap to the width: a scroll bar that came and went with the count would re-wrap them all.
        self.tree.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.tree.setHeaderHidden(True)
        self.tree.setColumnCount(1)
        self.tree.setWordWrap(True)
        self.tree.setUniformRowHeights(False)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.tree.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.tree.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setItemDelegate(_WrapDelegate(self.tree))
        self.tree.itemSelectionChanged.connect(self._selection_changed)
        layout.addWidget(self.tree, 1)
        self.setWidget(body)

        self.machine_group = QTreeWidgetItem(self.tree, ["This machine"])
        self.rack_group = QTreeWidgetItem(self.tree, ["Racks"])
        for group in (self.machine_group, self.rack_group):
            font = group.font(0)
            font.setBold(True)
            group.setFont(0, font)
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
        self.rack_group.setHidden(True)
        # Every machine and rack of the plan, each distinct finding once with its places under it;
        # worked out only while the group is open (a plan of hundreds of servers).
        self.plan_group = QTreeWidgetItem(self.tree, ["Whole plan (open to review every machine and rack)"])
        font = self.plan_group.font(0)
        font.setBold(True)
        self.plan_group.setFont(0, font)
        self.plan_group.setFlags(Qt.ItemFlag.ItemIsEnabled)
        self.plan_group.setChildIndicatorPolicy(QTreeWidgetItem.ChildIndicatorPolicy.ShowIndicator)
        self.plan_summaries: list[FindingSummary] = []
        self.tree.itemExpanded.connect(self._expanded)

        document.changed.connect(self._on_changed)
        document.current_machine_changed.connect(lambda _machine: self.refresh())
        document.reset.connect(self.refresh)
        document.selection_changed.connect(self._mark_selected)
        self.refresh()

    def sizeHint(self) -> QSize:
        return QSize(360, 220)

    # --- contents ----------------------------------------------------------------------

    def _on_changed(self, change: ChangeSet) -> None:
        current = self.document.current_machine
        if not current or not change.machines or current in change.machines:
            self.refresh()
        if self.plan_group.isExpanded():
            self.review_plan()

    def _expanded(self, item: QTreeWidgetItem) -> None:
        if item is self.plan_group:
            self.review_plan()

    def review_plan(self) -> None:
        """Fill the whole-plan group: each distinct finding once, with a count and its places as child rows."""
        summaries = self.document.analysis.findings_by_place()
        if summaries == self.plan_summaries and self.plan_group.childCount():
            return
        self.plan_summaries = summaries
        self.tree.blockSignals(True)
        self.plan_group.takeChildren()
        for entry in summaries:
            places = len(entry.where)
            text = entry.message if places == 1 else f"{entry.message} ({places} places)"
            row = QTreeWidgetItem(self.plan_group, [text])
            row.setIcon(0, self.icons[entry.severity])
            row.setData(0, SEVERITY_ROLE, entry.severity)
            row.setData(0, SUMMARY_ROLE, entry)
            row.setToolTip(0, f"{entry.severity.capitalize()} ({entry.code})\n{entry.where_text}")
            for place in entry.where:
                kind, _, place_id = place.partition(":")
                child = QTreeWidgetItem(row, [place_label(self.document, kind, place_id)])
                child.setData(0, PLACE_ROLE, (kind, place_id))
                child.setToolTip(0, "Click to show it")
        if not summaries:
            QTreeWidgetItem(self.plan_group, ["Nothing to report anywhere in the plan."])
        self.tree.blockSignals(False)

    def refresh(self) -> None:
        """Recheck the current machine."""
        doc = self.document
        machine = doc.plan.machine(doc.current_machine) if doc.current_machine else None
        if machine is None:
            self.findings = []
            self.machine_group.setText(0, "No machine")
        else:
            findings = doc.analysis.machine_findings(machine)
            title = f"Machine: {machine.name}"
            if findings == self.findings and self.machine_group.text(0) == title and self.machine_group.childCount():
                return  # an edit elsewhere (a rack, another machine): the same rows, no relayout
            self.findings = findings
            self.machine_group.setText(0, title)
        self._fill(self.machine_group, self.findings)
        if machine is not None and not self.findings:
            empty = QTreeWidgetItem(self.machine_group, ["Nothing to report: every fit rule passes."])
            empty.setFlags(Qt.ItemFlag.ItemIsEnabled)
        self._update_counts()
        self._mark_selected(doc.selected_slots)

    def _mark_selected(self, slots: list[str]) -> None:
        """Bold the findings about the selected cards, so a card picked on the canvas shows its problems."""
        chosen = set(slots)
        for item in self.items():
            finding = item.data(0, FINDING_ROLE)
            font = item.font(0)
            bold = bool(chosen & set(finding.slots))
            if font.bold() != bold:
                font.setBold(bold)
                item.setFont(0, font)

    def set_rack_findings(self, findings: Sequence[RackFinding]) -> None:
        """Show rack findings in their own group below the machine's (an empty list hides the group)."""
        if list(findings) == self.rack_findings:
            return
        self.rack_findings = list(findings)
        self._fill(self.rack_group, self.rack_findings)
        if self.rack_group.isHidden() != (not self.rack_findings):
            # Hiding a row, even one already hidden, lays out and measures every row again.
            self.rack_group.setHidden(not self.rack_findings)
        self._update_counts()

    def _fill(self, group: QTreeWidgetItem, findings: Sequence[Finding | RackFinding]) -> None:
        self.tree.blockSignals(True)
        ordered = sorted(findings, key=lambda f: SEVERITY_ORDER[f.severity])
        rows = [row for i in range(group.childCount()) if (row := group.child(i)) is not None]
        if [r.data(0, SEVERITY_ROLE) for r in rows] == [f.severity for f in ordered]:
            # The same rows with new figures (a load changed): rows whose text changed are
            # measured again, the others keep their place and height.
            model = self.tree.model()
            for row, finding in zip(rows, ordered, strict=True):
                if row.data(0, FINDING_ROLE) == finding:
                    continue
                # The view measures a row again on every change it hears of; only the text
                # changes its size or look, so the rest is set without telling it.
                model.blockSignals(True)
                self._describe(row, finding)
                model.blockSignals(False)
                row.setText(0, finding.message)
        else:
            group.takeChildren()
            for finding in ordered:
                self._describe(QTreeWidgetItem(group, [finding.message]), finding)
        if not group.isExpanded():
            group.setExpanded(True)
        self.tree.blockSignals(False)

    def _describe(self, item: QTreeWidgetItem, finding: Finding | RackFinding) -> None:
        """Everything a finding's row carries but its text: icon, the finding itself, tooltip."""
        item.setIcon(0, self.icons[finding.severity])
        item.setData(0, FINDING_ROLE, finding)
        item.setData(0, SEVERITY_ROLE, finding.severity)
        where = _where(finding)
        tip = f"{finding.severity.capitalize()} ({finding.code})\n{finding.message}"
        item.setToolTip(0, tip + (f"\n{where}" if where else ""))

    def _update_counts(self) -> None:
        every: list[Finding | RackFinding] = [*self.findings, *self.rack_findings]
        self.counts = Counter(f.severity for f in every)
        for sev, label in self.count_labels.items():
            label.setText(count_text(sev, self.counts[sev]))
        # The tab names problems only (notes are counted inside): a title that changed with every
        # note would relayout the window's docks on most edits.
        parts = [count_text(sev, self.counts[sev]) for sev in SEVERITIES if sev != "info" and self.counts[sev]]
        title = f"Findings ({', '.join(parts)})" if parts else "Findings"
        if title != self.windowTitle():
            self.setWindowTitle(title)

    # --- what tests and the main window read ------------------------------------------

    def items(self, group: QTreeWidgetItem | None = None) -> list[QTreeWidgetItem]:
        """The finding rows of a group (the machine's by default), in display order."""
        parent = group or self.machine_group
        rows = [parent.child(i) for i in range(parent.childCount())]
        return [row for row in rows if row is not None and row.data(0, FINDING_ROLE) is not None]

    # --- selection ---------------------------------------------------------------------

    def _selection_changed(self) -> None:
        selected = self.tree.selectedItems()
        if not selected:
            return
        place = selected[0].data(0, PLACE_ROLE)
        if place:
            self.place_selected.emit(place[0], place[1])
            return
        finding = selected[0].data(0, FINDING_ROLE)
        if isinstance(finding, Finding):
            self.document.select_slots(list(finding.slots))
        elif isinstance(finding, RackFinding):
            self.rack_finding_selected.emit(finding)


def _where(finding: Finding | RackFinding) -> str:
    if isinstance(finding, RackFinding):
        return f"Rack {finding.rack}" + (f": {', '.join(finding.devices)}" if finding.devices else "")
    return f"Slots: {', '.join(finding.slots)}" if finding.slots else ""


def place_label(document: PlanDocument, kind: str, place_id: str) -> str:
    if kind == "machine":
        machine = document.plan.machine(place_id)
        return f"Machine {machine.name}" if machine else place_id
    rack = document.plan.rack(place_id)
    return f"Rack {rack.name}" if rack else place_id
