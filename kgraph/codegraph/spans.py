"""Which scope a syntax node is in, by byte offset: shared by both tree-sitter summarisers.

Each definition with a body (function, class, method) is entered as a byte interval, in
document order; every other node then finds the innermost interval holding it with a
binary search. A node inside a definition but before its body (decorators, parameters,
bases) belongs to the enclosing scope: that is where it is evaluated.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import compress, islice
from operator import attrgetter, eq
from typing import Final

from tree_sitter import Node

_START_BYTE: Final = attrgetter("start_byte")
_END_BYTE: Final = attrgetter("end_byte")


def document_order(nodes: list[Node]) -> tuple[list[Node], list[int]]:
    """``nodes`` sorted by (start, end), and their starts: nested nodes starting at one byte
    (``str(x).replace(y)``: two calls) come inner first.

    Sorted by start alone (int keys: ~2.5x faster than (start, end) tuples), then by end
    within the runs that share a start, found without a Python loop over every node.
    """
    nodes = sorted(nodes, key=_START_BYTE)
    starts = list(map(_START_BYTE, nodes))
    shared = set(compress(starts, map(eq, starts, islice(starts, 1, None))))
    for start in shared:
        first, last = bisect_left(starts, start), bisect_right(starts, start)
        nodes[first:last] = sorted(nodes[first:last], key=_END_BYTE)
    return nodes, starts


class Spans:
    """The definitions entered so far; interval 0 is the module (qualified name "")."""

    def __init__(self) -> None:
        # Intervals in start order: starts, (end, qname, body_start, parent index).
        self.starts: list[int] = [-1]
        self.intervals: list[tuple[int, str, int, int]] = [(1 << 62, "", 0, -1)]
        self.open: list[int] = [0]  # indexes of intervals enclosing the current definition

    def scopes_at(self, starts: list[int]) -> list[str]:
        """The scope of nodes starting at each of ``starts`` (ascending): the qualified name
        of the innermost def/class whose body holds the node. In one call: an answer holds
        until the next definition starts, or the one holding the node reaches its body or
        its end, so most nodes need one comparison (~4x cheaper than a binary search for
        each)."""
        table, intervals = self.starts, self.intervals
        found: list[str] = []
        scope, until = "", -1  # the scope of every offset below `until` (from the last one)
        for start in starts:
            if start >= until:
                index = bisect_right(table, start) - 1
                until = table[index + 1] if index + 1 < len(table) else 1 << 62
                while True:
                    end, qname, body_start, parent = intervals[index]
                    if start < end:
                        break
                    index = parent
                if start < body_start:  # decorators, parameters, bases: the parent evaluates
                    scope, until = intervals[parent][1], min(until, body_start)
                else:
                    scope, until = qname, min(until, end)
            found.append(scope)
        return found

    def enclosing(self, node: Node) -> str:
        """The scope of a definition (as :meth:`scopes_at` gives it), for definitions, which
        are visited in document order while the intervals are being entered."""
        while node.start_byte >= self.intervals[self.open[-1]][0]:
            self.open.pop()
        index = self.open[-1]
        _end, qname, body_start, parent = self.intervals[index]
        return self.intervals[parent][1] if node.start_byte < body_start else qname

    def enter(self, node: Node, qname: str, body_start: int) -> None:
        """Open the scope ``qname`` over ``node`` (its body starts at ``body_start``)."""
        while node.start_byte >= self.intervals[self.open[-1]][0]:
            self.open.pop()
        self.starts.append(node.start_byte)
        self.intervals.append((node.end_byte, qname, body_start, self.open[-1]))
        self.open.append(len(self.intervals) - 1)

    def placed(self, nodes: list[Node]) -> list[tuple[Node, str]]:
        """``nodes`` in document order (:func:`document_order`: capture lists come in
        match-completion order, which varies from run to run), each with its scope
        (:meth:`scopes_at`): how every summariser walks a capture."""
        ordered, starts = document_order(nodes)
        return list(zip(ordered, self.scopes_at(starts), strict=True))
