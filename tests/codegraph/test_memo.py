"""The resolver's cache and cycles (kgraph.codegraph.memo): results and reads do not depend
on the order in which files are resolved."""

from __future__ import annotations

import itertools
from functools import partial

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgraph.codegraph.build import EdgeRow, FileRows, build_file
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


def _rows(rows: FileRows) -> dict[tuple[str, str, str], EdgeRow]:
    return {key: edge.row() for key, edge in rows.edges.items()}


def _calls(rows: FileRows) -> set[str]:
    return {edge.to_entity for edge in rows.edges.values() if edge.type == "calls"}


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
            assert _rows(rows[path]) == _rows(first[path]), (order, path)
            assert rows[path].deps == first[path].deps, (order, path)
    # Every user depends on all three functions: a change to any may change its result.
    for path in USERS:
        assert set(first[path].deps["files"]["lib.py"]) >= {"a", "b", "c", "Thing"}


def test_a_cycle_gets_the_cut_value_and_its_head_is_computed_to_a_fixpoint() -> None:
    memo = Memo()
    computed: list[str] = []
    nothing: list[int] = []

    # x = {1} | y, y = {2} | x: both are {1, 2}.
    def x() -> list[int]:
        computed.append("x")
        return sorted({1, *memo.memo(("y",), y, nothing)})

    def y() -> list[int]:
        computed.append("y")
        memo.note("file.py", "y")
        return sorted({2, *memo.memo(("x",), x, nothing)})

    assert memo.memo(("x",), x, nothing) == [1, 2]
    assert memo.memo(("y",), y, nothing) == [1, 2]  # cached with the fixpoint, not [2]
    assert computed == ["x", "y", "x", "y", "x", "y"]  # passes until nothing changed
    assert memo.consulted == {("file.py", "y")}


def test_a_chain_too_deep_is_cut_and_nothing_above_the_cut_is_cached() -> None:
    memo = Memo()
    nothing: list[int] = []

    def level(n: int) -> list[int]:
        return [n, *memo.memo(("level", n + 1), partial(level, n + 1), nothing)]

    assert memo.memo(("level", 0), partial(level, 0), nothing) == list(range(MAX_DEPTH + 1))
    memo.begin()
    # Computed again from level 40 down (it was not cached with only [40]).
    assert memo.memo(("level", 40), partial(level, 40), nothing) == list(range(40, 41 + MAX_DEPTH))


@st.composite
def _graphs(draw: st.DrawFn) -> tuple[dict[int, list[int]], list[int]]:
    """A graph of computations (each needs those its edges point to; cycles welcome) and an
    order to ask for them in."""
    size = draw(st.integers(1, 7))
    nodes = list(range(size))
    edges = {n: draw(st.lists(st.sampled_from(nodes), max_size=3, unique=True)) for n in nodes}
    return edges, draw(st.permutations(nodes))


@settings(max_examples=300, deadline=None)
@given(_graphs())
def test_any_graph_of_computations_gets_its_least_fixpoint_in_any_order(
    graph: tuple[dict[int, list[int]], list[int]],
) -> None:
    """Each computation's value is itself plus the values it needs, and it reads a name of
    its own: asked in any order, each gives exactly what it reaches, and its reads are
    those of what it reaches."""
    edges, order = graph
    memo = Memo()

    def ask(node: int) -> list[int]:
        nothing: list[int] = []
        return memo.memo(("n", node), partial(compute, node), nothing)

    def compute(node: int) -> list[int]:
        memo.note("file.py", f"n{node}")
        return sorted({node}.union(*(ask(other) for other in edges[node])))

    def reach(node: int) -> set[int]:
        seen, todo = {node}, [node]
        while todo:
            for other in edges[todo.pop()]:
                if other not in seen:
                    seen.add(other)
                    todo.append(other)
        return seen

    for node in order:
        memo.begin()
        assert ask(node) == sorted(reach(node))
        assert memo.consulted == {("file.py", f"n{other}") for other in reach(node)}
