"""A handler's context: the session's character budget, shared by all of its hooks."""

from __future__ import annotations

import time
from pathlib import Path

from kgraph.hooks.context import MIN_BLOCK_CHARS, HookContext, HookOptions
from kgraph.hooks.payload import HookInput
from kgraph.runtime.seen import remember
from kgraph.runtime.settings import HookSettings
from kgraph.runtime.state import HookLog


def context(
    root: Path, session_id: str | None = "s1", total: int = 6_000, max_chars: int | None = None
) -> HookContext:
    return HookContext(
        event="post-tool-use",
        payload=HookInput(session_id=session_id),
        root=root,
        options=HookOptions(max_chars=max_chars),
        settings=HookSettings(session_max_chars=total),
        deadline=time.monotonic() + 5,
        log=HookLog(root),
    )


def test_a_hook_gets_what_is_left_of_the_sessions_budget(tmp_path: Path) -> None:
    remember(tmp_path, "s1", ("lrn-1",), chars=4_500)
    ctx = context(tmp_path)
    assert ctx.session_left() == 1_500
    assert ctx.budget(3_000) == 1_500
    assert not ctx.budget_spent()


def test_less_than_a_useful_block_left_is_spent(tmp_path: Path) -> None:
    remember(tmp_path, "s1", ("lrn-1",), chars=6_000 - MIN_BLOCK_CHARS + 1)
    assert context(tmp_path).budget_spent()


def test_no_limit_and_no_session_leave_the_hooks_own_budget(tmp_path: Path) -> None:
    remember(tmp_path, "s1", ("lrn-1",), chars=5_900)
    assert context(tmp_path, total=0).budget(3_000) == 3_000
    assert context(tmp_path, session_id=None).budget(3_000) == 3_000
    assert context(tmp_path, max_chars=20_000, total=0).budget(3_000) == 9_000


def test_the_latest_sessions_are_read_once_per_hook_run_without_this_one(tmp_path: Path) -> None:
    import sqlite3

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE sessions (session_id, started_at, injected_ids, data)")
    conn.executemany(
        "INSERT INTO sessions VALUES (?, ?, ?, ?)",
        [
            ("s0", "2026-11-01", '["lrn-1"]', '{"files_read": ["a.go"]}'),
            ("s1", "2026-11-02", '["lrn-2"]', '{"files_read": ["b.go"]}'),
        ],
    )
    ctx = context(tmp_path)  # session s1
    first = ctx.latest_sessions(conn)
    conn.execute("DELETE FROM sessions")
    assert ctx.latest_sessions(conn) is first  # not read again
    assert [(s.injected, s.files) for s in first] == [(("lrn-1",), frozenset({"a.go"}))]
