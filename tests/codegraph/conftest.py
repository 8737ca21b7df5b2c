"""Fixtures of the code graph tests: parsed graphs shared per module (parsing is the slow part)."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kgraph.codegraph.indexer import ParseReport, parse_repository
from kgraph.db import Database, open_database
from tests.conftest import backend_url

HERE = Path(__file__).resolve().parent
# The call-graph corpus holds pytest tests of its own (its pytest_fixture cases): they are
# parsed and run by test_callgraph_cases.py, never collected with the project's tests.
collect_ignore = ["cases"]
CASES_DIR = HERE / "cases"
FIXTURES_DIR = HERE / "fixtures"


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Write ``{relative path: text}`` under ``root``; returns ``root``."""
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture(scope="module")
def module_db(
    request: pytest.FixtureRequest, backend: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Database]:
    """A database shared by the tests of one module."""
    database = open_database(
        backend_url(request, backend, tmp_path_factory.mktemp("graphdb") / "g.db")
    )
    yield database
    database.close()


@pytest.fixture
def parse(db: Database) -> Callable[..., ParseReport]:
    """``parse(root, path=None, **kw)``: parse a folder into the test database (one process)."""

    def run(root: Path, path: Path | None = None, **kwargs: object) -> ParseReport:
        kwargs.setdefault("jobs", 1)
        return parse_repository(db, path or root, root=root, **kwargs)  # type: ignore[arg-type]

    return run


@pytest.fixture
def copy_fixture(tmp_path: Path) -> Callable[[str], Path]:
    """Copy a folder of tests/codegraph/fixtures into a temp dir (tests may edit it)."""

    def copy(name: str) -> Path:
        target = tmp_path / name
        shutil.copytree(FIXTURES_DIR / name, target)
        return target

    return copy


# A small application with a known structure; tests/codegraph/test_queries.py spells out its
# call graph. Line numbers matter: the tests assert file:line of calls.
APP_FILES: dict[str, str] = {
    "app/__init__.py": "from .db import get_database\n",
    "app/db.py": """\
class Database:
    def __init__(self, url):
        self.url = url

    def query(self, sql):
        return sql


def get_database():
    return Database("sqlite://")
""",
    "app/repo.py": """\
from app.db import get_database


class Repo:
    def __init__(self):
        self.db = get_database()

    def save(self, item):
        return self.db.query(item)


class CachedRepo(Repo):
    def save(self, item):
        return super().save(item)
""",
    "app/service.py": """\
from app import get_database
from app.repo import Repo


def handle(item):
    repo = Repo()
    return repo.save(item)


def health():
    return get_database().query("select 1")


def unknown(thing):
    return thing.save(1)
""",
    "tests/test_service.py": """\
from app.service import handle, health


def test_handle():
    assert handle(1)


def test_health():
    health()
""",
}


@pytest.fixture
def app_repo(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "repo", APP_FILES)
