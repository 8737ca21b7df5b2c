from __future__ import annotations

import json
import os
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest

from kgraph.errors import InvalidValueError
from kgraph.setup.install import (
    HOOK_SPECS,
    hooks_config,
    install,
    install_plugin,
    kgraph_event_of,
    merge_hooks,
    remove_hooks,
)
from tests.conftest import CliResult

COMMAND = ["/opt/kgraph venv/bin/kgraph"]
OTHER = {"type": "command", "command": "echo hi", "timeout": 3}


def test_hooks_config_uses_the_absolute_command_in_shell_form() -> None:
    config = hooks_config(COMMAND)
    assert set(config) == {
        "SessionStart",
        "UserPromptSubmit",
        "PostToolUse",
        "PreCompact",
        "Stop",
        "SessionEnd",
    }
    assert "matcher" not in config["SessionStart"][0]
    assert config["PostToolUse"][0]["matcher"] == "Read|Edit|Write|MultiEdit"
    assert config["PostToolUse"][0]["hooks"][0]["command"].endswith(" hook post-tool-use")
    handler = config["SessionStart"][0]["hooks"][0]
    assert handler == {
        "type": "command",
        "command": "'/opt/kgraph venv/bin/kgraph' hook session-start",
        "timeout": 10,
    }
    assert shlex.split(handler["command"]) == [*COMMAND, "hook", "session-start"]
    assert config["UserPromptSubmit"][0]["hooks"][0]["timeout"] == 5
    exec_form = hooks_config(COMMAND, exec_form=True)["Stop"][0]["hooks"][0]
    assert exec_form == {
        "type": "command",
        "command": COMMAND[0],
        "args": ["hook", "stop"],
        "timeout": 5,
    }


def test_handlers_are_recognised_in_every_form() -> None:
    assert kgraph_event_of({"type": "command", "command": "kgraph hook stop"}) == "stop"
    assert (
        kgraph_event_of({"type": "command", "command": "/x/bin/kgraph hook session-end"})
        == "session-end"
    )
    assert (
        kgraph_event_of(
            {"type": "command", "command": "/usr/bin/python3 -m kgraph hook user-prompt"}
        )
        == "user-prompt"
    )
    assert (
        kgraph_event_of(
            {"type": "command", "command": "/x/kgraph", "args": ["hook", "pre-compact"]}
        )
        == "pre-compact"
    )
    assert kgraph_event_of(OTHER) is None
    assert kgraph_event_of({"type": "command", "command": "mykgraph-wrapper hook stop"}) is None
    assert kgraph_event_of("not a handler") is None


def test_merge_keeps_other_hooks_and_is_idempotent() -> None:
    settings = {
        "model": "opus",
        "hooks": {
            "Stop": [{"hooks": [OTHER]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [OTHER]}],
        },
    }
    once = merge_hooks(settings, hooks_config(COMMAND))
    assert (
        once["model"] == "opus" and once["hooks"]["PreToolUse"] == settings["hooks"]["PreToolUse"]
    )
    assert once["hooks"]["Stop"][0] == {"hooks": [OTHER]}
    assert kgraph_event_of(once["hooks"]["Stop"][1]["hooks"][0]) == "stop"
    assert merge_hooks(once, hooks_config(COMMAND)) == once
    moved = merge_hooks(once, hooks_config(["/new/kgraph"]))  # a new path replaces in place
    assert moved["hooks"]["Stop"][1]["hooks"][0]["command"] == "/new/kgraph hook stop"
    assert len(moved["hooks"]["Stop"]) == 2
    removed = remove_hooks(moved)
    assert removed == settings


def test_merge_refuses_malformed_hooks() -> None:
    with pytest.raises(InvalidValueError):
        merge_hooks({"hooks": []}, hooks_config(COMMAND))
    with pytest.raises(InvalidValueError):
        merge_hooks({"hooks": {"Stop": {}}}, hooks_config(COMMAND))


