"""kgraph.codegraph.script_functions: TS/JS function values named by where they go, their
parameters, and what ``this`` is in them."""

from __future__ import annotations

from kgraph.codegraph.parse_ts import parse_script
from kgraph.codegraph.summary import Parameter, Summary, param_specs


def _js(source: str) -> Summary:
    return parse_script(source.encode(), "javascript")


def test_function_values_are_named_by_where_they_go() -> None:
    summary = _js(
        """
const api = { load() {}, save: function () {}, run: () => 1, user: { create() {} } };
function make() { return { inc() {} }; }
api.extra = function () {};
exports.hello = (n) => n;
Foo.prototype.bar = function () {};
function Foo() {}
module.exports = function () {};
[1].map((x) => x);
(function named() {})();
"""
    )
    assert set(summary["defs"]) >= {
        "api.load",
        "api.save",
        "api.run",
        "api.user.create",
        "make.inc",
        "api.extra",
        "hello",
        "Foo.bar",
        "Foo",
        "default",
        "<anonymous1>",
        "named",
    }


def test_anonymous_functions_are_numbered_within_their_scope() -> None:
    summary = _js(
        """
function load(ids) {
  return ids.map((id) => id).filter((id) => [id].some((x) => x));
}
"""
    )
    assert {"load.<anonymous1>", "load.<anonymous2>", "load.<anonymous2>.<anonymous1>"} <= set(
        summary["defs"]
    )


def test_receivers_say_what_this_is() -> None:
    summary = _js(
        """
const api = { load() { return this; } };
function Stack() {}
Stack.prototype.push = function () {};
function plain() {}
class A { m() { setTimeout(function () {}.bind(this)); [1].map(() => this); } }
"""
    )
    scopes = summary["scopes"]
    assert scopes["api.load"]["receiver"].startswith("<#")  # the object's literal
    assert scopes["Stack"]["receiver"] == "Stack(!)"
    assert scopes["Stack.push"]["receiver"] == "Stack(!)"
    assert scopes["plain"]["receiver"] == "?"
    assert scopes["A.m.<anonymous1>"]["receiver"] == "this"  # bound
    assert "receiver" not in scopes["A.m.<anonymous2>"]  # an arrow: the method's this
    assert "receiver" not in scopes["A.m"]


def test_parameters_positions_rest_defaults_and_typescript_this() -> None:
    summary = parse_script(
        b"function f(this: Window, a: number, b = noop, ...rest: string[]) {}\n"
        b"const g = (x) => x;\nconst h = y => y;\n",
        "typescript",
    )
    f = summary["scopes"]["f"]
    assert [(s.name, s.kind, s.default) for s in param_specs(f)] == [
        ("a", "pos", ""),
        ("b", "pos", "noop"),
        ("rest", "star", ""),
    ]
    assert f["names"]["b"] == [Parameter("param", 1, 1)]
    assert summary["scopes"]["h"]["params"] == ["y"]
    assert [b.ref for b in summary["scopes"]["g"]["returns"]] == ["x"]  # type: ignore[union-attr]
