"""Running one Claude Code hook: fail-open, budgeted, and printing only the contract JSON.

:func:`run_hook` is the single entry every hook goes through (the CLI, tests, the doctor):

- ``KGRAPH_DISABLED=1`` makes it a no-op, and so does ``KGRAPH_INTERNAL=1``, which kgraph
  sets on its own ``claude -p`` call (recursion guard; ``CLAUDE_CODE_CHILD_SESSION`` cannot
  serve, Claude Code sets it in every hook);
- it never raises: any error is logged to ``.claude/kgraph/hook.log`` (a kgraph error in one
  line, anything else with its traceback) and the hook prints nothing;
- a database that cannot be used (damaged, unreadable, read-only for the worker) is also
  recorded (kgraph.runtime.notice): the injecting hooks add a short ``systemMessage`` the
  first time each session runs, so the user sees it instead of silence;
- the injecting hooks (session-start, user-prompt, post-tool-use) run in a thread with a
  deadline; when it expires the hook returns what the handler had ready (``ctx.publish``)
  and the caller exits without waiting for the thread;
- stdout is ``{"hookSpecificOutput": {"hookEventName": ..., "additionalContext": ...}}`` for
  the injecting hooks with something to say, and empty otherwise. Stop, PreCompact and
  SessionEnd never print (a Stop hook's output would keep Claude working).
"""

from __future__ import annotations

import importlib
import json
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from kgraph.db.location import is_server_url, project_root, resolve_database_url
from kgraph.db.reader import ReadConnection
from kgraph.hooks.payload import HookInput, parse_input
from kgraph.runtime.seen import Seen
from kgraph.runtime.settings import HookSettings, load_settings
from kgraph.runtime.state import HookLog, end_hook_log, hook_log