def test_install_writes_backs_up_and_uninstalls(tmp_repo: Path) -> None:
    path = tmp_repo / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [OTHER]}]}, "env": {"A": "1"}}))
    first = install("project", tmp_repo, command=COMMAND)
    assert first.changed and first.path == path and first.backup is not None
    assert json.loads(first.backup.read_text())["env"] == {"A": "1"}
    written = json.loads(path.read_text())
    assert written["env"] == {"A": "1"} and OTHER in written["hooks"]["Stop"][0]["hooks"]
    again = install("project", tmp_repo, command=COMMAND)
    assert not again.changed and again.backup is None
    assert json.loads(path.read_text()) == written
    dry = install("project", tmp_repo, command=COMMAND, uninstall=True, dry_run=True)
    assert dry.changed and json.loads(path.read_text()) == written
    install("project", tmp_repo, command=COMMAND, uninstall=True)
    assert json.loads(path.read_text()) == {
        "hooks": {"Stop": [{"hooks": [OTHER]}]},
        "env": {"A": "1"},
    }


def test_scopes(tmp_repo: Path) -> None:
    local = install("local", tmp_repo, command=COMMAND)
    assert local.path == tmp_repo / ".claude" / "settings.local.json"
    user = install("user", tmp_repo, command=COMMAND)
    assert user.path == Path(os.environ["CLAUDE_CONFIG_DIR"]) / "settings.json"
    with pytest.raises(InvalidValueError):
        install("galaxy", tmp_repo)


def test_invalid_settings_file_is_not_touched(tmp_repo: Path) -> None:
    path = tmp_repo / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text("{oops")
    with pytest.raises(InvalidValueError, match="not valid JSON"):
        install("project", tmp_repo, command=COMMAND)
    assert path.read_text() == "{oops"


def test_plugin_layout(tmp_path: Path) -> None:
    files = install_plugin(tmp_path / "plugin", command=COMMAND)
    manifest = json.loads((tmp_path / "plugin" / ".claude-plugin" / "plugin.json").read_text())
    hooks = json.loads((tmp_path / "plugin" / "hooks" / "hooks.json").read_text())
    assert manifest["name"] == "kgraph"
    assert set(hooks["hooks"]) == {spec.claude_event for spec in HOOK_SPECS}
    assert len(files) == 2
    assert install_plugin(tmp_path / "plugin", uninstall=True) == files
    assert not (tmp_path / "plugin" / "hooks" / "hooks.json").exists()


def test_install_then_doctor_from_the_cli(
    run_kgraph: Callable[..., CliResult], tmp_repo: Path, db_path: Path
) -> None:
    result = run_kgraph("install", cwd=tmp_repo)
    assert result.returncode == 0, result.stderr
    assert "Installed" in result.stdout
    assert not (tmp_repo / ".claude" / "settings.json").exists()  # the team's file: untouched
    settings = json.loads((tmp_repo / ".claude" / "settings.local.json").read_text())
    # The documented format: event -> [{"hooks": [{"type": "command", "command", "timeout"}]}]
    for event, groups in settings["hooks"].items():
        assert event in {spec.claude_event for spec in HOOK_SPECS}
        (group,) = groups
        assert set(group) <= {"matcher", "hooks"}
        (handler,) = group["hooks"]
        assert set(handler) == {"type", "command", "timeout"} and handler["type"] == "command"
        executable = shlex.split(handler["command"])[0]
        assert os.path.isabs(executable) and os.access(executable, os.X_OK)
        assert isinstance(handler["timeout"], int)
    assert run_kgraph("install", cwd=tmp_repo).stdout.startswith("Nothing to change")
    run_kgraph("workflow", "list", cwd=tmp_repo)  # creates the database
    doctor = run_kgraph("doctor", "--json", cwd=tmp_repo)
    report = json.loads(doctor.stdout)
    failed = [c for c in report["checks"] if c["status"] == "fail"]
    assert doctor.returncode == 0 and report["ok"] and failed == [], report
    names = {c["name"] for c in report["checks"]}
    assert {
        "executable",
        "SessionStart",
        "SessionEnd",
        "database",
        "PostToolUse",
        "hook session-start",
        "hook post-tool-use",
        "hook session-end",
    } <= names
    assert all(c["status"] in ("ok", "warn") for c in report["checks"])
    database = next(c for c in report["checks"] if c["name"] == "database")
    assert database["status"] == "ok" and "schema" in database["detail"]


