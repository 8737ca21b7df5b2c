"""Registering the MCP server with Claude Code: the project's ``.mcp.json``, or a plugin's.

Like the hooks, the server entry calls this kgraph by absolute path (``kgraph mcp``). The
merge keeps every other server and key, replaces kgraph's own entry (``mcpServers.kgraph``)
in place, so registering twice changes nothing, and backs the file up before changing it.

That path is one machine's. A project install commits it for the team (like the hooks in
settings.json); the default, local install writes ``.mcp.json`` too but keeps it, and its
backups, out of git through the clone's own exclude file — unless the team already commits
a ``.mcp.json``, which a local install leaves alone (and says how to register it instead).

In a plugin the UserPromptSubmit hook can call the server's ``recall`` tool directly (a
hook of type ``mcp_tool``, Claude Code 2.1.118+) instead of starting a process per prompt;
with an older or unknown Claude Code the command hook stays (the fallback).
"""

from __future__ import annotations

import copy
import importlib.util
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgraph.errors import InvalidValueError
from kgraph.setup.install import backup_file, kgraph_command, read_settings

SERVER_NAME = "kgraph"
MCP_JSON = ".mcp.json"
# Plugin servers are named plugin:<plugin>:<server> inside Claude Code.
PLUGIN_SERVER_NAME = f"plugin:kgraph:{SERVER_NAME}"
MCP_TOOL_HOOKS_SINCE = (2, 1, 118)
# What to say when the SDK does not import: it is a dependency, so the install is broken.
MCP_MISSING = "the mcp package is missing: pip install 'mcp>=1.25,<2' (kgraph depends on it)"
RECALL_TIMEOUT_S = 5


@dataclass(frozen=True)
class McpRegistration:
    path: Path
    changed: bool
    backup: Path | None
    config: dict[str, Any]
    dry_run: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "changed": self.changed,
            "backup": str(self.backup) if self.backup else None,
            "dry_run": self.dry_run,
            "config": self.config,
        }


def sdk_available() -> bool:
    """True when the ``mcp`` SDK imports (a dependency: only a broken install lacks it)."""
    return importlib.util.find_spec("mcp") is not None


def server_entry(command: list[str] | None = None) -> dict[str, Any]:
    """kgraph's entry under ``mcpServers``."""
    command = command or kgraph_command()
    return {"type": "stdio", "command": command[0], "args": [*command[1:], "mcp"]}


def merge_server(
    config: dict[str, Any], entry: dict[str, Any] | None, path: Path | str = MCP_JSON
) -> dict[str, Any]:
    """``config`` with ``mcpServers.kgraph`` set to ``entry`` (None removes it)."""
    result = copy.deepcopy(config)
    servers = result.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise InvalidValueError(f'{path}: "mcpServers" must be an object')
    if entry is None:
        servers.pop(SERVER_NAME, None)
    else:
        servers[SERVER_NAME] = entry
    if servers:
        result["mcpServers"] = servers
    else:
        result.pop("mcpServers", None)
    return result


def _write_json(path: Path, data: dict[str, Any]) -> None:
    import json
    import os

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.kgraph-tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def register_server(
    directory: Path,
    *,
    uninstall: bool = False,
    dry_run: bool = False,
    command: list[str] | None = None,
) -> McpRegistration:
    """Add (or remove) kgraph in ``directory/.mcp.json`` (a project root or a plugin)."""
    path = directory / MCP_JSON
    current = read_settings(path)
    updated = merge_server(current, None if uninstall else server_entry(command), path)
    changed = updated != current
    backup = None
    if changed and not dry_run:
        if not updated and path.exists() and uninstall:
            backup = backup_file(path)
            path.unlink()
        else:
            backup = backup_file(path)
            _write_json(path, updated)
    return McpRegistration(path, changed, backup, updated, dry_run)


def registered_command(root: Path) -> list[str] | None:
    """The command ``.mcp.json`` at ``root`` starts for kgraph, or None."""
    try:
        entry = read_settings(root / MCP_JSON).get("mcpServers", {}).get(SERVER_NAME)
    except (InvalidValueError, AttributeError):
        return None
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return None
    args = entry.get("args", [])
    return [entry["command"], *(a for a in args if isinstance(a, str))]


# What a local install keeps out of git (.git/info/exclude); a project install commits
# .mcp.json itself and keeps out only the backups.
LOCAL_RULES = (f"/{MCP_JSON}", f"/{MCP_JSON}.bak-*")
PROJECT_RULES = (f"/{MCP_JSON}.bak-*",)


@dataclass(frozen=True)
class ScopeRegistration:
    """An install's registration: the file's change, the exclude file it wrote, or
    (``registration`` None) why .mcp.json was left alone."""

    registration: McpRegistration | None
    exclude: Path | None = None
    note: str | None = None


def register_for_scope(
    root: Path,
    scope: str,
    *,
    uninstall: bool = False,
    dry_run: bool = False,
    command: list[str] | None = None,
) -> ScopeRegistration:
    """Register kgraph in ``root/.mcp.json`` for a ``project`` or ``local`` install (see
    the module docstring); the exclude file is kept in step."""
    from kgraph.db.gitignore import exclude_locally
    from kgraph.recall.gitinfo import is_tracked

    local = scope == "local"
    if local and is_tracked(root, MCP_JSON):  # the team's file: a project install's business
        if uninstall:
            return ScopeRegistration(None)
        entry = shlex.join([*(command or kgraph_command()), "mcp"])
        return ScopeRegistration(
            None,
            note=f"{MCP_JSON} is committed, so a local install leaves it alone (kgraph's "
            "entry names this machine's path). Share it with the team: kgraph install "
            f"--scope project; or for you alone: claude mcp add --scope local kgraph -- {entry}",
        )
    result = register_server(root, uninstall=uninstall, dry_run=dry_run, command=command)
    exclude = None
    if not dry_run:
        rules = () if uninstall else (LOCAL_RULES if local else PROJECT_RULES)
        exclude = exclude_locally(root, rules)
    return ScopeRegistration(result, exclude)


def claude_code_version(executable: str = "claude") -> tuple[int, ...] | None:
    """The installed Claude Code's version (``claude --version``), or None if unknown."""
    found = shutil.which(executable)
    if found is None:
        return None
    try:
        out = subprocess.run(
            [found, "--version"], capture_output=True, text=True, timeout=10
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r"(\d+)\.(\d+)\.(\d+)", out)
    return tuple(int(p) for p in match.groups()) if match else None


def recall_hook_handler(server: str = PLUGIN_SERVER_NAME) -> dict[str, Any]:
    """A UserPromptSubmit handler calling the ``recall`` tool (type ``mcp_tool``)."""
    return {
        "type": "mcp_tool",
        "server": server,
        "tool": "recall",
        "input": {"prompt": "${prompt}", "session_id": "${session_id}", "format": "hook"},
        "timeout": RECALL_TIMEOUT_S,
    }


def use_recall_hook(hooks_file: Path, handler: dict[str, Any]) -> bool:
    """Replace the UserPromptSubmit command hook in a plugin's ``hooks/hooks.json`` by
    ``handler``; False when the file has no such hook."""
    data = read_settings(hooks_file)
    hooks = data.get("hooks")
    groups = hooks.get("UserPromptSubmit") if isinstance(hooks, dict) else None
    if not isinstance(groups, list) or not groups:
        return False
    assert isinstance(hooks, dict)
    hooks["UserPromptSubmit"] = [{"hooks": [handler]}]
    _write_json(hooks_file, data)
    return True
