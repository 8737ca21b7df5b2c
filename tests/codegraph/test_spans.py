"""Scopes by byte offset: the one-call forms (document_order, Spans.scopes_at) the
summarisers use give what sorting by (start, end) and the innermost enclosing definition,
searched interval by interval, give node by node."""

from __future__ import annotations

from tree_sitter import Node, Parser, Query, QueryCursor

from kgraph.codegraph.parse_python import _PythonSummariser
from kgraph.codegraph.python_nodes import PYTHON
from kgraph.codegraph.spans import Spans, document_order

SOURCE = b"""\
import functools


@functools.wraps(len)
def outer(a, key=lambda item: item.name, *, flag=str(1).strip()):
    def inner(b=lambda: 0):
        return str(b).replace("a", "b").strip()

    class Local(Base[int], metaclass=Meta):
        attr = dict(x=1).get("x")

        def method(self):
            return [x for x in map(str, range(3))]

    return inner(a)(key)


value = outer(1)(2)(3)
"""


def _spans_and_nodes() -> tuple[Spans, list[Node]]:
    summariser = _PythonSummariser()
    summariser.run(SOURCE)
    tree = Parser(PYTHON).parse(SOURCE)
    captures = QueryCursor(Query(PYTHON, "[(call) (identifier)] @node")).captures(tree.root_node)
    return summariser.spans, captures["node"]


def test_document_order_is_start_then_end() -> None:
    """Nested calls sharing a start (``str(b).replace(...).strip()``) come inner first."""
    _spans, nodes = _spans_and_nodes()
    ordered, starts = document_order(list(reversed(nodes)))
    expected = sorted(nodes, key=lambda node: (node.start_byte, node.end_byte))
    assert [n.byte_range for n in ordered] == [n.byte_range for n in expected]
    assert starts == [n.start_byte for n in expected]
    shared = [n for n in ordered if n.start_byte == SOURCE.index(b"str(b)")]
    assert [n.end_byte - n.start_byte for n in shared] == sorted(
        n.end_byte - n.start_byte for n in shared
    )
    assert len(shared) == 4  # str, str(b), .replace(...), .strip()


def _innermost(spans: Spans, start: int) -> str:
    """The scope of a node starting at ``start``, the long way: the enclosing interval that
    starts last; before its body, its parent's."""
    holding = [
        index
        for index, (end, _q, _b, _p) in enumerate(spans.intervals)
        if spans.starts[index] <= start < end
    ]
    _end, qname, body_start, parent = spans.intervals[max(holding, key=spans.starts.__getitem__)]
    return spans.intervals[parent][1] if start < body_start else qname


def test_scopes_at_matches_the_innermost_definition() -> None:
    """Defaults and decorators belong to the enclosing scope, bodies to the definition,
    code after a nested definition to its parent again."""
    spans, nodes = _spans_and_nodes()
    ordered, starts = document_order(nodes)
    assert spans.scopes_at(starts) == [_innermost(spans, start) for start in starts]
    scopes = dict(
        zip(
            (SOURCE[n.start_byte : n.end_byte] for n in ordered),
            spans.scopes_at(starts),
            strict=True,
        )
    )
    assert scopes[b"functools"] == ""  # the decorator
    assert scopes[b"str(1)"] == ""  # a default of outer
    assert scopes[b"item"] == "<lambda1>"  # a default's lambda is the module's
    assert scopes[b"inner(a)"] == "outer"
    assert scopes[b"range(3)"] == "outer.Local.method"
    assert scopes[b"dict(x=1)"] == "outer.Local"
    assert scopes[b"value"] == ""


def test_placed_gives_each_node_in_document_order_with_its_scope() -> None:
    spans, nodes = _spans_and_nodes()
    ordered, starts = document_order(nodes)
    placed = spans.placed(list(reversed(nodes)))
    assert [node for node, _ in placed] == ordered
    assert [scope for _, scope in placed] == [_innermost(spans, start) for start in starts]
