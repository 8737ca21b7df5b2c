"""The doctor's hook timings: each sample hook, run as Claude Code runs it, against its
target and the timeout installed for it.

A sample is a real ``kgraph hook <event> --dry-run`` process (nothing written) fed the JSON
Claude Code would send; its best wall time is compared with the whole-process target on the
2-core reference machine and with the limit Claude Code applies (the longest ``timeout``
of kgraph's handlers in any settings file, else Claude Code's default). Apart from
:mod:`kgraph.setup.doctor` because this is the part that starts processes and measures
them: the other checks read files.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from kgraph.setup.doctor import Check
from kgraph.setup.install import (
    HOOK_SPECS,
    SCOPES,
    kgraph_event_of,
    read_settings,
    settings_path,
)

# Whole-process targets (2-core reference machine) and Claude Code's limits.
BUDGETS = {
    "session-start": (0.35, 10.0),
    "post-tool-use": (0.12, 5.0),
    "session-end": (0.3, 1.5),
}
# Claude Code's limits when no timeout is installed: SessionEnd hooks share 1.5 s (a
# settings file's timeout raises it), other hooks 600 s.
DEFAULT_LIMITS = {"SessionEnd": 1.5}
DEFAULT_LIMIT_S = 600.0
SLOW_RESAMPLES = 3


def installed_timeouts(root: Path) -> dict[str, float]:
    """Claude Code event -> the longest timeout of kgraph's handlers in any settings file."""
    found: dict[str, float] = {}
    for scope in SCOPES:
        try:
            hooks = read_settings(settings_path(scope, root)).get("hooks")
        except Exception:
            continue
        for event, groups in hooks.items() if isinstance(hooks, dict) else ():
            for group in groups if isinstance(groups, list) else []:
                handlers = group.get("hooks") if isinstance(group, dict) else None
                for handler in handlers if isinstance(handlers, list) else []:
                    timeout = handler.get("timeout") if isinstance(handler, dict) else None
                    if kgraph_event_of(handler) is None or not isinstance(timeout, int | float):
                        continue
                    found[event] = max(found.get(event, 0.0), float(timeout))
    return found


def time_hook(
    command: list[str], event: str, root: Path, runs: int = 2, db_url: str | None = None
) -> tuple[float, int, str]:
    """(best wall time, exit code, stdout) of a dry-run hook process in ``root``."""
    payload = json.dumps(
        {
            "session_id": "kgraph-doctor",
            "cwd": str(root),
            "hook_event_name": event,
            "source": "startup",
            "reason": "other",
            "transcript_path": str(root / "kgraph-doctor.jsonl"),
            "tool_name": "Read",
            "tool_input": {"file_path": str(root / "README.md")},
        }
    )
    env = dict(os.environ)
    if db_url:
        env["KGRAPH_DB"] = db_url
    best, code, out = float("inf"), 0, ""
    for _ in range(runs):
        started = time.perf_counter()
        proc = subprocess.run(
            [*command, "hook", event, "--dry-run"],
            input=payload,
            text=True,
            capture_output=True,
            cwd=str(root),
            timeout=60,
            env=env,
        )
        elapsed = time.perf_counter() - started
        if elapsed < best:
            best, code, out = elapsed, proc.returncode, proc.stdout
    return best, code, out


def check_hook_run(
    command: list[str],
    event: str,
    root: Path,
    db_url: str | None = None,
    limit: float | None = None,
) -> Check:
    """Time a dry run of hook ``event`` against its target and ``limit`` (the timeout
    installed for it, else Claude Code's default). A slow best-of-two is sampled again
    before it is reported: one busy moment of the machine is not a slow hook."""
    target, default_limit = BUDGETS[event]
    limit = limit if limit is not None else default_limit
    samples = 2
    try:
        elapsed, code, out = time_hook(command, event, root, runs=samples, db_url=db_url)
        if code == 0 and elapsed > target:
            again, code, out = time_hook(command, event, root, runs=SLOW_RESAMPLES, db_url=db_url)
            elapsed, samples = min(elapsed, again), samples + SLOW_RESAMPLES
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Check(f"hook {event}", "fail", f"could not run: {exc}")
    if code != 0:
        return Check(f"hook {event}", "fail", f"exit code {code}")
    if out.strip():
        try:
            data = json.loads(out)
            assert data["hookSpecificOutput"]["hookEventName"] or data["systemMessage"]
        except Exception:
            return Check(f"hook {event}", "fail", f"stdout is not the hook JSON: {out[:80]!r}")
    detail = f"{elapsed:.2f} s, best of {samples} (target {target} s, timeout {limit:g} s)"
    if elapsed > limit:
        return Check(f"hook {event}", "fail", detail)
    return Check(f"hook {event}", "ok" if elapsed <= target else "warn", detail)


def check_hook_runs(command: list[str], root: Path, db_url: str | None = None) -> list[Check]:
    """A timed dry run of each hook in :data:`BUDGETS`, against the timeout installed for
    its Claude Code event (else Claude Code's default limit)."""
    timeouts = installed_timeouts(root)
    checks: list[Check] = []
    for event in BUDGETS:
        claude_event = next(s.claude_event for s in HOOK_SPECS if s.cli_event == event)
        limit = timeouts.get(claude_event)
        if limit is None:
            limit = DEFAULT_LIMITS.get(claude_event, DEFAULT_LIMIT_S)
        checks.append(check_hook_run(command, event, root, db_url, limit))
    return checks
