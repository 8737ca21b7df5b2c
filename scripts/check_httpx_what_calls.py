"""``graph what-calls`` on httpx against the callers a reader of the code finds: found,
missed, wrong, per target and in total (precision, recall).

    python scripts/check_httpx_what_calls.py [--repo /tmp/httpx] [--code CHECKOUT] [--details]
    python scripts/check_httpx_what_calls.py --rank    # httpx's most called, as read

Clones httpx's ``master`` from ``../shared/repos/httpx.bundle`` into ``--repo`` (unless
it is there), parses it cold into a database of its own with ``kgraph graph parse``
(``--code``: the kgraph of another checkout, for a before/after: ``git archive HEAD | tar
-x -C /tmp/before``), and compares, for each of :data:`TARGETS`, the callers
``what_calls`` gives with the callers ``scripts/python_callers.py`` reads in the source
with ``ast``. A caller is a (file, function) pair, the function holding the call as the
graph's entities span it (the same rule for both sides; module-level code: the file's).

How calls of another class's method of the same name are told apart: the reader decides
each call's target from what is written down (imports, annotations, constructors,
``self``, pytest fixtures...: its docstring lists the rules), so a call of ``get`` on a
dict, or of ``read`` on a ``Request`` rather than a ``Response``, is decided as a call of
that other method and is not an expected caller of the target: a graph caller made only of
such calls counts as *wrong*. A call whose receiver's type the reader cannot decide (a
parameter with neither annotation nor fixture, an attribute of one) is *undecided*: a
graph caller whose only calls of the target's name are undecided is listed apart,
counted neither found nor wrong. ``--details`` prints every missed, wrong and undecided
caller with its line, for reading.

The targets (``--rank``): the 6 most called constructors, and the 14 most called other
functions and methods of the package (public, or ``__init__``), by the number of functions
calling them as read. Every further constructor is reached the way those are (a class
called by name): counting them all would weigh the easy case most.
"""

from __future__ import annotations

import argparse
import ast
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from python_callers import Reader

HERE = Path(__file__).resolve().parent
# Beside the checkout (../shared), as in CI, or where KGRAPH_SHARED says.
SHARED = os.environ.get("KGRAPH_SHARED") or str(Path(__file__).resolve().parents[2] / "shared")
BUNDLE = str(Path(SHARED) / "repos" / "httpx.bundle")
TARGETS = [  # (what-calls name, the reader's qualified name)
    (f"httpx/{path}.py::{name}", f"httpx.{path.replace('/', '.')}.{name}")
    for path, name in [
        ("_models", "Response.__init__"),
        ("_client", "Client.__init__"),
        ("_transports/mock", "MockTransport.__init__"),
        ("_urls", "URL.__init__"),
        ("_models", "Request.__init__"),
        ("_client", "AsyncClient.__init__"),
        ("_client", "Client.get"),
        ("_models", "Response.json"),
        ("_client", "AsyncClient.get"),
        ("_urls", "URL.copy_with"),
        ("_client", "Client.post"),
        ("_models", "Request.read"),
        ("_client", "BaseClient.build_request"),
        ("_config", "create_ssl_context"),
        ("_models", "Response.aread"),
        ("_exceptions", "request_context"),
        ("_models", "Response.read"),
        ("_auth", "Auth.sync_auth_flow"),
        ("_client", "Client.request"),
        ("_models", "Headers.get"),
    ]
]
Key = tuple[str, str]  # (file, function)
Call = tuple[str, int, str, str, "set[str] | None"]  # read_calls


def _parse(repo: Path, code: Path) -> Path:
    """Clone httpx (once) and parse it cold into a database of its own; returns its path."""
    if not repo.exists():
        subprocess.run(["git", "clone", "-q", "-b", "master", BUNDLE, str(repo)], check=True)
    database = repo / ".claude" / "check-what-calls.db"
    for stale in database.parent.glob(f"{database.name}*"):
        stale.unlink()
    env = {**os.environ, "PYTHONPATH": str(code)}
    command = [sys.executable, "-m", "kgraph", "--db", str(database), "graph", "parse", "."]
    subprocess.run(command, cwd=repo, env=env, check=True, stdout=subprocess.DEVNULL)
    return database


