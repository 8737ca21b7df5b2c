"""Go packages resolved through a parse: import paths against ``go.mod``, a package's files
sharing names, methods declared apart from their type, embedded fields, and the
incremental parse when a package or ``go.mod`` changes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sqlalchemy import select

from kgraph.codegraph.indexer import ParseReport
from kgraph.codegraph.records import is_test_path
from kgraph.codegraph.walk import iter_source_files, language_of
from kgraph.db import Database
from kgraph.db.models import GraphRelationship, table_of
from tests.codegraph.conftest import write_tree

EDGES = table_of(GraphRelationship)
Parse = Callable[..., ParseReport]

APP = {
    "go.mod": "module github.com/acme/app\n\ngo 1.22\n",
    "main.go": """package main

import (
	"fmt"

	"github.com/acme/app/internal/store"
	"github.com/acme/app/internal/v2api"
)

func main() {
	db := store.Open("x")
	db.Get("k")
	db.Close()
	api.Serve()
	fmt.Println(store.Version)
}
""",
    "internal/store/store.go": """package store

const Version = "1"

type DB struct {
	Base
	cache *Cache
}

func Open(path string) *DB { return &DB{} }
""",
    "internal/store/methods.go": """package store

func (d *DB) Get(key string) string {
	d.cache.Lookup(key)
	return d.name()
}
""",
    "internal/store/base.go": """package store

type Base struct{}

func (b *Base) Close() error { return nil }

func (b *Base) name() string { return "" }

type Cache struct{}

func (c *Cache) Lookup(key string) {}
""",
    "internal/v2api/api.go": """package api

func Serve() { listen() }
""",
    "internal/v2api/listen.go": """package api

func listen() {}
""",
}


def _calls(db: Database) -> set[tuple[str, str]]:
    rows = db.read(
        lambda c: c.execute(
            select(EDGES.c.from_entity, EDGES.c.to_entity).where(EDGES.c.type == "calls")
        ).all()
    )
    return {(str(r[0]), str(r[1])) for r in rows}


def _edges(db: Database, kind: str) -> set[tuple[str, str]]:
    rows = db.read(
        lambda c: c.execute(
            select(EDGES.c.from_entity, EDGES.c.to_entity).where(EDGES.c.type == kind)
        ).all()
    )
    return {(str(r[0]), str(r[1])) for r in rows}


def test_calls_resolve_through_go_mod_packages_and_methods(
    tmp_path: Path, parse: Parse, db: Database
) -> None:
    report = parse(write_tree(tmp_path, APP))
    assert (report.scanned, report.files_with_errors, report.failed) == (7, 0, 0)
    calls = _calls(db)
    main = "main.go::main"
    assert {
        (main, "internal/store/store.go::Open"),  # store.Open: the import path's folder
        (main, "internal/store/methods.go::DB.Get"),  # a method in another file of the type's
        (main, "internal/store/base.go::Base.Close"),  # promoted from an embedded field
        (main, "internal/v2api/api.go::Serve"),  # package api, in folder v2api
        (main, "<external>::fmt.Println"),
        ("internal/store/methods.go::DB.Get", "internal/store/base.go::Cache.Lookup"),  # field
        ("internal/store/methods.go::DB.Get", "internal/store/base.go::Base.name"),
        ("internal/v2api/api.go::Serve", "internal/v2api/listen.go::listen"),  # a sibling
    } <= calls
    assert not [t for f, t in calls if f == main and t.startswith("<unresolved>")]


def test_imports_name_what_a_file_uses(tmp_path: Path, parse: Parse, db: Database) -> None:
    parse(write_tree(tmp_path, APP))
    imports = {t for f, t in _edges(db, "imports") if f == "main.go"}
    assert {
        "internal/store/store.go::Open",
        "<external>::fmt",
        "internal/v2api/api.go::Serve",
    } <= imports
    extends = _edges(db, "extends")
    assert ("internal/store/store.go::DB", "internal/store/base.go::Base") in extends


TESTS = {
    "go.mod": "module example.com/calc\n",
    "calc/calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n\n"
    "func sub(a, b int) int { return a - b }\n",
    "calc/export_test.go": "package calc\n\nvar Sub = sub\n",
    "calc/helpers_test.go": "package calc\n\nfunc helper() int { return sub(2, 1) }\n",
    "calc/calc_test.go": """package calc_test

