from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from kgraph import checkpoint
from kgraph.capture import queue
from kgraph.capture.snapshot import load_snapshot, snapshot_path
from kgraph.capture.worker import run_worker
from kgraph.db import Database
from kgraph.hooks.runner import HookOptions, HookResult
from kgraph.knowledge.store import add_item, supersede
from tests.hooks.conftest import context_of
from tests.hooks.graph_rows import add_graph


def test_no_database_means_no_output_and_no_database_created(
    hook: Callable[..., HookResult], tmp_repo: Path
) -> None:
    result = hook("session-start", session_id="s1", source="startup")
    assert result.stdout == ""
    assert not (tmp_repo / ".claude" / "execution-state.db").exists()
    kinds = sorted(json.loads(p.read_text())["kind"] for p in queue.pending(tmp_repo))
    assert kinds == ["catchup", "start"]  # the worker records the session and catches up


def test_nothing_relevant_means_no_output(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    add_item(
        project_db, "Billing totals are rounded half-even per invoice line", files=["billing/x.py"]
    )
    assert hook("session-start", session_id="s1", source="startup").stdout == ""


def test_briefing_ranks_mistakes_in_touched_files_first_with_ids(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path, git: Callable[..., str]
) -> None:
    git(tmp_repo, "checkout", "-q", "-b", "feat/12-login")
    (tmp_repo / "src").mkdir()
    (tmp_repo / "src" / "login.py").write_text("x = 1\n")
    learning = add_item(
        project_db,
        "Login retries back off exponentially because auth rate-limits",
        files=["src/login.py"],
    ).entity_id
    mistake = add_item(
        project_db,
        "Calling refresh twice revoked the session token",
        type="Mistake",
        files=["src/login.py"],
        confidence=0.5,
    ).entity_id
    by_issue = add_item(
        project_db, "Issue 12 needs the SSO flow kept behind a flag", issue_number=12
    ).entity_id
    add_item(project_db, "Unrelated fact about billing rounding rules here", files=["billing/x.py"])
    text = context_of(hook("session-start", session_id="s1", source="startup"))
    assert text.startswith("<kgraph-context>") and text.endswith("</kgraph-context>")
    assert text.index(mistake) < text.index(learning) < text.index(by_issue)
    assert "billing" not in text
    assert "kgraph knowledge show ID" in text
    assert len(text) <= 9_000


def test_superseded_items_are_not_injected(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    (tmp_repo / "README.md").write_text("changed\n")
    old = add_item(
        project_db, "The README is generated from docs/index.md by make", files=["README.md"]
    )
    new = add_item(
        project_db, "The README is written by hand since the docs move", files=["README.md"]
    )
    supersede(project_db, old.entity_id, new.entity_id)
    text = context_of(hook("session-start", session_id="s1"))
    assert new.entity_id in text and old.entity_id not in text


def test_budget_is_respected_by_dropping_whole_items(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    (tmp_repo / "README.md").write_text("changed\n")
    for i in range(120):
        add_item(
            project_db,
            f"Fact {i}: the readme section {i} explains " + "details " * 60,
            files=["README.md"],
        )
    text = context_of(hook("session-start", session_id="s1"))
    assert len(text) <= 9_000
    small = context_of(hook("session-start", HookOptions(max_chars=1_500), session_id="s1"))
    assert len(small) <= 1_500
    assert small.count("\n- ") < text.count("\n- ")


def test_workflow_checkpoint_leads_after_compaction(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path, git: Callable[..., str]
) -> None:
    git(tmp_repo, "checkout", "-q", "-b", "issue-31")
    (tmp_repo / "README.md").write_text("changed\n")
    workflow = checkpoint.create_workflow(project_db, 31, "issue-31", phase="implement")
    checkpoint.log_action(project_db, workflow.id, "wrote failing test", "success")
    item = add_item(project_db, "The README install section is checked by CI", files=["README.md"])
    compact = context_of(hook("session-start", session_id="s1", source="compact"))
    startup = context_of(hook("session-start", session_id="s1", source="startup"))
    assert (
        workflow.id in compact and "phase implement" in compact and "wrote failing test" in compact
    )
    assert compact.index("Workflow checkpoint") < compact.index(item.entity_id)
    assert startup.index(item.entity_id) < startup.index("Workflow checkpoint")


def test_blast_radius_brings_knowledge_about_dependent_files(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    (tmp_repo / "core").mkdir()
    (tmp_repo / "core" / "engine.py").write_text("changed\n")
    files = ["core/engine.py", "web/api.py", "tools/cli.py", "misc/far.py"]
    add_graph(
        project_db,
        files,
        [
            ("web/api.py", "core/engine.py"),
            ("tools/cli.py", "web/api.py"),
            ("misc/far.py", "tools/cli.py"),
        ],
    )
    near = add_item(
        project_db, "The web api caches engine results for one minute", files=["web/api.py"]
    ).entity_id
    second = add_item(
        project_db, "The cli prints engine errors as one line", files=["tools/cli.py"]
    ).entity_id
    far = add_item(
        project_db, "This file is three hops away from the engine", files=["misc/far.py"]
    ).entity_id
    text = context_of(hook("session-start", session_id="s1"))
    assert near in text and second in text and far not in text
    assert text.index(near) < text.index(second)
    assert "web/api.py depends on a changed file" in text


def test_snapshot_gives_the_same_briefing_as_the_database(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path, git: Callable[..., str]
) -> None:
    git(tmp_repo, "checkout", "-q", "-b", "feat/8-x")
    (tmp_repo / "core").mkdir()
    (tmp_repo / "core" / "engine.py").write_text("changed\n")
    add_graph(project_db, ["core/engine.py", "web/api.py"], [("web/api.py", "core/engine.py")])
    add_item(project_db, "The web api caches engine results", files=["web/api.py"])
    add_item(
        project_db,
        "The engine must stay free of network calls",
        type="Pattern",
        files=["core/engine.py"],
    )
    add_item(project_db, "Issue 8 is about the export format only", issue_number=8)
    add_item(project_db, "A long note on the engine: " + "detail " * 200, files=["core/engine.py"])
    checkpoint.create_workflow(project_db, 8, "feat/8-x")
    from_db = context_of(
        hook("session-start", HookOptions(dry_run=True), session_id="s1", source="compact")
    )
    project_db.close()
    run_worker(tmp_repo)  # refreshes the snapshot
    assert load_snapshot(tmp_repo, project_db.path) is not None
    from_snapshot = context_of(
        hook("session-start", HookOptions(dry_run=True), session_id="s1", source="compact")
    )
    assert from_snapshot == from_db


def test_a_stale_snapshot_is_not_used(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    (tmp_repo / "README.md").write_text("changed\n")
    add_item(project_db, "The README badge links to the CI workflow", files=["README.md"])
    project_db.close()
    run_worker(tmp_repo)
    assert snapshot_path(tmp_repo).exists()
    from kgraph.db import open_database

    db = open_database(f"sqlite:///{tmp_repo / '.claude' / 'execution-state.db'}")
    late = add_item(db, "The README must mention the Python version", files=["README.md"]).entity_id
    db.close()
    assert load_snapshot(tmp_repo, project_db.path) is None
    assert late in context_of(hook("session-start", HookOptions(dry_run=True), session_id="s1"))


def test_session_record_is_written_by_the_worker(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path, git: Callable[..., str]
) -> None:
    from kgraph.capture.sessions import get_session

    git(tmp_repo, "checkout", "-q", "-b", "feat/77-y")
    (tmp_repo / "README.md").write_text("changed\n")
    item = add_item(project_db, "The README is the package long description", files=["README.md"])
    transcript = str(tmp_repo / "t.jsonl")
    hook("session-start", session_id="s1", source="startup", transcript_path=transcript)
    run_worker(tmp_repo)
    record = get_session(project_db, "s1")
    assert record.head_at_start == git(tmp_repo, "rev-parse", "HEAD").strip()
    assert record.branch == "feat/77-y" and record.issue_number == 77
    assert record.transcript_path == transcript
    assert record.injected_ids == (item.entity_id,)
    assert queue.pending(tmp_repo) == []


def test_dry_run_writes_nothing(hook: Callable[..., HookResult], tmp_repo: Path) -> None:
    hook("session-start", HookOptions(dry_run=True), session_id="s1")
    assert queue.pending(tmp_repo) == []


@pytest.mark.parametrize("bad", ["[hooks]\nsession_start_max_chars = 'lots'\n", "not toml ["])
def test_bad_settings_fall_back_to_defaults(
    bad: str, hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    (tmp_repo / ".claude" / "kgraph.toml").write_text(bad)
    (tmp_repo / "README.md").write_text("changed\n")
    item = add_item(project_db, "The README is rendered on PyPI as markdown", files=["README.md"])
    assert item.entity_id in context_of(hook("session-start", session_id="s1"))
