"""UserPromptSubmit: the few stored items relevant to the prompt, never one already injected.

Lexical only (FTS5 through ``kgraph.knowledge.search.search`` with ``embedder=None``):
loading the sentence-transformers model takes ~9 s, far over a per-prompt budget. A hit must
also share enough significant words with the prompt (the relevance threshold), so a common
word alone never injects anything. Nothing relevant → no output.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from kgraph.capture.queue import enqueue
from kgraph.capture.spawn import spawn_worker
from kgraph.hooks import briefing
from kgraph.hooks.briefing import Ranked, Signals
from kgraph.hooks.dbaccess import call_with_timeout, open_ready_database
from kgraph.hooks.runner import HookContext

if TYPE_CHECKING:
    from kgraph.db import Database

SEARCH_LIMIT = 20
MAX_QUERY_TERMS = 12
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


def stem(word: str) -> str:
    """A crude stem, applied the same way to prompt and item words
    ("retries" ~ "retry", "caching" ~ "caches" ~ "cache")."""
    word = word.lower()
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
            break
    return word[:-1] if word.endswith("e") and len(word) > 4 else word


def significant_terms(text: str) -> list[str]:
    """Distinct non-stopword words of 3+ letters, in order of appearance."""
    seen: dict[str, None] = {}
    for match in _WORD.finditer(text):
        word = match.group(0).lower()
        if word not in STOPWORDS:
            seen.setdefault(word, None)
    return list(seen)


def overlap(prompt_stems: set[str], content: str) -> int:
    """How many of the prompt's significant stems occur in ``content``."""
    return len(prompt_stems & {stem(w) for w in significant_terms(content)})


def required_overlap(term_count: int) -> int:
    """The relevance threshold: two shared words, or every word of a one-word prompt."""
    return 1 if term_count <= 1 else 2


def select_hits(
    hits: list[Any], terms: list[str], exclude: set[str], max_items: int
) -> list[Ranked]:
    """Hits that clear the threshold and were not injected before, best first."""
    stems = {stem(t) for t in terms}
    need = required_overlap(len(stems))
    chosen: list[Ranked] = []
    for hit in hits:
        item = hit.item
        if item.id in exclude or hit.score <= 0:
            continue
        shared = overlap(stems, item.content)
        if shared < need:
            continue
        chosen.append(Ranked(item, float(hit.score), f"{shared} words in common"))
        if len(chosen) >= max_items:
            break
    return chosen


def _record(ctx: HookContext, db: Database, ids: list[str]) -> None:
    session_id = ctx.payload.session_id
    if session_id is None or not ids or ctx.options.dry_run:
        return
    from kgraph.capture.sessions import add_injected

    try:
        done, _ = call_with_timeout(
            lambda: add_injected(db, session_id, ids), max(0.05, ctx.remaining())
        )
    except Exception as exc:
        ctx.log.warning("user-prompt: recording injected ids failed (%s); queued", exc)
        done = False
    if not done:
        enqueue(ctx.root, "injected", session_id=session_id, injected_ids=ids)
        spawn_worker(ctx.root, ctx.db_url)


def run(ctx: HookContext) -> str | None:
    prompt = ctx.payload.prompt
    if not prompt or (prompt.startswith("/") and " " not in prompt.strip()):
        return None
    terms = significant_terms(prompt)
    if not terms:
        return None
    db = open_ready_database(ctx.db_url)
    if db is None:
        return None
    try:
        from kgraph.capture.sessions import injected_ids
        from kgraph.knowledge.search import search

        exclude = set(injected_ids(db, ctx.payload.session_id)) if ctx.payload.session_id else set()
        hits = search(db, " ".join(terms[:MAX_QUERY_TERMS]), limit=SEARCH_LIMIT, embedder=None)
        settings = ctx.settings
        chosen = select_hits(list(hits), terms, exclude, settings.user_prompt_max_items)
        if not chosen:
            return None
        max_chars = min(ctx.options.max_chars or settings.user_prompt_max_chars, 9_000)
        text, kept = briefing.fit(
            chosen,
            Signals(),
            max_chars,
            settings.user_prompt_max_items,
            title="kgraph items matching this prompt, recorded in earlier sessions "
            "(`kgraph knowledge show ID` prints one in full):",
        )
        ctx.publish(text, tuple(r.item.id for r in kept))
        _record(ctx, db, [r.item.id for r in kept])
        return text
    finally:
        db.close()
