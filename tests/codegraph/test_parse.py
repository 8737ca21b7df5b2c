"""Parsing to summaries: tolerant of half-edited files, newer syntax, path-independent, and an
interface hash that ignores what other files cannot observe."""

from __future__ import annotations

import json

from kgraph.codegraph.parse_python import parse_python
from kgraph.codegraph.parse_ts import parse_script
from kgraph.codegraph.summary import changed_names, iter_calls, to_json

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
    assert ("Kept.method", "helper", 16) in iter_calls(summary)


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
    assert summary["defs"]["Vector"]["k"] == "type"
    assert {"first", "Box", "Box.get"} <= set(summary["defs"])
    assert ("Box.get", "first", 13) in iter_calls(summary)


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
    assert defs["api"]["x"] and not defs["_private"]["x"]
    assert not defs["Service"]["x"]  # not in __all__
    assert defs["Service"]["b"] == ["Base"]
    assert defs["Service.__init__"]["k"] == "method"
    assert summary["scopes"]["Service"]["ia"]["repo"] == [["Service.__init__", ["val", "repo", 16]]]
    assert summary["scopes"]["Service.__init__"]["b"]["repo"] == [["ann", "Repo", 15]]


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
    assert json.loads(to_json(base)) == base


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
    assert summary["defs"]["ok"]["x"]
    assert ("ok", "a", 4) in iter_calls(summary)
    tsx = parse_script(b"export const App = () => <div>{render()}</div>;\n", "tsx")
    assert tsx["errors"] == 0
    assert ("App", "render", 1) in iter_calls(tsx)


def test_calls_are_in_document_order_whatever_order_the_query_returns_them() -> None:
    source = b"outer(\n    inner(\n        deepest()\n    )\n)\nlast(first_arg(), second_arg())\n"
    calls = parse_python(source)["calls"][""]
    assert calls == [
        "outer",
        1,
        "inner",
        2,
        "deepest",
        3,
        "last",
        6,
        "first_arg",
        6,
        "second_arg",
        6,
    ]
    assert all(to_json(parse_python(source)) == to_json(parse_python(source)) for _ in range(5))
