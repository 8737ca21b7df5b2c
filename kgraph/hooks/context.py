"""What a hook's handler is given: the parsed payload, the project, its settings and log,
a deadline, and the session's seen-set and budget (:class:`HookContext`).

Apart from :mod:`kgraph.hooks.runner`, which builds a context and runs a handler on it
(fail-open, under a deadline): the handlers import only this.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from kgraph.db.location import is_server_url, resolve_database_url
from kgraph.db.reader import ReadConnection
from kgraph.hooks.payload import HookInput
from kgraph.runtime.seen import Seen
from kgraph.runtime.settings import HookSettings
from kgraph.runtime.state import HookLog

if TYPE_CHECKING:
    from kgraph.recall.readmodel import RecordedSession


@dataclass
class HookOptions:
    db_url: str | None = None
    max_chars: int | None = None
    dry_run: bool = False  # compute and print, but write nothing and start no worker


# A block smaller than this says nothing useful: a hook with less budget left is silent.
MIN_BLOCK_CHARS = 300


class Recalled(Protocol):
    """What a recall found: the block to print (None: nothing) and the items in it."""

    @property
    def text(self) -> str | None: ...

    @property
    def ids(self) -> tuple[str, ...]: ...

    @property
    def why(self) -> str: ...  # when nothing was found and the reason is not the usual one


@dataclass
class HookContext:
    event: str
    payload: HookInput
    root: Path
    options: HookOptions
    settings: HookSettings
    deadline: float  # time.monotonic() value
    log: HookLog
    started: float = field(default_factory=time.monotonic)
    # additionalContext ready so far (returned as is if the deadline expires) and the ids of
    # the items in it; set together through publish().
    output: str | None = None
    output_ids: tuple[str, ...] = ()
    # Run by the runner in the main thread once the handler finished or was abandoned, so
    # what they record matches what was printed.
    finalizers: list[Callable[[], None]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _seen: Seen | None = field(default=None, repr=False)
    _sessions: list[RecordedSession] | None = field(default=None, repr=False)

    def publish(self, text: str | None, ids: tuple[str, ...] = ()) -> None:
        with self._lock:
            self.output, self.output_ids = text, ids

    def deliver(self, text: str, ids: tuple[str, ...], marks: tuple[str, ...] = ()) -> str:
        """Publish ``text`` (items ``ids``) and, unless a dry run, remember the ids as shown
        this session (no hook repeats them), the characters spent of its budget and
        ``marks``, and queue the ids for the session's record (the next capture worker adds
        them; none is started here). Returns ``text``."""
        self.publish(text, ids)
        session_id = self.payload.session_id
        if self.options.dry_run:
            return text
        from kgraph.runtime import seen

        seen.remember(self.root, session_id, ids, chars=len(text), marks=marks)
        if session_id is not None and ids:
            from kgraph.runtime.queue import enqueue

            enqueue(self.root, "injected", session_id=session_id, injected_ids=list(ids))
        return text

    def remember_words(self, words: list[str], rarity: Mapping[str, float] | None = None) -> None:
        """Record the user's prompt ``words``, and the ``rarity`` of the words counted (by
        key) that the session did not know yet, for its later hooks (not on a dry run)."""
        known = self.seen().rarity
        rarity = {k: v for k, v in (rarity or {}).items() if k not in known}
        if (words or rarity) and not self.options.dry_run:
            from kgraph.runtime.seen import remember

            remember(self.root, self.payload.session_id, (), words=words, rarity=rarity)

    def latest_sessions(self, conn: ReadConnection) -> list[RecordedSession]:
        """The project's latest recorded sessions but this one (read once per hook run):
        what was shown to them and what they opened."""
        if self._sessions is None:
            from kgraph.recall.readmodel import latest_sessions

            self._sessions = latest_sessions(conn, self.root, self.payload.session_id)
        return self._sessions

    def seen(self) -> Seen:
        """What this session has been given so far (read once per hook run)."""
        if self._seen is None:
            from kgraph.runtime.seen import seen_state

            self._seen = seen_state(self.root, self.payload.session_id)
        return self._seen

    def recall(
        self,
        find: Callable[[ReadConnection, set[str]], Recalled],
        *,
        mark: str | None = None,
    ) -> str | None:
        """Run ``find`` on the store with the ids this session has already been shown, and
        deliver what it found. Nothing when the store is missing, ``mark`` was looked up
        before in this session, the session's character budget is spent, or nothing
        cleared the bar; each silence is logged at debug level."""
        state = self.seen()
        if mark is not None and mark in state.marks:
            self.log.debug("%s printed nothing: %s was looked up before", self.event, mark)
            return None
        if self.budget_spent():
            return None
        conn = self.open_store()
        if conn is None:
            return None
        try:
            from kgraph.recall.readmodel import held_back

            held = held_back(
                conn, self.root, self.payload.session_id, state, self.latest_sessions(conn)
            )
            found = find(conn, held)
        finally:
            conn.close()
        marks = () if mark is None else (mark,)
        if found.text is None:
            self.log.debug(
                "%s printed nothing: %s (%d already shown)",
                self.event,
                found.why or "no stored item cleared the bar",
                len(state.ids),
            )
            if marks and not self.options.dry_run:
                from kgraph.runtime.seen import remember

                remember(self.root, self.payload.session_id, (), marks=marks)
            return None
        return self.deliver(found.text, found.ids, marks)

    def session_left(self) -> int | None:
        """Characters left of the session's budget (``session_max_chars``); None when there
        is no limit (0) or no session to count for."""
        total = self.settings.session_max_chars
        if not total or not self.payload.session_id:
            return None
        return max(0, total - self.seen().chars)

    def budget_spent(self) -> bool:
        """True (and logged) when less of the session's budget is left than a useful block."""
        left = self.session_left()
        if left is None or left >= MIN_BLOCK_CHARS:
            return False
        self.log.debug("%s printed nothing: the session's budget is spent", self.event)
        return True

    def budget(self, chars: int) -> int:
        """A hook's character budget: ``--max-chars`` when given, else ``chars``, and no
        more than what is left of the session's."""
        budget = min(self.options.max_chars or chars, 9_000)
        left = self.session_left()
        return budget if left is None else min(budget, left)

    def open_store(
        self, fresh_for: float | None = None, ask_refresh: bool = True
    ) -> ReadConnection | None:
        """The project database, read-only (kgraph.recall.readmodel.open_store). A server
        project is read from its local copy (kgraph.db.mirror): at any age, unless
        ``fresh_for`` caps it. With ``ask_refresh``, a copy that is due a refresh gets a
        detached worker to do it (not in a dry run)."""
        from kgraph.recall.readmodel import open_store

        url = self.db_url
        if not is_server_url(url):
            return open_store(url)
        from kgraph.db.mirror import refresh_due
        from kgraph.runtime.state import ensure_state_dir

        folder = ensure_state_dir(self.root)
        if ask_refresh and not self.options.dry_run and refresh_due(folder, url):
            from kgraph.runtime.queue import enqueue
            from kgraph.runtime.spawn import spawn_worker

            enqueue(self.root, "refresh")
            spawn_worker(self.root, url)
        return open_store(url, folder, fresh_for)

    def published(self) -> tuple[str | None, tuple[str, ...]]:
        with self._lock:
            return self.output, self.output_ids

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def expired(self) -> bool:
        return time.monotonic() >= self.deadline

    @property
    def db_url(self) -> str:
        return resolve_database_url(self.options.db_url, cwd=self.root)
