"""The words of a prompt: stems, significant terms, phrases, and the stored items that
share enough telling words with it (FTS5 BM25 over the words, then a rarity bar), for
:mod:`kgraph.recall.prompt`. Standard library only."""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Collection, Mapping, Sequence

from kgraph.db.reader import ReadConnection
from kgraph.digest import blake2b_hex
from kgraph.recall import items as recall
from kgraph.recall.evidence import MIN_BASE, rarity
from kgraph.recall.relevance import Ranked

__all__ = [
    "MIN_LEXICAL",
    "TaskWords",
    "phrases",
    "required_overlap",
    "select_lexical",
    "significant_terms",
    "stem",
    "task_words",
    "term_keys",
    "term_weights",
    "word_key",
]

MAX_QUERY_TERMS = 12
# A session's words kept per prompt (a pasted log can hold thousands), and counted per hook:
# the words an item shares with the session are weighed, at most this many.
MAX_TASK_WORDS = 200
MAX_TASK_COUNTS = 48
LEXICAL_CANDIDATES = 20
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


@functools.lru_cache(maxsize=1 << 16)
def word_key(stem_: str) -> str:
    """A short digest of a word's stem: what is kept of a prompt's words on disk (a prompt
    may hold a secret; a digest of one word of it tells nothing back)."""
    return blake2b_hex(stem_.encode("utf-8"), digest_size=6)


def task_words(prompt: str, known: Collection[str] = ()) -> list[str]:
    """The keys (:func:`word_key`) of the words of ``prompt`` that tell what a session is
    about (as :func:`significant_terms`, stemmed), less those already ``known``, at most
    MAX_TASK_WORDS of them."""
    return term_keys(significant_terms(prompt), known)


def term_keys(terms: Sequence[str], known: Collection[str] = ()) -> list[str]:
    """:func:`task_words` of a prompt's :func:`significant_terms`, for a caller that has
    them already."""
    keys = dict.fromkeys(word_key(stem(t)) for t in terms if t.isascii())
    return [k for k in keys if k not in known][:MAX_TASK_WORDS]


class TaskWords:
    """What a session is about, as the keys of its user's prompts' words
    (:func:`task_words`), and how much of it a stored text shares: the summed rarity of the
    text's words whose key is among them (:func:`term_weights`, the same measure a prompt's
    own matches clear MIN_LEXICAL with). Each shared word is counted once per hook, at most
    MAX_TASK_COUNTS of them (further words weigh nothing); ``weights`` are words counted
    already (by stem, :func:`term_weights` over ``total`` texts), ``known`` words an earlier
    hook of the session counted (by key; :attr:`rarity` is what to hand on)."""

    def __init__(
        self,
        conn: ReadConnection,
        keys: Collection[str],
        weights: Mapping[str, float] | None = None,
        total: int | None = None,
        known: Mapping[str, float] | None = None,
    ) -> None:
        self.conn = conn
        self.keys = frozenset(keys)
        self._weights: dict[str, float] = dict(weights or {})  # by stem, counted already
        self._known = known or {}
        self._counted = 0  # words this object counted (MAX_TASK_COUNTS at most)
        self._total = total  # stored texts, once counted

    def __bool__(self) -> bool:
        return bool(self.keys)

    @property
    def rarity(self) -> dict[str, float]:
        """Key -> rarity of every word weighed so far, for the session's later hooks."""
        return {word_key(s): w for s, w in self._weights.items()}

    def shared(self, text: str, leave_out: Collection[str] = ()) -> float:
        """The summed rarity of the session's words that ``text`` uses (but the stems in
        ``leave_out``)."""
        if not self.keys:
            return 0.0
        words: dict[str, str] = {}  # stem -> the text's own word
        for word in significant_terms(text):
            key = stem(word)
            if key not in leave_out and word.isascii() and word_key(key) in self.keys:
                words.setdefault(key, word)
        for s in words:  # counted by an earlier hook of the session
            if s not in self._weights and word_key(s) in self._known:
                self._weights[s] = self._known[word_key(s)]
        new = sorted(s for s in words if s not in self._weights)
        new = new[: max(0, MAX_TASK_COUNTS - self._counted)]
        self._counted += len(new)
        if new:
            if self._total is None:
                self._total = recall.item_count(self.conn)
            for start in range(0, len(new), MAX_QUERY_TERMS):
                part = new[start : start + MAX_QUERY_TERMS]
                found = term_weights(self.conn, [words[s] for s in part], self._total)
                self._weights.update({s: found.get(s, 0.0) for s in part})
        return sum(self._weights.get(s, 0.0) for s in words)
