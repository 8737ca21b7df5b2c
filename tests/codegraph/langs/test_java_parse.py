"""The Java summariser (``java_parse`` and its expressions, ``java_refs``) on a small source:
definitions, scopes and bindings, calls, imports."""

from __future__ import annotations

from kgraph.codegraph.langs.java_packages import PACKAGE_NAME
from kgraph.codegraph.langs.java_parse import parse_java
from kgraph.codegraph.summary import (
    Annotated,
    Assigned,
    Defined,
    ImportedModule,
    ImportedName,
    Summary,
    iter_calls,
)
from kgraph.codegraph.summary_codec import decode_summary, encode_summary

SOURCE = b"""package com.acme.app;

import java.util.List;
import java.util.*;
import static java.lang.Math.max;
import com.acme.store.Store;

public class Service extends Base implements Runnable, Comparable<Service> {
    private final Store store;
    private int count = 0;
    static final Store DEFAULT = new Store();

    public Service(Store store) {
        super(store);
        this.store = store;
    }

    @Override
    public void run() {
        helper();
        store.save("k");
        Store s = new Store();
        var t = new Store();
        for (Store x : list()) { x.save("a"); }
        ((Store) obj).save("c");
        Runnable r = () -> helper();
        new Thread(new Runnable() { public void run() { helper(); } }).start();
        super.run();
        Service.util();
        max(1, 2);
        DEFAULT.save("d");
        Kind.A.f();
        new Worker().work();
        try { s.save(""); } catch (RuntimeException e) { e.printStackTrace(); }
    }

    private void helper() {}
    static void util() {}
    List<Store> list() { return null; }

    class Worker {
        void work() { helper(); count++; }
    }

    interface Listener { void on(String e); }
    enum Kind { A, B; void f() {} }
}
"""


def _summary() -> Summary:
    return parse_java(SOURCE)


def test_definitions_have_kinds_bases_and_exports() -> None:
    defs = _summary()["defs"]
    kinds = {qname: info["kind"] for qname, info in defs.items()}
    assert kinds == {
        "Service": "class",
        "Service.constructor": "method",
        "Service.run": "method",
        "Service.helper": "method",
        "Service.util": "method",
        "Service.list": "method",
        "Service.Worker": "class",
        "Service.Worker.work": "method",
        "Service.Listener": "interface",
        "Service.Listener.on": "method",
        "Service.Kind": "enum",
        "Service.Kind.f": "method",
    }
    assert defs["Service"]["bases"] == ["Base"]
    assert defs["Service"]["implements"] == ["Runnable", "Comparable"]
    assert defs["Service.Kind"]["bases"] == ["Enum"]
    assert defs["Service.run"]["exported"] and not defs["Service.helper"]["exported"]
    assert _summary()["exports"] == {"Service": Defined("def", "Service", 8)}


def test_imports_and_the_package() -> None:
    summary = _summary()
    names = summary["scopes"][""]["names"]
    assert names[PACKAGE_NAME] == [ImportedModule("mod", "com.acme.app", 1)]
    assert names["List"] == [ImportedName("from", "java.util", 0, "List", 3)]
    assert names["max"] == [ImportedName("from", "java.lang.Math", 0, "max", 5)]
    assert names["Store"] == [ImportedName("from", "com.acme.store", 0, "Store", 6)]
    assert summary["estar"] == ["java.util"]


def test_fields_locals_and_parameters_are_typed() -> None:
    scopes = _summary()["scopes"]
    assert scopes["Service"]["names"]["store"] == [Annotated("ann", "Store", 9)]
    assert scopes["Service"]["names"]["count"] == [Assigned("val", "<int>", 10)]
    assert scopes["Service.Kind"]["names"]["A"] == [Annotated("ann", "Service.Kind", 46)]
    run = scopes["Service.run"]["names"]
    assert run["s"] == [Annotated("ann", "Store", 22)]
    assert run["t"] == [Annotated("ann", "Store", 23)]  # var: the type of the value
    assert run["x"] == [Annotated("ann", "Store", 24)]
    assert run["e"] == [Annotated("ann", "RuntimeException", 34)]
    assert scopes["Service.constructor"]["names"]["store"] == [Annotated("ann", "Store", 13)]
    assert scopes["Service.util"]["method"] == "static"
    assert scopes["Service.list"]["returns"] == [Annotated("ann", "List", 39)]


def test_calls_name_their_receivers() -> None:
    calls = {(c.scope, c.ref) for c in iter_calls(_summary())}
    assert {
        ("Service.constructor", "super.constructor()"),
        ("Service.run", "this.helper()"),  # an unqualified method: a member
        ("Service.run", "this.store.save()"),  # an unqualified field
        ("Service.run", "Store()"),  # new Store()
        ("Service.run", "x.save()"),
        ("Service.run", "Store(!).save()"),  # a cast: an instance of the type
        ("Service.run", "Thread().start()"),
        ("Service.run", "super.run()"),
        ("Service.run", "Service.util()"),
        ("Service.run", "max()"),  # a static import
        ("Service.run", "this.DEFAULT.save()"),  # a capitalised field is still a field
        ("Service.run", "Service.Kind.A.f()"),  # a nested type, named from the file
        ("Service.run", "Service.Worker()"),
        ("Service.Worker.work", "Service.helper()"),  # an outer class's member
    } <= calls
    helper_calls = [c for c in iter_calls(_summary()) if c.ref == "this.helper()"]
    assert len(helper_calls) == 3  # the lambda's and the anonymous class's are run's


def test_summary_round_trips_and_errors_are_counted() -> None:
    summary = _summary()
    assert decode_summary(encode_summary(summary)) == summary
    broken = parse_java(b"class A { void f( { g(); }")
    assert broken["errors"] >= 1
