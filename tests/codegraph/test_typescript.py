"""TypeScript/TSX/JavaScript on fixtures/ts_app: ES imports and exports (named, default,
namespace, re-exports), CommonJS, extends/implements, calls resolved through imports."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import select

from kgraph.codegraph.indexer import parse_repository
from kgraph.codegraph.query import exports, what_calls
from kgraph.db import Database
from kgraph.db.models import GraphEntity, GraphRelationship, table_of
from tests.codegraph.conftest import FIXTURES_DIR

EDGES = table_of(GraphRelationship)
ENTITIES = table_of(GraphEntity)
APP = FIXTURES_DIR / "ts_app"


@pytest.fixture(scope="module")
def ts_db(module_db: Database) -> Iterator[Database]:
    report = parse_repository(module_db, APP, root=APP, jobs=1)
    assert (report.scanned, report.files_with_errors) == (9, 1)  # src/broken.ts
    yield module_db


def _edges(db: Database, kind: str) -> set[tuple[str, str]]:
    rows = db.read(
        lambda c: c.execute(
            select(EDGES.c.from_entity, EDGES.c.to_entity).where(EDGES.c.type == kind)
        ).all()
    )
    return {(r[0], r[1]) for r in rows}


def _callers(db: Database, name: str) -> set[str]:
    return {c.caller.id for c in what_calls(db, name, record=False)[1]}


def test_entities_of_every_kind(ts_db: Database) -> None:
    rows = ts_db.read(lambda c: c.execute(select(ENTITIES.c.id, ENTITIES.c.type)).all())
    kinds = dict((r[0], r[1]) for r in rows)
    assert kinds["src/db.ts::Database"] == "class"
    assert kinds["src/db.ts::Database.query"] == "method"
    assert kinds["src/db.ts::getDatabase"] == "function"
    assert kinds["src/repo.ts::Repo"] == "interface"
    assert kinds["src/types.ts::EntityId"] == "type"
    assert kinds["src/types.ts::Kind"] == "enum"
    assert kinds["src/service.ts::makeService"] == "function"  # const arrow function
    assert kinds["src/app.tsx::App"] == "function"
    assert kinds["src/legacy.js::Legacy.run"] == "method"


def test_extends_and_implements(ts_db: Database) -> None:
    assert ("src/repo.ts::UserRepo", "src/repo.ts::BaseRepo") in _edges(ts_db, "extends")
    assert ("src/repo.ts::UserRepo", "src/repo.ts::Repo") in _edges(ts_db, "implements")


def test_calls_through_named_default_namespace_and_reexports(ts_db: Database) -> None:
    assert _callers(ts_db, "getDatabase") == {
        "src/repo.ts::UserRepo.constructor",  # named import
        "src/service.ts::Service.run",  # default import (openDb) and re-export (index: db)
        "src/app.tsx::App",
        "src/broken.ts::fine",
    }
    # namespace import `repos.UserRepo`, `new` -> constructor, parameter property `this.repo`
    assert _callers(ts_db, "UserRepo.save") == {"src/service.ts::Service.run"}
    assert _callers(ts_db, "UserRepo") == {
        "src/service.ts::Service.run",
        "src/service.ts::makeService",
    }
    # this.db: a field typed Database; this.log: inherited from BaseRepo
    assert _callers(ts_db, "Database.query") == {
        "src/repo.ts::UserRepo.save",
        "src/service.ts::Service.run",
        "src/app.tsx::App",
    }
    assert _callers(ts_db, "BaseRepo.log") == {"src/repo.ts::UserRepo.save"}
    # an arrow function's returned value: makeService().run()
    assert "src/app.tsx::App" in _callers(ts_db, "Service.run")


def test_commonjs_require_and_module_exports(ts_db: Database) -> None:
    assert _callers(ts_db, "src/util.js::helper") == {"src/legacy.js::Legacy.run"}
    assert _callers(ts_db, "src/util.js::unused") == {"src/legacy.js::Legacy.run"}  # as other
    assert _callers(ts_db, "Legacy.run") == {"src/legacy.js::start"}


def test_imports_and_exports(ts_db: Database) -> None:
    imports = _edges(ts_db, "imports")
    assert ("src/service.ts", "src/index.ts") in imports
    assert ("src/legacy.js", "src/util.js") in imports
    assert ("src/repo.ts", "src/types.ts::Entity") in imports
    index = {(r["kind"], r["entity"]["id"]) for r in exports(ts_db, "src/index.ts", record=False)}
    assert index == {("re-export", "src/repo.ts"), ("re-export", "src/db.ts::getDatabase")}
    db_exports = {r["entity"]["id"] for r in exports(ts_db, "src/db.ts", record=False)}
    assert db_exports == {"src/db.ts::Database", "src/db.ts::getDatabase"}
