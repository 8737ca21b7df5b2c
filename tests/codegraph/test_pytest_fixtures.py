"""pytest fixtures: a test's (or a fixture's) parameter holds its fixture's value, found as
pytest finds it, and an incremental parse resolves a test again when its fixture changes,
appears closer to it, or goes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kgraph.codegraph.changes import changed_names
from kgraph.codegraph.export import export_callgraph
from kgraph.codegraph.indexer import ParseReport, parse_repository
from kgraph.codegraph.parse_python import parse_python
from kgraph.codegraph.pytest_fixtures import is_test_file
from kgraph.codegraph.summary import Annotated
from kgraph.db import Database, open_database
from tests.codegraph.conftest import write_tree

Parse = Callable[..., ParseReport]

APP = """\
class Client:
    def get(self):
        return 1


class Other:
    def get(self):
        return 2

    def ping(self):
        return 3
"""


def _calls(db: Database, caller: str) -> list[str]:
    return export_callgraph(db).get(caller, [])


def test_the_summary_names_fixtures_and_unwraps_a_yield_fixtures_annotation() -> None:
    summary = parse_python(b"""\
import pytest
from typing import Iterator


@pytest.fixture
def plain():
    return 1


@pytest.fixture(scope="session", name="renamed")
def _made() -> Iterator[Client]:
    yield make()


@fixture
def bare() -> Iterator[Client]:
    return iter([])


@other.decorator
def not_one():
    return 1
""")
    defs = summary["defs"]
    assert defs["plain"]["fixture"] == "plain"
    assert defs["_made"]["fixture"] == "renamed"
    assert defs["bare"]["fixture"] == "bare"
    assert "fixture" not in defs["not_one"]
    yields = summary["scopes"]["_made"]["yields"]
    assert [b.ref for b in yields if isinstance(b, Annotated)] == ["Client"]
    assert "yields" not in summary["scopes"]["bare"]  # not a generator: nothing it yields


def test_a_renamed_fixture_changes_the_name_tests_look_it_up_by() -> None:
    old = parse_python(b"import pytest\n")
    new = parse_python(
        b'import pytest\n\n@pytest.fixture(name="client")\ndef _c():\n    return 1\n'
    )
    assert {"client", "_c"} <= changed_names(old, new)


@pytest.mark.parametrize(
    ("path", "collected"),
    [
        ("tests/test_api.py", True),
        ("api_test.py", True),
        ("tests/conftest.py", True),
        ("tests/helpers.py", False),
        ("testing.py", False),
    ],
)
def test_test_files_are_named_as_pytest_collects_them(path: str, collected: bool) -> None:
    assert is_test_file(path) is collected


def test_parameters_take_the_closest_fixtures_value(
    db: Database, tmp_path: Path, parse: Parse
) -> None:
    repo = write_tree(
        tmp_path / "repo",
        {
            "app.py": APP,
            "tests/fixtures.py": (
                "import pytest\nfrom app import Other\n\n\n"
                "@pytest.fixture\ndef shared():\n    return Other()\n"
            ),
            "tests/conftest.py": """\
import pytest

from app import Client, Other
from tests.fixtures import shared


@pytest.fixture
def client() -> Client:
    return Client()


@pytest.fixture
def loop_a(loop_b):
    return loop_b


@pytest.fixture
def loop_b(loop_a):
    return loop_a
""",
            "tests/test_a.py": """\
import pytest


def test_conftest(client, shared, tmp_path, loop_a, unknown):
    client.get()
    shared.ping()
    tmp_path.write_text("x")
    loop_a.get()
    unknown.get()


def helper(client):
    client.get()


class TestLocal:
    @pytest.fixture
    def client(self, client):
        from app import Other

        return Other()

    def test_method(self, client):
        client.ping()
""",
        },
    )
    parse(repo)
    assert _calls(db, "tests.test_a.test_conftest") == [
        "app.Client.get",
        "app.Other.ping",
        "pathlib.Path.write_text",
    ]
    assert _calls(db, "tests.test_a.helper") == []  # not a test: its callers pass client
    assert _calls(db, "tests.test_a.TestLocal.test_method") == ["app.Other.ping"]


def _cold_edges(repo: Path, folder: Path) -> dict[str, list[str]]:
    cold = open_database(f"sqlite:///{folder / 'cold.db'}")
    try:
        parse_repository(cold, repo, root=repo, jobs=1)
        return export_callgraph(cold)
    finally:
        cold.close()


def test_a_test_is_resolved_again_when_its_fixture_changes_comes_closer_or_goes(
    db: Database, tmp_path: Path, parse: Parse
) -> None:
    repo = write_tree(
        tmp_path / "repo",
        {
            "app.py": APP,
            "tests/conftest.py": (
                "import pytest\nfrom app import Client\n\n\n"
                "@pytest.fixture\ndef client():\n    return Client()\n"
            ),
            "tests/unit/test_x.py": "def test_x(client):\n    client.get()\n",
        },
    )
    nested = repo / "tests/unit/conftest.py"
    edits: list[tuple[Callable[[], object], list[str]]] = [
        (lambda: nested.write_text("import pytest\n"), ["app.Client.get"]),  # no fixture yet
        (  # a fixture of that name comes closer, under another function's name
            lambda: nested.write_text(
                "import pytest\nfrom app import Other\n\n\n"
                '@pytest.fixture(name="client")\ndef _client():\n    return Other()\n'
            ),
            ["app.Other.get"],
        ),
        (  # it asks for the one it overrides and gives that
            lambda: nested.write_text(
                "import pytest\n\n\n@pytest.fixture\ndef client(client):\n    return client\n"
            ),
            ["app.Client.get"],
        ),
        (lambda: nested.unlink(), ["app.Client.get"]),  # gone: the outer one again
        (  # the outer one changes what it gives
            lambda: (repo / "tests/conftest.py").write_text(
                "import pytest\nfrom app import Other\n\n\n"
                "@pytest.fixture\ndef client():\n    return Other()\n"
            ),
            ["app.Other.get"],
        ),
    ]
    parse(repo)
    assert _calls(db, "tests.unit.test_x.test_x") == ["app.Client.get"]
    for step, (edit, expected) in enumerate(edits):
        edit()
        report = parse(repo)
        assert report.changed + report.added + report.deleted == 1
        assert _calls(db, "tests.unit.test_x.test_x") == expected, step
        cold = tmp_path / f"cold-{step}"
        cold.mkdir()
        assert export_callgraph(db) == _cold_edges(repo, cold)
