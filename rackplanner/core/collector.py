"""Pausing Python's cyclic garbage collector around bulk work on a large plan.

Opening or analysing a plan of thousands of machines allocates hundreds of thousands of objects
that stay alive (the plan, its results) and makes almost no garbage cycles. While that runs,
every few thousand allocations the collector walks all of them again, which costs as much as the
work itself on a cluster-sized plan. So the collector is paused for the bulk work and resumed
after: nothing is lost, the next collection finds whatever cycles there are.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the block with the cyclic collector off (left as it was if it was already off)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
