"""File recall: what is recorded about a file the agent just read or edited.

Replaying real histories, items about the files a change touches were right 84% of the time,
while a clean-tree session start knew no files. The agent's own file tools say which files
matter, as it works: this hook injects, once per session per item, the few items about that
file (Mistakes first) and, briefly, the Mistakes and Patterns about the files it depends on
most closely (code graph). Silent when nothing clears the evidence bar (a changelog or any
file most items mention is weak evidence: :mod:`kgraph.recall.evidence`).

**The symbol leads.** An edit says more than its file: the definitions enclosing the
changed text (and those written in it), or of the lines a partial read covered, are the
symbols the agent works on (:func:`touched_symbols`). Items naming one of them come first;
once the file's items were given, a later edit brings only items naming what it touches.

**After an edit, only warnings.** The hook runs once the edit or write is made, and Claude
Code has the agent read a file before it changes it, so what the file's history tells came
with that read; after the change, only a Mistake or a Pattern about the code touched is
still news. Replaying real sessions of eight repositories, the other items an edit or a
write brought (learnings from commits, each naming what was changed) were useful 0 times
in 25 and junk 14 times (a whole-file write names every definition in it).

**The task leads.** A whole-file read says the agent looks at the file, not what for: once
the session's user has written a prompt, such a read brings (beside the file's warnings)
only the items sharing telling words with the prompts so far (:func:`_on_task`).

**A specific item leads.** An item about several code files (tests, documents, CI and
build configuration aside) tells of a change as a whole, most of it elsewhere: replaying
real sessions on fifteen repositories, such items a file hook brought were useful 3 times
in 64 and junk 18 times (a long commit's change list), against 17 in 65 and 9 for items
about one code file. The hook brings only items about at most one code file; the prompt
hook, whose words pick the item, still brings broad ones. A commit's message that lists
its changes (three entries or more) tells of a change as a whole too, whatever its files:
such items a file hook brought were useful 3 times in 35 and junk 16 times; they are left
to the prompt hook (useful 9 times in 24 there).

**A file most sessions open says little.** Of a file a third or more of the recent sessions
read or edited (HUB_SHARE), a whole-file read brings only the warnings: replaying real
sessions, the items such reads brought were irrelevant 9 times in 9, while the useful ones
came from files at most one session in six had opened.

It runs on every file read, so its path is the standard library only (sqlite3, json): no
SQLAlchemy, ~0.1 s for the whole process.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from kgraph.codegraph.filedeps import dependencies_of, graph_present
from kgraph.db.reader import ReadConnection
from kgraph.knowledge.areas import SUPPORTING_AREAS, infer_code_area
from kgraph.knowledge.codenames import identifiers, named_code, read_source
from kgraph.recall.briefing import Block, fit
from kgraph.recall.evidence import EvidenceSettings
from kgraph.recall.provenance import lists_changes, named_only
from kgraph.recall.readmodel import focus_for, gather, one_part_each
from kgraph.recall.relevance import Item, Ranked, rank
from kgraph.recall.stale import CodeCheck, current_only
from kgraph.recall.words import MIN_LEXICAL, TaskWords
from kgraph.tools import TEXT_EDIT_TOOLS

__all__ = [
    "FileRecall",
    "FileWords",
    "file_recall",
    "file_words",
    "touched_symbols",
]

# Dependencies looked at (closest first), and the items they may add: only warnings and rules.
DEPENDENCIES = 3
DEPENDENCY_ITEMS = 2
DEPENDENCY_TYPES = frozenset({"Mistake", "Pattern"})
WARNING_TYPES = DEPENDENCY_TYPES
DEPENDENCY_STRENGTH = 0.7
ITEM_CHARS = 400
DEPENDENCY_ITEM_CHARS = 200
# A definition's header in the languages kgraph meets: Python, Go, TypeScript/JavaScript,
# Rust, Java-like methods are left to their class.
_DEFINITION = re.compile(
    r"^[ \t]*(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:pub(?:\([^)]*\))?\s+)?"
    r"(?:def|class|func|function|fn|interface|struct|enum|trait|type)\s+"
    r"(?:\([^)]*\)\s*)?([A-Za-z_][A-Za-z0-9_]*)",
    re.MULTILINE,
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_FILE_NAME = re.compile(r"[\w-]+\.[A-Za-z0-9]+")  # "_client.py"
MIN_NAME = 4
# A file this share of the recent sessions opened is a hub: a whole read of it brings only
# its warnings.
HUB_SHARE = 1 / 3
# Distinct names of the file's vocabulary an item names, counted up to this many.
SPEAKS_CAP = 3
# Code files (tests, documents, CI and build configuration aside) an item the hook brings
# may be about.
MAX_CODE_FILES = 1


@dataclass(frozen=True)
class FileRecall:
    """The block for one file and the ids in it (empty when there is nothing to say)."""

    text: str | None
    ids: tuple[str, ...]
    why: str = ""


def _dependency_items(
    conn: ReadConnection,
    path: str,
    settings: EvidenceSettings,
    exclude: set[str],
    now: datetime,
    uses: Collection[str],
) -> list[Ranked]:
    """The closest dependencies' warnings that name code the file itself uses (``uses``,
    its identifiers): a dependency's Mistake is news to a reader of this file when this
    file calls what it warns about. Replaying real sessions of a TypeScript repository
    with a parsed graph, the dependency warnings that named nothing the reading file held
    were irrelevant 4 times in 4; the two that did were useful once."""
    if not uses or not graph_present(conn):
        return []
    closest = [f for f, _ in dependencies_of(conn, path, DEPENDENCIES)]
    if not closest:
        return []
    strength = {f: DEPENDENCY_STRENGTH for f in closest}
    reasons = {f: "in its dependency" for f in closest}
    focus = focus_for(conn, settings, files=strength, reasons=reasons)
    candidates = [
        i
        for i in gather(conn, focus)
        if i.type in DEPENDENCY_TYPES and not named_code(i.content, i.files).isdisjoint(uses)
    ]
    ranked = [r for r in rank(candidates, focus, now) if r.item.id not in exclude]
    return ranked[:DEPENDENCY_ITEMS]


def _read_text(path: Path) -> str:
    return read_source(path) or ""


def _enclosing(text: str, at: int) -> str | None:
    """The name of the last definition header before offset ``at``."""
    found = None
    for match in _DEFINITION.finditer(text, 0, at):
        found = match.group(1)
    return found


def touched_symbols(file: Path, tool_name: str | None, tool_input: Mapping[str, Any]) -> set[str]:
    """The definitions an Edit/MultiEdit/Write changed (enclosing the new text in ``file``,
    or written in it) or a Read with ``offset`` covered; empty for a whole-file read."""
    names: set[str] = set()
    if tool_name in TEXT_EDIT_TOOLS:
        edits = tool_input.get("edits") if tool_name == "MultiEdit" else [tool_input]
        text = _read_text(file)
        for edit in edits if isinstance(edits, list) else []:
            new = edit.get("new_string") or edit.get("content") if isinstance(edit, dict) else None
            if not isinstance(new, str) or not new.strip():
                continue
            names.update(m.group(1) for m in _DEFINITION.finditer(new))
            at = text.find(new) if text and tool_name != "Write" else -1
            enclosing = _enclosing(text, at) if at >= 0 else None
            if enclosing:
                names.add(enclosing)
    elif tool_name == "Read" and isinstance(tool_input.get("offset"), int):
        lines = _read_text(file).splitlines()
        start = max(0, int(tool_input["offset"]) - 1)
        limit = tool_input.get("limit")
        end = start + (int(limit) if isinstance(limit, int) and limit > 0 else 2_000)
        names.update(m.group(1) for m in _DEFINITION.finditer("\n".join(lines[start:end])))
        enclosing = _enclosing("\n".join(lines[:start]), len("\n".join(lines[:start])))
        if enclosing:
            names.add(enclosing)
    return {n for n in names if len(n) > 2}


@lru_cache(maxsize=4_096)
def _supporting(path: str) -> bool:
    return infer_code_area(path) in SUPPORTING_AREAS


def _specific(item: Item) -> bool:
    """Whether ``item`` is about at most MAX_CODE_FILES code files (see module docstring)."""
    code = 0
    for path in item.files:
        if not _supporting(path):
            code += 1
            if code > MAX_CODE_FILES:
                return False
    return True


def _history(item: Item) -> bool:
    """Whether ``item`` is left to the prompt hook: shown only where it names the code at
    hand (:func:`~kgraph.recall.provenance.named_only`), or a commit's list of its changes
    (:func:`~kgraph.recall.provenance.lists_changes`), which a read's range or a file's words
    pick by chance."""
    return named_only(item) or lists_changes(item)


def _names_any(text: str, symbols: Collection[str]) -> bool:
    return bool(symbols) and not set(_IDENTIFIER.findall(text)).isdisjoint(symbols)


def _on_task(entry: Ranked, task: TaskWords | None) -> bool:
    """Whether an item a whole-file read found bears on what the session is about: it
    shares telling words with the user's prompts (MIN_LEXICAL, as a prompt's own word
    matches must). Reading a file says the agent looks at it, not what it looks for:
    replaying real sessions, the items a whole-file read brought were judged useful 2 times
    in 46, and the irrelevant ones mostly shared no telling word with any prompt so far.
    Without prompt words (none recorded yet), the file alone decides."""
    return not task or task.shared(entry.item.content) >= MIN_LEXICAL


@dataclass(frozen=True)
class FileWords:
    """What a file the agent read says of itself, from one read of it: its ``vocabulary``
    (:func:`_vocabulary`) and every identifier it holds (``uses``: the code it uses,
    for its dependencies' warnings)."""

    vocabulary: frozenset[str]
    uses: frozenset[str]


def file_words(file: Path, path: str) -> FileWords:
    """:class:`FileWords` of the file at ``file`` (repo-relative ``path``), read once."""
    text = _read_text(file)
    return FileWords(_vocabulary(text, path), identifiers(text))


def _vocabulary(text: str, path: str) -> frozenset[str]:
    """What an item that speaks of this file's code names: the file's base name and stem
    ("_client.py", "_client") and the definitions its ``text`` holds (short and dunder
    names left out: ``run`` or ``__init__`` name something in every file)."""
    name = Path(path).name
    words = {m.group(1) for m in _DEFINITION.finditer(text)}
    words = {w for w in words if len(w) >= MIN_NAME and not w.startswith("__")}
    stem = name.rsplit(".", 1)[0]
    return frozenset({name, *([stem] if len(stem) >= MIN_NAME else []), *words})


def _speaks_of(text: str, vocabulary: Collection[str]) -> int:
    """How many names of the file's ``vocabulary`` the text names (at most SPEAKS_CAP)."""
    if not vocabulary:
        return 0
    words = set(_IDENTIFIER.findall(text)) | set(_FILE_NAME.findall(text))
    return min(SPEAKS_CAP, len(words.intersection(vocabulary)))


def file_recall(
    conn: ReadConnection,
    path: str,
    *,
    settings: EvidenceSettings,
    exclude: set[str],
    max_items: int,
    max_chars: int,
    now: datetime | None = None,
    symbols: Collection[str] = (),
    symbols_only: bool = False,
    edited: bool = False,
    vocabulary: Collection[str] = (),
    uses: Collection[str] = (),
    check: CodeCheck | None = None,
    task: TaskWords | None = None,
    opened_by: float = 0.0,
) -> FileRecall:
    """What to inject for the repo-relative ``path``: its own items not in ``exclude`` and
    about at most one code file (:func:`_specific`), at most ``max_items`` — those naming
    one of ``symbols`` first, then those naming something of the file's ``vocabulary``
    (:func:`file_words`), then the rest, each group best first; only the first group
    with ``symbols_only`` — then up to two Mistakes/Patterns of its closest dependencies
    that name code the file uses (``uses``, its identifiers; none with ``symbols_only``:
    the file was recalled already); with ``check``, items naming
    code their files no longer hold are left out (:mod:`kgraph.recall.stale`); with a
    ``task`` (the session's prompt words), a whole-file read brings only the items sharing
    enough of them, and the warnings (only the warnings when ``opened_by``, the share of
    recent sessions that opened the file, is HUB_SHARE or more); after an edit or a write
    (``edited``), only the warnings. A named-only item and a commit's change list
    (:func:`_history`) are left to the prompt hook: a read's range covers too many names,
    and after an edit only warnings come."""
    now = now or datetime.now(UTC)
    if max_items <= 0 or (symbols_only and not symbols):
        return FileRecall(None, ())
    focus = focus_for(conn, settings, files={path: 1.0}, reasons={path: "about"})
    candidates = (
        i
        for i in gather(conn, focus)
        if i.id not in exclude and _specific(i) and (not edited or i.type in WARNING_TYPES)
    )
    ranked = rank(candidates, focus, now)
    # An item naming what is being changed comes first, then the file's Mistakes, then
    # items by how much of the file's code they name, over one that only changed the
    # file once: replaying three histories, the newest items about a file named what the
    # next change to it touched 8-24% of the time, items in this order 17-65%.
    naming = [r for r in ranked if _names_any(r.item.content, symbols) and not _history(r.item)]
    named = {r.item.id for r in naming}
    rest = [] if symbols_only else [r for r in ranked if r.item.id not in named]
    # Beside what names the code touched, only the file's warnings and rules, and on a
    # whole-file read the items that name something of the file: an item that only
    # shared a commit with the file is history, left to search.
    # A named-only item and a change list are left to the prompt hook (_history).
    rest = [
        r
        for r in rest
        if (
            r.item.type in WARNING_TYPES
            or (
                not symbols
                and opened_by < HUB_SHARE
                and _speaks_of(r.item.content, vocabulary) > 0
                and _on_task(r, task)
            )
        )
        and not _history(r.item)
    ]
    rest.sort(  # stable: the rank's order (specific before broad, newer first) kept
        key=lambda r: (r.item.type != "Mistake", -_speaks_of(r.item.content, vocabulary))
    )
    pool = one_part_each(conn, [*naming, *rest])
    own = [Ranked(r.item, r.score, "") for r in current_only(pool, check, max_items)]
    taken = exclude | {r.item.id for r in own}
    deps = [] if symbols_only else _dependency_items(conn, path, settings, taken, now, uses)
    deps = current_only(deps, check, DEPENDENCY_ITEMS)
    if not own and not deps:
        # Every item that cleared the bar describes code the file no longer holds.
        why = f"{len(pool)} item(s) about it describe code no longer there" if pool else ""
        return FileRecall(None, (), why)
    block = Block(
        title=f"kgraph: recorded about {path} in earlier sessions "
        "(`kgraph knowledge show ID` prints one in full):",
        group_by_area=False,
        item_chars=ITEM_CHARS,
        tail_title="From the files it depends on:",
        tail_chars=DEPENDENCY_ITEM_CHARS,
    )
    text, chosen = fit(own, block, max_chars, max_items, deps)
    return FileRecall(text, tuple(r.item.id for r in chosen))
