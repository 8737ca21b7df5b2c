"""kgraph.codegraph.script_refs: the arguments, object and array literals, stores and loops
a TS/JS summary keeps (only where a function may be in them)."""

from __future__ import annotations

from kgraph.codegraph.parse_ts import parse_script
from kgraph.codegraph.script_refs import MAX_LITERAL_MEMBERS
from kgraph.codegraph.summary import Arguments, Assigned, Container, Store, Summary, iter_calls


def _js(source: str) -> Summary:
    return parse_script(source.encode(), "javascript")


def test_arguments_are_kept_where_a_function_may_be() -> None:
    summary = _js(
        """
function handler() {}
const data = compute();
run(handler, 1, 'x');
run(data, 2);
run((x) => x, ...rest);
console.log(handler);
emitter.on('x', this.onClick.bind(this));
"""
    )
    module = summary["scopes"][""]
    assert module["args"] == [
        Arguments(["handler", "?", "?"], {}, False),
        Arguments(["@<anonymous1>", "*"], {}, False),
        Arguments(["?", "this.onClick"], {}, False),
    ]
    refs = [call.ref for call in iter_calls(summary)]
    assert "run()" in refs  # run(data, 2): nothing to follow
    assert "console.log()" in refs  # console never calls what it is given


def test_call_and_apply_call_the_function() -> None:
    summary = _js("function f(cb) {}\nfunction g(x) { f.call(null, g); f.apply(null, [g]); }\n")
    assert [call.ref for call in iter_calls(summary) if call.scope == "g"] == ["f(#0)", "f()"]


def test_object_and_array_literals_stores_and_loops() -> None:
    summary = _js(
        """
function a() {}
const api = { a, b: () => 1, n: 0, s: 'x' };
const utils = {};
utils.trim = function () {};
const steps = [a, 1, () => 2];
for (const step of steps) { step(); }
"""
    )
    module = summary["scopes"][""]
    assert module["containers"] == [
        Container("dict", ["a", "b"], ["a", "@api:b"], 3),
        Container("dict", [], [], 4),
        Container("list", [0, 2], ["a", "@<anonymous1>"], 6),
    ]
    assert module["stores"] == [Store("utils", "trim", "@utils:trim", 5)]
    assert module["names"]["step"] == [Assigned("val", "steps[*]", 7)]


def test_destructured_members_hold_the_value_s_members() -> None:
    summary = _js("const { a, b: c = () => 1, [k]: d } = obj;\nconst [x, [y]] = pair;\n")
    names = summary["scopes"][""]["names"]
    assert names["a"] == [Assigned("val", "obj.a", 1)]
    assert names["c"] == [Assigned("val", "obj.b", 1), Assigned("val", "@<anonymous1>", 1)]
    assert names["x"] == [Assigned("val", "pair[0]", 2)]
    assert "d" in names and "y" not in names


def test_a_literal_of_many_members_is_data() -> None:
    # A generated table (sphinx's searchindex.js) is not walked for functions; a small
    # literal of the same shape is.
    def table(size: int) -> Summary:
        return _js(f"function a() {{}}\nconst t = [a, {', '.join(['1'] * (size - 1))}];\n")

    small = table(MAX_LITERAL_MEMBERS)["scopes"][""]
    assert small["containers"] == [Container("list", [0], ["a"], 2)]
    assert "containers" not in table(MAX_LITERAL_MEMBERS + 1)["scopes"][""]
