"""Which files an item is about: the paths and code names it mentions, resolved against what
the session itself touched.

An item names ``git_operations.go``, ``checkpoint/temporary.go`` or ``HasUncommittedChanges()``;
the session read, edited and grepped files whose contents define those names. Only files the
session saw are candidates, so a word that happens to look like a name never attaches an
unrelated file, and an item about one function is not attached to every file edited nearby.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from kgraph.capture.gate.paths import PathMap
from kgraph.capture.sources.stream import Event, Ran
from kgraph.tools import FILE_TOOLS

MAX_FILES = 4
_PATHLIKE = re.compile(r"(?<![\w~/.-])((?:[\w.-]+/)*[\w.-]+\.[A-Za-z]{1,5})\b")
# A code name as an item writes it: in backticks, called (``name()``), or shaped like code on
# its own (snake_case, camelCase, PascalCase with two capitals, dotted). A plain word
# ("from", "Session") is never taken for a name: it matches comments and prose everywhere.
_NAME = re.compile(
    r"`([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)(?:\([^`]*\))?`"
    r"|\b([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\(\)"
    r"|\b([A-Za-z]\w*_\w+|[a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)\b"
)
_COMMENT = re.compile(r"^\s*(?://|#|/?\*|--|<!--)|\s//\s.*$|\s#\s.*$")
_DEFINITION = re.compile(
    r"(?:^|[\s;{])(?:func|def|class|type|interface|struct|enum|trait|fn|function|const|let|var|"
    r"async def|export (?:default )?(?:async )?(?:function|class|const|interface|type))"
    r"\s+(?:\([^)]*\)\s*)?([A-Za-z_][A-Za-z0-9_]*)",
    re.MULTILINE,
)
_GREP_LINE = re.compile(r"^(?P<path>[^\s:]+\.[A-Za-z]{1,5})[:-]\d+[:-](?P<text>.*)$", re.MULTILINE)
_COMMON_NAMES = frozenset(
    {"main", "init", "test", "run", "get", "set", "new", "New", "err", "ctx", "self", "cls", "t"}
)
_PROSE_SUFFIXES = frozenset({"md", "markdown", "txt", "rst", "json", "yaml", "yml", "toml"})


@dataclass
class FileIndex:
    """Files a session saw (repo-relative) and the code names each one defines."""

    files: set[str] = field(default_factory=set)
    edited: set[str] = field(default_factory=set)
    definitions: dict[str, set[str]] = field(default_factory=dict)

    def add_definitions(self, rel: str, text: str) -> None:
        if rel.rsplit(".", 1)[-1].lower() in _PROSE_SUFFIXES:
            return  # "type of …" in a README defines nothing
        for line in text.splitlines():
            code = _code_part(line)
            for name in _DEFINITION.findall(code) if code else ():
                if len(name) > 2 and name not in _COMMON_NAMES:
                    self.definitions.setdefault(name, set()).add(rel)

    def resolve_path(self, mention: str) -> str | None:
        """A repo file for a mentioned path: exact, by path suffix, or by a unique base name."""
        mention = mention.strip("`'\"./")
        if not mention:
            return None
        if mention in self.files:
            return mention
        suffix = [f for f in self.files if f.endswith("/" + mention)]
        if len(suffix) == 1:
            return suffix[0]
        if "/" not in mention:
            named = [f for f in self.files if f.rsplit("/", 1)[-1] == mention]
            if len(named) == 1:
                return named[0]
            return None
        # a path with folders names a file even when the session never opened it, if it lies
        # in a folder the session worked in ("api/.claude/…" of another checkout does not)
        top = mention.split("/", 1)[0]
        known = any(f.split("/", 1)[0] == top for f in self.files if "/" in f)
        return mention if known and not mention.startswith(("~", "/", "..")) else None

    def files_of(self, text: str) -> tuple[str, ...]:
        """The files ``text`` is about: paths it names, then files defining names it uses."""
        found: list[str] = []
        for mention in _PATHLIKE.findall(text):
            rel = self.resolve_path(mention)
            if rel and rel not in found:
                found.append(rel)
        for groups in _NAME.findall(text):
            raw = next(g for g in groups if g)
            for name in dict.fromkeys((raw, raw.rsplit(".", 1)[-1])):
                owners = self.definitions.get(name)
                if owners and len(owners) <= 2:
                    for rel in sorted(owners, key=lambda f: (f not in self.edited, f)):
                        if rel not in found:
                            found.append(rel)
        return tuple(found[:MAX_FILES])


def _code_part(line: str) -> str:
    """The line without its comment ("" for a comment line): "// Get agent type from the
    hook" defines nothing, though "type from" reads like a Go type declaration."""
    match = _COMMENT.search(line)
    if match is None:
        return line
    return "" if match.start() == 0 or not line[: match.start()].strip() else line[: match.start()]


def _tool_text(event: Ran) -> str:
    data = event.input
    parts = [event.result] if event.name in ("Read", "NotebookRead") else []
    for key in ("old_string", "new_string", "content", "new_source"):
        value = data.get(key)
        if isinstance(value, str):
            parts.append(value)
    edits = data.get("edits")
    if isinstance(edits, list):
        parts += [e.get("new_string", "") for e in edits if isinstance(e, dict)]
    return "\n".join(p for p in parts if isinstance(p, str))


def build_index(events: Iterable[Event], paths: PathMap) -> FileIndex:
    """The files a session's tools touched or listed, and the names each defines."""
    index = FileIndex()
    for event in events:
        if not isinstance(event, Ran) or event.is_error:
            continue
        if event.name in FILE_TOOLS:
            raw = event.input.get("file_path") or event.input.get("notebook_path")
            rel = paths.rel(raw) if isinstance(raw, str) else None
            if rel is None:
                continue
            index.files.add(rel)
            if event.name not in ("Read", "NotebookRead"):
                index.edited.add(rel)
            index.add_definitions(rel, _tool_text(event))
        elif event.name == "Grep":
            for match in _GREP_LINE.finditer(event.result):
                rel = paths.rel(match.group("path"))
                if rel:
                    index.files.add(rel)
                    index.add_definitions(rel, match.group("text"))
        elif event.name == "Glob":
            for line in event.result.splitlines():
                rel = paths.rel(line.strip())
                if rel and "." in rel.rsplit("/", 1)[-1]:
                    index.files.add(rel)
    return index
