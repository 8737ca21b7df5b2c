"""kgraph.codegraph.script_resolve: ``this``, members of object literals and functions,
``require``, and functions handed to code the graph cannot follow, on parsed files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kgraph.codegraph.export import export_callgraph
from kgraph.codegraph.indexer import ParseReport
from kgraph.codegraph.script_resolve import is_script
from kgraph.db import Database
from tests.codegraph.conftest import write_tree

Parse = Callable[..., ParseReport]


def _graph(db: Database, parse: Parse, root: Path, files: dict[str, str]) -> dict[str, list[str]]:
    parse(write_tree(root, files))
    return export_callgraph(db)


def test_is_script_by_name() -> None:
    assert is_script("src/a.ts") and is_script("lib/b.cjs") and is_script("x.d.ts")
    assert not is_script("a.py") and not is_script("main.go")


def test_this_in_objects_bound_functions_and_plain_functions(
    db: Database, parse: Parse, tmp_path: Path
) -> None:
    graph = _graph(
        db,
        parse,
        tmp_path,
        {
            "main.js": """
const api = { load() { return this.save(); }, save() {} };
class A {
  m() {
    setTimeout(function () { this.n(); }.bind(this));
    [1].forEach(function () { this.n(); });
  }
  n() {}
}
api.load();
"""
        },
    )
    assert graph["main.api.load"] == ["main.api.save"]
    assert graph["main.A.m.<anonymous1>"] == ["main.A.n"]
    assert graph["main.A.m.<anonymous2>"] == []  # a plain function's this: unknown


def test_members_of_functions_and_whole_module_exports(
    db: Database, parse: Parse, tmp_path: Path
) -> None:
    graph = _graph(
        db,
        parse,
        tmp_path,
        {
            "lib.js": """
function Queue() {}
Queue.create = function () { return new Queue(); };
Queue.prototype.add = function () {};
function outer() { function inner() {} }
module.exports = Queue;
module.exports.helper = function () {};
module.exports.outer = outer;
""",
            "main.js": """
const Queue = require('./lib');
Queue.create().add();
Queue.helper();
Queue.outer.inner();  // a nested function is no member
""",
        },
    )
    assert graph["main"] == ["lib.Queue.add", "lib.Queue.create", "lib.helper"]


def test_functions_handed_to_code_outside_the_graph(
    db: Database, parse: Parse, tmp_path: Path
) -> None:
    graph = _graph(
        db,
        parse,
        tmp_path,
        {
            "main.js": """
const fs = require('fs');
function onRead() {}
function kept() {}
function later(cb) { setTimeout(cb, 0); }
function own(f) { return f; }
fs.readFile('x', onRead);
later(kept);
own(onRead);
"""
        },
    )
    assert graph["main"] == ["fs.readFile", "main.later", "main.onRead", "main.own"]
    assert graph["main.later"] == ["<builtin>.setTimeout", "main.kept"]
    assert graph["main.own"] == []  # a function of the repository that does not call it
