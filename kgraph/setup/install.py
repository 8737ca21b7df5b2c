"""Wiring kgraph's hooks into Claude Code: settings.json merge, uninstall, plugin layout.

The handlers call the absolute path of the ``kgraph`` executable, so they work when Claude
Code's PATH differs from the shell's (GUI/IDE launches). Handlers are written in shell form
(``"command": "'/abs/kgraph' hook session-start"``), which every Claude Code version runs;
``exec_form=True`` writes the documented exec form (``command`` + ``args``) instead, which
versions before exec-form support would run without its arguments.

Merging keeps every other hook and setting, replaces kgraph's own handlers in place (so
installing twice changes nothing), and backs the file up before changing it.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kgraph.errors import InvalidValueError

SCOPES = ("project", "local", "user")


@dataclass(frozen=True)
class HookSpec:
    claude_event: str
    cli_event: str
    timeout: int  # seconds
    matcher: str | None = None  # tool events: which tools


# SessionStart injects (synchronous; Claude Code's default would be 600 s: keep it short);
# SessionEnd's timeout in a settings file also raises its 1.5 s shared budget.
HOOK_SPECS: tuple[HookSpec, ...] = (
    HookSpec("SessionStart", "session-start", 10),
    HookSpec("UserPromptSubmit", "user-prompt", 5),
    HookSpec("PostToolUse", "post-tool-use", 5, matcher="Read|Edit|Write|MultiEdit"),
    HookSpec("PreCompact", "pre-compact", 5),
    HookSpec("Stop", "stop", 5),
    HookSpec("SessionEnd", "session-end", 5),
)
_CLI_EVENTS = "|".join(spec.cli_event for spec in HOOK_SPECS)
_SHELL_FORM = re.compile(
    rf"(?:^|[\s/\\'\"])kgraph(?:\.exe)?['\"]?\s+hook\s+(?P<event>{_CLI_EVENTS})\b"
    rf"|-m\s+kgraph\s+hook\s+(?P<event2>{_CLI_EVENTS})\b"
)


@dataclass(frozen=True)
class InstallResult:
    path: Path
    changed: bool
    backup: Path | None
    settings: dict[str, Any]
    events: tuple[str, ...]
    dry_run: bool = False
    gitignore: Path | None = None  # .claude/.gitignore, when its kgraph block was written

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "changed": self.changed,
            "backup": str(self.backup) if self.backup else None,
            "events": list(self.events),
            "dry_run": self.dry_run,
            "gitignore": str(self.gitignore) if self.gitignore else None,
            "settings": self.settings,
        }


def kgraph_command() -> list[str]:
    """The absolute command that runs this kgraph: its console script, else ``python -m kgraph``."""
    candidates = []
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name in ("kgraph", "kgraph.exe"):
        candidates.append(argv0)
    candidates.append(Path(sys.executable).parent / ("kgraph.exe" if os.name == "nt" else "kgraph"))
    found = shutil.which("kgraph")
    if found:
        candidates.append(Path(found))
    for candidate in candidates:
        path = Path(os.path.abspath(candidate))
        if path.is_file() and os.access(path, os.X_OK):
            return [str(path)]
    return [os.path.abspath(sys.executable), "-m", "kgraph"]


def handler_for(spec: HookSpec, command: list[str], exec_form: bool = False) -> dict[str, Any]:
    """The Claude Code handler object for one hook."""
    if exec_form:
        return {
            "type": "command",
            "command": command[0],
            "args": [*command[1:], "hook", spec.cli_event],
            "timeout": spec.timeout,
        }
    line = " ".join(shlex.quote(part) for part in [*command, "hook", spec.cli_event])
    return {"type": "command", "command": line, "timeout": spec.timeout}


def hooks_config(command: list[str] | None = None, exec_form: bool = False) -> dict[str, Any]:
    """The ``hooks`` object kgraph installs: event -> [{"hooks": [handler]}] (no matcher:
    every source/reason, the handlers branch on the input; a tool event names its tools)."""
    command = command or kgraph_command()
    return {
        spec.claude_event: [
            {
                **({"matcher": spec.matcher} if spec.matcher else {}),
                "hooks": [handler_for(spec, command, exec_form)],
            }
        ]
        for spec in HOOK_SPECS
    }


def kgraph_event_of(handler: Any) -> str | None:
    """The kgraph hook a handler runs ("session-start", ...), or None for anyone else's."""
    if not isinstance(handler, dict) or handler.get("type", "command") != "command":
        return None
    command = handler.get("command")
    if not isinstance(command, str):
        return None
    args = handler.get("args")
    if isinstance(args, list) and all(isinstance(a, str) for a in args):
        command = " ".join([command, *args])
    match = _SHELL_FORM.search(command)
    if match is None:
        return None
    return match.group("event") or match.group("event2")


