"""The Rust summariser (``rust_parse``, ``rust_refs``, ``rust_uses``, ``rust_bindings``) on
a small source: items, impl blocks, paths and uses, bindings, calls; and ``Cargo.toml``'s
crate name."""

from __future__ import annotations

from kgraph.codegraph.langs.rust_modules import CRATE_NAME, LIB_PATH, REQUIRED
from kgraph.codegraph.langs.rust_parse import parse_rust
from kgraph.codegraph.langs.rust_uses import parse_cargo
from kgraph.codegraph.summary import (
    Annotated,
    Assigned,
    Defined,
    ImportedModule,
    Parameter,
    Summary,
    Unknown,
    iter_calls,
)
from kgraph.codegraph.summary_codec import decode_summary, encode_summary

SOURCE = b"""mod backend;
use crate::backend::hashes::{Hash, digest as d};
use std::collections::HashMap;
use super::error::*;

pub struct Store {
    items: Vec<Item>,
    cache: Box<Cache>,
}

pub trait Saver: Named {
    fn save(&self, k: &str) -> Result<(), Error>;
    fn name(&self) -> String { String::new() }
}

impl Store {
    pub fn new() -> Self { Store { items: Vec::new(), cache: Box::new(Cache) } }
    fn first(&self) -> Option<&Item> { self.helper(); self.items.get(0) }
    fn helper(&self) {}
}

impl Saver for Store {
    fn save(&self, k: &str) -> Result<(), Error> {
        self.cache.put(k);
        let x: Item = Item::build(k)?;
        let y = Store::new();
        for it in self.items.iter() { it.run(); }
        if let Some(f) = y.first() { f.run(); }
        let c = |a: u32| helper_fn(a);
        c(2);
        apply(helper_fn, 3);
        println!("{}", k);
        Ok(())
    }
}

fn apply<F: Fn(u32)>(f: F, n: u32) { f(n); }
fn helper_fn(n: u32) {}
enum Kind { A, B(u32) }
"""


def _summary() -> Summary:
    return parse_rust(SOURCE)


def test_items_and_methods() -> None:
    defs = _summary()["defs"]
    kinds = {qname: info["kind"] for qname, info in defs.items()}
    assert kinds == {
        "Store": "class",
        "Saver": "interface",
        "Saver.save": "method",
        "Saver.name": "method",
        "Store.new": "method",
        "Store.first": "method",
        "Store.helper": "method",
        "Store.save": "method",  # impl Saver for Store
        "Store.save.c": "function",  # a closure bound to a name
        "apply": "function",
        "helper_fn": "function",
        "Kind": "class",
    }
    assert defs["Store"]["implements"] == ["Saver"]
    assert defs["Saver"]["bases"] == ["Named"]
    assert defs["Store"]["exported"] and not defs["helper_fn"]["exported"]
    assert _summary()["impls"] == [["Store", "Saver", 22]]
    assert _summary()["scopes"]["Saver.save"]["method"] == REQUIRED


def test_uses_and_modules() -> None:
    summary = _summary()
    names = summary["scopes"][""]["names"]
    assert names["backend"] == [ImportedModule("mod", "mod.backend", 1)]
    assert names["Hash"] == [Assigned("val", "crate.backend.hashes.Hash", 2)]
    assert names["d"] == [Assigned("val", "crate.backend.hashes.digest", 2)]
    assert names["HashMap"] == [Assigned("val", "std.collections.HashMap", 3)]
    assert summary["estar"] == ["super.error"]
    assert [(i.module, i.names) for i in summary["imports"]][:3] == [
        ("crate.backend.hashes", ["Hash"]),
        ("crate.backend.hashes", ["digest"]),
        ("std.collections", ["HashMap"]),
    ]


def test_bindings_follow_types() -> None:
    scopes = _summary()["scopes"]
    fields = scopes["Store"]["names"]
    assert fields["cache"] == [Annotated("ann", "Cache", 8)]  # a Box is its content
    assert fields["items"] == [Assigned("val", "<#0>", 7)]  # a Vec: a container of items
    assert scopes[""]["containers"][0].refs == ["Item(!)"]
    save = scopes["Store.save"]["names"]
    assert save["self"] == [Annotated("ann", "Store", 23)]
    assert save["x"] == [Annotated("ann", "Item", 25)]
    assert save["y"] == [Assigned("val", "Store.new()", 26)]
    assert save["it"] == [Assigned("val", "self.items[*]", 27)]  # .iter() is the Vec
    assert save["f"] == [Assigned("val", "y.first()", 28)]  # Some(f): the content
    assert save["c"] == [Defined("def", "Store.save.c", 29)]
    assert scopes["Store.new"]["returns"] == [Annotated("ann", "Store", 17)]  # Self
    assert scopes["Store.first"]["returns"] == [Annotated("ann", "Item", 18)]
    assert scopes["apply"]["names"]["f"] == [Parameter("param", 0, 37)]  # F: Fn(u32)
    assert scopes["apply"]["params"] == ["f", "n"]
    assert scopes["Kind"]["names"]["A"] == [Annotated("ann", "Kind", 39)]
    assert scopes["Store.save.c"]["names"]["a"] == [Unknown("unk", 29)]  # a primitive


def test_calls() -> None:
    calls = {(c.scope, c.ref) for c in iter_calls(_summary())}
    assert {
        ("Store.new", "Vec.new()"),
        ("Store.new", "Box.new(#0)"),  # Cache may be a function (an item of the module)
        ("Store.first", "self.helper()"),
        ("Store.first", "self.items.get()"),
        ("Store.save", "self.cache.put()"),
        ("Store.save", "Item.build()"),
        ("Store.save", "Store.new()"),
        ("Store.save", "it.run()"),
        ("Store.save", "f.run()"),
        ("Store.save", "c()"),
        ("Store.save", "apply(#0)"),  # helper_fn may be a function: the arguments are kept
        ("Store.save", "Ok()"),
        ("Store.save.c", "helper_fn()"),
        ("apply", "f()"),
    } <= calls
    assert not [r for _s, r in calls if "println" in r]  # a macro is no call


def test_round_trip_errors_and_cargo() -> None:
    summary = _summary()
    assert decode_summary(encode_summary(summary)) == summary
    assert parse_rust(b"fn broken( {")["errors"] >= 1
    cargo = parse_cargo(b'[package]\nname = "my-crate"\n\n[lib]\npath = "lib/mod.rs"\n')
    names = cargo["scopes"][""]["names"]
    assert names[CRATE_NAME] == [ImportedModule("mod", "my-crate", 1)]
    assert names[LIB_PATH] == [ImportedModule("mod", "lib/mod.rs", 1)]
    assert parse_cargo(b"not [toml")["errors"] == 1
