"""Prompt recall: the few stored items relevant to a prompt, never one already injected.

Two ranked lists, fused by reciprocal rank (RRF):

1. **code** — identifiers, dotted names and paths in the prompt (``DropIndexOp``,
   ``get_section``, ``httpx._config``, ``mako/lexer.py``) resolved through the code graph to
   the files defining them (and their closest callers); the knowledge about those files,
   ranked like a briefing. Replaying real histories, this was right about twice as often
   as word matching;
   Paths and file names the prompt writes also match the files items are about, parsed
   or not (``tox.ini``; a Go file when only Python is parsed);
2. **lexical** — FTS5 BM25 over the prompt's significant words; a hit must share enough of
   them (two, or the only one) so that a common word alone never injects anything.

The code list weighs more, so knowledge about the named code comes first, and at most one
item found by words alone is added (words are weak evidence of what a change touches). No
embedder: loading the model takes ~9 s, far over a per-prompt budget. Standard library only.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from kgraph.codegraph.filedeps import graph_present
from kgraph.codegraph.names import (
    caller_files,
    files_matching_path,
    module_files,
    resolve_names,
)
from kgraph.db.reader import ReadConnection
from kgraph.recall import items as recall
from kgraph.recall.briefing import Block, fit
from kgraph.recall.evidence import MIN_BASE, EvidenceSettings, rarity
from kgraph.recall.readmodel import focus_for, gather
from kgraph.recall.relevance import Ranked, rank
from kgraph.recall.stale import CodeCheck, current_only

__all__ = [
    "PromptRecall",
    "code_names",
    "phrases",
    "prompt_ranked",
    "prompt_recall",
    "select_lexical",
    "significant_terms",
    "stem",
]

MAX_QUERY_TERMS = 12
LEXICAL_CANDIDATES = 20
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
# The summed rarity of the shared words a lexical hit needs (two fairly rare words, or one
# rare and one common; see term_weights).
MIN_LEXICAL = 1.0
# Below this rarity a word is common, and how common no longer matters: its count stops
# there (a word in every text of a big store cost a few milliseconds to count).
COMMON_RARITY = 0.1
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]{2,}")
_SUFFIXES = ("ings", "ing", "ies", "ied", "es", "ed", "ly", "s")
STOPWORDS = frozenset(
    """
    the and for are but not you your yours with this that these those there their they them
    what when where which while who whom why how can could should would will shall may might
    must have has had having was were been being does did doing done its into onto from
    about above below over under again further then once here all any both each few more most
    other some such only own same than too very just also now please thanks thank let lets
    make makes made want wants need needs like get got use used using try trying look looks
    see show tell give know think help fix add change update run check work working file
    files code thing things something anything way yes yeah okay sure our ours out off
    """.split()  # noqa: SIM905 - a word list reads better as text
)
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


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A crude stem, applied the same way to prompt and item words
    ("retries" ~ "retry", "caching" ~ "caches" ~ "cache"). Cached: ranking stems every
    word of a few hundred candidates per prompt, and a long-lived process sees the same
    words again and again."""
    word = word.lower()
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
            break
    return word[:-1] if word.endswith("e") and len(word) > 4 else word


def significant_terms(text: str) -> list[str]:
    """Distinct non-stopword words of 3+ letters, in order of appearance."""
    found: dict[str, None] = {}
    for match in _WORD.finditer(text):
        word = match.group(0).lower()
        if word not in STOPWORDS:
            found.setdefault(word, None)
    return list(found)


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


_ANY_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def phrases(text: str) -> set[frozenset[str]]:
    """The pairs of significant words (stemmed) standing side by side in ``text``, in
    either order: a stopword or a short word between two words breaks the pair,
    punctuation does not ("post-commit", "post commit" and "commit (post" all give
    {"post", "commit"})."""
    stems: list[str | None] = []
    for match in _ANY_WORD.finditer(text):
        word = match.group(0).lower()
        stems.append(None if len(word) < 3 or word in STOPWORDS else stem(word))
    return {frozenset((a, b)) for a, b in itertools.pairwise(stems) if a and b and a != b}


def overlap(prompt_stems: set[str], content: str) -> int:
    """How many of the prompt's significant stems occur in ``content``."""
    return len(prompt_stems & {stem(w) for w in significant_terms(content)})


def required_overlap(term_count: int) -> int:
    """Shared words a hit needs: two, or every word of a one-word prompt."""
    return 1 if term_count <= 1 else 2


def term_weights(conn: ReadConnection, terms: Sequence[str], total: int) -> dict[str, float]:
    """Stem -> how telling a shared word is: its rarity among the ``total`` stored texts (a
    word in most items, "support" or "bump", says little;
    :func:`kgraph.recall.evidence.rarity`). Counting stops where a word becomes common
    (rarity COMMON_RARITY): such a word gets that rarity, an upper bound."""
    words = {t: stem(t) for t in terms[:MAX_QUERY_TERMS] if t.isascii()}
    most = math.ceil(max(total, MIN_BASE) ** (1 - COMMON_RARITY))
    counts = recall.term_frequencies(conn, words, most)
    weights: dict[str, float] = {}
    for word, count in counts.items():
        key = words[word]
        weights[key] = max(weights.get(key, 0.0), rarity(count, total))
    return weights


