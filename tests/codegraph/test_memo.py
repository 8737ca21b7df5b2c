"""The resolver's cache and cycles (kgraph.codegraph.memo): results and reads do not depend
on the order in which files are resolved."""

from __future__ import annotations

import itertools

import pytest

from kgraph.codegraph.build import FileRows, build_file
from kgraph.codegraph.memo import MAX_DEPTH, Memo
from kgraph.codegraph.modules import ModuleIndex
from kgraph.codegraph.parse_python import parse_python
from kgraph.codegraph.resolve import Resolver
from kgraph.codegraph.summary import Summary

# a() returns b()'s values, b() a()'s and c()'s, c() b()'s: one cycle through a and b, one
# through b and c. Whichever is asked first, each returns a Thing.
CYCLES = {
    "lib.py": """\
class Thing:
    def method(self):
        return 1


def a(x):
    if x:
        return b(x)
    return Thing()


def b(x):
    if x:
        return a(x)
    return c(x)


def c(x):
    return b(x)
""",
    "use_a.py": "from lib import a\n\na(1).method()\n",
    "use_b.py": "from lib import b\n\nb(1).method()\n",
    "use_c.py": "from lib import c\n\nc(1).method()\n",
}
USERS = ["use_a.py", "use_b.py", "use_c.py"]


def _resolve(order: list[str]) -> dict[str, FileRows]:
    summaries: dict[str, Summary] = {
        path: parse_python(text.encode()) for path, text in CYCLES.items()
    }
    resolver = Resolver(ModuleIndex(set(CYCLES)), summaries.get)
    return {path: build_file(path, summaries[path], resolver) for path in order}


def _calls(rows: FileRows) -> set[str]:
    return {edge["to_entity"] for edge in rows.edges.values() if edge["type"] == "calls"}


@pytest.mark.parametrize("order", list(itertools.permutations(USERS)))
def test_every_function_of_a_cycle_is_resolved_whichever_is_asked_first(
    order: tuple[str, ...],
) -> None:
    rows = _resolve(list(order))
    for path in USERS:
        assert "lib.py::Thing.method" in _calls(rows[path]), (order, path)


def test_edges_and_reads_are_the_same_in_every_order() -> None:
    first = _resolve(USERS)
    for order in itertools.permutations(USERS):
        rows = _resolve(list(order))
        for path in USERS:
            assert rows[path].edges == first[path].edges, (order, path)
            assert rows[path].deps == first[path].deps, (order, path)
    # Every user depends on all three functions: a change to any may change its result.
    for path in USERS:
        assert set(first[path].deps["files"]["lib.py"]) >= {"a", "b", "c", "Thing"}


def test_a_cycle_gets_the_cut_value_and_its_head_is_computed_to_a_fixpoint() -> None:
    memo = Memo()
    computed: list[str] = []

    # x = {1} | y, y = {2} | x: both are {1, 2}.
    def x() -> list[int]:
        computed.append("x")
        return sorted({1, *memo.memo(("y",), y, [])})

    def y() -> list[int]:
        computed.append("y")
        memo.note("file.py", "y")
        return sorted({2, *memo.memo(("x",), x, [])})

    assert memo.memo(("x",), x, []) == [1, 2]
    assert memo.memo(("y",), y, []) == [1, 2]  # cached with the fixpoint, not [2]
    assert computed == ["x", "y", "x", "y", "x", "y"]  # passes until nothing changed
    assert memo.consulted == {("file.py", "y")}


def test_a_chain_too_deep_is_cut_and_nothing_above_the_cut_is_cached() -> None:
    memo = Memo()

    def level(n: int) -> list[int]:
        return [n, *memo.memo(("level", n + 1), lambda: level(n + 1), [])]

    assert memo.memo(("level", 0), lambda: level(0), []) == list(range(MAX_DEPTH + 1))
    memo.begin()
    # Computed again from level 40 down (it was not cached with only [40]).
    assert memo.memo(("level", 40), lambda: level(40), []) == list(range(40, 41 + MAX_DEPTH))
