"""The same 14 kinds of secret planted into every write path, then every file kgraph wrote
(everything under .claude/, and the export) is searched for them.

Write paths: learn (text, --code-area, --file, --source-ref, --session-id), workflow create
(branch, --worktree), log-action (action, --metadata keys and values), log-commit (sha,
message), milestone create, knowledge forget --reason, knowledge import (simple and entity
lines), and a captured session (prompt, explanation, a failing command's output, the
compaction summary, a commit message) through the hooks and the capture worker; code-graph
queries (their logged parameters), search, CLAUDE.md sections and the viz page; and every MCP
tool, each string argument planted.

The write paths are listed from the code: every CLI command is either planted here
(PLANTED) or listed with why it stores no text a person gives it (NO_TEXT), and every MCP
tool is planted; a new command fails ``test_every_command_is_planted_or_says_why_not``
until it is listed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from kgraph import open as kgraph_open
from kgraph.capture.worker import run_worker
from kgraph.cli.main import cli
from kgraph.hooks.runner import run_hook
from kgraph.transcript.discovery import encode_project_dir
from tests.capture.transcript_builder import TranscriptBuilder
from tests.redact.test_redact import PLANTED

SENDGRID = (
    "sendgrid",
    "sendgrid SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG",
    "SG.abcdefghijklmnopqrstuv",
)
KINDS = (
    "private-key",
    "jwt",
    "aws-access-key",
    "aws-secret-key",
    "github-token",
    "gitlab-token",
    "slack-token",
    "slack-webhook",
    "openai-key",
    "anthropic-key",
    "url-password",
    "google-api-key",
    "stripe-key",
)
SECRETS = [next(p for p in PLANTED if p[0] == kind) for kind in KINDS] + [SENDGRID]
ALL = "\n".join(text for _, text, _ in SECRETS)

# Commands given secrets by test_no_planted_secret_reaches_any_file.
PLANTED_COMMANDS = {
    "learn",
    "search",
    "knowledge forget",
    "knowledge import",
    "knowledge export",
    "knowledge sync-claude-md",
    "workflow create",
    "workflow log-action",
    "workflow log-commit",
    "milestone create",
    "graph find",
    "graph what-calls",
    "graph blast-radius",
    "graph exports",
    "viz",
    "hook session-start",
    "hook user-prompt",
    "hook post-tool-use",
    "hook pre-compact",
    "hook stop",
    "hook session-end",
    "hook worker",  # the capture worker: run_worker
    "mcp",  # every tool: test_no_secret_given_to_an_mcp_tool_reaches_a_file
}
# Commands that store no text a person types: ids, numbers, fixed choices, or nothing.
NO_TEXT = {
    "baseline save": "numbers",
    "baseline show": "reads",
    "doctor": "reads",
    "embed": "vectors of stored, already redacted text",
    "graph callers": "same query as what-calls",
    "graph export": "reads",
    "graph parse": "code structure: names and paths of the project's files",
    "graph summary": "reads",
    "graph what-depends-on": "a path, logged as the parse stored it",
    "install": "settings; a --db URL's password is refused (test_install)",
    "knowledge areas": "reads",
    "knowledge files": "reads",
    "knowledge link": "two ids and a fixed relationship type",
    "knowledge list": "reads",
    "knowledge prune": "hides stored items",
    "knowledge query": "reads",
    "knowledge related": "reads",
    "knowledge restore": "an id",
    "knowledge review": "an id",
    "knowledge show": "reads",
    "knowledge stats": "reads",
    "knowledge supersede": "two ids",
    "metrics sessions": "reads",
    "metrics summary": "reads",
    "milestone add-workflow": "two ids",
    "milestone delete": "an id",
    "milestone find": "reads",
    "milestone get": "reads",
    "milestone list": "reads",
    "milestone set-phase": "an id and a fixed phase",
    "milestone set-status": "an id and a fixed status",
    "transcript mistakes": "reads",
    "transcript qa": "reads",
    "transcript sessions": "reads",
    "transcript show": "reads",
    "transcript stats": "reads",
    "transcript status": "reads",
    "transcript subagents": "reads",
    "workflow cleanup": "deletes",
    "workflow delete": "an id",
    "workflow find": "reads",
    "workflow get": "reads",
    "workflow list": "reads",
    "workflow set-phase": "an id and a fixed phase",
    "workflow set-status": "an id and a fixed status",
}


def commands(command: click.Command, prefix: tuple[str, ...] = ()) -> list[str]:
    if not isinstance(command, click.Group):
        return [" ".join(prefix)]
    ctx = click.Context(command)
    found: list[str] = []
    for name in command.list_commands(ctx):
        sub = command.get_command(ctx, name)
        assert sub is not None
        found += commands(sub, (*prefix, name))
    return found


def test_every_command_is_planted_or_says_why_not() -> None:
    listed = set(commands(cli))
    assert not PLANTED_COMMANDS & set(NO_TEXT)
    assert listed == PLANTED_COMMANDS | set(NO_TEXT), (
        f"not listed: {sorted(listed - PLANTED_COMMANDS - set(NO_TEXT))}; "
        f"gone: {sorted((PLANTED_COMMANDS | set(NO_TEXT)) - listed)}"
    )


def leaks_under(*roots: Path) -> list[tuple[str, str]]:
    """(file, kind) for every planted secret found in a file under ``roots``."""
    files = [p for root in roots for p in ([root] if root.is_file() else root.rglob("*"))]
    return [
        (path.name, kind)
        for path in files
        if path.is_file()
        for kind, _, needle in SECRETS
        if needle.encode() in path.read_bytes()
    ]


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch, tmp_repo: Path) -> None:
    monkeypatch.setenv("KGRAPH_HOOK_NO_SPAWN", "1")
    monkeypatch.chdir(tmp_repo)


def kgraph(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, (args, result.output)
    return result.stdout


def _capture_a_session(repo: Path, git: Callable[..., str]) -> None:
    transcript = (
        Path(os.environ["CLAUDE_CONFIG_DIR"])
        / "projects"
        / encode_project_dir(str(repo))
        / "s-secrets.jsonl"
    )
    base = {"session_id": "s-secrets", "cwd": str(repo), "transcript_path": str(transcript)}
    run_hook("session-start", json.dumps({**base, "source": "startup"}).encode())
    (repo / "deploy.py").write_text("TOKEN = None\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", f"fix(deploy): rotate keys because they leaked\n\n{ALL}")
    (
        TranscriptBuilder("s-secrets", str(repo))
        .prompt(f"Remember this: never commit these keys again.\n{ALL}")
        .tool("Bash", {"command": f"deploy --key {SECRETS[4][1]}"}, ALL, error=True)
        .say(
            "The issue was that deploy.py read the key from the command line, because "
            f"the environment was empty; the keys were {ALL}"
        )
        .compaction(f"Summary:\n1. Errors and fixes:\n- deploy failed: {ALL}\n")
        .write(transcript)
    )
    run_hook("user-prompt", json.dumps({**base, "prompt": ALL}).encode())
    read = {"tool_name": "Read", "tool_input": {"file_path": str(repo / "deploy.py")}}
    run_hook("post-tool-use", json.dumps({**base, **read, "tool_response": ALL}).encode())
    run_hook("stop", json.dumps({**base, "last_assistant_message": ALL}).encode())
    run_hook("pre-compact", json.dumps({**base, "trigger": "auto"}).encode())
    run_hook("session-end", json.dumps({**base, "reason": "other"}).encode())
    assert run_worker(repo).failed == 0


def test_no_planted_secret_reaches_any_file(
    tmp_repo: Path, tmp_path: Path, git: Callable[..., str]
) -> None:
    import_file = tmp_path / "import.jsonl"
    lines = []
    for index, (_, text, _needle) in enumerate(SECRETS):
        stored = json.loads(
            kgraph(
                "learn",
                f"fact {index} about the deploy keys: {text}",
                "--code-area",
                text,
                "--file",
                text,
                "--source-ref",
                text,
                "--session-id",
                text,
                "--json",
            )
        )
        kgraph("knowledge", "forget", stored["id"], "--reason", text)
        workflow = json.loads(
            kgraph("workflow", "create", str(index + 1), text, "--worktree", text, "--json")
        )
        metadata = json.dumps({"note": text, text: [text, {"deep": text}]})
        kgraph("workflow", "log-action", workflow["id"], text, "success", "--metadata", metadata)
        kgraph("workflow", "log-commit", workflow["id"], text, f"fix: rotate\n\n{text}")
        kgraph("milestone", "create", text)
        lines.append(
            {
                "content": f"imported fact {index}: {text}",
                "files": [text],
                "code_area": text,
                "session_id": text,
                "data": {"why": text},
            }
        )
        lines.append(
            {
                "kind": "entity",
                "id": f"lrn-{index}-{text}",
                "type": "learning",
                "content": f"exported fact {index}: {text}",
                "session_id": text,
                "source_ref": text,
                "data": {text: text},
            }
        )
        for query in ("find", "what-calls", "blast-radius", "exports"):  # query logs
            CliRunner().invoke(cli, ["graph", query, text])
        CliRunner().invoke(cli, ["search", text])
    import_file.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    kgraph("knowledge", "import", str(import_file))
    (tmp_repo / "CLAUDE.md").write_text(f"# Deploy\n\nThe keys, never to commit:\n{ALL}\n")
    kgraph("knowledge", "sync-claude-md")
    _capture_a_session(tmp_repo, git)
    export = tmp_path / "export.jsonl"
    kgraph("knowledge", "export", "--output", str(export))
    kgraph("viz", "-o", str(tmp_repo / ".claude" / "kgraph" / "viz.html"))

    assert len(list((tmp_repo / ".claude").rglob("*"))) >= 5
    assert leaks_under(tmp_repo / ".claude", export) == []
    exported = export.read_text()
    assert exported.count("[REDACTED:") >= 14 * 4  # the items were stored, secrets replaced
    assert all(f"[REDACTED:{kind}]" in exported for kind in KINDS)


def argument(schema: dict[str, Any], text: str) -> Any:
    """A value for one tool argument: the secrets wherever a person's text can go."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "string":
        return text[: schema.get("maxLength", len(text))]
    if kind == "array":
        return [argument(schema.get("items", {}), text[:1000])]
    if kind == "object":
        return {"note": text[:1000]}
    if kind == "integer":
        return schema.get("minimum", 1)
    if kind == "number":
        return schema.get("minimum", 0.5)
    return False


