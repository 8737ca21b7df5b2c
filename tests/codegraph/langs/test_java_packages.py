"""Java packages and virtual calls resolved through a parse: imports against the folders
a package's files are in (any source root), the package's own types, on-demand and
static imports, outer members from inner classes, and what-calls through overrides."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sqlalchemy import select

from kgraph.codegraph.export import export_callgraph
from kgraph.codegraph.indexer import ParseReport
from kgraph.codegraph.query import blast_radius, what_calls
from kgraph.codegraph.records import is_test_path
from kgraph.db import Database
from kgraph.db.models import GraphRelationship, table_of
from tests.codegraph.conftest import write_tree

EDGES = table_of(GraphRelationship)
Parse = Callable[..., ParseReport]
MAIN = "src/main/java/com/acme"
TEST = "src/test/java/com/acme"

FILES = {
    f"{MAIN}/app/App.java": """package com.acme.app;

import com.acme.store.Store;
import com.acme.store.*;
import static com.acme.util.Strings.upper;

public class App {
    private final Store store = new MemoryStore();

    public void run(String key) {
        upper(key);
        store.save(key);
        Audit.record(key);
        new Helper().help();
    }

    class Inner {
        void go() { run("inner"); }
    }
}
""",
    f"{MAIN}/app/Helper.java": "package com.acme.app;\n\nclass Helper {\n    void help() {}\n}\n",
    f"{MAIN}/store/Store.java": """package com.acme.store;

public interface Store {
    void save(String key);
}
""",
    f"{MAIN}/store/MemoryStore.java": """package com.acme.store;

public class MemoryStore implements Store {
    public void save(String key) { index(key); }

    void index(String key) {}
}
""",
    f"{MAIN}/store/Audit.java": """package com.acme.store;

public class Audit {
    public static void record(String key) {}
}
""",
    f"{MAIN}/util/Strings.java": """package com.acme.util;

public final class Strings {
    public static String upper(String s) { return s; }
}
""",
    f"{TEST}/app/AppTest.java": """package com.acme.app;

class AppTest {
    void testRun() {
        new App().run("k");
        new Helper().help();
    }
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


def test_imports_packages_and_members(tmp_path: Path, parse: Parse, db: Database) -> None:
    report = parse(write_tree(tmp_path, FILES))
    assert (report.scanned, report.files_with_errors, report.failed) == (7, 0, 0)
    calls = _calls(db)
    run = f"{MAIN}/app/App.java::App.run"
    assert {
        (run, f"{MAIN}/util/Strings.java::Strings.upper"),  # a static import
        (run, f"{MAIN}/store/Store.java::Store.save"),  # a field of an interface type
        (run, f"{MAIN}/store/Audit.java::Audit.record"),  # an on-demand import
        (run, f"{MAIN}/app/Helper.java::Helper.help"),  # the package's own class
        (f"{MAIN}/app/App.java::App.Inner.go", run),  # an outer member, from an inner class
        (f"{TEST}/app/AppTest.java::AppTest.testRun", run),  # another source root
        (
            f"{MAIN}/store/MemoryStore.java::MemoryStore.save",
            f"{MAIN}/store/MemoryStore.java::MemoryStore.index",
        ),
    } <= calls
    assert is_test_path(f"{TEST}/app/AppTest.java")


def test_virtual_calls_reach_the_implementations(
    tmp_path: Path, parse: Parse, db: Database
) -> None:
    parse(write_tree(tmp_path, FILES))
    callers = what_calls(db, "MemoryStore.save", record=False)[1]
    assert {(c.caller.id, c.resolution) for c in callers} == {
        (f"{MAIN}/app/App.java::App.run", "override")
    }
    radius = blast_radius(db, "MemoryStore.index", depth=3, record=False)
    reached = {i.entity.id for i in radius.impacts}
    assert f"{TEST}/app/AppTest.java::AppTest.testRun" in reached  # through run's store.save
    graph = export_callgraph(db, "src/main/java/com/acme/app")
    assert graph["App.App.run"] == [
        "Helper.Helper.help",
        "src.main.java.com.acme.store.Audit.Audit.record",
        "src.main.java.com.acme.store.MemoryStore.MemoryStore.save",
        "src.main.java.com.acme.store.Store.Store.save",
        "src.main.java.com.acme.util.Strings.Strings.upper",
    ]


def test_a_class_added_to_a_package_reaches_its_users(
    tmp_path: Path, parse: Parse, db: Database
) -> None:
    root = write_tree(tmp_path, FILES)
    app = root / MAIN / "app/App.java"
    app.write_text(app.read_text().replace("new Helper().help();", "Tools.sharpen();"))
    parse(root)
    assert (f"{MAIN}/app/App.java::App.run", "<unresolved>::sharpen") in _calls(db)
    write_tree(
        root,
        {
            f"{MAIN}/app/Tools.java": "package com.acme.app;\n\nclass Tools {\n"
            "    static void sharpen() {}\n}\n"
        },
    )
    report = parse(root)
    assert report.added == 1 and report.resolved >= 2
    assert (f"{MAIN}/app/App.java::App.run", f"{MAIN}/app/Tools.java::Tools.sharpen") in _calls(db)
