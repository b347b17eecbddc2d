"""Every change a user can make to a plan, as a pure function.

Each edit takes the plan and keyword-only arguments and returns an ``EditResult``: the
new plan, the change flags it touched (views refresh only for the flags they show), the
machines and racks it touched, and a label for the undo history. The old plan is never
modified. An edit that cannot be made raises ``EditRefused`` with the reason; physical
problems that a plan can still hold (a card too long for its case, two devices in one U)
are not refused here: ``fit`` and the rack checks report them as findings.
"""

from rackplanner.core.plan.edits.base import Change, EditRefused, EditResult
from rackplanner.core.plan.edits.cards import (
    add_bridge,
    move_card,
    place_card,
    remove_bridge,
    remove_card,
    set_card_network,
    set_power_limit,
)
from rackplanner.core.plan.edits.document import import_price_list, set_plan_notes, set_price_override
from rackplanner.core.plan.edits.feeds import add_feed, remove_feed, set_device_feed, set_outlet_assignment
from rackplanner.core.plan.edits.machines import (
    add_built_machine,
    add_machine,
    configure_machine,
    remove_machine,
    rename_machine,
    set_host_settings,
)
from rackplanner.core.plan.edits.racks import (
    DEFAULT_ROW_ID,
    DEFAULT_ROW_NAME,
    add_rack,
    add_row,
    mount_device,
    move_device,
    move_rack_to_row,
    remove_rack,
    remove_row,
    rename_rack,
    rename_row,
    unmount_device,
)

__all__ = [
    "DEFAULT_ROW_ID",
    "DEFAULT_ROW_NAME",
    "Change",
    "EditRefused",
    "EditResult",
    "add_bridge",
    "add_built_machine",
    "add_feed",
    "add_machine",
    "add_rack",
    "add_row",
    "configure_machine",
    "import_price_list",
    "mount_device",
    "move_card",
    "move_device",
    "move_rack_to_row",
    "place_card",
    "remove_bridge",
    "remove_card",
    "remove_feed",
    "remove_machine",
    "remove_rack",
    "remove_row",
    "rename_machine",
    "rename_rack",
    "rename_row",
    "set_card_network",
    "set_device_feed",
    "set_host_settings",
    "set_outlet_assignment",
    "set_plan_notes",
    "set_power_limit",
    "set_price_override",
    "unmount_device",
]
