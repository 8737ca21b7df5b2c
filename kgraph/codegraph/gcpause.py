"""``no_gc``: pause Python's cyclic garbage collector around allocation-heavy work.

Parsing, resolving and big traversals allocate hundreds of thousands of small tuples,
lists and dicts that form no reference cycles; the collector would keep re-scanning them
for nothing. Memory is still freed by reference counting.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def no_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector (then restore it as it was).

    Measured on sqlalchemy's sources: parsing 10.5 -> 5.8 CPU-s, resolving 5.2 -> 3.8, the
    worst blast radius 118 -> 100 ms.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            # The allocation count kept growing while paused: re-enabling as is would start a
            # full collection over everything alive now (~1.8 s on sqlalchemy's summaries,
            # freed by reference counting moments later). Freezing first resets the counts;
            # unfreezing moves those objects to the oldest generation without a scan.
            gc.freeze()
            gc.enable()
            gc.unfreeze()