def settings_path(scope: str, root: Path) -> Path:
    """The settings file of a scope: project/.claude/settings.json, settings.local.json, or
    the user's (``$CLAUDE_CONFIG_DIR`` or ``~/.claude``)."""
    if scope == "project":
        return root / ".claude" / "settings.json"
    if scope == "local":
        return root / ".claude" / "settings.local.json"
    if scope == "user":
        from kgraph.transcript.discovery import claude_home

        return claude_home() / "settings.json"
    raise InvalidValueError(f"invalid scope {scope!r} (allowed: {', '.join(SCOPES)})")


def read_settings(path: Path) -> dict[str, Any]:
    """The settings object in ``path`` ({} when missing); InvalidValueError when unusable."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise InvalidValueError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InvalidValueError(f"{path} is not valid JSON ({exc}); fix or move it first") from exc
    if not isinstance(data, dict):
        raise InvalidValueError(f"{path} must hold a JSON object")
    return data


def _hooks_of(settings: dict[str, Any], path: Path | str) -> dict[str, Any]:
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise InvalidValueError(f'{path}: "hooks" must be an object')
    return hooks


def merge_hooks(
    settings: dict[str, Any], wanted: dict[str, Any], path: Path | str = "settings"
) -> dict[str, Any]:
    """``settings`` with kgraph's handlers set to ``wanted`` (see hooks_config); all other
    hooks kept. An existing kgraph handler is replaced where it stands; duplicates removed."""
    result = copy.deepcopy(settings)
    hooks = _hooks_of(result, path)
    for event, groups_wanted in wanted.items():
        desired = groups_wanted[0]["hooks"][0]
        groups = hooks.get(event, [])
        if not isinstance(groups, list):
            raise InvalidValueError(f"{path}: hooks.{event} must be a list")
        placed = False
        new_groups: list[Any] = []
        for group in groups:
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                new_groups.append(group)
                continue
            handlers = []
            had_ours = False
            for handler in group["hooks"]:
                if kgraph_event_of(handler) is None:
                    handlers.append(handler)
                    continue
                had_ours = True
                if not placed:
                    handlers.append(desired)
                    placed = True
            if handlers or not had_ours:
                new_groups.append({**group, "hooks": handlers})
        if not placed:
            new_groups.append(copy.deepcopy(groups_wanted[0]))
        hooks[event] = new_groups
    result["hooks"] = hooks
    return result


def approve_mcp_server(settings: dict[str, Any], name: str, on: bool) -> dict[str, Any]:
    """``settings`` with ``name`` added to (or removed from) ``enabledMcpjsonServers``, the
    .mcp.json servers Claude Code starts without asking; other entries kept."""
    result = copy.deepcopy(settings)
    current = result.get("enabledMcpjsonServers", [])
    names = [n for n in current if n != name] if isinstance(current, list) else []
    if on:
        names.append(name)
    if names:
        result["enabledMcpjsonServers"] = names
    else:
        result.pop("enabledMcpjsonServers", None)
    return result


def remove_hooks(settings: dict[str, Any], path: Path | str = "settings") -> dict[str, Any]:
    """``settings`` without any kgraph handler (empty groups/events left by that removed)."""
    result = copy.deepcopy(settings)
    if "hooks" not in result:
        return result
    hooks = _hooks_of(result, path)
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept: list[Any] = []
        for group in groups:
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                kept.append(group)
                continue
            handlers = [h for h in group["hooks"] if kgraph_event_of(h) is None]
            if handlers or not group["hooks"]:
                kept.append({**group, "hooks": handlers})
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del result["hooks"]
    return result


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.kgraph-tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def backups_dir(path: Path) -> Path:
    """Where backups of ``path`` go: kgraph's state folder of the ``.claude`` folder it is
    in or beside (``.claude/kgraph/backups/``), which ignores itself, so a backup never
    lands in the repository root for ``git add -A`` to pick up."""
    claude = path.parent if path.parent.name == ".claude" else path.parent / ".claude"
    return claude / "kgraph" / "backups"


def backup_file(path: Path) -> Path | None:
    """A timestamped copy of ``path`` in :func:`backups_dir` (None when it does not exist)."""
    from kgraph.db.gitignore import ignore_state_dir

    if not path.exists():
        return None
    folder = backups_dir(path)
    ignore_state_dir(folder.parent)
    folder.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    backup = folder / f"{path.name}.bak-{stamp}"
    shutil.copy2(path, backup)
    return backup


def install(
    scope: str = "local",
    root: Path | None = None,
    *,
    uninstall: bool = False,
    dry_run: bool = False,
    exec_form: bool = False,
    command: list[str] | None = None,
    mcp_server: str | None = None,
) -> InstallResult:
    """Install (or remove) kgraph's hooks in the settings file of ``scope``.

    The default, ``local`` (``.claude/settings.local.json``), keeps this machine's absolute
    path to kgraph out of the settings a team commits. A project install also adds kgraph's
    block to ``.claude/.gitignore`` (see kgraph.db.gitignore), so ``git add -A`` never
    picks up the database, its side files, the state folder or the settings backups.
    ``mcp_server``: the .mcp.json server to approve beside the hooks (removed on uninstall).
    """
    from kgraph.db.gitignore import ignore_claude_dir
    from kgraph.db.location import project_root

    project = project_root(root)
    path = settings_path(scope, project)
    current = read_settings(path)
    if uninstall:
        updated = remove_hooks(current, path)
    else:
        updated = merge_hooks(current, hooks_config(command, exec_form), path)
    if mcp_server is not None:
        updated = approve_mcp_server(updated, mcp_server, not uninstall)
    changed = updated != current
    backup = None
    if changed and not dry_run:
        backup = backup_file(path)
        if uninstall and not updated:  # nothing but kgraph's was in it: as before install
            path.unlink()
        else:
            _write_json(path, updated)
    events = () if uninstall else tuple(spec.claude_event for spec in HOOK_SPECS)
    ignore = None
    if not uninstall and not dry_run and scope != "user":
        ignore = ignore_claude_dir(project / ".claude")
    return InstallResult(path, changed, backup, updated, events, dry_run, ignore)


def install_plugin(
    directory: Path,
    *,
    uninstall: bool = False,
    dry_run: bool = False,
    exec_form: bool = False,
    command: list[str] | None = None,
) -> list[Path]:
    """Write (or remove) a Claude Code plugin: ``.claude-plugin/plugin.json`` and
    ``hooks/hooks.json``. Returns the files written or removed."""
    from kgraph import __version__

    manifest = directory / ".claude-plugin" / "plugin.json"
    hooks_file = directory / "hooks" / "hooks.json"
    if uninstall:
        removed = [p for p in (manifest, hooks_file) if p.exists()]
        if not dry_run:
            for p in removed:
                p.unlink()
        return removed
    if not dry_run:
        _write_json(
            manifest,
            {
                "name": "kgraph",
                "version": __version__,
                "description": "Project memory for Claude Code: a briefing at session start, "
                "capture when it ends.",
            },
        )
        _write_json(
            hooks_file,
            {
                "description": "kgraph: inject project knowledge, capture what sessions learn.",
                "hooks": hooks_config(command, exec_form),
            },
        )
    return [manifest, hooks_file]


def has_kgraph_hooks(scope: str, root: Path | None = None) -> bool:
    """True when the settings file of ``scope`` holds any kgraph handler (an unreadable file
    counts as none): ``kgraph install`` points at hooks an earlier release left in the
    committed ``settings.json``."""
    from kgraph.db.location import project_root

    path = settings_path(scope, project_root(root))
    try:
        settings = read_settings(path)
    except InvalidValueError:
        return False
    return remove_hooks(settings, path) != settings
