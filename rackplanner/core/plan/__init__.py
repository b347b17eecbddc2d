"""The user's plan: its model, its files, the edits that change it and the caches keyed by it.

- ``model``: machines with their placed parts, racks, rows and feeds (immutable)
- ``files``: open and save plan files; ``migrations``: older schema versions brought up to date
- ``edits``: every change as a pure function, returning the new plan and its change flags
- ``resolve``: the catalog parts a machine is made of
- ``cache``: results cached by the plan objects or content they came from
- ``summary``: what a plan holds, in a few lines; ``generate``: realistic plans of any size
"""

from rackplanner.core.plan.model import Machine, Plan, Rack

__all__ = ["Machine", "Plan", "Rack"]
