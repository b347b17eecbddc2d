"""Keep a large plan's objects out of Python's periodic full garbage collections (no Qt here).

A full collection walks every live object: with a 50-rack plan open that is a pause of most of a
hundred milliseconds, which lands in the middle of whatever edit happens to trigger it. Once a
plan is open its objects live until the next one is opened, so they are collected once and then
frozen (``gc.freeze``); later collections only look at what was made after.
"""

from __future__ import annotations

import gc


def settle_heap() -> None:
    """Collect once, then leave every object now alive out of later collections."""
    # Unfrozen first: the previous plan's objects, if anything still ties them in a cycle, are freed.
    gc.unfreeze()
    gc.collect()
    gc.freeze()
