"""Scopes by byte offset: the one-call forms (document_order, Spans.scopes_at) the Python
summariser uses give what sorting by (start, end) and Spans.scope_for give node by node."""

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


def test_scopes_at_matches_scope_for() -> None:
    """Defaults and decorators belong to the enclosing scope, bodies to the definition,
    code after a nested definition to its parent again."""
    spans, nodes = _spans_and_nodes()
    ordered, starts = document_order(nodes)
    assert spans.scopes_at(starts) == [spans.scope_for(node) for node in ordered]
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
