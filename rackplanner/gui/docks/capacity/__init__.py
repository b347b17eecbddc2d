"""The capacity dock: the table of models × formats that fit, the decode-vs-batch plot and training.

- ``table_model``: the table's Qt model; ``curve_plot``: the plot; ``training_panel``: the training tab
- ``dock``: ``CapacityDock``, which wires them to the plan
"""

from rackplanner.gui.docks.capacity.dock import CapacityDock
from rackplanner.gui.docks.capacity.table_model import KEY_ROLE

__all__ = ["KEY_ROLE", "CapacityDock"]
