"""pytest fixtures: what a parameter of a test function (or of a fixture) holds when pytest
binds it to a fixture.

pytest calls test functions itself, passing for each parameter the value of the fixture of
that name, so no call site in the code binds them: the parameter of ``def test_get(client):
client.get()`` held nothing, and every call through a fixture was lost (most calls of a
library's API made by its tests). Here such a parameter takes the fixture's value: its
return annotation (``Iterator[X]`` and the like unwrapped for a yield fixture, by the
summariser), or else what it returns or yields.

The fixture is looked up as pytest does, the closest definition first: fixtures of the
test's class (and of the classes holding it), of its module (defined or imported there),
then of the ``conftest.py`` files of the test file's folder and its parents, up to the
repository's root. ``@pytest.fixture(name="x")`` names a fixture ``x``; a fixture asking for
its own name gets the one it overrides, further up. pytest's own fixtures (``tmp_path``,
``monkeypatch``...) are instances of their classes.

Only parameters that pytest binds are looked up: those of fixtures, and of test functions
(``test*``, at module level or in ``Test*`` classes) of test files (``test_*.py``,
``*_test.py``, ``conftest.py``); any other parameter costs a look at its function's
definition and its file's name.

Dependencies, for incremental parses: a test reads the fixture's name in each conftest it
looks in (a renamed fixture is part of that name too: :func:`.changes.changed_names`), and
a folder without a ``conftest.py`` is read as a missing import of ``<folder>/conftest``, so
that adding one (it may override the fixture) resolves the test again.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from typing import TYPE_CHECKING, Final, NamedTuple

from tree_sitter import Node

from kgraph.codegraph import flow
from kgraph.codegraph.imports import module_attr
from kgraph.codegraph.python_elements import annotation_elements
from kgraph.codegraph.python_nodes import (
    F_ARGUMENTS,
    F_FUNCTION,
    F_NAME,
    F_RETURN_TYPE,
    F_VALUE,
    node_text,
)
from kgraph.codegraph.python_refs import constant
from kgraph.codegraph.summary import Annotated, Binding, ImportedName
from kgraph.codegraph.values import CONF_EXTERNAL, CONF_INFERRED, Result, weaken

if TYPE_CHECKING:
    from kgraph.codegraph.resolve import Resolver

# Decorators that make a function a fixture, as written.
FIXTURE_DECORATORS: Final = frozenset(
    {"pytest.fixture", "fixture", "pytest_asyncio.fixture", "pytest.yield_fixture"}
)
# pytest's own fixtures: the public class of what each gives.
BUILTIN_FIXTURES: Final = {
    "tmp_path": "pathlib.Path",
    "monkeypatch": "pytest.MonkeyPatch",
    "capsys": "pytest.CaptureFixture",
    "capfd": "pytest.CaptureFixture",
    "caplog": "pytest.LogCaptureFixture",
    "request": "pytest.FixtureRequest",
    "recwarn": "pytest.WarningsRecorder",
    "pytester": "pytest.Pytester",
    "tmp_path_factory": "pytest.TempPathFactory",
}
CONFTEST: Final = "conftest.py"


class Fixture(NamedTuple):
    """A fixture definition: the file and qualified name of its function."""

    path: str
    qname: str


class Declared(NamedTuple):
    """A def the summariser found to be a fixture: the fixture's name, and for a yield
    fixture the classes its ``Iterator[X]``-like return annotation says it yields (only
    a generator's yields are a fixture's value: a plain function's are dropped)."""

    name: str
    yields: list[str]


# -- the summariser's part -----------------------------------------------------------------
def pytest_fixture(
    decorated: Node | None, node: Node, function: str, decorators: list[str]
) -> Declared | None:
    """The fixture a def (``node``, named ``function``, decorated by ``decorators`` as
    written) defines, None for a def that defines none."""
    if FIXTURE_DECORATORS.isdisjoint(decorators):
        return None
    name = fixture_name(decorated, function)
    if name is None:
        return None
    return Declared(name, annotation_elements(node.child_by_field_id(F_RETURN_TYPE)))


def fixture_name(decorated: Node | None, function: str) -> str | None:
    """The name of the fixture a decorated def defines (``name=`` of the decorator, else
    the function's), or None when no decorator makes it one."""
    if decorated is None:
        return None
    for child in decorated.named_children:
        if child.type != "decorator" or not child.named_children:
            continue
        expr = child.named_children[0]
        call = expr if expr.type == "call" else None
        callee = call.child_by_field_id(F_FUNCTION) if call is not None else expr
        if node_text(callee) not in FIXTURE_DECORATORS:
            continue
        arguments = call.child_by_field_id(F_ARGUMENTS) if call is not None else None
        for argument in arguments.named_children if arguments is not None else []:
            if (
                argument.type == "keyword_argument"
                and node_text(argument.child_by_field_id(F_NAME)) == "name"
            ):
                given = constant(argument.child_by_field_id(F_VALUE))
                if isinstance(given, str) and given.isidentifier():
                    return given
        return function
    return None


# -- the resolver's part -------------------------------------------------------------------
def is_test_file(path: str) -> bool:
    """Whether pytest collects tests (or fixtures, for conftest.py) from this file."""
    base = posixpath.basename(path)
    return (
        (base.startswith("test_") and base.endswith(".py"))
        or base.endswith("_test.py")
        or (base == CONFTEST)
    )


def binds_fixtures(resolver: Resolver, path: str, function: str) -> bool:
    """Whether pytest binds the parameters of ``function``: a fixture anywhere, or a test
    function of a test file (``test*`` at module level or in classes named ``Test*``)."""
    summary = resolver.summary(path)
    info = summary["defs"].get(function) if summary is not None else None
    if info is None:
        return False
    if "fixture" in info:
        return True
    if not is_test_file(path):
        return False
    owner, _, name = function.rpartition(".")
    if not name.startswith("test"):
        return False
    return all(part.startswith("Test") for part in owner.split(".")) if owner else True


def fixture_argument(
    resolver: Resolver, path: str, function: str, name: str
) -> list[Result] | None:
    """What pytest passes for the parameter ``name`` of ``function`` (see
    :func:`binds_fixtures`): the value of the closest fixture of that name, None when
    there is none (the parameter is then left to its callers, as any other)."""
    key = ("fixture-arg", path, function, name)
    return resolver.memo(key, lambda: _argument(resolver, path, function, name), None)


def _argument(resolver: Resolver, path: str, function: str, name: str) -> list[Result] | None:
    summary = resolver.summary(path)
    info = summary["defs"].get(function) if summary is not None else None
    # A fixture asking for its own name gets the fixture it overrides: the next one out.
    passed = info is None or info.get("fixture") != name
    for fixture in _candidates(resolver, path, function, name):
        if passed:
            return fixture_value(resolver, fixture)
        passed = fixture == (path, function)
    if name in BUILTIN_FIXTURES:
        return [(("extinst", BUILTIN_FIXTURES[name]), CONF_EXTERNAL, "fixture")]
    return None


def _candidates(resolver: Resolver, path: str, function: str, name: str) -> Iterator[Fixture]:
    """The fixtures named ``name`` visible from ``function``, the closest first: of its
    classes (innermost first), its module, then the conftest files from its folder up."""
    index = _fixtures_of(resolver, path)
    owner = function.rpartition(".")[0]
    summary = resolver.summary(path)
    scopes = summary["scopes"] if summary is not None else {}
    while owner:  # the classes holding a test method (a fixture's own class too)
        scope = scopes.get(owner)
        if scope is not None and scope["kind"] == "class":
            for qname in reversed(index.get((owner, name), ())):
                yield Fixture(path, qname)
        owner = owner.rpartition(".")[0]
    yield from _module_fixtures(resolver, path, name)
    folder = posixpath.dirname(path)
    while True:
        conftest = posixpath.join(folder, CONFTEST)
        if conftest != path:
            if conftest in resolver.index.files:
                resolver.note(conftest, name)
                yield from _module_fixtures(resolver, conftest, name)
            else:  # one added later may hold the fixture
                resolver.note_missing(conftest[: -len(".py")])
        if not folder:
            return
        folder = posixpath.dirname(folder)


def _module_fixtures(resolver: Resolver, path: str, name: str) -> Iterator[Fixture]:
    """The module-level fixtures named ``name`` of a module: defined there (the last
    definition first), or imported into it."""
    for qname in reversed(_fixtures_of(resolver, path).get(("", name), ())):
        yield Fixture(path, qname)
    summary = resolver.summary(path)
    bindings = summary["scopes"][""]["names"].get(name, ()) if summary is not None else ()
    if any(isinstance(b, ImportedName) for b in bindings):
        for value, _c, _m in module_attr(resolver, path, name):
            if (
                value[0] == "def"
                and value[1] != path
                and _defines(resolver, value[1], value[2], name)
            ):
                yield Fixture(value[1], value[2])


def _defines(resolver: Resolver, path: str, qname: str, name: str) -> bool:
    summary = resolver.summary(path, qname)
    info = summary["defs"].get(qname) if summary is not None else None
    return info is not None and info.get("fixture") == name


def _fixtures_of(resolver: Resolver, path: str) -> dict[tuple[str, str], list[str]]:
    """(owner scope, fixture name) -> qualified names of the fixture functions of a file,
    in definition order. Reads nothing a caller would not note itself: the lookups note
    the names they ask for."""

    def compute() -> dict[tuple[str, str], list[str]]:
        summary = resolver.summary(path)
        found: dict[tuple[str, str], list[str]] = {}
        for qname, info in summary["defs"].items() if summary is not None else ():
            fixture = info.get("fixture")
            if fixture is not None:
                found.setdefault((qname.rpartition(".")[0], fixture), []).append(qname)
        return found

    empty: dict[tuple[str, str], list[str]] = {}
    return resolver.memo(("fixtures", path), compute, empty)


def fixture_value(resolver: Resolver, fixture: Fixture) -> list[Result]:
    """What a fixture gives a test: its return annotation's instances (for a yield fixture,
    the element type of its ``Iterator[X]``-like annotation), else what it returns, or
    yields."""
    path, qname = fixture

    def compute() -> list[Result]:
        scope = resolver.scope(path, qname)
        if scope is None:
            return []
        bindings = scope["yields"] if "yields" in scope else scope.get("returns", [])
        typed: list[Binding] = [b for b in bindings if isinstance(b, Annotated)]
        found = resolver.eval_bindings(path, qname, typed) if typed else []
        if not found:
            found = resolver.eval_bindings(path, qname, bindings)
        return weaken(flow.force(resolver, found), CONF_INFERRED, "fixture")

    return resolver.cached(("fixture", path, qname), compute)