def read_calls(reader: Reader) -> Iterator[Call]:
    """(file, line, caller, called name, targets) of every call of the repository, as
    read (caller: the function's qualified name; the module's, for module-level code)."""
    from python_callers import own_nodes

    for function in reader.functions.values():
        for node in own_nodes(function.node):
            if isinstance(node, ast.Call):
                found = reader.targets(node, function, function.module)
                yield function.module.path, node.lineno, function.qname, _called(node), found
    for module in reader.modules.values():
        for node in own_nodes(module.tree):
            if isinstance(node, ast.Call):
                found = reader.targets(node, None, module)
                yield module.path, node.lineno, module.name, _called(node), found


def _called(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _rank(calls: list[Call]) -> None:
    callers: dict[str, set[str]] = {}
    for _path, _line, caller, _called, targets in calls:
        for target in targets or ():
            callers.setdefault(target, set()).add(caller)
    for target, found in sorted(callers.items(), key=lambda item: (-len(item[1]), item[0])):
        last = target.rsplit(".", 1)[-1]
        if target.startswith("httpx.") and (not last.startswith("_") or last == "__init__"):
            print(f"{len(found):5} {target}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, default=Path("/tmp/httpx"))
    parser.add_argument("--code", type=Path, default=HERE.parent)
    parser.add_argument("--details", action="store_true")
    parser.add_argument("--rank", action="store_true")
    args = parser.parse_args()
    code = args.code.resolve()
    database = None if args.rank else _parse(args.repo, code)
    sys.path[:0] = [str(HERE), str(code)]
    from python_callers import Reader

    calls: list[Call] = list(read_calls(Reader(args.repo)))
    if database is None:
        _rank(calls)
        return
    from check_what_calls import graph_callers, spans_enclosing

    from kgraph.db import open_database

    db = open_database(f"sqlite:///{database}")
    try:
        enclosing = spans_enclosing(db)
        texts: dict[str, list[str]] = {}

        def key(path: str, line: int) -> Key:
            lines = texts.setdefault(path, (args.repo / path).read_text().splitlines())
            return path, enclosing(path, lines, line - 1)

        totals = [0, 0, 0, 0]
        print(f"{'target':28} {'read':>5} {'found':>5} {'missed':>6} {'wrong':>5} {'undecided':>9}")
        details: list[str] = []
        for name, qname in TARGETS:
            called = qname.split(".")[-2] if qname.endswith(".__init__") else qname.split(".")[-1]
            expected: dict[Key, int] = {}
            undecided: set[Key] = set()
            for path, line, _caller, name_called, targets in calls:
                if targets is not None and qname in targets:
                    expected.setdefault(key(path, line), line)
                elif targets is None and name_called in (called, qname.split(".")[-1]):
                    undecided.add(key(path, line))
            graph = graph_callers(args.repo, db, name, enclosing)
            unknown = (graph.keys() - expected.keys()) & undecided
            groups = {
                "found": (expected.keys() & graph.keys(), expected),
                "missed": (expected.keys() - graph.keys(), expected),
                "wrong": (graph.keys() - expected.keys() - unknown, graph),
                "undecided": (unknown, graph),
            }
            row = [len(keys) for keys, _source in groups.values()]
            totals = [a + b for a, b in zip(totals, row, strict=True)]
            short = name.split("::")[-1]
            print(f"{short:28} {len(expected):5} {row[0]:5} {row[1]:6} {row[2]:5} {row[3]:9}")
            for label in ("missed", "wrong", "undecided"):
                keys, source = groups[label]
                for path, function in sorted(keys):
                    details.append(
                        f"  {short}: {label} {path}:{source[(path, function)]} {function}"
                    )
        found, missed, wrong, unknown_total = totals
        print(f"{'ALL':28} {found + missed:5} {found:5} {missed:6} {wrong:5} {unknown_total:9}")
        precision = found / (found + wrong) if found + wrong else 1.0
        recall = found / (found + missed) if found + missed else 1.0
        print(f"precision {precision:.3f}  recall {recall:.3f}")
        if args.details:
            print("\n".join(details))
    finally:
        db.close()


if __name__ == "__main__":
    main()
