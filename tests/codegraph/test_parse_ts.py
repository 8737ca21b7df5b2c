"""The TS/JS summariser's passes (kgraph.codegraph.parse_ts): what they keep of a file's
calls, and what they leave behind. What each pass records: test_script_functions,
test_script_refs, test_parse (half-edited files, JSX), test_typescript (the graph)."""

from __future__ import annotations

import gc

from kgraph.codegraph.parse_ts import parse_script


def test_calls_are_in_document_order_inner_first() -> None:
    source = b"""\
a.b(x).c(y);
outer(
  inner(deepest()),
  () => later(),
);
"""
    calls = parse_script(source, "typescript")["calls"]
    assert calls[""] == [
        "a.b()",
        1,
        "a.b().c()",
        1,
        "outer(#0)",
        2,
        "inner()",
        3,
        "deepest()",
        3,
    ]
    assert calls["<anonymous1>"] == ["later()", 4]


def test_a_parse_leaves_no_cycles_for_the_paused_collector() -> None:
    # Files are parsed with the cyclic collector paused: garbage in cycles would keep
    # every file's summariser, and its syntax tree, alive until the pause ends.
    source = b"""\
const api = { load() { return this; } };
function run(cb) { return cb(); }
run(() => api.load());
"""
    parse_script(source, "typescript")  # the grammars loaded, the query compiled
    parse_script(source, "javascript")
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        parse_script(source, "typescript")
        parse_script(source, "javascript")
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()
