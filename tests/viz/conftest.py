"""A small parsed project with knowledge of every kind, and headless Chromium when present.

The project: ``app/cli.py`` -> ``app/api.py`` -> ``app/db.py`` (imports and calls), a test
file, and knowledge items tied to those files: a Mistake that LED_TO a Learning, a Pattern
that APPLIES_TO an area, a superseded Learning, a forgotten one, and a Topic the Mistake
and its Learning are PART_OF.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from kgraph.codegraph.indexer import parse_repository
from kgraph.db import Database
from kgraph.knowledge.edit import link, set_hidden, supersede
from kgraph.knowledge.store import add_item
from kgraph.viz.browser import find_chromium

FILES = {
    "app/__init__.py": "",
    "app/db.py": (
        "def write(item):\n"
        "    return item\n\n\n"
        "class Store:\n"
        "    def save(self, item):\n"
        "        return write(item)\n"
    ),
    "app/api.py": ("from app.db import Store\n\n\ndef handler(x):\n    return Store().save(x)\n"),
    "app/cli.py": ("from app.api import handler\n\n\ndef main():\n    return handler(1)\n"),
    "tests/test_api.py": (
        "from app.api import handler\n\n\ndef test_handler():\n    assert handler(2) == 2\n"
    ),
}


@dataclass(frozen=True)
class Project:
    root: Path
    db: Database
    mistake: str
    learning: str
    pattern: str
    old: str
    new: str
    forgotten: str
    topic: str


def make_project(root: Path, db: Database) -> Project:
    for relative, text in FILES.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    parse_repository(db, root, root=root, jobs=1)

    def add(text: str, type_: str, files: tuple[str, ...] = (), area: str | None = None) -> str:
        result = add_item(db, text, type=type_, files=files, code_area=area, project_root=root)
        return result.entity_id

    mistake = add(
        "Store.save wrote before validating: bad rows reached disk", "mistake", ("app/db.py",)
    )
    learning = add("Validate items in handler before Store.save", "learning", ("app/api.py",))
    link(db, mistake, learning, "LED_TO")
    pattern = add("Every command returns the handler's value", "pattern", area="CLI")
    old = add("The CLI prints raw values", "learning", ("app/cli.py",))
    new = add("The CLI prints values as JSON with --json", "learning", ("app/cli.py",))
    supersede(db, old, new)
    forgotten = add("An obsolete note about app/db.py", "learning", ("app/db.py",))
    set_hidden(db, forgotten, True, "obsolete")
    topic = add("Session: validation in the storage path", "topic")
    link(db, mistake, topic, "PART_OF")
    link(db, learning, topic, "PART_OF")
    return Project(root, db, mistake, learning, pattern, old, new, forgotten, topic)


@pytest.fixture
def project(tmp_path: Path, db: Database) -> Project:
    root = tmp_path / "project"
    root.mkdir()
    return make_project(root, db)


@pytest.fixture
def chromium() -> str:
    """The Chromium executable; the test is skipped, saying why, only when there is none."""
    found = find_chromium()
    if found is None:
        pytest.skip(
            "headless Chromium is not installed (Debian: apt-get install -y chromium; "
            ".ci/run installs it when missing): the in-browser check did not run"
        )
    return found


@pytest.fixture
def artefacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go: $KGRAPH_TEST_ARTEFACTS, else a folder under pytest's temp dir."""
    chosen = os.environ.get("KGRAPH_TEST_ARTEFACTS")
    folder = Path(chosen) if chosen else tmp_path_factory.getbasetemp() / "viz-artefacts"
    folder.mkdir(parents=True, exist_ok=True)
    return folder
