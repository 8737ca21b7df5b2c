"""``kgraph doctor``: is kgraph wired into Claude Code and working here?

Checks, each ``ok``, ``warn`` or ``fail``:
- the kgraph executable the hooks should call exists;
- wiring: which settings files (user, project, local) run which kgraph hooks, that their
  executables exist, that no hook is wired twice with different commands, and that hooks
  are not disabled;
- the database: present, readable, at this kgraph's schema version, intact (``PRAGMA
  quick_check``; ``integrity_check`` with ``--full``), and writable with its folder;
- the capture extractor: rules only, or ``claude -p`` too (and whether ``claude`` is found);
- a sample ``hook session-start``, ``hook post-tool-use`` (a Read of README.md) and ``hook
  session-end`` (``--dry-run``: nothing written) return exit 0 with contract output, within
  their target and the timeout installed for them (a slow sample is repeated before it is
  reported);
- the MCP server (``.mcp.json``) starts and answers ``initialize`` and ``tools/list``.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgraph.setup.install import (
    HOOK_SPECS,
    SCOPES,
    kgraph_command,
    kgraph_event_of,
    read_settings,
    settings_path,
)

REQUIRED_EVENTS = ("SessionStart", "SessionEnd")
# Whole-process targets (2-core reference machine) and Claude Code's limits.
BUDGETS = {
    "session-start": (0.35, 10.0),
    "post-tool-use": (0.12, 5.0),
    "session-end": (0.3, 1.5),
}


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # ok | warn | fail
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "detail": self.detail}


def _executable_of(handler: dict[str, Any]) -> str | None:
    command = handler.get("command")
    if not isinstance(command, str):
        return None
    if isinstance(handler.get("args"), list):
        return command
    try:
        parts = shlex.split(command)
    except ValueError:
        return None
    return parts[0] if parts else None


def check_executable(command: list[str]) -> Check:
    path = Path(command[0])
    if path.is_file() and os.access(path, os.X_OK):
        return Check("executable", "ok", " ".join(command))
    return Check("executable", "fail", f"{command[0]} is not an executable file")


def check_same_kgraph(root: Path, wired: set[str]) -> Check | None:
    """A warning when ``.mcp.json`` starts another kgraph than the hooks run (``wired``:
    their executables): two installs, two versions, answering the same session."""
    from kgraph.setup.mcpjson import registered_command

    registered = registered_command(root)
    if registered is None or not wired:
        return None
    server = registered[0]
    if {server} == wired:
        return Check("same kgraph", "ok", f"hooks and .mcp.json both run {server}")
    return Check(
        "same kgraph",
        "warn",
        f"the hooks run {', '.join(sorted(wired))} but .mcp.json starts {server}; run "
        "`kgraph install` again from the kgraph to use",
    )


def check_wiring(root: Path) -> list[Check]:
    checks: list[Check] = []
    wired: dict[str, dict[str, str]] = {}  # claude event -> {command: scope}
    executables: set[str] = set()
    for scope in SCOPES:
        path = settings_path(scope, root)
        try:
            settings = read_settings(path)
        except Exception as exc:
            checks.append(Check(f"settings ({scope})", "fail", str(exc)))
            continue
        if settings.get("disableAllHooks") is True:
            checks.append(Check(f"settings ({scope})", "warn", f"{path}: disableAllHooks is true"))
        hooks = settings.get("hooks")
        if not isinstance(hooks, dict):
            continue
        for event, groups in hooks.items():
            for group in groups if isinstance(groups, list) else []:
                handlers = group.get("hooks") if isinstance(group, dict) else None
                for handler in handlers if isinstance(handlers, list) else []:
                    if kgraph_event_of(handler) is None:
                        continue
                    exe = _executable_of(handler) or ""
                    executables.add(exe)
                    if not (Path(exe).is_file() and os.access(exe, os.X_OK)):
                        why = (
                            "which no longer exists (the kgraph install moved or was "
                            "deleted?); run `kgraph install` again from the kgraph to use"
                            if exe and not Path(exe).exists()
                            else "which is not an executable file"
                        )
                        checks.append(
                            Check(f"{event} ({scope})", "fail", f"{path}: runs {exe or '?'}, {why}")
                        )
                    key = json.dumps(
                        {k: handler.get(k) for k in ("command", "args")}, sort_keys=True
                    )
                    wired.setdefault(event, {})[key] = scope
    for spec in HOOK_SPECS:
        found = wired.get(spec.claude_event, {})
        if not found:
            status = "fail" if spec.claude_event in REQUIRED_EVENTS else "warn"
            checks.append(Check(spec.claude_event, status, "not wired (run `kgraph install`)"))
        elif len(found) > 1:
            checks.append(
                Check(
                    spec.claude_event,
                    "warn",
                    f"wired {len(found)} times with different commands "
                    f"({', '.join(sorted(set(found.values())))}): it runs more than once",
                )
            )
        else:
            checks.append(
                Check(spec.claude_event, "ok", f"wired in {next(iter(found.values()))} settings")
            )
    same = check_same_kgraph(root, executables - {""})
    if same is not None:
        checks.append(same)
    return checks


def _database_files(root: Path, db_url: str | None) -> tuple[str, Path | None]:
    from kgraph.db.location import resolve_database_url, sqlite_path

    url = resolve_database_url(db_url, cwd=root)
    return url, sqlite_path(url)


def check_writable(root: Path, db_url: str | None = None) -> Check:
    """Can this user write the database and its folder? (A read-only one still serves
    briefings, but nothing is captured; in a read-only folder none can be created.)"""
    _, path = _database_files(root, db_url)
    if path is None:
        return Check("database writable", "ok", "not a file database")
    folder = path.parent if path.parent.is_dir() else path.parent.parent
    if not os.access(folder, os.W_OK | os.X_OK):
        what = "no database can be created" if not path.exists() else "no capture is saved"
        return Check("database writable", "fail", f"{folder} is read-only: {what}")
    if path.exists() and not os.access(path, os.W_OK):
        return Check(
            "database writable", "fail", f"{path} is read-only: briefings work, no capture is saved"
        )
    return Check("database writable", "ok", f"{folder} and the database can be written")


def _schema_check(engine: Any, path: Path | None, where: str, revision: str | None) -> Check:
    """A database at another schema: what its next use will do. A file is upgraded on a
    copy first, so "upgraded on next use" is never said of one the upgrade refuses."""
    from kgraph.db.core import refuse_unknown, try_upgrade
    from kgraph.db.schema_version import HEAD_REVISION
    from kgraph.errors import KgraphError

    try:
        refuse_unknown(engine, where, revision)
        reason = try_upgrade(path) if path is not None else None
    except KgraphError as exc:
        reason = str(exc)
    if reason is not None:
        return Check("database", "fail", reason)
    tried = " (tried on a copy)" if path is not None else ""
    return Check(
        "database",
        "warn",
        f"{where}: schema {revision or 'none'}, this kgraph uses {HEAD_REVISION}: "
        f"upgraded on next use{tried}",
    )


def check_database(root: Path, db_url: str | None = None, *, full: bool = False) -> Check:
    """Present, usable, at this kgraph's schema, and intact (``PRAGMA quick_check``, or the
    slower ``integrity_check`` with ``full``)."""
    from kgraph.db.schema_version import HEAD_REVISION
    from kgraph.errors import KgraphError

    url, path = _database_files(root, db_url)
    if path is not None and not path.exists():
        return Check("database", "warn", f"{path} does not exist yet (created on first capture)")
    from sqlalchemy import func, select, text

    from kgraph.codegraph.store import failed_files
    from kgraph.db import migrate
    from kgraph.db.core import check_database_path, make_engine
    from kgraph.db.failures import describe_failure
    from kgraph.db.models import Entity, Session
    from kgraph.db.postgres import display_url

    where = str(path) if path is not None else display_url(url)
    try:
        mode = check_database_path(path) if path is not None else None
        engine = make_engine(url, read_only=mode)
    except KgraphError as exc:
        return Check("database", "fail", str(exc))
    try:
        revision = migrate.current_revision(engine)
        if revision != HEAD_REVISION:
            return _schema_check(engine, path, where, revision)
        server = engine.dialect.name != "sqlite"
        pragma = "server" if server else "integrity_check" if full else "quick_check"
        with engine.connect() as conn:
            # A server checks its own pages; SQLite's file is checked here.
            problems = (
                ["ok"]
                if server
                else [str(r[0]) for r in conn.execute(text(f"PRAGMA {pragma}(20)"))]
            )
            if problems != ["ok"]:
                return Check(
                    "database",
                    "fail",
                    f"{where}: {pragma} found {len(problems)} problem(s), first: {problems[0]}; "
                    "restore a backup or move it aside",
                )
            items = conn.execute(select(func.count()).select_from(Entity)).scalar_one()
            sessions = conn.execute(select(func.count()).select_from(Session)).scalar_one()
            failed = len(failed_files(conn))  # code graph files whose analysis failed
        return Check(
            "database",
            "warn" if failed else "ok",
            f"{where}: schema {revision}, "
            + ("" if server else f"{pragma} ok, ")
            + f"{items} entities, {sessions} sessions"
            + (f"; {failed} code graph file(s) failed (kgraph graph summary)" if failed else ""),
        )
    except Exception as exc:
        failure = describe_failure(exc, where)
        return Check("database", "fail", str(failure) if failure else f"{where}: {exc}")
    finally:
        engine.dispose()


def check_local_copy(root: Path, db_url: str | None = None) -> Check | None:
    """On a server: the local copy the hooks read (kgraph.db.mirror), and how old it is.
    None for a file database (the hooks read the file itself)."""
    from kgraph.db.location import is_server_url
    from kgraph.db.mirror import MIRROR_FILE, mirror_age
    from kgraph.runtime.state import state_dir

    url, _ = _database_files(root, db_url)
    if not is_server_url(url):
        return None
    folder = state_dir(root)
    age = mirror_age(folder, url)
    if age is None:
        return Check(
            "local copy",
            "warn",
            "none yet: the hooks read the server (slower) until the capture worker makes one "
            "(it does after the next session start)",
        )
    size = (folder / MIRROR_FILE).stat().st_size / 1e6
    return Check(
        "local copy",
        "ok",
        f"{folder / MIRROR_FILE}: {size:.1f} MB, refreshed {age:.0f} s ago; the file and prompt "
        "hooks read it, session-start too while it is recent",
    )


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


def check_extractor(root: Path) -> Check:
    """Which capture extractor runs: the rules alone, or ``claude -p`` as well."""
    import shutil

    from kgraph.runtime.settings import load_settings

    if load_settings(root).extractor != "claude":
        return Check("capture extractor", "ok", "rules (model extraction off)")
    found = shutil.which("claude")
    if found is None:
        return Check(
            "capture extractor",
            "warn",
            "claude -p is on in .claude/kgraph.toml but `claude` is not on PATH: rules only",
        )
    return Check("capture extractor", "ok", f"rules + claude -p ({found})")


def check_code_graph_build(module: str = "kgraph.codegraph.resolve") -> Check:
    """Whether the code graph's parse and resolve modules are compiled (a wheel built with
    a C compiler; see hatch_build.py) or pure Python (an editable install, or no
    compiler): the same graph, but a cold parse of a large repository is slower."""
    import importlib.util

    spec = importlib.util.find_spec(module)
    origin = spec.origin if spec is not None else None
    if origin is not None and not origin.endswith(".py"):
        return Check("code graph build", "ok", "compiled (mypyc)")
    return Check(
        "code graph build",
        "ok",
        "pure Python: `graph parse` of a large repository is slower; a wheel install "
        "(`pip install .`, not -e) with a C compiler compiles it",
    )


def run_doctor(
    root: Path, db_url: str | None = None, *, run_hooks: bool = True, full: bool = False
) -> list[Check]:
    """All checks for the project at ``root`` (``full``: integrity_check, not quick_check)."""
    from kgraph.db.location import project_root

    root = project_root(root)
    command = kgraph_command()
    copy = check_local_copy(root, db_url)
    checks = [
        check_executable(command),
        *check_wiring(root),
        check_database(root, db_url, full=full),
        check_writable(root, db_url),
        *([copy] if copy is not None else []),
        check_extractor(root),
        check_code_graph_build(),
    ]
    if run_hooks:
        timeouts = installed_timeouts(root)
        for event in BUDGETS:
            claude_event = next(s.claude_event for s in HOOK_SPECS if s.cli_event == event)
            limit = timeouts.get(claude_event)
            if limit is None:
                limit = DEFAULT_LIMITS.get(claude_event, DEFAULT_LIMIT_S)
            checks.append(check_hook_run(command, event, root, db_url, limit))
        from kgraph.setup.mcpcheck import check_mcp_server

        checks.append(check_mcp_server(command, root, db_url))
    return checks
