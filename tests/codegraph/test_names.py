from __future__ import annotations

from collections.abc import Iterator

import pytest

from kgraph.codegraph.names import caller_files, files_matching_path, module_files, resolve_names
from kgraph.db import Database
from kgraph.db.reader import ReadConnection
from kgraph.recall.readmodel import open_store
from tests.hooks.graph_rows import add_entities, add_graph

ENTITIES = [
    ("pkg/ops.py", "file", "ops.py", "pkg.ops", "pkg/ops.py"),
    ("pkg/ops.py::DropIndexOp", "class", "DropIndexOp", "DropIndexOp", "pkg/ops.py"),
    ("pkg/ops.py::DropIndexOp.render", "method", "render", "DropIndexOp.render", "pkg/ops.py"),
    ("pkg/codegen.py::compile", "function", "compile", "compile", "pkg/codegen.py"),
    ("pkg/_multipart.py", "file", "_multipart.py", "pkg._multipart", "pkg/_multipart.py"),
    *[(f"m{i}.py::run_all", "function", "run_all", "run_all", f"m{i}.py") for i in range(4)],
]


@pytest.fixture
def conn(db: Database) -> Iterator[ReadConnection]:
    files = sorted({e[4] for e in ENTITIES} | {"pkg/web.py", "tests/test_ops.py"})
    add_graph(db, files, [("pkg/web.py", "pkg/ops.py")])
    add_entities(db, ENTITIES)
    connection = open_store(db.url)  # SQLite's stdlib reader, or psycopg on PostgreSQL
    assert connection is not None
    yield connection
    connection.close()


def test_names_resolve_to_their_defining_files(conn: ReadConnection) -> None:
    found = {
        r.name: r.files
        for r in resolve_names(
            conn, ["DropIndexOp", "pkg.ops", "x.DropIndexOp.render", "pkg.ops.DropIndexOp"]
        )
    }
    assert found == {
        "DropIndexOp": ("pkg/ops.py",),
        "pkg.ops": ("pkg/ops.py",),
        "x.DropIndexOp.render": ("pkg/ops.py",),
        "pkg.ops.DropIndexOp": ("pkg/ops.py",),
    }


def test_common_and_foreign_names_resolve_to_nothing(conn: ReadConnection) -> None:
    assert resolve_names(conn, ["run_all", "re.compile", "nothing_here"]) == []
    assert [r.files for r in resolve_names(conn, ["compile"])] == [("pkg/codegen.py",)]


def test_paths_and_module_words(conn: ReadConnection) -> None:
    assert files_matching_path(conn, "pkg/ops.py") == ["pkg/ops.py"]
    assert files_matching_path(conn, "ops.py") == ["pkg/ops.py"]
    assert files_matching_path(conn, "nope.py") == []
    assert module_files(conn, ["multipart", "ops", "test"]) == {
        "multipart": ["pkg/_multipart.py"],
        "ops": ["pkg/ops.py"],
    }


def test_callers_are_the_files_with_most_edges_into_the_names(conn: ReadConnection) -> None:
    assert caller_files(conn, ["pkg/ops.py::DropIndexOp"]) == []
    assert caller_files(conn, ["pkg/ops.py::<module>"]) == [("pkg/web.py", 1)]
