"""Parsing to summaries: tolerant of half-edited files, newer syntax, path-independent, and an
interface hash that ignores what other files cannot observe."""

from __future__ import annotations

import pytest
from tree_sitter import Node, Parser

from kgraph.codegraph.changes import changed_names, changed_sites, site_entries
from kgraph.codegraph.parse_python import parse_python
from kgraph.codegraph.parse_ts import parse_script
from kgraph.codegraph.python_nodes import (
    K_CALL,
    K_IDENTIFIER,
    K_LAMBDA,
    PYTHON,
    by_kind,
    kind,
    kinds,
)
from kgraph.codegraph.summary import (
    Annotated,
    Arguments,
    Assigned,
    Call,
    Container,
    ScopedBinding,
    Store,
    Unknown,
    iter_calls,
    param_specs,
)
from kgraph.codegraph.summary_codec import decode_summary, encode_summary

HALF_EDITED = b"""\
import os


def helper():
    return os.getcwd()


def editing(x):
    value = helper(
    if x:
        return value.


class Kept:
    def method(self):
        return helper()
"""


def test_half_edited_python_counts_errors_and_keeps_the_rest() -> None:
    summary = parse_python(HALF_EDITED)
    assert summary["errors"] >= 1
    assert {"helper", "Kept", "Kept.method"} <= set(summary["defs"])
    assert Call("Kept.method", "helper()", 16) in iter_calls(summary)


def test_syntax_newer_than_the_interpreter() -> None:
    source = b"""\
type Vector[T] = list[T]


def first[T: (int, str)](items: list[T]) -> T:
    match items:
        case [head, *_]:
            return head
    raise ValueError("empty")


class Box[T]:
    def get(self) -> T:
        return first([])
"""
    summary = parse_python(source)
    assert summary["errors"] == 0
    assert summary["defs"]["Vector"]["kind"] == "type"
    assert {"first", "Box", "Box.get"} <= set(summary["defs"])
    assert Call("Box.get", "first()", 13) in iter_calls(summary)


def test_entities_and_bindings() -> None:
    summary = parse_python(b"""\
__all__ = ["api"]


def api():
    pass


def _private():
    pass


class Service(Base):
    limit = 3

    def __init__(self, repo: "Repo"):
        self.repo = repo
""")
    defs = summary["defs"]
    assert defs["api"]["exported"] and not defs["_private"]["exported"]
    assert not defs["Service"]["exported"]  # not in __all__
    assert defs["Service"]["bases"] == ["Base"]
    assert defs["Service.__init__"]["kind"] == "method"
    assert summary["scopes"]["Service"]["attrs"]["repo"] == [
        ScopedBinding("Service.__init__", Assigned("val", "repo", 16))
    ]
    assert summary["scopes"]["Service.__init__"]["names"]["repo"] == [Annotated("ann", "Repo", 15)]


def test_changed_names_ignore_line_shifts_and_body_calls() -> None:
    base = parse_python(
        b"import os\n\n\ndef f():\n    return os.getcwd()\n\n\nclass C:\n"
        b"    def m(self):\n        return 1\n"
    )
    shifted = parse_python(
        b"import os\n\n\n\n\ndef f():\n    os.listdir()\n"
        b"    return os.getcwd()\n\n\nclass C:\n    def m(self):\n"
        b"        return 1\n"
    )
    assert changed_names(base, shifted) == set()
    assert changed_names(base, decode_summary(encode_summary(base), lazy=True)) == set()
    renamed = parse_python(
        b"import os\n\n\ndef g():\n    return os.getcwd()\n\n\nclass C:\n"
        b"    def m(self):\n        return 1\n"
    )
    assert changed_names(base, renamed) == {"f", "g"}
    other_return = parse_python(
        b"import os\n\n\ndef f():\n    return os.listdir()\n\n\n"
        b"class C:\n    def m(self):\n        return 1\n"
    )
    assert changed_names(base, other_return) == {"f"}  # callers infer from what f returns
    method = parse_python(
        b"import os\n\n\ndef f():\n    return os.getcwd()\n\n\nclass C:\n"
        b"    def m2(self):\n        return 1\n"
    )
    assert changed_names(base, method) == {"C"}
    assert encode_summary(base) == encode_summary(decode_summary(encode_summary(base)))


def test_typescript_half_edited_and_jsx() -> None:
    summary = parse_script(
        b"""\
import { a } from "./a";

export function ok() {
  return a();
}

export function editing( {
  const x = a(
}
""",
        "typescript",
    )
    assert summary["errors"] >= 1
    assert summary["defs"]["ok"]["exported"]
    assert Call("ok", "a()", 4) in iter_calls(summary)
    tsx = parse_script(b"export const App = () => <div>{render()}</div>;\n", "tsx")
    assert tsx["errors"] == 0
    assert Call("App", "render()", 1) in iter_calls(tsx)


def test_calls_are_in_document_order_whatever_order_the_query_returns_them() -> None:
    source = b"outer(\n    inner(\n        deepest()\n    )\n)\nlast(first_arg(), second_arg())\n"
    calls = parse_python(source)["calls"][""]
    assert calls == [
        "outer()",
        1,
        "inner()",
        2,
        "deepest()",
        3,
        "last()",
        6,
        "first_arg()",
        6,
        "second_arg()",
        6,
    ]
    first = encode_summary(parse_python(source))
    assert all(encode_summary(parse_python(source)) == first for _ in range(5))


