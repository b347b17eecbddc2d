"""The rack power dock: per-line amps against derated limits in each scenario, breakers and totals.

- ``common``: colours by load and what the rack docks share; ``cells``: tables of plain cells
- ``line_chart``: the bar chart of line currents; ``dock``: ``PowerDock``
"""

from rackplanner.gui.docks.power.dock import PowerDock

__all__ = ["PowerDock"]
