"""CLAUDE.md as a knowledge source: each heading section becomes one knowledge item.

Files: ``CLAUDE.md``, ``.claude/CLAUDE.md`` and ``.claude/rules/**/*.md`` under the project
root. They are split with a real Markdown parser (markdown-it-py), so a ``# comment`` inside a
code block is not a heading and setext headings are. A section runs from its heading to the
next heading of any level; text before the first heading is its own section.

Each section is stored with ``source="claude_md"`` and ``source_ref="<file>#<heading path>"``
(``#`` alone for the preamble). A sync is idempotent: an unchanged section is left alone, a
changed one is updated in place (same item), a removed one is hidden (``hidden_at``), and a
section that comes back is shown again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kgraph.db import Database

SOURCE = "claude_md"
ITEM_TYPE = "Pattern"
HEADING_SEPARATOR = " > "
_MAX_LIST = 100_000


@dataclass(frozen=True)
class Section:
    """One heading section of a Markdown file. ``headings`` is the path of titles from the
    top-level heading down to this one (empty for text before the first heading)."""

    file: str
    headings: tuple[str, ...]
    level: int
    body: str
    line: int

    @property
    def ref(self) -> str:
        return f"{self.file}#{HEADING_SEPARATOR.join(self.headings)}"

    @property
    def content(self) -> str:
        """The knowledge item text: the heading path as a title line, then the body."""
        if not self.headings:
            return self.body
        return f"{HEADING_SEPARATOR.join(self.headings)}\n\n{self.body}"


@dataclass
class SyncResult:
    """What one sync did; ``files`` are the CLAUDE.md files read (project-relative)."""

    files: list[str] = field(default_factory=list)
    sections: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    hidden: int = 0
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "sections": self.sections,
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "hidden": self.hidden,
            "errors": self.errors,
        }


def claude_md_files(project_root: Path) -> list[Path]:
    """The project's CLAUDE.md files that exist, in a stable order."""
    candidates = [project_root / "CLAUDE.md", project_root / ".claude" / "CLAUDE.md"]
    rules = project_root / ".claude" / "rules"
    if rules.is_dir():
        candidates.extend(sorted(p for p in rules.rglob("*.md")))
    return [p for p in candidates if p.is_file()]


def split_sections(text: str, file: str = "CLAUDE.md") -> list[Section]:
    """The heading sections of Markdown ``text`` (sections with an empty body are left out).

    Two sections with the same heading path get `` (2)``, `` (3)``... appended to the last
    title so every section has its own reference.
    """
    from markdown_it import MarkdownIt

    lines = text.splitlines()
    tokens = MarkdownIt("commonmark").parse(text)
    headings: list[tuple[int, int, int, str]] = []  # (start line, body start, level, title)
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.map is not None:
            inline = tokens[index + 1] if index + 1 < len(tokens) else None
            title = " ".join((inline.content if inline is not None else "").split())
            headings.append((token.map[0], token.map[1], int(token.tag[1:]), title))
    sections: list[Section] = []
    seen: dict[tuple[str, ...], int] = {}
    stack: list[tuple[int, str]] = []
    preamble_end = headings[0][0] if headings else len(lines)
    preamble = "\n".join(lines[:preamble_end]).strip()
    if preamble:
        sections.append(Section(file, (), 0, preamble, 1))
    for position, (start, body_start, level, title) in enumerate(headings):
        end = headings[position + 1][0] if position + 1 < len(headings) else len(lines)
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title or "(untitled)"))
        path = tuple(t for _, t in stack)
        count = seen.get(path, 0) + 1
        seen[path] = count
        if count > 1:
            path = (*path[:-1], f"{path[-1]} ({count})")
        body = "\n".join(lines[body_start:end]).strip()
        if body:
            sections.append(Section(file, path, level, body, start + 1))
    return sections


def read_sections(project_root: Path) -> tuple[list[Section], list[str], list[str]]:
    """(sections of every CLAUDE.md file, the files read, errors for unreadable files)."""
    sections: list[Section] = []
    files: list[str] = []
    errors: list[str] = []
    for path in claude_md_files(project_root):
        relative = os.path.relpath(path, project_root).replace(os.sep, "/")
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            errors.append(f"{relative}: {exc.strerror or exc}")
            continue
        files.append(relative)
        sections.extend(split_sections(text, relative))
    return sections, files, errors


def sync_claude_md(db: Database, project_root: Path) -> SyncResult:
    """Store the CLAUDE.md sections of ``project_root`` as knowledge items (see module doc).

    Parsing happens before any transaction; each write is its own short transaction through
    the knowledge store (which redacts).
    """
    from kgraph.errors import InvalidValueError
    from kgraph.knowledge.edit import replace_content, set_hidden
    from kgraph.knowledge.query import list_items
    from kgraph.knowledge.store import add_item

    sections, files, errors = read_sections(project_root)
    result = SyncResult(files=files, sections=len(sections), errors=errors)
    existing = {
        item.source_ref: item
        for item in list_items(
            db, types=[ITEM_TYPE], source=SOURCE, include_superseded=True, limit=_MAX_LIST
        )
        if item.source_ref
    }
    current: set[str] = set()
    for section in sections:
        current.add(section.ref)
        item = existing.get(section.ref)
        if item is None:
            added = add_item(
                db,
                section.content,
                type=ITEM_TYPE,
                source=SOURCE,
                source_ref=section.ref,
                confidence=0.9,
                data={"file": section.file, "line": section.line},
                bump=False,
            )
            if added.created:
                result.added += 1
            else:  # the same text is already an item (e.g. repeated in two files)
                result.unchanged += 1
            continue
        try:
            changed = replace_content(db, item.id, section.content)
        except InvalidValueError:
            # Another item already holds this text: retire this one, bump that one.
            set_hidden(db, item.id, True, reason="CLAUDE.md section now duplicates another item")
            add_item(
                db,
                section.content,
                type=ITEM_TYPE,
                source=SOURCE,
                source_ref=section.ref,
                bump=False,
            )
            changed = True
        if changed:
            result.updated += 1
        else:
            result.unchanged += 1
    unreadable = {error.split(":", 1)[0] for error in errors}
    for ref, item in existing.items():
        if ref in current or item.hidden_at is not None:
            continue
        if ref.split("#", 1)[0] in unreadable:
            continue  # the file exists but could not be read: keep its sections
        set_hidden(db, item.id, True, reason="section removed from CLAUDE.md")
        result.hidden += 1
    return result