import (
	"testing"

	"example.com/calc/calc"
)

func TestAdd(t *testing.T) {
	calc.Add(1, 2)
	calc.Sub(2, 1)
	t.Fatal("x")
}
""",
    "calc/gen.go": "//go:build ignore\n\npackage main\n\nfunc main() { generate() }\n\n"
    "func generate() {}\n",
}


def test_test_packages_and_a_generator_beside_the_package(
    tmp_path: Path, parse: Parse, db: Database
) -> None:
    parse(write_tree(tmp_path, TESTS))
    calls = _calls(db)
    test = "calc/calc_test.go::TestAdd"
    assert (test, "calc/calc.go::Add") in calls  # the package, not the `package main` file
    assert (test, "calc/calc.go::sub") in calls  # through export_test.go's Sub = sub
    assert (test, "<external>::testing.T.Fatal") in calls
    assert ("calc/helpers_test.go::helper", "calc/calc.go::sub") in calls
    assert ("calc/gen.go::main", "calc/gen.go::generate") in calls
    assert is_test_path("calc/calc_test.go") and not is_test_path("calc/calc.go")


def test_without_go_mod_the_folder_ending_the_import_path(
    tmp_path: Path, parse: Parse, db: Database
) -> None:
    files = {k: v for k, v in APP.items() if k != "go.mod"}
    parse(write_tree(tmp_path, files))
    assert ("main.go::main", "internal/store/store.go::Open") in _calls(db)


def test_a_method_added_in_a_new_file_reaches_its_callers(
    tmp_path: Path, parse: Parse, db: Database
) -> None:
    root = write_tree(tmp_path, APP)
    main = (root / "main.go").read_text()
    (root / "main.go").write_text(main.replace("db.Close()", "db.Flush()"))
    parse(root)
    assert ("main.go::main", "<unresolved>::Flush") in _calls(db)
    write_tree(root, {"internal/store/flush.go": "package store\n\nfunc (d *DB) Flush() {}\n"})
    report = parse(root)
    assert report.added == 1 and report.resolved >= 2  # main.go read the package's files
    calls = _calls(db)
    assert ("main.go::main", "internal/store/flush.go::DB.Flush") in calls
    assert ("main.go::main", "<unresolved>::Flush") not in calls


def test_a_function_moved_to_another_file_of_its_package(
    tmp_path: Path, parse: Parse, db: Database
) -> None:
    root = write_tree(tmp_path, APP)
    parse(root)
    (root / "internal/v2api/listen.go").write_text("package api\n")
    write_tree(root, {"internal/v2api/net.go": "package api\n\nfunc listen() {}\n"})
    parse(root)
    calls = _calls(db)
    assert ("internal/v2api/api.go::Serve", "internal/v2api/net.go::listen") in calls
    assert ("internal/v2api/api.go::Serve", "internal/v2api/listen.go::listen") not in calls


def test_go_mod_edits_re_resolve_the_importers(tmp_path: Path, parse: Parse, db: Database) -> None:
    root = write_tree(tmp_path, APP)
    (root / "go.mod").write_text("module github.com/acme/other\n")
    parse(root)
    assert ("main.go::main", "<external>::github.com/acme/app/internal/store.Open") in _calls(db)
    (root / "go.mod").write_text(APP["go.mod"])
    report = parse(root)
    assert report.changed == 1 and report.resolved > 1
    assert ("main.go::main", "internal/store/store.go::Open") in _calls(db)


def test_walk_parses_go_files_and_go_mod_but_not_testdata(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "go.mod": "module x\n",
            "a.go": "package a\n",
            "testdata/fixture.go": "package broken(\n",
            "sub/testdata/x.go": "package x\n",
            "sub/b.go": "package sub\n",
            "notes.mod": "",
        },
    )
    found = {f.path: f.language for f in iter_source_files(tmp_path)}
    assert found == {"go.mod": "gomod", "a.go": "go", "sub/b.go": "go"}
    assert language_of("x/go.mod") == "gomod" and language_of("x/go.sum") is None
