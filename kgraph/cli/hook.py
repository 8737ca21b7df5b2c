"""``kgraph hook ...``: the entry points Claude Code runs. Always exit 0, print only the contract.

Usage errors (a bad option) would make Click exit 2, which blocks a prompt, a stop or a
compaction in Claude Code; this group turns every error into a silent exit 0 (logged to
``.claude/kgraph/hook.log``). Imports stay light: the work happens in :mod:`kgraph.hooks`.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from kgraph.hooks import HookOptions, emit, run_hook


def _log_usage_error(exc: BaseException) -> None:
    try:
        from kgraph.db import project_root
        from kgraph.runtime import get_logger

        get_logger(project_root()).error("hook usage error: %s: %s", type(exc).__name__, exc)
    except Exception:  # pragma: no cover
        pass


class FailOpenGroup(click.Group):
    """A group whose errors (usage errors included) end in a silent exit 0."""

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.exceptions.Exit as exc:
            raise click.exceptions.Exit(0) from exc
        except BaseException as exc:
            _log_usage_error(exc)
            raise click.exceptions.Exit(0) from exc

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.exceptions.Exit as exc:
            raise click.exceptions.Exit(0) from exc
        except BaseException as exc:
            _log_usage_error(exc)
            ctx.exit(0)


def _run(ctx: click.Context, event: str, max_chars: int | None, dry_run: bool) -> None:
    from kgraph.hooks import read_input

    root = ctx.find_root()
    db_url = root.obj.get("db_url") if isinstance(root.obj, dict) else None
    data = read_input(getattr(sys.stdin, "buffer", None))
    emit(run_hook(event, data, HookOptions(db_url=db_url, max_chars=max_chars, dry_run=dry_run)))


@click.group(cls=FailOpenGroup)
def hook() -> None:
    """Claude Code hook entry points (read the hook JSON on stdin; always exit 0).

    Wire them with `kgraph install`. Each prints only the JSON Claude Code expects, or
    nothing; errors go to .claude/kgraph/hook.log. KGRAPH_DISABLED=1 turns them off.

    \b
    Example:
      echo '{"session_id":"s1","cwd":"'$PWD'","source":"startup"}' | kgraph hook session-start
    """


_dry_run = click.option(
    "--dry-run", is_flag=True, hidden=True, help="Write nothing, start nothing."
)


@hook.command("session-start")
@click.option(
    "--max-chars",
    type=click.IntRange(0, 1_000_000),
    help="additionalContext budget (default 9000).",
)
@_dry_run
@click.pass_context
def session_start(ctx: click.Context, max_chars: int | None, dry_run: bool) -> None:
    """SessionStart: print the ranked briefing for this branch, issue and changed files.

    \b
    Example:
      echo '{"session_id":"s1","cwd":"/repo","source":"compact"}' | kgraph hook session-start
    """
    _run(ctx, "session-start", max_chars, dry_run)


@hook.command("user-prompt")
@click.option(
    "--max-chars",
    type=click.IntRange(0, 1_000_000),
    help="additionalContext budget (default 2000).",
)
@_dry_run
@click.pass_context
def user_prompt(ctx: click.Context, max_chars: int | None, dry_run: bool) -> None:
    """UserPromptSubmit: print the few stored items relevant to the prompt, if any.

    \b
    Example:
      echo '{"session_id":"s1","cwd":"/repo","prompt":"why does login retry?"}' \\
        | kgraph hook user-prompt
    """
    _run(ctx, "user-prompt", max_chars, dry_run)


@hook.command("post-tool-use")
@click.option("--max-chars", type=int, help="additionalContext budget (default 1500).")
@_dry_run
@click.pass_context
def post_tool_use(ctx: click.Context, max_chars: int | None, dry_run: bool) -> None:
    """PostToolUse (Read/Edit/Write/MultiEdit): print what is recorded about that file.

    Each item once per session; nothing when the file has no strong knowledge.

    \b
    Example:
      echo '{"session_id":"s1","cwd":"/repo","tool_name":"Read",
             "tool_input":{"file_path":"/repo/src/app.py"}}' | kgraph hook post-tool-use
    """
    _run(ctx, "post-tool-use", max_chars, dry_run)


@hook.command("pre-compact")
@_dry_run
@click.pass_context
def pre_compact(ctx: click.Context, dry_run: bool) -> None:
    """PreCompact: queue capture of the session and start the detached worker. Prints nothing.

    \b
    Example:
      echo '{"session_id":"s1","cwd":"/repo","transcript_path":"/t.jsonl"}' \\
        | kgraph hook pre-compact
    """
    _run(ctx, "pre-compact", None, dry_run)


@hook.command("stop")
@_dry_run
@click.pass_context
def stop(ctx: click.Context, dry_run: bool) -> None:
    """Stop: queue capture (at most every couple of minutes). Prints nothing, ever.

    \b
    Example:
      echo '{"session_id":"s1","cwd":"/repo","transcript_path":"/t.jsonl"}' | kgraph hook stop
    """
    _run(ctx, "stop", None, dry_run)


@hook.command("session-end")
@_dry_run
@click.pass_context
def session_end(ctx: click.Context, dry_run: bool) -> None:
    """SessionEnd: queue the final capture and start the detached worker. Prints nothing.

    \b
    Example:
      echo '{"session_id":"s1","cwd":"/repo","transcript_path":"/t.jsonl"}' \\
        | kgraph hook session-end
    """
    _run(ctx, "session-end", None, dry_run)


@hook.command("worker", hidden=True)
@click.option("--root", type=click.Path(file_okay=False), required=True)
@click.pass_context
def worker(ctx: click.Context, root: str) -> None:
    """Drain the capture queue of the project at ROOT (what the hooks start, detached).

    \b
    Example:
      kgraph hook worker --root /repo
    """
    from pathlib import Path

    from kgraph.capture import run_worker

    obj = ctx.find_root().obj
    run_worker(Path(root), db_url=obj.get("db_url") if isinstance(obj, dict) else None)
