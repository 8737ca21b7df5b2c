"""Prompt recall: the few stored items relevant to a prompt, never one already injected.

Two ranked lists, fused by reciprocal rank (RRF):

1. **code** — identifiers, dotted names and paths in the prompt (``DropIndexOp``,
   ``get_section``, ``httpx._config``, ``mako/lexer.py``) resolved through the code graph to
   the files defining them (and their closest callers); the knowledge about those files,
   ranked like a briefing. Replaying real histories, this was right about twice as often
   as word matching. The file only says which file matters: an item of it comes when it
   names that code itself or shares telling words with the prompt besides the names that
   led to the file (:func:`_bears_on_prompt`);
   Paths and file names the prompt writes also match the files items are about, parsed
   or not (``tox.ini``; a Go file when only Python is parsed);
2. **lexical** — FTS5 BM25 over the prompt's significant words; a hit must share enough of
   them (two, or the only one) so that a common word alone never injects anything.

The code list weighs more, so knowledge about the named code comes first, and at most one
item found by words alone is added (words are weak evidence of what a change touches). No
embedder: loading the model takes ~9 s, far over a per-prompt budget. Standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from kgraph.codegraph.filedeps import graph_present
from kgraph.codegraph.names import (
    caller_files,
    files_matching_path,
    module_files,
    resolve_names,
)
from kgraph.db.reader import ReadConnection
from kgraph.knowledge.codenames import identifiers
from kgraph.recall import items as recall
from kgraph.recall.briefing import Block, fit
from kgraph.recall.evidence import EvidenceSettings
from kgraph.recall.provenance import named_only
from kgraph.recall.readmodel import focus_for, gather, one_part_each
from kgraph.recall.recent import recent_only
from kgraph.recall.relevance import Ranked, rank
from kgraph.recall.stale import CodeCheck, current_only
from kgraph.recall.words import (
    MIN_LEXICAL,
    TaskWords,
    phrases,
    select_lexical,
    significant_terms,
    stem,
    term_keys,
    term_weights,
)
from kgraph.runtime.seen import Recent

__all__ = [
    "PromptRecall",
    "code_names",
    "prompt_ranked",
    "prompt_recall",
    "stored_paths",
    "without_code",
]

RRF_K = 60
CODE_WEIGHT = 2.0
LEXICAL_WEIGHT = 1.0
CALLER_STRENGTH = 0.5
MODULE_STRENGTH = 0.7  # a plain word that is a module's name ("lexer", "multipart")
# A word in a large share of the stored texts names no module in particular (the project's
# own word for its domain: "template" in a template engine).
MODULE_MIN_RARITY = 0.2
MAX_NAMES = 8
MAX_NAMED_FILES = 3  # a name matching more stored files ("conf.py") names none of them
# Items matched by words alone, at most: replayed histories found about a third of them
# about the change, against two thirds and more of those found through the code graph.
# Such an item must also share a phrase with the prompt (two telling words side by side,
# "git status"): replaying real sessions, scattered shared words ("branch", "commit") were
# right 1 time in 10; see :func:`phrases`.
WORD_ONLY_ITEMS = 1
_FILE_EXT = [
    "py",
    "pyi",
    "ts",
    "tsx",
    "js",
    "jsx",
    "mjs",
    "cjs",
    "go",
    "rs",
    "java",
    "rb",
    "c",
    "h",
    "cpp",
    "hpp",
    "cs",
    "php",
    "md",
    "rst",
    "txt",
    "toml",
    "cfg",
    "ini",
    "json",
    "yaml",
    "yml",
    "sql",
    "sh",
    "html",
    "css",
]
_BACKTICK = re.compile(r"`([^`\n]{2,120})`")
_PATH = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)+[\w.-]+|[\w-]+\.(?:" + "|".join(_FILE_EXT) + r"))\b")
_DOTTED = re.compile(r"(?<![\w./])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_CAMEL = re.compile(r"(?<![\w./])(?:[A-Z][a-z0-9]+[A-Z]\w*|[a-z]+[A-Z]\w*|[A-Z]{2,}[a-z]\w*)")
_SNAKE = re.compile(r"(?<![\w./])_*[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w])")
# A backticked span or a token (backticks end it); a token is code when a word character
# meets "." or "/" inside it. Tested per token: the single pattern ``\S*\w[./]\w\S*``
# backtracked from every position of a long token (100 KB without a space took 83 s).
_TOKEN = re.compile(r"`[^`\n]*`|[^\s`]+|`")
_JOINED = re.compile(r"\w[./]\w")
_CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w{2,})\(")


def _is_path(token: str) -> bool:
    return "/" in token or token.rsplit(".", 1)[-1].lower() in _FILE_EXT


def without_code(text: str) -> str:
    """``text`` with its backticked spans and code tokens (``a.b``, ``src/x``) blanked."""

    def blank(match: re.Match[str]) -> str:
        token = match.group(0)
        quoted = len(token) > 1 and token[0] == token[-1] == "`"
        return " " if quoted or _JOINED.search(token) else token

    return _TOKEN.sub(blank, text)


def code_names(text: str) -> tuple[list[str], list[str]]:
    """(code names, paths) the prompt mentions: backticked text, paths and file names,
    dotted names, CamelCase, snake_case and ``name(`` calls; in order, deduplicated."""
    names: dict[str, None] = {}
    paths: dict[str, None] = {}
    tokens = [m.group(1).strip() for m in _BACKTICK.finditer(text)]
    tokens += [m.group(1) for m in _PATH.finditer(text)]
    for pattern in (_DOTTED, _CAMEL, _SNAKE):
        tokens += [m.group(0) for m in pattern.finditer(text)]
    tokens += [m.group(1) for m in _CALL.finditer(text)]
    for token in tokens:
        token = token.strip("`'\".,:;()[]{}")
        if not token or " " in token:
            continue
        if _is_path(token):
            paths.setdefault(token, None)
        elif "." in token and not any(len(p) >= 3 for p in token.split(".")):
            continue  # "e.g", "i.e"
        else:
            names.setdefault(token.rstrip("()"), None)
    return list(names)[:MAX_NAMES], list(paths)[:MAX_NAMES]


def stored_paths(conn: ReadConnection, paths: Sequence[str]) -> dict[str, list[str]]:
    """Path or file name the prompt wrote -> the stored files (any kind, parsed or not)
    that are it or end with it (``debug.go`` -> ``cmd/cli/debug.go``); a name matching
    more than MAX_NAMED_FILES files is left out. It needs no code graph: the paths come
    from the items themselves."""
    wanted = [p.strip("./") for p in paths if p.strip("./")]
    found: dict[str, list[str]] = {}
    for stored in recall.stored_files(conn) if wanted else []:
        for path in wanted:
            if stored == path or stored.endswith("/" + path):
                found.setdefault(path, []).append(stored)
    return {p: sorted(f) for p, f in found.items() if len(f) <= MAX_NAMED_FILES}


@dataclass(frozen=True)
class _CodeFound:
    """Items about the files the prompt's code and names lead to, and for each such file
    the stems of the words that led to it (a module's word, a path, a code name)."""

    ranked: list[Ranked]
    naming: dict[str, frozenset[str]]
    names: frozenset[str] = frozenset()  # the code names it resolved (last dotted part)


_WORD_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def _naming_stems(*texts: str) -> frozenset[str]:
    """The stems of the words in paths and code names (``calculatePromptAttribution``:
    calculate, prompt, attribution)."""
    return frozenset(stem(w) for t in texts for w in _WORD_PART.findall(t) if len(w) >= 3)


def _code_ranked(
    conn: ReadConnection,
    names: Sequence[str],
    paths: Sequence[str],
    words: Mapping[str, float],
    settings: EvidenceSettings,
    exclude: set[str],
    now: datetime,
    total: int | None = None,
) -> _CodeFound:
    """Items about the files defining (and calling) the code the prompt names, and about
    the modules its plain words name ("multipart" -> ``httpx/_multipart.py``; ``words``:
    word -> how telling it is, so "default" naming ``default.py`` counts little)."""
    if not (names or paths or words):
        return _CodeFound([], {})
    strength: dict[str, float] = {}
    reasons: dict[str, str] = {}
    naming: dict[str, frozenset[str]] = {}

    def lead(path: str, value: float, reason: str, *said: str) -> None:
        strength[path], reasons[path] = value, reason
        naming[path] = naming.get(path, frozenset()) | _naming_stems(path, *said)

    telling = [w for w, rarity in words.items() if rarity >= MODULE_MIN_RARITY]
    graph = graph_present(conn)
    if graph:
        for word, files in module_files(conn, telling, stem).items():
            for path in files:
                lead(path, MODULE_STRENGTH, f"{{}} is the {word} module", word)

    # A file the prompt names, parsed or not (``tox.ini``, a Go file without a graph). Plain
    # words that are only a file's base name do not count: replaying real sessions,
    # "hooks", "debug" and "state" brought the items of hooks.go, debug.go and state.go
    # into sessions about something else.
    for path in paths:
        for found in files_matching_path(conn, path) if graph else []:
            lead(found, 1.0, "named {}", path)
    for path, files in stored_paths(conn, paths).items():
        for found in files:
            lead(found, 1.0, "named {}", path)
    resolved = resolve_names(conn, names) if graph else []
    for entry in resolved:
        for path in entry.files:
            if strength.get(path, 0.0) < 1.0:
                lead(path, 1.0, f"{{}} defines {entry.name}", entry.name)
    callers = caller_files(conn, [i for entry in resolved for i in entry.entity_ids])
    called = [entry.name for entry in resolved]
    for path, _count in callers:
        if path not in strength:
            lead(path, CALLER_STRENGTH, "{} calls it", *called)
    if not strength:
        return _CodeFound([], {})
    focus = focus_for(conn, settings, files=strength, reasons=reasons, total=total)
    ranked = [r for r in rank(gather(conn, focus), focus, now) if r.item.id not in exclude]
    return _CodeFound(ranked, naming, frozenset(e.name.rsplit(".", 1)[-1] for e in resolved))


def _bears_on_prompt(entry: Ranked, found: _CodeFound, task: TaskWords) -> bool:
    """Whether an item the prompt's code led to (a file it names, a module its plain word
    names, the file defining or calling a name it writes) bears on the prompt: it names
    that code itself, or shares telling words with the prompt besides the words that led to
    the file (MIN_LEXICAL, as a word match must). The file says which file matters, not
    which of its items: replaying real sessions, the items of such files were judged useful
    about 1 time in 10, and those sharing no other telling word with the prompt almost
    never."""
    if found.names and not found.names.isdisjoint(identifiers(entry.item.content)):
        return True
    if named_only(entry.item):  # a review's answer, a change list: only if named
        return False
    reached = [found.naming[f] for f in entry.item.files if f in found.naming]
    leave_out = frozenset().union(*reached)
    return task.shared(entry.item.content, leave_out=leave_out) >= MIN_LEXICAL


def fuse(lists: Sequence[tuple[float, Sequence[Ranked]]]) -> list[Ranked]:
    """Reciprocal-rank fusion: sum of weight / (RRF_K + rank); the first list's reason kept."""
    scores: dict[str, float] = {}
    first: dict[str, Ranked] = {}
    for weight, ranked in lists:
        for position, entry in enumerate(ranked, 1):
            scores[entry.item.id] = scores.get(entry.item.id, 0.0) + weight / (RRF_K + position)
            first.setdefault(entry.item.id, entry)
    order = sorted(scores, key=lambda i: (-scores[i], i))
    return [Ranked(first[i].item, scores[i], first[i].why) for i in order]


PROMPT_BLOCK = Block(
    title="kgraph items matching this prompt, recorded in earlier sessions "
    "(`kgraph knowledge show ID` prints one in full):",
    group_by_area=False,
)


@dataclass(frozen=True)
class PromptRecall:
    text: str | None
    ids: tuple[str, ...]
    # How telling the prompt's words it weighed are (by word key), for the session's later
    # hooks (kgraph.runtime.seen): they need not count them again.
    rarity: Mapping[str, float] = field(default_factory=dict)
    why: str = ""  # when nothing is printed for a reason beside "nothing matched"


def prompt_ranked(
    conn: ReadConnection,
    prompt: str,
    *,
    settings: EvidenceSettings,
    exclude: set[str],
    now: datetime | None = None,
) -> list[Ranked]:
    """The items bearing on ``prompt``, best first: code-resolved and lexical, fused, with
    at most WORD_ONLY_ITEMS found by words alone (the library's recall adds meaning)."""
    return _ranked(conn, prompt, settings, exclude, now or datetime.now(UTC))[0]


def _ranked(
    conn: ReadConnection,
    prompt: str,
    settings: EvidenceSettings,
    exclude: set[str],
    now: datetime,
) -> tuple[list[Ranked], TaskWords, list[str]]:
    """:func:`prompt_ranked`, the prompt's words as it weighed them and the code names it
    writes (:func:`code_names`)."""
    terms = significant_terms(prompt)
    names, paths = code_names(prompt)
    total = recall.item_count(conn)
    weights = term_weights(conn, terms, total) if terms else {}
    # Plain words only: "setup" of "setup.cfg" is a path's, not a module's name.
    plain = significant_terms(without_code(prompt))
    telling = {t: weights.get(stem(t), 0.0) for t in plain}
    found = _code_ranked(conn, names, paths, telling, settings, exclude, now, total)
    task = TaskWords(conn, term_keys(terms), weights, total)  # the terms scanned above
    code = [r for r in found.ranked if _bears_on_prompt(r, found, task)]
    lexical = select_lexical(conn, terms, weights, exclude) if terms else []
    lexical = [r for r in lexical if not named_only(r.item)]
    fused = fuse([(CODE_WEIGHT, code), (LEXICAL_WEIGHT, lexical)])
    about_code = {r.item.id for r in code}
    said = phrases(prompt)
    kept: list[Ranked] = []
    word_only = 0
    for entry in fused:
        if entry.item.id not in about_code:
            if word_only >= WORD_ONLY_ITEMS or said.isdisjoint(phrases(entry.item.content)):
                continue
            word_only += 1
        kept.append(entry)
    return kept, task, names


def prompt_recall(
    conn: ReadConnection,
    prompt: str,
    *,
    settings: EvidenceSettings,
    exclude: set[str],
    max_items: int,
    max_chars: int,
    now: datetime | None = None,
    check: CodeCheck | None = None,
    recent: Recent | None = None,
) -> PromptRecall:
    """What to inject for ``prompt``: :func:`prompt_ranked`, rendered within budget (with
    ``check``, items naming code their files no longer hold left out; with ``recent``, the
    project's latest changes, items learned from older commits left out:
    :mod:`kgraph.recall.recent`)."""
    ranked, task, names = _ranked(conn, prompt, settings, exclude, now or datetime.now(UTC))
    ranked, held = recent_only(conn, ranked, recent, names)
    fused = current_only(one_part_each(conn, ranked), check, max_items)
    if not fused:
        why = f"{held} match(es) of history older than the latest changes held back" if held else ""
        return PromptRecall(None, (), task.rarity, why)
    text, kept = fit(fused, PROMPT_BLOCK, max_chars, max_items)
    return PromptRecall(text, tuple(r.item.id for r in kept), task.rarity)
