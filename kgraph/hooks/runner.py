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
from dataclasses import dataclass
from pathlib import Path

from kgraph.db.location import project_root
from kgraph.hooks.context import HookContext, HookOptions
from kgraph.hooks.payload import HookInput, parse_input
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
