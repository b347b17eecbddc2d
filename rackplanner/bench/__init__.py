"""The speed suite: ``python -m rackplanner.bench`` prints median and worst times against the targets.

Figures are printed, never asserted: a timed test flakes on a busy machine. Call counts (what
one edit recomputes) are asserted in ``tests/test_incremental.py`` instead.
"""
