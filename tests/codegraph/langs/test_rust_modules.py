"""Rust crates and modules resolved through a parse: paths through ``mod`` files,
``crate::``/``super::``, ``use`` and re-exports, workspace crates, impl blocks in other
files, trait dispatch at query time, and the incremental parse when a module appears."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sqlalchemy import select

from kgraph.codegraph.indexer import ParseReport
from kgraph.codegraph.query import blast_radius, what_calls
from kgraph.codegraph.walk import iter_source_files
from kgraph.db import Database
from kgraph.db.models import GraphRelationship, table_of
from tests.codegraph.conftest import write_tree

EDGES = table_of(GraphRelationship)
Parse = Callable[..., ParseReport]

FILES = {
    "core/Cargo.toml": '[package]\nname = "acme-core"\nversion = "0.1.0"\n',
    "core/src/lib.rs": """pub mod shapes;

pub use shapes::Square;

pub fn version() -> u32 {
    1
}
""",
    "core/src/shapes/mod.rs": """mod square;
mod render;

pub use square::Square;
pub use render::Render;

pub trait Shape {
    fn area(&self) -> f64;
}

pub fn total(shapes: &[Box<dyn Shape>]) -> f64 {
    let mut sum = 0.0;
    for s in shapes.iter() {
        sum += s.area();
    }
    sum
}
""",
    "core/src/shapes/square.rs": """pub struct Square {
    pub side: f64,
}

impl Square {
    pub fn new(side: f64) -> Square {
        Square { side }
    }
}
""",
    "core/src/shapes/render.rs": """use super::{Shape, Square};

pub trait Render {
    fn render(&self) -> String;
}

impl Shape for Square {
    fn area(&self) -> f64 {
        self.side * self.side
    }
}

impl Render for Square {
    fn render(&self) -> String {
        crate::version().to_string()
    }
}
""",
    "app/Cargo.toml": '[package]\nname = "acme-app"\nversion = "0.1.0"\n',
    "app/src/main.rs": """use acme_core::shapes::{total, Render};
use acme_core::Square;

fn main() {
    let s = Square::new(2.0);
    s.render();
    total(&[]);
    acme_core::version();
}
""",
}


def _calls(db: Database) -> set[tuple[str, str]]:
    rows = db.read(
        lambda c: c.execute(
            select(EDGES.c.from_entity, EDGES.c.to_entity).where(EDGES.c.type == "calls")
        ).all()
    )
    return {(str(r[0]), str(r[1])) for r in rows}


def test_paths_crates_and_impl_blocks(tmp_path: Path, parse: Parse, db: Database) -> None:
    report = parse(write_tree(tmp_path, FILES))
    assert (report.scanned, report.files_with_errors, report.failed) == (7, 0, 0)
    calls = _calls(db)
    main = "app/src/main.rs::main"
    render = "core/src/shapes/render.rs"
    assert {
        (main, "core/src/shapes/square.rs::Square.new"),  # a re-export of a workspace crate
        (main, f"{render}::Square.render"),  # an impl block in another file of the folder
        (main, "core/src/shapes/mod.rs::total"),
        (main, "core/src/lib.rs::version"),
        (f"{render}::Square.render", "core/src/lib.rs::version"),  # crate::
        ("core/src/shapes/mod.rs::total", "core/src/shapes/mod.rs::Shape.area"),  # dyn Shape
    } <= calls
    rows = db.read(
        lambda c: c.execute(
            select(EDGES.c.from_entity, EDGES.c.to_entity, EDGES.c.file_path).where(
                EDGES.c.type == "implements"
            )
        ).all()
    )
    square = "core/src/shapes/square.rs::Square"
    assert (square, "core/src/shapes/mod.rs::Shape", render) in {tuple(r) for r in rows}


def test_trait_calls_reach_the_implementations(tmp_path: Path, parse: Parse, db: Database) -> None:
    parse(write_tree(tmp_path, FILES))
    callers = what_calls(db, "Square.area", record=False)[1]
    assert {(c.caller.id, c.resolution) for c in callers} == {
        ("core/src/shapes/mod.rs::total", "override")
    }
    radius = blast_radius(db, "core/src/shapes/render.rs::Square.area", depth=2, record=False)
    assert "app/src/main.rs::main" in {i.entity.id for i in radius.impacts}


def test_a_module_file_added_later(tmp_path: Path, parse: Parse, db: Database) -> None:
    root = write_tree(tmp_path, FILES)
    lib = root / "core/src/lib.rs"
    lib.write_text(
        "pub mod shapes;\npub mod extra;\n\npub use shapes::Square;\n\n"
        "pub fn version() -> u32 {\n    extra::bump()\n}\n"
    )
    parse(root)
    assert ("core/src/lib.rs::version", "core/src/extra.rs::bump") not in _calls(db)
    write_tree(root, {"core/src/extra.rs": "pub fn bump() -> u32 {\n    2\n}\n"})
    report = parse(root)
    assert report.added == 1 and report.resolved >= 2
    assert ("core/src/lib.rs::version", "core/src/extra.rs::bump") in _calls(db)


def test_walk_parses_rust_and_cargo(tmp_path: Path) -> None:
    write_tree(tmp_path, {"Cargo.toml": "", "src/lib.rs": "", "Cargo.lock": "", "build.rs": ""})
    found = {f.path: f.language for f in iter_source_files(tmp_path)}
    assert found == {"Cargo.toml": "cargo", "src/lib.rs": "rust", "build.rs": "rust"}