def test_doctor_reports_missing_wiring(
    run_kgraph: Callable[..., CliResult], tmp_repo: Path
) -> None:
    doctor = run_kgraph("doctor", "--json", "--no-hook-run", cwd=tmp_repo)
    assert doctor.returncode == 1
    report = json.loads(doctor.stdout)
    statuses = {c["name"]: c["status"] for c in report["checks"]}
    assert statuses["SessionStart"] == "fail" and statuses["SessionEnd"] == "fail"


def test_doctor_flags_a_missing_executable(
    run_kgraph: Callable[..., CliResult], tmp_repo: Path
) -> None:
    install("project", tmp_repo, command=["/nonexistent/kgraph"])
    report = json.loads(run_kgraph("doctor", "--json", "--no-hook-run", cwd=tmp_repo).stdout)
    assert any(
        c["status"] == "fail" and "/nonexistent/kgraph" in c["detail"] for c in report["checks"]
    )


def test_install_cli_errors_are_one_line(
    run_kgraph: Callable[..., CliResult], tmp_repo: Path
) -> None:
    (tmp_repo / ".claude").mkdir()
    (tmp_repo / ".claude" / "settings.local.json").write_text("[1, 2]")
    result = run_kgraph("install", cwd=tmp_repo)
    assert (
        result.returncode != 0
        and result.stderr.startswith("Error:")
        and "Traceback" not in result.stderr
    )
    result = run_kgraph("install", "--scope", "nope", cwd=tmp_repo)
    assert result.returncode == 2


def test_local_install_points_at_hooks_left_in_the_committed_settings(
    run_kgraph: Callable[..., CliResult], tmp_repo: Path
) -> None:
    install("project", tmp_repo, command=COMMAND)  # what earlier releases wrote
    result = run_kgraph("install", cwd=tmp_repo)
    assert result.returncode == 0, result.stderr
    assert "kgraph install --scope project --uninstall" in result.stdout


