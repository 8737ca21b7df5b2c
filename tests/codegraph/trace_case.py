"""Run one call-graph case and write the call edges that really happened, as JSON.

Usage: ``python trace_case.py CASE_DIR OUTPUT_JSON``. The case's ``main.py`` runs with the
case folder as ``sys.path[0]`` under ``sys.setprofile``; every call between code of the
case, and every call of a builtin function, is recorded (``edges``), and so is every
function and module of the case that ran (``ran``), with the same naming as
``callgraph.json`` (class bodies and comprehensions belong to their enclosing function or
module; a lambda is a node of its own, ``<lambdaN>`` numbered in source order within the
function, class or module it is written in). Calls into other modules (the standard
library) are not recorded: their names differ from the import paths the format uses. Used
by the tests to check the hand-written expectations against what Python actually does.
A case of pytest tests has a ``main.py`` running pytest on its folder: what pytest calls
(tests, fixtures) has no caller of the case.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import json
import os
import runpy
import sys
from functools import cache
from types import CodeType, FrameType
from typing import Any

CASE = os.path.realpath(sys.argv[1])
EDGES: set[tuple[str, str]] = set()
RAN: set[str] = set()  # functions and modules of the case that executed
# file -> [(body start, body end, dotted name below the module)] of its lambdas
LAMBDAS: dict[str, list[tuple[tuple[int, int], tuple[int, int], str]]] = {}


@cache  # every call of the run asks (pytest's own: thousands of files)
def module_of(filename: str) -> str | None:
    if filename.startswith("<") or not filename.endswith(".py"):
        return None  # frozen/builtin modules
    path = os.path.realpath(filename)
    if not path.startswith(CASE + os.sep):
        return None
    relative = path[len(CASE) + 1 :][: -len(".py")]
    if relative.endswith("__init__"):
        relative = relative[: -len("__init__")].rstrip(os.sep)
    return relative.replace(os.sep, ".")


def is_function(code: CodeType) -> bool:
    """A function or lambda (not a module, class body or comprehension)."""
    if code.co_name == "<lambda>":
        return True
    return bool(code.co_flags & inspect.CO_NEWLOCALS) and not code.co_name.startswith("<")


def lambda_table(filename: str) -> list[tuple[tuple[int, int], tuple[int, int], str]]:
    """The lambdas of a file: body span and name (owner path + ``<lambdaN>``), numbered in
    source order within their owner (function, class, lambda or module; not comprehensions).
    Defaults, decorators and bases belong to the enclosing owner, where they are evaluated."""
    if filename not in LAMBDAS:
        with open(filename, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
        found: list[tuple[tuple[str, ...], ast.Lambda]] = []

        def visit(node: ast.AST, owner: tuple[str, ...]) -> None:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                outer = [*node.decorator_list]
                if isinstance(node, ast.ClassDef):
                    outer += [*node.bases, *node.keywords]
                else:
                    outer += [*node.args.defaults, *(d for d in node.args.kw_defaults if d)]
                for child in outer:
                    visit(child, owner)
                for child in node.body:
                    visit(child, (*owner, node.name))
                return
            if isinstance(node, ast.Lambda):
                found.append((owner, node))
                for child in [*node.args.defaults, *(d for d in node.args.kw_defaults if d)]:
                    visit(child, owner)
                visit(node.body, (*owner, f"<lambda@{id(node)}>"))
                return
            for child in ast.iter_child_nodes(node):
                visit(child, owner)

        visit(tree, ())
        counters: dict[tuple[str, ...], int] = {}
        names: dict[str, str] = {}  # placeholder -> <lambdaN>
        table = []
        for owner, node in sorted(found, key=lambda f: (f[1].lineno, f[1].col_offset)):
            counters[owner] = counters.get(owner, 0) + 1
            names[f"<lambda@{id(node)}>"] = f"<lambda{counters[owner]}>"
        for owner, node in found:
            path = [names.get(part, part) for part in owner] + [names[f"<lambda@{id(node)}>"]]
            body = node.body
            end = (body.end_lineno or body.lineno, body.end_col_offset or 0)
            table.append(((body.lineno, body.col_offset), end, ".".join(path)))
        LAMBDAS[filename] = table
    return LAMBDAS[filename]


def lambda_name(code: CodeType) -> str | None:
    """The dotted name (below the module) of a lambda's code object: the innermost lambda
    whose body holds the positions of the code's instructions."""
    positions = [
        (line, column)
        for line, _end, column, _end_column in code.co_positions()
        if line is not None and column is not None and (line, column) != (code.co_firstlineno, 0)
    ]
    if not positions:
        return None
    start = min(positions)
    holding = [
        (begin, end, name)
        for begin, end, name in lambda_table(code.co_filename)
        if begin <= start <= end
    ]
    return max(holding)[2] if holding else None


NODES: dict[CodeType, str | None] = {}


def node_of(code: CodeType) -> str | None:
    if code not in NODES:
        NODES[code] = _node_of(code)
    return NODES[code]


def _node_of(code: CodeType) -> str | None:
    module = module_of(code.co_filename)
    if module is None:
        return None
    if code.co_name == "<module>":
        return module
    if code.co_name == "<lambda>":
        name = lambda_name(code)
        return f"{module}.{name}" if name else None
    tokens = code.co_qualname.split(".")
    # (name, is_function): a name followed by <locals> is a function; the last one is a
    # function unless this code object is a class body/comprehension/lambda; others: classes.
    named: list[tuple[str, bool]] = []
    for i, token in enumerate(tokens):
        if token == "<locals>":
            continue
        last = i == len(tokens) - 1
        named.append((token, is_function(code) if last else tokens[i + 1] == "<locals>"))
    while named and not named[-1][1]:  # trailing classes/comprehensions: the enclosing scope
        named.pop()
    return ".".join([module, *(name for name, _ in named)])


def is_runner(filename: str) -> bool:
    """Code of the test runner (pytest and its plugin manager): the test functions and
    fixtures it calls are called by no code of the case."""
    return any(f"{os.sep}{package}{os.sep}" in filename for package in ("_pytest", "pluggy"))


def caller_of(frame: FrameType | None) -> str | None:
    while frame is not None:
        name = node_of(frame.f_code)
        if name is not None:
            return name
        if is_runner(frame.f_code.co_filename):
            return None
        frame = frame.f_back
    return None


def profile(frame: FrameType, event: str, arg: Any) -> None:
    # Most calls of a run are of code outside the case (the standard library, pytest):
    # they are left at the first test.
    if event == "call":
        callee = node_of(frame.f_code)
        if callee is None:
            return
        RAN.add(callee)
        if not is_function(frame.f_code):
            return
        caller = caller_of(frame.f_back)
        if caller is not None:
            EDGES.add((caller, callee))
    elif event == "c_call":
        caller = node_of(frame.f_code)
        if caller is None:
            return
        name = getattr(arg, "__name__", None)
        # class statements call __build_class__: an implementation detail, not a call.
        if name and not name.startswith("__") and getattr(builtins, name, None) is arg:
            EDGES.add((caller, f"<builtin>.{name}"))


sys.path.insert(0, CASE)
os.chdir(CASE)
sys.setprofile(profile)
try:
    runpy.run_path(os.path.join(CASE, "main.py"), run_name="main")
finally:
    sys.setprofile(None)
graph: dict[str, list[str]] = {}
for caller, callee in sorted(EDGES):
    graph.setdefault(caller, []).append(callee)
with open(sys.argv[2], "w", encoding="utf-8") as handle:  # the case may print to stdout
    json.dump({"edges": graph, "ran": sorted(RAN | {"main"})}, handle, indent=2)
