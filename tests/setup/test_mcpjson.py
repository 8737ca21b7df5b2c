"""Registering the MCP server: .mcp.json merges, the plugin's file and recall hook, doctor."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kgraph.cli.main import cli
from kgraph.errors import InvalidValueError
from kgraph.setup import mcpjson
from kgraph.setup.mcpcheck import check_mcp_server, probe_server
from kgraph.setup.mcpjson import (
    merge_server,
    recall_hook_handler,
    register_server,
    registered_command,
    server_entry,
)

COMMAND = ["/opt/kgraph venv/bin/kgraph"]
OTHER = {"command": "npx", "args": ["-y", "some-server"]}


def test_entry_and_merge_keep_other_servers() -> None:
    assert server_entry(COMMAND) == {"type": "stdio", "command": COMMAND[0], "args": ["mcp"]}
    config = {"mcpServers": {"other": OTHER}, "note": "kept"}
    merged = merge_server(config, server_entry(COMMAND))
    assert merged["mcpServers"] == {"other": OTHER, "kgraph": server_entry(COMMAND)}
    assert merged["note"] == "kept"
    assert merge_server(merged, server_entry(COMMAND)) == merged  # idempotent
    assert merge_server(merged, None) == config
    assert merge_server({"mcpServers": {"kgraph": {}}}, None) == {}
    with pytest.raises(InvalidValueError):
        merge_server({"mcpServers": []}, server_entry(COMMAND))


def test_register_is_idempotent_backs_up_and_uninstalls(tmp_path: Path) -> None:
    path = tmp_path / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": {"other": OTHER}}))
    first = register_server(tmp_path, command=COMMAND)
    assert first.changed and first.backup is not None and first.backup.exists()
    assert registered_command(tmp_path) == [*COMMAND, "mcp"]
    assert not register_server(tmp_path, command=COMMAND).changed
    assert register_server(tmp_path, uninstall=True).changed
    assert json.loads(path.read_text()) == {"mcpServers": {"other": OTHER}}
    assert registered_command(tmp_path) is None


def test_uninstalling_the_only_server_removes_the_file(tmp_path: Path) -> None:
    register_server(tmp_path, command=COMMAND)
    register_server(tmp_path, uninstall=True)
    assert not (tmp_path / ".mcp.json").exists()


STATUS = ("status", "--porcelain", "--untracked-files=all")


def _settings(repo: Path, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((repo / ".claude" / name).read_text())
    return data


def test_a_local_install_writes_mcp_json_approves_it_and_keeps_it_out_of_git(
    tmp_repo: Path, monkeypatch: pytest.MonkeyPatch, git: Callable[..., str]
) -> None:
    monkeypatch.chdir(tmp_repo)
    runner = CliRunner()
    result = runner.invoke(cli, ["install"])
    assert result.exit_code == 0, result.output
    entry = json.loads((tmp_repo / ".mcp.json").read_text())["mcpServers"]["kgraph"]
    assert entry["args"][-1] == "mcp" and Path(entry["command"]).is_absolute()
    assert f"Registered the MCP server in {tmp_repo / '.mcp.json'}" in result.output
    assert _settings(tmp_repo, "settings.local.json")["enabledMcpjsonServers"] == ["kgraph"]
    # This machine's path stays out of git: the one file to commit is .claude/.gitignore,
    # and the rule for .mcp.json lives in the clone's own exclude file.
    assert git(tmp_repo, *STATUS) == "?? .claude/.gitignore\n"
    assert "/.mcp.json" in (tmp_repo / ".git" / "info" / "exclude").read_text()
    again = runner.invoke(cli, ["install"])
    assert "Registered" not in again.output  # idempotent
    assert runner.invoke(cli, ["install", "--uninstall"]).exit_code == 0
    assert not (tmp_repo / ".mcp.json").exists()
    exclude = (tmp_repo / ".git" / "info" / "exclude").read_text()
    assert "/.mcp.json" not in exclude and "/.claude/kgraph/" in exclude  # the kept data only
    assert not (tmp_repo / ".claude" / "settings.local.json").exists()  # only kgraph's was in it


def test_a_local_install_leaves_a_committed_mcp_json_alone(
    tmp_repo: Path, monkeypatch: pytest.MonkeyPatch, git: Callable[..., str]
) -> None:
    team = {"mcpServers": {"other": OTHER}}
    (tmp_repo / ".mcp.json").write_text(json.dumps(team))
    git(tmp_repo, "add", ".mcp.json")
    git(tmp_repo, "commit", "-qm", "team servers")
    monkeypatch.chdir(tmp_repo)
    runner = CliRunner()
    result = runner.invoke(cli, ["install"])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_repo / ".mcp.json").read_text()) == team
    assert ".mcp.json is committed" in result.output
    assert "claude mcp add --scope local kgraph -- " in result.output
    # A project install is the team's choice: it adds kgraph beside the other server.
    assert runner.invoke(cli, ["install", "--scope", "project"]).exit_code == 0
    servers = json.loads((tmp_repo / ".mcp.json").read_text())["mcpServers"]
    assert set(servers) == {"other", "kgraph"}
    # ... and a local uninstall does not take it out of the team's file.
    assert runner.invoke(cli, ["install", "--uninstall"]).exit_code == 0
    assert "kgraph" in json.loads((tmp_repo / ".mcp.json").read_text())["mcpServers"]
    # The team's files to commit show; the backups of .mcp.json do not.
    assert git(tmp_repo, *STATUS).splitlines() == [
        " M .mcp.json",
        "?? .claude/.gitignore",
        "?? .claude/settings.json",
    ]
    assert list((tmp_repo / ".claude" / "kgraph" / "backups").glob(".mcp.json.bak-*"))


def test_a_project_install_commits_mcp_json_and_approves_it_in_settings_json(
    tmp_repo: Path, monkeypatch: pytest.MonkeyPatch, git: Callable[..., str]
) -> None:
    monkeypatch.chdir(tmp_repo)
    runner = CliRunner()
    result = runner.invoke(cli, ["install", "--scope", "project", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["mcp"]["path"] == str(tmp_repo / ".mcp.json")
    assert _settings(tmp_repo, "settings.json")["enabledMcpjsonServers"] == ["kgraph"]
    assert "?? .mcp.json" in git(tmp_repo, *STATUS)  # for the team to commit
    runner.invoke(cli, ["install", "--scope", "project", "--uninstall"])
    assert not (tmp_repo / ".mcp.json").exists()


def test_install_without_the_sdk_or_with_no_mcp_leaves_mcp_json_alone(
    tmp_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_repo)
    runner = CliRunner()
    assert runner.invoke(cli, ["install", "--scope", "project", "--no-mcp"]).exit_code == 0
    assert runner.invoke(cli, ["install", "--no-mcp"]).exit_code == 0
    assert not (tmp_repo / ".mcp.json").exists()
    assert "enabledMcpjsonServers" not in _settings(tmp_repo, "settings.local.json")
    monkeypatch.setattr(mcpjson, "sdk_available", lambda: False)
    result = runner.invoke(cli, ["install", "--scope", "project"])
    assert "the mcp package is missing" in result.output
    assert not (tmp_repo / ".mcp.json").exists()


def _fake_claude(bin_dir: Path, version: str) -> None:
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / "claude"
    script.write_text(f"#!/bin/sh\necho '{version} (Claude Code)'\n")
    script.chmod(0o755)


@pytest.mark.parametrize(
    ("version", "hook_type"), [("2.1.130", "mcp_tool"), ("2.1.100", "command")]
)
def test_the_plugin_gets_mcp_json_and_the_recall_hook_where_supported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: str, hook_type: str
) -> None:
    _fake_claude(tmp_path / "bin", version)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:/usr/bin:/bin")
    plugin = tmp_path / "plugin"
    result = CliRunner().invoke(cli, ["install", "--plugin", str(plugin)])
    assert result.exit_code == 0, result.output
    assert "kgraph" in json.loads((plugin / ".mcp.json").read_text())["mcpServers"]
    hooks = json.loads((plugin / "hooks" / "hooks.json").read_text())["hooks"]
    (handler,) = hooks["UserPromptSubmit"][0]["hooks"]
    assert handler["type"] == hook_type
    if hook_type == "mcp_tool":
        assert handler == recall_hook_handler()
        assert handler["input"]["prompt"] == "${prompt}"
    assert hooks["SessionStart"][0]["hooks"][0]["type"] == "command"


def test_doctor_probe_speaks_the_protocol_to_the_real_server(tmp_repo: Path) -> None:
    import sys

    command = [sys.executable, "-m", "kgraph.cli.main", "mcp", "--no-warm"]
    elapsed, tools = probe_server(command, tmp_repo)
    assert elapsed > 0
    assert {"search", "recall", "what_calls"} <= set(tools)


def test_doctor_check_statuses(tmp_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    fallback = [sys.executable, "-m", "kgraph.cli.main"]
    unregistered = check_mcp_server(fallback, tmp_repo)
    assert unregistered.status == "warn" and "kgraph install" in unregistered.detail
    register_server(tmp_repo, command=["/nonexistent/kgraph"])
    broken = check_mcp_server(fallback, tmp_repo)
    assert broken.status == "fail" and "/nonexistent/kgraph" in broken.detail
    monkeypatch.setattr("kgraph.setup.mcpcheck.sdk_available", lambda: False)
    assert check_mcp_server(fallback, tmp_repo).status == "warn"