def select_lexical(
    conn: ReadConnection,
    terms: Sequence[str],
    weights: Mapping[str, float],
    exclude: set[str],
) -> list[Ranked]:
    """FTS matches that share enough telling words with the prompt and were not injected:
    at least two words (one for a one-word prompt) whose rarities (``weights``, by stem)
    sum to MIN_LEXICAL; the most telling overlap first (ties: BM25 order).

    The FTS query leaves out the least telling words whose rarities sum to less than
    MIN_LEXICAL: a hit sharing only those cannot pass, so none that can is lost, while a
    word in most stored texts ("request") no longer makes FTS5 rank most of the store
    before its LIMIT."""
    query = list(terms[:MAX_QUERY_TERMS])
    left_out = 0.0
    for word in sorted({stem(t) for t in query}, key=lambda s: (weights.get(s, 0.0), s)):
        left_out += weights.get(word, 0.0)
        if left_out >= MIN_LEXICAL:
            break
        query = [t for t in query if stem(t) != word]
    ids = recall.lexical_ids(conn, " ".join(query)) if query else []
    stems = set(weights)
    need = required_overlap(len(stems))
    # Words first, on the texts alone: only the items that pass are loaded whole.
    texts = recall.item_texts(conn, [i for i in ids if i not in exclude])
    passed: list[tuple[str, float, int]] = []  # (id, value, shared words), BM25 order
    for item_id in ids:
        text = texts.get(item_id)
        if text is None:
            continue
        shared = stems & {stem(w) for w in significant_terms(text)}
        value = sum(weights[s] for s in shared)
        if len(shared) >= need and value >= MIN_LEXICAL:
            passed.append((item_id, value, len(shared)))
    passed.sort(key=lambda p: -p[1])  # stable: BM25 order among equals
    items = recall.load_items(conn, [item_id for item_id, _, _ in passed])
    chosen = [
        Ranked(items[item_id], value, f"{count} telling word{'s' if count != 1 else ''} in common")
        for item_id, value, count in passed
        if item_id in items
    ]
    return chosen[:LEXICAL_CANDIDATES]


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


def _code_ranked(
    conn: ReadConnection,
    names: Sequence[str],
    paths: Sequence[str],
    words: Mapping[str, float],
    settings: EvidenceSettings,
    exclude: set[str],
    now: datetime,
    total: int | None = None,
) -> list[Ranked]:
    """Items about the files defining (and calling) the code the prompt names, and about
    the modules its plain words name ("multipart" -> ``httpx/_multipart.py``; ``words``:
    word -> how telling it is, so "default" naming ``default.py`` counts little)."""
    if not (names or paths or words):
        return []
    strength: dict[str, float] = {}
    reasons: dict[str, str] = {}
    telling = [w for w, rarity in words.items() if rarity >= MODULE_MIN_RARITY]
    graph = graph_present(conn)
    if graph:
        for word, files in module_files(conn, telling, stem).items():
            for path in files:
                strength[path], reasons[path] = MODULE_STRENGTH, f"{{}} is the {word} module"

    # A file the prompt names, parsed or not (``tox.ini``, a Go file without a graph). Plain
    # words that are only a file's base name do not count: replaying real sessions,
    # "hooks", "debug" and "state" brought the items of hooks.go, debug.go and state.go
    # into sessions about something else.
    for path in paths:
        for found in files_matching_path(conn, path) if graph else []:
            strength[found], reasons[found] = 1.0, "named {}"
    for files in stored_paths(conn, paths).values():
        for found in files:
            strength[found], reasons[found] = 1.0, "named {}"
    resolved = resolve_names(conn, names) if graph else []
    for entry in resolved:
        for path in entry.files:
            if strength.get(path, 0.0) < 1.0:
                strength[path], reasons[path] = 1.0, f"{{}} defines {entry.name}"
    callers = caller_files(conn, [i for entry in resolved for i in entry.entity_ids])
    for path, _count in callers:
        if path not in strength:
            strength[path], reasons[path] = CALLER_STRENGTH, "{} calls it"
    if not strength:
        return []
    focus = focus_for(conn, settings, files=strength, reasons=reasons, total=total)
    return [r for r in rank(gather(conn, focus), focus, now) if r.item.id not in exclude]


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
    now = now or datetime.now(UTC)
    terms = significant_terms(prompt)
    names, paths = code_names(prompt)
    total = recall.item_count(conn)
    weights = term_weights(conn, terms, total) if terms else {}
    # Plain words only: "setup" of "setup.cfg" is a path's, not a module's name.
    plain = significant_terms(without_code(prompt))
    telling = {t: weights.get(stem(t), 0.0) for t in plain}
    code = _code_ranked(conn, names, paths, telling, settings, exclude, now, total)
    lexical = select_lexical(conn, terms, weights, exclude) if terms else []
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
    return kept


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
) -> PromptRecall:
    """What to inject for ``prompt``: :func:`prompt_ranked`, rendered within budget (with
    ``check``, items naming code their files no longer hold left out)."""
    fused = prompt_ranked(conn, prompt, settings=settings, exclude=exclude, now=now)
    fused = current_only(fused, check, max_items)
    if not fused:
        return PromptRecall(None, ())
    text, kept = fit(fused, PROMPT_BLOCK, max_chars, max_items)
    return PromptRecall(text, tuple(r.item.id for r in kept))
