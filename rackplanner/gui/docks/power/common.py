"""What the rack docks share: colours by load, which edits touch the current rack, its power."""

from __future__ import annotations

from PySide6.QtGui import QColor

from rackplanner.core.plan.edits import Change
from rackplanner.core.rack.power import SCENARIO_LABELS, RackPower
from rackplanner.core.rack.power_model import short_connector
from rackplanner.draw.colors import MUTED_TEXT, TEXT
from rackplanner.gui.document import ChangeSet, PlanDocument

# Bar colours by share of the derated limit: below TIGHT_PERCENT green, up to the limit amber, over it red.
OK_COLOUR = QColor("#3a9a4a")
TIGHT_COLOUR = QColor("#e0a020")
OVER_COLOUR = QColor("#c83a32")
DEAD_COLOUR = QColor("#d5d7db")
DEAD_TEXT = MUTED_TEXT
LIMIT_COLOUR = QColor("#8a1c1c")
LABEL_FILL = QColor(255, 255, 255, 210)
LABEL_TEXT = TEXT
# Where a line counts as "near" its limit: a colour threshold of the display only, not a rule of the core.
TIGHT_PERCENT = 80.0
# A PDU whose lines differ from their average by more than this is flagged as unbalanced
# (a highlighting threshold of the display; the figure itself is the core's imbalance_percent).
UNBALANCED_PERCENT = 20.0

BAR_WIDTH = 0.6
GROUP_GAP = 1.0

# What a rack's power depends on.
POWER_CHANGES = (Change.POWER, Change.OUTLETS, Change.RACK_LAYOUT)


def scenario_phrase(scenario: str) -> str:
    """'in normal operation', 'with feed A failed' (for sentences)."""
    if scenario == "normal":
        return "in normal operation"
    return "with " + SCENARIO_LABELS[scenario][0].lower() + SCENARIO_LABELS[scenario][1:]


def load_colour(percent: float | None, over: bool) -> QColor:
    if over:
        return OVER_COLOUR
    if percent is not None and percent >= TIGHT_PERCENT:
        return TIGHT_COLOUR
    return OK_COLOUR


def touches_rack(document: PlanDocument, change: ChangeSet, flags: tuple[Change, ...]) -> bool:
    """Whether an edit changes what the rack docks show for the current rack."""
    if not change.touches(*flags):
        return False
    rack = document.plan.rack(document.current_rack)
    if rack is None:
        return True
    if not change.racks and not change.machines:
        # Feeds and other plan-wide edits name no rack; re-evaluate, the core's cache keeps it cheap.
        return True
    if rack.id in change.racks:
        return True
    return any(d.machine in change.machines for d in rack.devices if d.machine)


def current_rack_power(document: PlanDocument) -> RackPower | None:
    rack = document.plan.rack(document.current_rack)
    if rack is None:
        return None
    return document.analysis.rack_power(rack.id)


__all__ = ["POWER_CHANGES", "current_rack_power", "load_colour", "scenario_phrase", "short_connector", "touches_rack"]
