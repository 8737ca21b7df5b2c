"""``kgraph doctor``: is kgraph wired into Claude Code and working here?

Checks, each ``ok``, ``warn`` or ``fail``:
- the kgraph executable the hooks should call exists;
- wiring: which settings files (user, project, local) run which kgraph hooks, that their
  executables exist, that no hook is wired twice with different commands, and that hooks
  are not disabled;
- the database: present, readable, at this kgraph's schema version, intact (``PRAGMA
  quick_check``; ``integrity_check`` with ``--full``), and writable with its folder
  (:mod:`kgraph.setup.dbcheck`);
- the capture extractor: rules only, or ``claude -p`` too (and whether ``claude`` is found);
- a sample ``hook session-start``, ``hook post-tool-use`` (a Read of README.md) and ``hook
  session-end`` (``--dry-run``: nothing written) return exit 0 with contract output, within
  their target and the timeout installed for them (a slow sample is repeated before it is
  reported; :mod:`kgraph.setup.hookcheck`);
- the MCP server (``.mcp.json``) starts and answers ``initialize`` and ``tools/list``
  (:mod:`kgraph.setup.mcpcheck`).

This module holds the :class:`Check` record, the wiring and installation checks, and
:func:`run_doctor`, which runs them all; the checks that open the database or start
processes live in the modules named above, which import :class:`Check` from here.
"""

from __future__ import annotations

import json
import os
import shlex
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
    from kgraph.setup.dbcheck import check_database, check_local_copy, check_writable

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
        from kgraph.setup.hookcheck import check_hook_runs
        from kgraph.setup.mcpcheck import check_mcp_server

        checks.extend(check_hook_runs(command, root, db_url))
        checks.append(check_mcp_server(command, root, db_url))
    return checks
