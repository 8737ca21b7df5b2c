from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kgraph.capture.sources.claude_md import claude_md_files, split_sections, sync_claude_md
from kgraph.db import Database
from kgraph.knowledge.query import list_items

DOC = """Intro line before any heading.

# Project

## Commands

Run tests with `pytest -q`.

```bash
# this is a comment, not a heading
make lint
```

## Conventions
- snake_case
- no print()

### Imports
Absolute imports only.

Setext heading
--------------
Body of a setext section.

## Empty

## Conventions
A second section with the same title.
"""


def test_split_sections_uses_a_markdown_parser() -> None:
    sections = split_sections(DOC, "CLAUDE.md")
    assert [s.headings for s in sections] == [
        (),
        ("Project", "Commands"),
        ("Project", "Conventions"),
        ("Project", "Conventions", "Imports"),
        ("Project", "Setext heading"),
        ("Project", "Conventions (2)"),
    ]
    commands = sections[1]
    assert "# this is a comment, not a heading" in commands.body  # code fence kept as body
    assert commands.ref == "CLAUDE.md#Project > Commands"
    assert commands.content.startswith("Project > Commands\n\nRun tests")
    assert (
        sections[0].ref == "CLAUDE.md#" and sections[0].content == "Intro line before any heading."
    )
    assert sections[3].body == "Absolute imports only."


def test_split_sections_edge_cases() -> None:
    assert split_sections("") == []
    assert split_sections("# Only a heading\n") == []
    (only,) = split_sections("just text, no headings")
    assert only.headings == ()


def _write(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _items(db: Database, *, hidden: bool = False) -> dict[str, str]:
    items = list_items(db, source="claude_md", include_superseded=True, limit=1000)
    return {i.source_ref or "": i.content for i in items if (i.hidden_at is not None) == hidden}


def test_files_found(tmp_path: Path) -> None:
    _write(tmp_path, "CLAUDE.md", "# A\nx\n")
    _write(tmp_path, ".claude/CLAUDE.md", "# B\ny\n")
    _write(tmp_path, ".claude/rules/testing.md", "# C\nz\n")
    _write(tmp_path, ".claude/rules/sub/style.md", "# D\nw\n")
    _write(tmp_path, ".claude/rules/notes.txt", "ignored")
    names = [p.relative_to(tmp_path).as_posix() for p in claude_md_files(tmp_path)]
    assert names == [
        "CLAUDE.md",
        ".claude/CLAUDE.md",
        ".claude/rules/sub/style.md",
        ".claude/rules/testing.md",
    ]


def test_sync_adds_updates_in_place_and_hides(db: Database, tmp_path: Path) -> None:
    _write(tmp_path, "CLAUDE.md", "# Build\nUse `make`.\n\n# Test\nUse pytest.\n")
    _write(tmp_path, ".claude/rules/style.md", "# Style\nBlack, 100 columns.\n")
    first = sync_claude_md(db, tmp_path)
    assert (first.added, first.updated, first.hidden, first.sections) == (3, 0, 0, 3)
    assert first.files == ["CLAUDE.md", ".claude/rules/style.md"]
    items = _items(db)
    assert items["CLAUDE.md#Build"] == "Build\n\nUse `make`."
    ids = {i.source_ref: i.id for i in list_items(db, source="claude_md", limit=100)}

    again = sync_claude_md(db, tmp_path)  # idempotent
    assert (again.added, again.updated, again.unchanged, again.hidden) == (0, 0, 3, 0)

    _write(tmp_path, "CLAUDE.md", "# Build\nUse `make all`.\n")  # Test removed, Build changed
    third = sync_claude_md(db, tmp_path)
    assert (third.added, third.updated, third.unchanged, third.hidden) == (0, 1, 1, 1)
    after = list_items(db, source="claude_md", include_superseded=True, limit=100)
    assert {i.source_ref: i.id for i in after if i.hidden_at is None}["CLAUDE.md#Build"] == ids[
        "CLAUDE.md#Build"
    ]
    assert _items(db)["CLAUDE.md#Build"] == "Build\n\nUse `make all`."
    assert set(_items(db, hidden=True)) == {"CLAUDE.md#Test"}

    _write(tmp_path, "CLAUDE.md", "# Build\nUse `make all`.\n\n# Test\nUse pytest.\n")
    fourth = sync_claude_md(db, tmp_path)  # the section came back: shown again, same item
    assert (fourth.added, fourth.updated, fourth.hidden) == (0, 1, 0)
    assert _items(db, hidden=True) == {}


def test_sync_redacts_and_handles_no_files(db: Database, tmp_path: Path) -> None:
    assert sync_claude_md(db, tmp_path).sections == 0
    _write(
        tmp_path,
        "CLAUDE.md",
        "# Deploy\nexport AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
    )
    sync_claude_md(db, tmp_path)
    content = _items(db)["CLAUDE.md#Deploy"]
    assert "wJalrXUtnFEMI" not in content and "REDACTED" in content


def test_removed_file_hides_its_sections(db: Database, tmp_path: Path) -> None:
    _write(tmp_path, ".claude/CLAUDE.md", "# Only\ntext\n")
    sync_claude_md(db, tmp_path)
    (tmp_path / ".claude" / "CLAUDE.md").unlink()
    result = sync_claude_md(db, tmp_path)
    assert result.hidden == 1 and _items(db) == {}


def test_cli_sync_claude_md(tmp_path: Path, run_kgraph: Callable[..., Any]) -> None:
    _write(tmp_path, "CLAUDE.md", "# Build\nUse make.\n\n# Test\nUse pytest.\n")
    result = run_kgraph("knowledge", "sync-claude-md", "--project", str(tmp_path), "--json")
    assert result.returncode == 0, result.stderr
    data = result.json()
    assert (data["sections"], data["added"], data["files"]) == (2, 2, ["CLAUDE.md"])
    again = run_kgraph("knowledge", "sync-claude-md", "--project", str(tmp_path))
    assert again.returncode == 0 and "unchanged 2" in again.stdout
