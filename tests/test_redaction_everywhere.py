"""The same 14 kinds of secret planted into every write path, then every file kgraph wrote
(everything under .claude/, and the export) is searched for them.

Write paths: learn (text, --code-area, --file, --source-ref, --session-id), workflow create
(branch, --worktree), log-action (action, --metadata keys and values), log-commit (sha,
message), milestone create, knowledge forget --reason, knowledge import (simple and entity
lines), and a captured session (prompt, explanation, a failing command's output, the
compaction summary, a commit message) through the hooks and the capture worker; code-graph
queries (their logged parameters) and the viz page.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgraph.capture.worker import run_worker
from kgraph.cli.main import cli
from kgraph.hooks.runner import run_hook
from kgraph.transcript.discovery import encode_project_dir
from tests.capture.transcript_builder import TranscriptBuilder
from tests.test_redact import PLANTED

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
    import_file.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    kgraph("knowledge", "import", str(import_file))
    _capture_a_session(tmp_repo, git)
    export = tmp_path / "export.jsonl"
    kgraph("knowledge", "export", "--output", str(export))
    kgraph("viz", "-o", str(tmp_repo / ".claude" / "kgraph" / "viz.html"))

    written = [p for p in (tmp_repo / ".claude").rglob("*") if p.is_file()] + [export]
    assert len(written) >= 5
    leaks = [
        (path.name, kind)
        for path in written
        for kind, _, needle in SECRETS
        if needle.encode() in path.read_bytes()
    ]
    assert leaks == []
    exported = export.read_text()
    assert exported.count("[REDACTED:") >= 14 * 4  # the items were stored, secrets replaced
    assert all(f"[REDACTED:{kind}]" in exported for kind in KINDS)