def test_no_secret_given_to_an_mcp_tool_reaches_a_file(tmp_repo: Path) -> None:
    """Every tool of the server's table, every string argument planted (the workflow tool
    once per operation), then every file under .claude/ searched."""
    from kgraph.mcp.tools import TOOLS, call

    workflow = json.loads(kgraph("workflow", "create", "7", "main", "--json"))["id"]
    project = kgraph_open(tmp_repo)
    answered: set[str] = set()
    try:
        for spec in TOOLS:
            properties = spec.schema.get("properties", {})
            ops = properties.get("op", {}).get("enum", [None])
            for op in ops:
                for _, text, _ in SECRETS:
                    values = {k: argument(v, text) for k, v in properties.items() if k != "op"}
                    if spec.name == "workflow":
                        values["id"] = workflow  # an action logged on a real workflow
                    if op is not None:
                        values["op"] = op
                    _text, failed = call(project, spec.name, values, 4000)
                    if not failed:
                        answered.add(f"{spec.name} {op or ''}".strip())
    finally:
        project.close()
    # The planted calls did their work (stored an item, logged an action), and none of it
    # holds a secret.
    assert {"learn", "workflow log_action", "workflow create", "search"} <= answered, answered
    assert leaks_under(tmp_repo / ".claude") == []
