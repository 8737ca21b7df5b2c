"""Value-flow resolution is bounded: no input overflows the stack (issue 37, item 9).

CPython's standard library made the resolver recurse until the stack overflowed
(RecursionError in pure Python, SIGSEGV in a compiled build), and nothing was stored. Each
chain here passes a value along thousands of steps of one kind (arguments, returns,
``*args`` items, base classes, assignments, literals, generators, re-exports). They are
resolved with little stack to spare: a resolution whose depth grew with the chain would
fail (a file that fails is recorded as such, so ``report.failed`` tells).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from kgraph.codegraph import export_callgraph
from kgraph.codegraph.indexer import ParseReport
from kgraph.db import Database
from tests.codegraph.conftest import write_tree

Parse = Callable[..., ParseReport]
LONG = 1500  # steps: far deeper than any stack (~10 frames a step without the bound)
SHORT = 8  # steps: well within the bound
# Frames resolution may use above the test's own, fixed: the memo's MAX_DEPTH + 1 levels
# of ~12 frames (measured on these chains; at most ~20 on CPython's library), and the
# parse around them. A bound raised too high (or gone) fails these tests.
STACK = 600
# Marks ``x`` as a name that may hold a function, so calls record what is passed as x.
HEADER = "def target():\n    pass\n\n\ndef call(x):\n    x()\n\n\n"


def _arguments(n: int) -> str:
    steps = "".join(f"def f{i}(x):\n    f{i + 1}(x)\n\n\n" for i in range(n))
    return HEADER + steps + f"def f{n}(x):\n    x()\n\n\nf0(target)\n"


def _returns(n: int) -> str:
    steps = "".join(f"def f{i}(x):\n    return f{i + 1}(x)\n\n\n" for i in range(n))
    return HEADER + steps + f"def f{n}(x):\n    return x\n\n\nf0(target)()\n"


def _packs(n: int) -> str:
    steps = "".join(f"def f{i}(*x):\n    f{i + 1}(x[0], *x[1:])\n\n\n" for i in range(n))
    return HEADER + steps + f"def f{n}(*x):\n    x[0]()\n\n\nf0(target, target)\n"


def _classes(n: int) -> str:
    steps = "".join(f"class C{i + 1}(C{i}):\n    pass\n\n\n" for i in range(n))
    return "class C0:\n    def m(self):\n        pass\n\n\n" + steps + f"C{n}().m()\n"


def _assignments(n: int) -> str:
    steps = "".join(f"x{i + 1} = x{i}\n" for i in range(n))
    return HEADER + "x0 = target\n" + steps + f"x{n}()\n"


def _containers(n: int) -> str:
    steps = "".join(f"l{i + 1} = [*l{i}]\n" for i in range(n))
    return HEADER + "l0 = [target]\n" + steps + f"for h in l{n}:\n    h()\n"


def _generators(n: int) -> str:
    steps = "".join(f"def g{i + 1}():\n    yield from g{i}()\n\n\n" for i in range(n))
    return HEADER + "def g0():\n    yield target\n\n\n" + steps + f"for q in g{n}():\n    q()\n"


# chain -> (its file's text for n steps, the caller and callee it ends with)
CHAINS: dict[str, tuple[Callable[[int], str], str, str]] = {
    "arguments": (_arguments, "f{n}", "target"),
    "returns": (_returns, "", "target"),
    "packs": (_packs, "f{n}", "target"),
    "classes": (_classes, "", "C0.m"),
    "assignments": (_assignments, "", "target"),
    "containers": (_containers, "", "target"),
    "generators": (_generators, "", "target"),
}


def _reexports(n: int) -> dict[str, str]:
    """``thing`` imported along n modules (each from the next), defined in the last."""
    files = {f"m{i}.py": f"from m{i + 1} import thing\n" for i in range(n)}
    return {
        **files,
        f"m{n}.py": "def thing():\n    pass\n",
        "use.py": "from m0 import thing\n\nthing()\n",
    }


def _frames() -> int:
    frame, count = sys._getframe(), 0
    while frame is not None:
        frame, count = frame.f_back, count + 1  # type: ignore[assignment]
    return count


@contextmanager
def _little_stack() -> Iterator[None]:
    """Only :data:`STACK` frames above the caller's for what runs inside."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(_frames() + STACK)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def _callees(db: Database, module: str, caller: str) -> list[str]:
    graph = export_callgraph(db)
    return graph.get(f"{module}.{caller}" if caller else module, [])


@pytest.mark.parametrize("chain", sorted(CHAINS))
def test_a_short_chain_is_followed_to_its_end(
    chain: str, db: Database, tmp_path: Path, parse: Parse
) -> None:
    text, caller, callee = CHAINS[chain]
    repo = write_tree(tmp_path / "repo", {f"{chain}.py": text(SHORT)})
    with _little_stack():
        report = parse(repo)
    assert report.failed == 0
    assert f"{chain}.{callee}" in _callees(db, chain, caller.format(n=SHORT))


@pytest.mark.parametrize("chain", sorted(CHAINS))
def test_a_chain_of_thousands_of_steps_resolves_in_a_bounded_stack(
    chain: str, db: Database, tmp_path: Path, parse: Parse
) -> None:
    text, caller, _callee = CHAINS[chain]
    repo = write_tree(tmp_path / "repo", {f"{chain}.py": text(LONG)})
    with _little_stack():
        report = parse(repo)
    assert (report.resolved, report.failed) == (1, 0)
    # Its calls are in the graph, the last step's too (past the bound: not to its end).
    graph = export_callgraph(db)
    assert chain in graph
    assert (f"{chain}.{caller.format(n=LONG)}" if caller else chain) in graph


def test_a_name_reexported_along_hundreds_of_modules(
    db: Database, tmp_path: Path, parse: Parse
) -> None:
    short = write_tree(tmp_path / "short", _reexports(SHORT))
    with _little_stack():
        assert parse(short).failed == 0
    assert _callees(db, "use", "") == [f"m{SHORT}.thing"]
    long = write_tree(tmp_path / "long", _reexports(300))
    with _little_stack():
        report = parse(long)
    assert (report.resolved, report.failed) == (302, 0)


def test_an_item_passed_along_a_recursive_call_of_its_pack(
    db: Database, tmp_path: Path, parse: Parse
) -> None:
    # pack_items was not cached: force -> pack_items -> force ... without end (the
    # RecursionError of CPython's library). Now a cycle of the memo, to a fixpoint.
    source = HEADER + (
        "def run(*args):\n"
        "    args[0]()\n"
        "    run(args[0])\n"
        "    for f in args[1:]:\n"
        "        f()\n"
        "    run(*args[1:])\n"
        "\n\n"
        "run(target, call)\n"
    )
    repo = write_tree(tmp_path / "repo", {"loop.py": source})
    report = parse(repo)
    assert report.failed == 0
    assert set(_callees(db, "loop", "run")) >= {"loop.run", "loop.target", "loop.call"}
