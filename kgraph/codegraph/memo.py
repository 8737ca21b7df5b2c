"""The resolver's memory: computations cached with what they read, and cycles among them.

Every computation the :class:`~kgraph.codegraph.resolve.Resolver` caches (a ref's values,
a class's MRO, a function's call sites...) runs through :meth:`Memo.memo`, which records
the (file, name) pairs it read, so a file's resolution knows what it depends on, and a
cache hit replays them.

Computations can depend on themselves: ``def f(): return g()`` with ``def g(): return
f()``, or a class whose base is found through its own module. A computation reached again
while it is running (a *cycle*) gets, for now, the key's *cut* value (``[]`` for values).
A result computed under a cut is incomplete, and caching it made results depend on the
order in which files were resolved: in one order ``g`` was cached as returning nothing,
in the other it was not. So a computation under a cut is only kept *tentatively*, until
the computation the cycle reached (its *head*) is done. The head is computed again with
its previous result standing for itself until that result stops changing (a fixpoint:
two or three passes in practice); then it and the tentative results of its last pass are
cached. The graph and every file's reads are then the same in any order, and with any
number of workers.

Resolution is bounded, so that no input overflows the stack or runs without end. Every
recursion of the resolver passes through :meth:`Memo.memo` (a cycle with no computation
of its own, such as a ``*args`` item passed along a recursive call, recursed until the
stack overflowed: RecursionError in pure Python, SIGSEGV in a compiled build). A chain
deeper than :data:`MAX_DEPTH` computations is cut, as is every computation of a file's
resolution past :data:`MAX_WORK` of them (:attr:`Memo.exhausted` then tells); nothing above
a cut is cached.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar

from kgraph.codegraph.values import Result

Read = tuple[str, str]  # (file, top-level name) an evaluation depended on
# The "file" of a read recording an import that matched no file (the name is its key):
# kept with the other reads, so a cache hit replays it like any other read.
MISSING_IMPORT: Final = "\0missing"
# The "file" of a read of the call sites indexed under a key (see changes.site_key).
CALL_SITES: Final = "\0calls"
# A finished computation's reads, as a tuple: a set of ~20 reads takes ~1.3 KB, a tuple
# ~0.2 KB, and the cache holds ~180,000 of them for sqlalchemy (240 MB as sets: most of a
# resolve worker's memory, and of its page faults).
Reads = tuple[Read, ...]
NO_READS: Final[Reads] = ()
# A level of the chain takes ~10 Python (or compiled C) frames, 18 at most on CPython's
# library, whose deepest chains reach the bound: 33 levels stay far below the
# interpreter's 1,000 frames wherever resolution starts (pytest, a pool worker). At 40
# levels CPython's library and Django built the very same edges.
MAX_DEPTH: Final = 32
# Computations (fixpoint passes included) a file's resolution may run: 25 times the most
# any file of CPython's library or Django ran with nothing cached (7,932: zipfile.py),
# a few seconds. Nested cycles, each taking all its passes, could go far past it.
MAX_WORK: Final = 200_000
MAX_PASSES: Final = 5  # of a cycle's head (a fixpoint takes two or three)
_NO_CYCLE: Final = 1 << 30  # a frame's lowest cycle depth when it met no cycle

T = TypeVar("T")
Key = tuple[Any, ...]
_NONE: Final[tuple[Key, ...]] = ()


class Memo:
    """Computations cached with their reads; cycles resolved to a fixpoint (see the module
    docstring). A *frame* per computation in progress, the file's at the bottom (depth 0),
    holds what it read, the lowest depth of a running computation it depended on
    (:data:`_NO_CYCLE` when none), and the tentative results waiting on it."""

    def __init__(self) -> None:
        self._cache: dict[Key, tuple[Any, Reads]] = {}
        self._reads: list[set[Read]] = [set()]
        self._low: list[int] = [_NO_CYCLE]
        self._waiting: list[list[Key] | None] = [None]
        self._active: dict[Key, int] = {}  # running computation -> its frame's depth
        self._tentative: dict[Key, tuple[Any, Reads, int]] = {}  # (result, reads, head depth)
        self._provisional: dict[Key, Any] = {}  # a head's previous pass's result
        self._work = 0  # computations run in this file's resolution
        self.exhausted = False  # a computation of this file's resolution was cut by MAX_WORK

    def begin(self) -> None:
        """Start a file's resolution: its reads from here on are :attr:`consulted`."""
        self._reads = [set()]
        self._low = [_NO_CYCLE]
        self._waiting = [None]
        self._tentative.clear()  # only a cut (too deep, or too much work) leaves some behind
        self._work = 0
        self.exhausted = False

    def clear_cache(self) -> None:
        self._cache.clear()

    @property
    def consulted(self) -> set[Read]:
        return self._reads[0]

    def note(self, path: str, name: str) -> None:
        """Record that the current evaluation depends on ``name`` of file ``path``."""
        self._reads[-1].add((path, name.partition(".")[0]))

    def note_missing(self, key: str) -> None:
        """Record that the current evaluation met an import of ``key`` that matched no file."""
        self._reads[-1].add((MISSING_IMPORT, key))

    def note_sites(self, key: str) -> None:
        """Record that the current evaluation read the call sites indexed under ``key``."""
        self._reads[-1].add((CALL_SITES, key))

    def cached(self, key: Key, compute: Callable[[], list[Result]]) -> list[Result]:
        """:meth:`memo` with ``[]`` as the cut value (values, the commonest)."""
        return self.memo(key, compute, [])

    def memo(self, key: Key, compute: Callable[[], T], cut: T) -> T:
        """``compute()``, cached under ``key`` with the reads it made (replayed into the
        caller's on a hit); ``cut`` (or a cycle head's previous pass) for a key already
        being computed, or too deep a chain. The resolver's hottest path."""
        hit = self._cache.get(key)
        if hit is not None:
            if hit[1]:
                self._reads[-1].update(hit[1])
            result: T = hit[0]
            return result
        low = self._low
        tentative = self._tentative.get(key)
        if tentative is not None:
            if tentative[1]:
                self._reads[-1].update(tentative[1])
            if tentative[2] < low[-1]:
                low[-1] = tentative[2]
            result = tentative[0]
            return result
        active = self._active
        running = active.get(key)
        if running is not None:  # a cycle: this frame depends on the running one
            if running < low[-1]:
                low[-1] = running
            found: T = self._provisional.get(key, cut)
            return found
        if len(active) > MAX_DEPTH or self._work >= MAX_WORK:
            low[-1] = 0  # depends on the whole chain: nothing above is cached
            if self._work >= MAX_WORK:
                self.exhausted = True
            return cut
        stack = self._reads
        depth = len(stack)
        active[key] = depth
        try:  # most computations meet no cycle and need no other pass
            result, made, lowest, mine = self._run(compute)
        finally:
            del active[key]
        if lowest > depth:  # no cycle through this computation: final
            if made:
                stack[-1] |= made
            self._cache[key] = (result, tuple(made))
            return result
        active[key] = depth  # running again for the cycle's further passes
        try:
            result, reads, lowest = self._passes(
                key, compute, cut, depth, result, made, lowest, mine
            )
        finally:
            del active[key]
        if reads:
            stack[-1].update(reads)
        if lowest < depth:  # waits on a head further up
            self._wait(key, (result, reads, lowest))
            if lowest < low[-1]:
                low[-1] = lowest
        else:
            self._cache[key] = (result, reads)
        return result

    def _run(self, compute: Callable[[], T]) -> tuple[T, set[Read], int, list[Key] | None]:
        """One pass of a computation in a frame of its own: (result, what it read, the
        lowest depth of a running computation it depended on, the keys that waited on it)."""
        stack, low, waiting = self._reads, self._low, self._waiting
        self._work += 1
        stack.append(set())
        low.append(_NO_CYCLE)
        waiting.append(None)
        try:
            result = compute()
        finally:
            made = stack.pop()
            lowest = low.pop()
            mine = waiting.pop()
        return result, made, lowest, mine

    def _passes(
        self,
        key: Key,
        compute: Callable[[], T],
        cut: T,
        depth: int,
        result: T,
        made: set[Read],
        lowest: int,
        first: list[Key] | None,
    ) -> tuple[T, Reads, int]:
        """Finish ``key``, computed once in frame ``depth`` (``result``, its reads ``made``,
        the ``lowest`` depth it depended on, the keys that waited on it) through a cycle:
        computed again while it is the head of a cycle whose result is still changing.
        Returns (result, reads of all passes, lowest depth it depended on)."""
        reads: set[Read] | None = None
        passes = 0
        standing: list[Key] = []  # keys given a provisional result by this head
        mine: Sequence[Key] = first or _NONE
        try:
            while True:
                if passes:
                    result, made, lowest, waited = self._run(compute)
                    mine = waited or _NONE
                if made:
                    reads = made if reads is None else reads | made
                passes += 1
                if lowest < depth:  # tentative itself: what waited on it waits further up
                    for other in mine:
                        self._wait(other, (*self._tentative[other][:2], lowest))
                    return result, tuple(reads) if reads else NO_READS, lowest
                if (
                    lowest == depth
                    and passes < MAX_PASSES
                    and self._changed(key, result, cut, mine)
                ):
                    # Once more, the cycle's computations standing for themselves with what
                    # this pass gave them.
                    self._provisional[key] = result
                    for other in mine:
                        self._provisional[other] = self._tentative.pop(other)[0]
                    standing += [key, *mine]
                    continue
                # Its members were computed with the fixpoint: final too. Each read what the
                # head did (they reach one another), though a member's own reads stop where
                # its cycle was cut.
                everything = tuple(reads) if reads else NO_READS
                for other in mine:
                    self._cache[other] = (self._tentative.pop(other)[0], everything)
                return result, everything, lowest
        finally:
            for other in standing:
                self._provisional.pop(other, None)

    def _changed(self, key: Key, result: Any, cut: Any, members: Sequence[Key]) -> bool:
        """Whether a cycle's pass changed its head's result or a member's (one that waited
        on the head), against the previous pass (the first pass: always, when any waited)."""
        provisional = self._provisional
        if result != provisional.get(key, cut):
            return True
        return any(
            other not in provisional or self._tentative[other][0] != provisional[other]
            for other in members
        )

    def _wait(self, key: Key, entry: tuple[Any, Reads, int]) -> None:
        """Keep ``entry`` for ``key`` until the computation at depth ``entry[2]`` is done."""
        self._tentative[key] = entry
        waiting = self._waiting[entry[2]]
        if waiting is None:
            self._waiting[entry[2]] = [key]
        else:
            waiting.append(key)