# CLI name -> (Claude Code event name, "module:function" of the handler)
EVENTS: dict[str, tuple[str, str]] = {
    "session-start": ("SessionStart", "kgraph.hooks.session_start:run"),
    "user-prompt": ("UserPromptSubmit", "kgraph.hooks.user_prompt:run"),
    "post-tool-use": ("PostToolUse", "kgraph.hooks.post_tool_use:run"),
    "pre-compact": ("PreCompact", "kgraph.hooks.capture_hooks:pre_compact"),
    "stop": ("Stop", "kgraph.hooks.capture_hooks:stop"),
    "session-end": ("SessionEnd", "kgraph.hooks.capture_hooks:session_end"),
}
INJECTING = frozenset({"session-start", "user-prompt", "post-tool-use"})
# Extra time past the handler's own deadline before the runner gives up on it.
HARD_STOP_GRACE_S = 0.75
_TRUE = frozenset({"1", "true", "yes", "on"})


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
            from kgraph.recall.readmodel import unused_items

            shown = set(state.ids) | unused_items(conn, self.root, self.payload.session_id)
            found = find(conn, shown)
        finally:
            conn.close()
        marks = () if mark is None else (mark,)
        if found.text is None:
            self.log.debug(
                "%s printed nothing: no stored item cleared the bar (%d already shown)",
                self.event,
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


@dataclass(frozen=True)
class HookResult:
    stdout: str = ""
    # True when the handler thread was still running at the deadline: exit without joining it.
    abandoned: bool = False


def is_disabled(environ: Mapping[str, str]) -> bool:
    """True when hooks must do nothing: KGRAPH_DISABLED, or inside kgraph's own model call."""
    return any(
        environ.get(name, "").strip().lower() in _TRUE
        for name in ("KGRAPH_DISABLED", "KGRAPH_INTERNAL")
    )


def contract_json(event: str, context: str | None, notice: str | None = None) -> str:
    """The stdout for ``event``: the hookSpecificOutput JSON (with ``systemMessage`` when
    there is a notice for the user), or "" when there is nothing."""
    if event not in INJECTING:
        return ""
    payload: dict[str, object] = {}
    if context and context.strip():
        payload["hookSpecificOutput"] = {
            "hookEventName": EVENTS[event][0],
            "additionalContext": context,
        }
    if notice:
        payload["systemMessage"] = notice
    return json.dumps(payload) if payload else ""


def _deadline_for(event: str, settings: HookSettings) -> float:
    if event == "session-start":
        return settings.session_start_deadline_s
    if event == "user-prompt":
        return settings.user_prompt_deadline_s
    if event == "post-tool-use":
        return settings.file_recall_deadline_s
    return 1.0


def _handler(event: str) -> Callable[[HookContext], str | None]:
    module_name, attribute = EVENTS[event][1].split(":")
    handler = getattr(importlib.import_module(module_name), attribute)
    assert callable(handler)
    return handler  # type: ignore[no-any-return]


def _resolve_root(payload: HookInput) -> Path:
    try:
        return project_root(Path(payload.cwd) if payload.cwd else None)
    except OSError:
        return Path.cwd()


def run_hook(
    event: str,
    data: bytes,
    options: HookOptions | None = None,
    environ: Mapping[str, str] | None = None,
) -> HookResult:
    """Run hook ``event`` on stdin bytes ``data``; never raises (see module docstring)."""
    env = os.environ if environ is None else environ
    log: HookLog | None = None
    try:
        if event not in EVENTS or is_disabled(env):
            return HookResult()
        options = options or HookOptions()
        payload = parse_input(data)
        root = _resolve_root(payload)
        log = hook_log(root)
        if payload.problem is not None:
            log.warning("%s: %s", event, payload.problem)
        if payload.agent_id is not None:  # inside a subagent: not a session of its own
            return HookResult()
        settings = load_settings(root)
        ctx = HookContext(
            event=event,
            payload=payload,
            root=root,
            options=options,
            settings=settings,
            deadline=time.monotonic() + _deadline_for(event, settings),
            log=log,
        )
        handler = _handler(event)
        if event not in INJECTING:
            try:
                handler(ctx)
            except BaseException as exc:
                _log_failure(log, event, exc, ctx)
            return HookResult()
        return _run_with_deadline(ctx, handler)
    except BaseException as exc:  # fail open: KeyboardInterrupt and SystemExit included
        _log_failure(log, event, exc)
        return HookResult()
    finally:
        end_hook_log()


def emit(result: HookResult) -> None:
    """Write a hook's stdout; when its handler thread is still busy (past its deadline),
    flush the log and exit at once instead of waiting for it."""
    import sys

    try:
        if result.stdout:
            sys.stdout.write(result.stdout)
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    if result.abandoned:
        from kgraph.runtime.logfile import flush_logs

        flush_logs()
        os._exit(0)


def _run_with_deadline(
    ctx: HookContext, handler: Callable[[HookContext], str | None]
) -> HookResult:
    failure: list[BaseException] = []

    def target() -> None:
        try:
            result = handler(ctx)
            if result is not None and result != ctx.published()[0]:
                ctx.publish(result)
        except BaseException as exc:
            failure.append(exc)

    thread = threading.Thread(target=target, name=f"kgraph-{ctx.event}", daemon=True)
    thread.start()
    thread.join(max(0.0, ctx.remaining()) + HARD_STOP_GRACE_S)
    abandoned = thread.is_alive()
    if abandoned:
        ctx.log.warning("%s: deadline expired; returning partial context", ctx.event)
    if failure:
        # A failure after the context was ready (e.g. queueing work) keeps the context.
        _log_failure(ctx.log, ctx.event, failure[0], ctx)
    text, _ = ctx.published()
    for finalize in ctx.finalizers:
        try:
            finalize()
        except Exception as exc:
            _log_failure(ctx.log, ctx.event, exc, ctx)
    notice = None
    if not ctx.options.dry_run:
        from kgraph.db.location import sqlite_path
        from kgraph.runtime.notice import notice_for, record_problem, unwritable

        try:
            if ctx.event == "session-start":
                db_path = sqlite_path(ctx.db_url)
                problem = unwritable(db_path)
                if problem is not None:
                    record_problem(ctx.root, problem, db_path)
            notice = notice_for(ctx.root, ctx.payload.session_id)
        except Exception as exc:
            _log_failure(ctx.log, ctx.event, exc)
    ctx.log.debug("%s: %.3f s", ctx.event, time.monotonic() - ctx.started)
    return HookResult(stdout=contract_json(ctx.event, text, notice), abandoned=abandoned)


def _log_failure(
    log: HookLog | None, event: str, exc: BaseException, ctx: HookContext | None = None
) -> None:
    """One line for a kgraph error (recorded for the user when it is about the database) or
    a file the user may not write, the traceback for anything else (a bug)."""
    if log is None:
        return
    try:
        import errno

        from kgraph.errors import DatabaseError, KgraphError

        if isinstance(exc, PermissionError) or (
            isinstance(exc, OSError) and exc.errno == errno.EROFS
        ):
            log.error("%s failed: %s", event, exc)
            return
        from kgraph.db.failures import is_driver_error

        if is_driver_error(exc) and ctx is not None:  # a read through sqlite3 or psycopg
            from kgraph.db.failures import describe_failure
            from kgraph.db.location import sqlite_path

            path = sqlite_path(ctx.db_url)
            where = str(path) if path else ctx.db_url.split("@", 1)[-1]  # no password
            exc = describe_failure(exc, where) or exc
        if isinstance(exc, KgraphError):
            log.error("%s failed: %s", event, exc)
            if isinstance(exc, DatabaseError) and ctx is not None and not ctx.options.dry_run:
                from kgraph.db.location import sqlite_path
                from kgraph.runtime.notice import record_problem

                record_problem(ctx.root, str(exc), sqlite_path(ctx.db_url))
            return
        import traceback

        detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        log.error("%s failed: %s: %s\n%s", event, type(exc).__name__, exc, detail[-4000:])
    except Exception:  # pragma: no cover
        pass