def test_llm_capture_switch_and_doctor_report_the_extractor(
    tmp_repo: Path, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from kgraph.cli.main import cli

    monkeypatch.chdir(tmp_repo)
    bin_dir = tmp_repo / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    runner = CliRunner()
    config = tmp_repo / ".claude" / "kgraph.toml"
    config.parent.mkdir()
    config.write_text("[hooks]\nuser_prompt_max_items = 3  # kept\n")

    result = runner.invoke(cli, ["install", "--llm-capture"])
    assert result.exit_code == 0, result.output
    assert "Model extraction (claude -p) on" in result.output
    assert config.read_text() == (
        '[hooks]\nuser_prompt_max_items = 3  # kept\n\n[capture]\nextractor = "claude"\n'
    )

    def extractor_check() -> dict[str, str]:
        doctor = runner.invoke(cli, ["--db", str(db_path), "doctor", "--json", "--no-hook-run"])
        report = json.loads(doctor.output)
        return next(c for c in report["checks"] if c["name"] == "capture extractor")

    assert extractor_check()["status"] == "warn"  # no `claude` on PATH
    fake = bin_dir / "claude"
    fake.write_text("#!/bin/sh\necho 'HAS_KNOWLEDGE: NO'\n")
    fake.chmod(0o755)
    assert extractor_check() == {
        "name": "capture extractor",
        "status": "ok",
        "detail": f"rules + claude -p ({fake})",
    }

    assert runner.invoke(cli, ["install", "--no-llm-capture"]).exit_code == 0
    assert 'extractor = "claude"' not in config.read_text()
    assert extractor_check()["detail"] == "rules (model extraction off)"


def test_install_then_uninstall_leaves_git_status_as_it_was(
    run_kgraph: Callable[..., CliResult], tmp_repo: Path, git: Callable[..., str]
) -> None:
    """Only kgraph's kept data differs (ignored); with --purge nothing does."""
    status = ("status", "--porcelain", "--ignored")
    (tmp_repo / ".claude").mkdir()
    (tmp_repo / ".claude" / "settings.json").write_text('{"env": {"A": "1"}}\n')
    git(tmp_repo, "add", ".")
    git(tmp_repo, "commit", "-qm", "team settings")
    before = git(tmp_repo, *status)
    for _ in range(2):  # twice: backups, a second history read
        assert run_kgraph("install", cwd=tmp_repo, use_db=False).returncode == 0
    assert (tmp_repo / ".claude" / "execution-state.db").exists()
    assert not list(tmp_repo.glob("*.bak-*")) and not list(tmp_repo.glob(".*.bak-*"))
    assert run_kgraph("install", "--uninstall", cwd=tmp_repo, use_db=False).returncode == 0
    new = [line for line in git(tmp_repo, *status).splitlines() if line not in before]
    assert new and all(line.startswith("!! .claude/") for line in new), new  # kept data only
    assert run_kgraph("install", cwd=tmp_repo, use_db=False).returncode == 0
    asked = run_kgraph("install", "--uninstall", "--purge", cwd=tmp_repo, input="n\n")
    assert asked.returncode == 1 and (tmp_repo / ".claude" / "execution-state.db").exists()
    purged = run_kgraph("install", "--uninstall", "--purge", "--yes", cwd=tmp_repo, use_db=False)
    assert purged.returncode == 0 and "Removed:" in purged.stdout
    assert git(tmp_repo, *status) == before
    assert (tmp_repo / ".claude" / "settings.json").read_text() == '{"env": {"A": "1"}}\n'


def test_install_db_records_the_server_without_its_password(
    run_kgraph: Callable[..., CliResult], tmp_repo: Path
) -> None:
    url = "postgresql+psycopg://kgraph:hunter2@127.0.0.1:1/kgraph"
    result = run_kgraph(
        "install", "--db", url, "--password-env", "KG_PW", "--no-history", cwd=tmp_repo
    )
    assert result.returncode == 0, result.stderr
    setting = (tmp_repo / ".claude" / "kgraph.toml").read_text()
    assert "hunter2" not in setting and "hunter2" not in result.stdout
    assert 'url = "postgresql+psycopg://kgraph@127.0.0.1:1/kgraph"' in setting
    assert 'password_env = "KG_PW"' in setting and "left out of the file" in result.stdout
    refused = run_kgraph("install", "--db", "sqlite:///x.db", cwd=tmp_repo)
    assert refused.returncode == 2 and "team server" in refused.stderr
    alone = run_kgraph("install", "--password-env", "KG_PW", cwd=tmp_repo)
    assert alone.returncode == 2 and "goes with --db" in alone.stderr


def test_install_parses_the_code_graph_unless_told_not_to(
    run_kgraph: Callable[..., CliResult], tmp_repo: Path, git: Callable[..., str]
) -> None:
    from kgraph.codegraph import has_graph, what_calls
    from kgraph.db import open_database

    (tmp_repo / "app.py").write_text("def load():\n    return 1\n\n\ndef main():\n    load()\n")
    git(tmp_repo, "add", ".")
    git(tmp_repo, "commit", "-qm", "app")
    skipped = run_kgraph("install", "--no-graph", "--no-history", cwd=tmp_repo, use_db=False)
    assert skipped.returncode == 0 and "code graph" not in skipped.stdout
    url = f"sqlite:///{tmp_repo / '.claude' / 'execution-state.db'}"
    db = open_database(url)
    assert not has_graph(db)
    db.close()
    done = run_kgraph("install", "--no-history", cwd=tmp_repo, use_db=False)
    assert done.returncode == 0, done.stderr
    assert "Parsed the code graph: 1 files: 1 added" in done.stdout
    db = open_database(url)
    assert [c.caller.name for c in what_calls(db, "load")[1]] == ["main"]
    db.close()
    again = run_kgraph("install", "--no-history", "--json", cwd=tmp_repo, use_db=False)
    assert again.json()["graph"]["unchanged"] == 1  # type: ignore[index]