def test_values_a_call_graph_follows_are_kept() -> None:
    summary = parse_python(b"""\
def helper():
    return 1


def run(callback, *, key=None):
    return callback()


run(helper, key=lambda: helper())
table = {"a": helper, "b": 1}
table["c"] = helper
items = []
items.append(run)
count = len(items)


@run
def decorated():
    pass
""")
    module = summary["scopes"][""]
    assert Arguments(["helper"], {"key": "@<lambda1>"}, False) in module["args"]
    assert Arguments(["run"], {}, False) in module["args"]  # items.append(run)
    assert module["containers"][0] == Container("dict", ["a"], ["helper"], 10)
    assert Store("table", "c", "helper", 11) in module["stores"]
    assert Store("items", None, "run", 13) in module["stores"]
    assert module["names"]["decorated"] == [Assigned("val", "run(#0)", 18)]
    assert module["args"][0] == Arguments(["@decorated"], {}, True)
    calls = iter_calls(summary)
    assert Call("", "run(#1)", 9) in calls
    assert Call("", "len()", 14) in calls  # a list of functions, but len does not call them
    assert summary["defs"]["<lambda1>"]["kind"] == "function"
    assert not summary["defs"]["<lambda1>"]["exported"]
    assert summary["scopes"]["<lambda1>"]["returns"] == [Assigned("val", "helper()", 9)]
    assert [p.kind for p in param_specs(summary["scopes"]["run"])] == ["pos", "kwonly"]
    assert summary["scopes"]["run"]["params"] == ["callback", "=key"]  # stored compactly
    assert changed_sites(None, summary) == {"run", "append"}  # call sites by name
    every = site_entries(summary)
    assert site_entries(summary, "run") == {"run": every["run"]}  # one key's, alone
    assert site_entries(summary, "items") == {}  # in a ref, but not the called name


def test_loops_unpacking_yields_and_raise() -> None:
    summary = parse_python(b"""\
def gen(things):
    yield from things
    for a, (b, *rest) in things:
        yield b()
    for c in things:
        yield c
    raise KeyError
""")
    scope = summary["scopes"]["gen"]
    assert scope["yields"][:2] == [Assigned("val", "things[*]", 2), Assigned("val", "b()", 4)]
    assert scope["names"]["a"] == [Assigned("val", "things[*][0]", 3)]
    assert scope["names"]["rest"] == [Assigned("val", "things[*][1][1:]", 3)]
    assert scope["names"]["c"] == [Unknown("unk", 5)]  # never called: not followed
    calls = [c.ref for c in iter_calls(summary)]
    assert sorted(calls) == ["KeyError(!)", "b()"]  # a parameter iterated: no protocol call
    protocol = parse_python(b"class Tree:\n    pass\n\n\nfor node in Tree():\n    pass\n")
    assert [c.ref for c in iter_calls(protocol)] == ["Tree()", "Tree()(*)"]


def test_loops_over_a_name_annotated_as_a_container_bind_its_element_type() -> None:
    summary = parse_python(b"""\
import typing


def run(jobs: list[Job], steps: typing.Iterator[m.Step], maybe: Optional[Sequence[Task]],
        pairs: dict[str, Job], mixed: tuple[A, B], rebound: list[Job]):
    kept: tuple[Item, ...] = make()
    rebound = other()
    for job in jobs:
        pass
    for step in steps:
        pass
    for task in maybe:
        pass
    for item in kept:
        pass
    for key in pairs:
        pass
    for thing in mixed:
        pass
    for again in rebound:
        pass
    return [s for s in steps]


async def stream(items: AsyncIterator[Item]):
    async for item in items:
        pass
""")
    names = summary["scopes"]["run"]["names"]
    assert names["job"] == [Annotated("ann", "Job", 8)]
    assert names["step"] == [Annotated("ann", "m.Step", 10)]
    assert names["task"] == [Annotated("ann", "Task", 12)]
    assert names["item"] == [Annotated("ann", "Item", 14)]
    assert names["s"] == [Annotated("ann", "m.Step", 22)]  # a comprehension's too
    for untyped in ("key", "thing", "again"):  # a mapping's keys; mixed; rebound first
        assert not any(isinstance(b, Annotated) for b in names[untyped]), untyped
    assert summary["scopes"]["stream"]["names"]["item"] == [Annotated("ann", "Item", 26)]


def _named(root: Node) -> list[Node]:
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        found += [node] if node.is_named else []
        stack.extend(node.children)
    return found


def test_node_type_ids_are_the_ids_of_every_node_of_that_type() -> None:
    # Aliased rules (a lambda as a comprehension's iterable, an `as` pattern in a match)
    # are separate grammar symbols with one public id: that is what Node.kind_id gives.
    source = b"""
f = lambda x: x
ys = [y for y in lambda: z]
match point:
    case (1, 2) as pair:
        g(pair, key=lambda: 0, *rest, **more)
"""
    nodes = _named(Parser(PYTHON).parse(source).root_node)
    assert len({n.grammar_id for n in nodes if n.type == "lambda"}) == 2  # both symbols
    seen: dict[str, set[int]] = {}
    for node in nodes:
        seen.setdefault(node.type, set()).add(node.kind_id)
    assert seen["lambda"] == {K_LAMBDA} and seen["call"] == {K_CALL}
    assert all(ids == {kind(name)} for name, ids in seen.items() if name != "ERROR")
    assert kinds("identifier", "call") == {K_IDENTIFIER, K_CALL}
    assert by_kind({"identifier": "a name", "call": "a call"}) == {
        K_IDENTIFIER: "a name",
        K_CALL: "a call",
    }
    with pytest.raises(LookupError, match="no node type 'no_such_node'"):
        kind("no_such_node")
