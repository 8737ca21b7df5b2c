from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kgraph import checkpoint
from kgraph.capture.worker import run_worker
from kgraph.db import Database
from kgraph.hooks.context import HookOptions
from kgraph.hooks.runner import HookResult
from kgraph.knowledge.edit import supersede
from kgraph.knowledge.store import add_item
from kgraph.runtime import queue
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


def test_a_reviews_answer_is_not_in_a_briefing(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    (tmp_repo / "README.md").write_text("changed\n")
    answer = add_item(
        project_db,
        "Address PR review feedback: the README lists the install steps first",
        files=["README.md"],
        data={"origin": "history.review"},
    ).entity_id
    plain = add_item(
        project_db, "The README is rendered on PyPI as markdown", files=["README.md"]
    ).entity_id
    text = context_of(hook("session-start", session_id="s1"))
    assert plain in text and answer not in text


def test_budget_is_respected_by_dropping_whole_items(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    (tmp_repo / "README.md").write_text("changed\n")
    for i in range(120):
        add_item(
            project_db,
            f"Fact {i}: the readme section {i} explains " + "details " * 60,
            files=["README.md" if i % 3 == 0 else f"other{i % 3}.md"],
        )
    text = context_of(hook("session-start", session_id="s1"))
    assert len(text) <= 9_000
    small = context_of(hook("session-start", HookOptions(max_chars=1_500), session_id="s2"))
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
    startup = context_of(hook("session-start", session_id="s2", source="startup"))
    assert (
        workflow.id in compact and "phase implement" in compact and "wrote failing test" in compact
    )
    assert compact.index("Workflow checkpoint") < compact.index(item.entity_id)
    assert startup.index(item.entity_id) < startup.index("Workflow checkpoint")


def test_blast_radius_brings_warnings_about_dependent_files(
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
        project_db,
        "The web api caches engine results: stale after an engine change",
        type="Mistake",
        files=["web/api.py"],
    ).entity_id
    second = add_item(
        project_db,
        "The cli prints engine errors as one line",
        type="Pattern",
        files=["tools/cli.py"],
    ).entity_id
    far = add_item(
        project_db,
        "This file is three hops away from the engine",
        type="Mistake",
        files=["misc/far.py"],
    ).entity_id
    plain = add_item(
        project_db, "The web api was written in one afternoon", files=["web/api.py"]
    ).entity_id
    text = context_of(hook("session-start", session_id="s1"))
    assert near in text and second in text and far not in text and plain not in text
    assert text.index(near) < text.index(second)
    assert "web/api.py depends on it" in text
    assert "Changed now: core/engine.py." in text
    assert "What depends on them: on core/engine.py: web/api.py." in text


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
    (tmp_repo / ".claude").mkdir(exist_ok=True)
    (tmp_repo / ".claude" / "kgraph.toml").write_text(bad)
    (tmp_repo / "README.md").write_text("changed\n")
    item = add_item(project_db, "The README is rendered on PyPI as markdown", files=["README.md"])
    assert item.entity_id in context_of(hook("session-start", session_id="s1"))
    log = (tmp_repo / ".claude" / "kgraph" / "hook.log").read_text()
    assert "kgraph.toml" in log and ("'lots'" in log or "ignored" in log)


def commit_file(git: Callable[..., str], repo: Path, path: str, message: str) -> str:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(f"# {message}\n")
    git(repo, "add", path)
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def test_a_clean_tree_follows_the_branchs_own_commits(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path, git: Callable[..., str]
) -> None:
    commit_file(git, tmp_repo, "src/lexer.py", "feat: lexer on main")
    git(tmp_repo, "checkout", "-q", "-b", "feat/9-parser")
    sha = commit_file(git, tmp_repo, "src/parser.py", "feat: a parser for tags")
    parser = add_item(
        project_db, "The parser reads tags greedily for speed", files=["src/parser.py"]
    ).entity_id
    lexer = add_item(project_db, "The lexer is a hand-written scanner", files=["src/lexer.py"])
    text = context_of(hook("session-start", session_id="s1", source="startup"))
    assert parser in text and lexer.entity_id not in text  # main's commits are not the branch's
    assert f"This branch's commits: {sha[:7]} feat: a parser for tags." in text
    assert "(changed on this branch src/parser.py)" in text
    assert "Changed now" not in text


def recent_items(repo: Path, count: int) -> None:
    """Let a clean-tree briefing bring ``count`` items from recent activity (default none)."""
    (repo / ".claude").mkdir(exist_ok=True)
    (repo / ".claude" / "kgraph.toml").write_text(
        f"[hooks]\nsession_start_recent_items = {count}\n"
    )
    with (repo / ".git" / "info" / "exclude").open("a") as exclude:
        exclude.write("/.claude/\n")  # as kgraph install does: the tree stays clean


def test_on_the_default_branch_its_latest_commits_count(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path, git: Callable[..., str]
) -> None:
    recent_items(tmp_repo, 3)
    commit_file(git, tmp_repo, "src/lexer.py", "fix: lexer drops a trailing newline")
    item = add_item(project_db, "The lexer is a hand-written scanner", files=["src/lexer.py"])
    text = context_of(hook("session-start", session_id="s1", source="startup"))
    assert item.entity_id in text and "(recently changed src/lexer.py)" in text
    assert "Latest commits: " in text and "fix: lexer drops a trailing newline" in text


def test_files_edited_in_recent_sessions_count(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    from kgraph.capture.sessions import update_session

    def edited(paths: list[str]) -> Callable[[dict[str, Any]], None]:
        def change(row: dict[str, Any]) -> None:
            row["data"]["files_edited"] = paths

        return change

    recent_items(tmp_repo, 3)
    update_session(project_db, "earlier", edited([str(tmp_repo / "src/cache.py")]))
    update_session(project_db, "s1", edited(["src/own.py"]))  # the session itself: not recent work
    cache = add_item(project_db, "The cache key includes the template uri", files=["src/cache.py"])
    own = add_item(project_db, "Own file knowledge of the current session", files=["src/own.py"])
    text = context_of(hook("session-start", session_id="s1", source="startup"))
    assert cache.entity_id in text and own.entity_id not in text
    assert "Edited in recent sessions: src/cache.py." in text
    assert "(edited in a recent session src/cache.py)" in text


def test_the_active_workflows_commits_count(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path, git: Callable[..., str]
) -> None:
    git(tmp_repo, "checkout", "-q", "-b", "issue-5")
    sha = commit_file(git, tmp_repo, "src/render.py", "feat: render")
    git(tmp_repo, "checkout", "-q", "main")
    git(tmp_repo, "checkout", "-q", "-b", "issue-5-again")
    workflow = checkpoint.create_workflow(project_db, 5, "issue-5", phase="implement")
    checkpoint.log_commit(project_db, workflow.id, sha, "feat: render")
    item = add_item(project_db, "Rendering escapes HTML by default", files=["src/render.py"])
    text = context_of(hook("session-start", session_id="s1", source="startup"))
    assert item.entity_id in text and "(in the workflow's commits src/render.py)" in text
    assert workflow.id in text


def test_project_rules_come_as_a_short_tail(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    (tmp_repo / "README.md").write_text("changed\n")
    item = add_item(project_db, "The README is rendered on PyPI", files=["README.md"]).entity_id
    rules = []
    for i in range(5):
        text = f"Rule {i}: never import the network layer from templates, variant {i}"
        for _ in range(2):
            rules.append(add_item(project_db, text, type="Pattern", confidence=0.9).entity_id)
    add_item(project_db, "Seen once, not a rule", type="Pattern", confidence=0.95)
    text = context_of(hook("session-start", session_id="s1", source="startup"))
    tail = text.split("## Project rules (seen in several sessions)")[1]
    assert text.index(item) < text.index("## Project rules")
    assert tail.count("\n- ") == 3 and "Seen once" not in text


def test_a_changelog_among_the_changes_brings_nothing_by_itself(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    for i in range(30):
        add_item(project_db, f"Release note {i} for a fix", files=["CHANGES.rst", f"src/m{i}.py"])
    (tmp_repo / "CHANGES.rst").write_text("changed\n")
    (tmp_repo / "src").mkdir()
    (tmp_repo / "src" / "m3.py").write_text("changed\n")
    text = context_of(hook("session-start", session_id="s1", source="startup"))
    assert text.count("\n- ") == 1 and "Release note 3 " in text
    assert "Changed now: CHANGES.rst, src/m3.py." in text


def test_recent_activity_gives_a_short_briefing_and_yields_to_changed_files(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path, git: Callable[..., str]
) -> None:
    for n in range(4):
        commit_file(git, tmp_repo, f"src/m{n}.py", f"feat: module {n}")
        for i in range(3):
            add_item(project_db, f"Module {n} fact {i} about its parser", files=[f"src/m{n}.py"])
    from kgraph.capture.sessions import update_session

    update_session(project_db, "s-1", lambda row: None)  # a session is recorded: not day one
    # By default a clean tree brings no items: the first prompt does.
    assert hook("session-start", session_id="s0", source="startup").stdout == ""
    recent_items(tmp_repo, 3)
    clean = context_of(hook("session-start", session_id="s1", source="startup"))
    assert clean.count("\n- ") == 3  # session_start_recent_items
    assert "##" not in clean  # no changed files, no areas to group by
    (tmp_repo / "other.py").write_text("changed\n")
    add_item(project_db, "The other module is generated", files=["other.py"])
    dirty = context_of(hook("session-start", session_id="s2", source="startup"))
    assert "The other module is generated" in dirty and "recently changed" not in dirty


def test_one_file_brings_at_most_eight_items(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    (tmp_repo / "core.py").write_text("changed\n")
    for i in range(12):
        add_item(project_db, f"Core fact {i} about the engine loop", files=["core.py"])
    for i in range(30):
        add_item(project_db, f"Elsewhere fact {i} about other modules", files=[f"x{i}.py"])
    text = context_of(hook("session-start", session_id="s1", source="startup"))
    assert text.count("\n- ") == 8


def test_a_changed_file_every_item_is_about_still_brings_its_items(
    hook: Callable[..., HookResult],
    project_db: Database,
    tmp_repo: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # With 40 or more items about one file its rarity fell to 0 and session start said
    # nothing at all, the Mistake included.
    for i in range(60):
        add_item(project_db, f"Handler fact {i}: header {i} stays bytes", files=["src/handler.py"])
    mistake = add_item(
        project_db,
        "handler.py raises KeyError when X-Request-Id is missing; default it",
        type="Mistake",
        files=["src/handler.py"],
    )
    (tmp_repo / "src").mkdir()
    (tmp_repo / "src" / "handler.py").write_text("changed\n")
    text = context_of(hook("session-start", session_id="s1", source="startup"))
    assert text.index(f"Mistake [{mistake.entity_id}]") < text.index("Handler fact")
    assert text.count("\n- ") == 8  # at most eight items brought by one file


def test_a_silent_briefing_says_why_in_the_log(
    hook: Callable[..., HookResult],
    project_db: Database,
    tmp_repo: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KGRAPH_HOOK_DEBUG", "1")
    add_item(project_db, "The lexer is a hand-written scanner", files=["src/lexer.py"])
    assert hook("session-start", session_id="s1", source="startup").stdout == ""
    log = (tmp_repo / ".claude" / "kgraph" / "hook.log").read_text()
    assert "session-start printed nothing: clean tree: items from recent activity are off" in log


def test_a_resumed_session_keeps_to_what_is_left_of_its_budget(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    from kgraph.runtime.seen import remember

    recent_items(tmp_repo, 0)
    config = tmp_repo / ".claude" / "kgraph.toml"
    config.write_text(config.read_text() + "session_max_chars = 900\n")
    for i in range(20):
        add_item(project_db, f"The cache key {i} includes the template uri", files=["src/cache.py"])
    (tmp_repo / "src").mkdir()
    (tmp_repo / "src" / "cache.py").write_text("changed\n")
    first = context_of(hook("session-start", session_id="s1", source="startup"))
    assert len(first) <= 900 and first.count("\n- ") < 8  # more items than fit
    remember(tmp_repo, "s1", [], chars=900 - len(first))  # the prompts spent the rest
    assert hook("session-start", session_id="s1", source="resume").stdout == ""
    assert hook("session-start", session_id="s1", source="compact").stdout  # context emptied


def test_the_first_session_on_a_clean_tree_meets_what_is_known_of_the_busiest_files(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path, git: Callable[..., str]
) -> None:
    from kgraph.capture.sessions import update_session

    recent_items(tmp_repo, 0)
    busy = []
    for n in range(3):
        sha = commit_file(git, tmp_repo, "src/lexer.py", f"fix: lexer bug {n}")
        busy.append(
            add_item(
                project_db,
                f"fix: lexer bug {n}\n\nThe scanner stopped {n} characters early.",
                files=["src/lexer.py"],
                source="commit",
                source_ref=sha,
            ).entity_id
        )
    sha = commit_file(git, tmp_repo, "docs/notes.txt", "docs: a note")  # the newest, once
    quiet = add_item(
        project_db, "docs: a note\n\nNotes are plain text.", files=["docs/notes.txt"]
    ).entity_id
    sha = commit_file(git, tmp_repo, "src/lexer.py", "feat: lexer rework")
    listed = add_item(  # a commit's list of its changes: no prompt's words picked it
        project_db,
        "feat: lexer rework\n\n- faster scan\n- new tokens\n- fewer allocations",
        files=["src/lexer.py", "src/tokens.py"],
        source="commit",
        source_ref=sha,
        data={"origin": "history"},
    ).entity_id
    first = context_of(hook("session-start", session_id="s1", source="startup"))
    assert all(item in first for item in busy) and quiet not in first and listed not in first
    assert "(about the files changed most lately)" in first
    update_session(project_db, "s1", lambda row: None)  # a session is recorded: day one is over
    assert hook("session-start", session_id="s2", source="startup").stdout == ""


def test_the_next_briefing_says_once_what_catch_up_captured(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    from kgraph.runtime.notice import note_catchup

    note_catchup(tmp_repo, 2)
    note_catchup(tmp_repo, 1)  # a second catch-up before any session start: added up
    text = context_of(hook("session-start", session_id="s1", source="startup"))
    assert text.startswith("<kgraph-context>\nkgraph captured 3 earlier session(s)")
    assert hook("session-start", session_id="s2", source="startup").stdout == ""  # said once


def test_when_git_cannot_say_which_commits_head_lacks_the_log_says_so(
    hook: Callable[..., HookResult],
    project_db: Database,
    tmp_repo: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Git gone from the project (here: its directory moved away) cannot say which commits
    # HEAD's history lacks, so no item is left out as another branch's: the log says so.
    monkeypatch.setenv("KGRAPH_HOOK_DEBUG", "1")
    add_item(project_db, "Work on a branch", source="commit", source_ref="ab" * 20)
    (tmp_repo / ".git").rename(tmp_repo / "git.moved")
    hook("session-start", session_id="s1", source="startup")
    log = (tmp_repo / ".claude" / "kgraph" / "hook.log").read_text()
    assert "git did not say which commits HEAD lacks" in log
