"""What a replayed commit changes below the file: its edits as hunks, and the names it touches.

Relevance by shared file says an item about ``_client.py`` fits every change to that file; a
session editing one function wants what was learned about that function. So the bench also
asks whether an item **names** what the commit changes: a function or class whose definition
encloses a changed line (before or after the change), or a changed file's name.

Git only (``git show``), never kgraph: the bench judges kgraph from the outside. Python
files are read with :mod:`ast` (exact definition spans); other languages by definition
headers (the last header above a changed line encloses it).
"""

from __future__ import annotations

import ast
import difflib
import re
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from replay_history import Commit

# A name shorter than this, or one of these, says nothing about a change (``run``, ``get``
# and dunders name something in every file).
MIN_NAME = 4
_DEFINITION = re.compile(
    r"^[ \t]*(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:pub(?:\([^)]*\))?\s+)?"
    r"(?:def|class|func|function|fn|interface|struct|enum|trait|type)\s+"
    r"(?:\([^)]*\)\s*)?([A-Za-z_][A-Za-z0-9_]*)",
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
MAX_HUNK_LINES = 40  # an Edit's old/new string is a few lines, not a rewritten file


@dataclass(frozen=True)
class Hunk:
    """One change to a file, as an Edit tool call would make it."""

    path: str
    old: str
    new: str


@dataclass(frozen=True)
class Change:
    """What a commit changes: its edits and the names they touch."""

    hunks: tuple[Hunk, ...]
    symbols: frozenset[str]  # enclosing definitions of changed lines
    file_names: frozenset[str]  # base names of changed files ("_client.py")

    def named_by(self, text: str) -> bool:
        """Whether ``text`` names a changed symbol or file."""
        words = {w.strip(".") for w in _IDENTIFIER.findall(text)}
        parts = {p for w in words for p in w.split(".")}
        return bool((words | parts) & self.symbols) or any(f in text for f in self.file_names)


def _show(tree: Path, rev: str, path: str) -> str | None:
    proc = subprocess.run(
        ["git", "show", f"{rev}:{path}"], cwd=tree, capture_output=True, check=False
    )
    return proc.stdout.decode("utf-8", "replace") if proc.returncode == 0 else None


def _python_spans(text: str) -> list[tuple[int, int, str]]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            spans.append((node.lineno, node.end_lineno or node.lineno, node.name))
    return spans


def _header_spans(text: str) -> list[tuple[int, int, str]]:
    lines = text.splitlines()
    heads = [(n, m.group(1)) for n, line in enumerate(lines, 1) if (m := _DEFINITION.match(line))]
    return [
        (start, (heads[k + 1][0] - 1) if k + 1 < len(heads) else len(lines), name)
        for k, (start, name) in enumerate(heads)
    ]


def enclosing(path: str, text: str, lines: Iterable[int]) -> set[str]:
    """The definitions of ``text`` (a file at ``path``) whose span holds one of ``lines``."""
    spans = _python_spans(text) if path.endswith(".py") else _header_spans(text)
    wanted = set(lines)
    return {name for start, end, name in spans if any(start <= n <= end for n in wanted)}


def _useful(name: str) -> bool:
    return len(name) >= MIN_NAME and not (name.startswith("__") and name.endswith("__"))


def _hunks(path: str, old: str, new: str) -> tuple[list[Hunk], set[int], set[int]]:
    """The file's edits (each a replace of whole lines) and the changed line numbers in
    the old and the new text (1-based)."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    hunks: list[Hunk] = []
    old_lines: set[int] = set()
    new_lines: set[int] = set()
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        old_lines.update(range(i1 + 1, i2 + 1) or {i1})
        new_lines.update(range(j1 + 1, j2 + 1) or {j1})
        # An Edit needs text to find: a pure insertion carries the line before it.
        lo = i1 - 1 if i1 == i2 and i1 > 0 else i1
        lo_new = j1 - (i1 - lo)
        before, after = "".join(a[lo:i2]), "".join(b[lo_new:j2])
        if (before.strip() or after.strip()) and i2 - lo <= MAX_HUNK_LINES:
            hunks.append(Hunk(path, before, after))
    return hunks, old_lines, new_lines


def commit_change(tree: Path, commit: Commit, paths: Sequence[str] | None = None) -> Change:
    """The hunks and changed names of ``commit`` (for ``paths``, default all its files)."""
    assert commit.parent is not None
    hunks: list[Hunk] = []
    symbols: set[str] = set()
    names: set[str] = set()
    for path in paths if paths is not None else commit.files:
        names.add(PurePosixPath(path).name)
        old = _show(tree, commit.parent, path) or ""
        new = _show(tree, commit.sha, path) or ""
        found, old_lines, new_lines = _hunks(path, old, new)
        hunks += found
        symbols |= enclosing(path, old, old_lines) | enclosing(path, new, new_lines)
    return Change(
        tuple(hunks),
        frozenset(s for s in symbols if _useful(s)),
        frozenset(n for n in names if "." in n and len(n) >= MIN_NAME and n[:2] != "__"),
    )
