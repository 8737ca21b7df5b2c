from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kgraph.capture.sources.commit_items import knowledge_reason
from kgraph.capture.sources.commits import (
    clean_body,
    commit_content,
    issue_reference,
    parse_commit,
    session_commits,
)


def test_parse_conventional_commit() -> None:
    commit = parse_commit(
        "abc",
        "feat(auth)!: drop the v1 token format\n\nClients must re-login.\n\n"
        "Co-authored-by: X <x@y>\nSigned-off-by: Y <y@z>",
    )
    assert (commit.type, commit.scope, commit.description) == (
        "feat",
        "auth",
        "drop the v1 token format",
    )
    assert commit.breaking
    assert commit.body == "Clients must re-login."


@pytest.mark.parametrize(
    ("subject", "parsed"),
    [  # gitmoji subjects, as 135yshr/meow (MIT) writes them, and as shortcodes
        ("🐛 fix: Address PR review feedback", ("fix", None, "Address PR review feedback")),
        ("♻️ refactor(runtime): propagate errors", ("refactor", "runtime", "propagate errors")),
        (":memo: docs: explain the flags", ("docs", None, "explain the flags")),
    ],
)
def test_a_gitmoji_subject_is_conventional(
    subject: str, parsed: tuple[str, str | None, str]
) -> None:
    commit = parse_commit("abc", subject)
    assert (commit.type, commit.scope, commit.description) == parsed


def test_non_conventional_subject_keeps_its_text() -> None:
    commit = parse_commit("abc", "Fix the thing")
    assert commit.type is None and commit.scope is None and commit.description == "Fix the thing"


def test_content_and_issue_reference() -> None:
    commit = parse_commit(
        "abc", "fix(api): 500 on empty body (#42)\n\nThe parser assumed a JSON body."
    )
    assert (
        commit_content(commit)
        == "fix(api): 500 on empty body (#42)\n\nThe parser assumed a JSON body."
    )
    assert issue_reference(commit) == 42


def test_session_commits_are_those_after_the_start_head(
    tmp_repo: Path, git: Callable[..., str]
) -> None:
    start = git(tmp_repo, "rev-parse", "HEAD").strip()
    (tmp_repo / "a.py").write_text("a\n")
    git(tmp_repo, "add", ".")
    git(tmp_repo, "commit", "-qm", "feat(core): add a\n\nBecause b needs it.")
    (tmp_repo / "b.py").write_text("b\n")
    git(tmp_repo, "add", ".")
    git(tmp_repo, "commit", "-qm", "fix: b")
    commits = session_commits(tmp_repo, start)
    assert [c.subject for c in commits] == ["feat(core): add a", "fix: b"]
    assert commits[0].files == ("a.py",) and commits[0].body == "Because b needs it."
    end = git(tmp_repo, "rev-parse", "HEAD~1").strip()
    assert [c.subject for c in session_commits(tmp_repo, start, end=end)] == ["feat(core): add a"]
    assert session_commits(tmp_repo, None) == []
    assert session_commits(tmp_repo, "0" * 40) == []  # unknown start: nothing, not everything


def test_a_squash_merge_s_default_subjects_are_not_an_explanation() -> None:
    listed = parse_commit(
        "c" * 40,
        "Context managed transports (#1218)\n\n* Context managed transports\n"
        "* Update httpx/_client.py\n* Update httpx/_client.py\n* Update tests/test_client.py\n"
        "* Merge branch 'master' into transports",
    )
    assert listed.body == "* Context managed transports"
    assert knowledge_reason(listed) is None  # three words left: nothing explained
    explained = parse_commit(
        "d" * 40,
        "Update _client.py (#2247)\n\nUpdate the type annotation for the default_encoding "
        "parameter to accept a callable.\n* Update httpx/_client.py",
    )
    assert explained.body.startswith("Update the type annotation")  # a sentence stays
    assert knowledge_reason(explained) == "body"


def test_a_final_block_of_hyphenated_trailers_is_cut_whatever_their_names() -> None:
    # Cut from the entireio/cli history: its tool adds a trailer of its own to each commit.
    body = (
        "Add consistent naming across all hook handlers:\n"
        "- handleSessionStart -> handleClaudeCodeSessionStart\n\n"
        "Entire-Checkpoint: f4c22585e449"
    )
    assert clean_body(body) == (
        "Add consistent naming across all hook handlers:\n"
        "- handleSessionStart -> handleClaudeCodeSessionStart"
    )
    assert clean_body("Entire-Checkpoint: 84324d6610f2") == ""
    # Inside the text, a hyphenated word before a colon is prose.
    prose = "Follow-up: the retry loop still holds the lock.\nIt is released on exit."
    assert clean_body(prose) == prose


def test_a_record_a_program_wrote_into_the_message_is_no_explanation() -> None:
    # The shape `datalad run` commits with: the command, then its JSON run record.
    record = (
        "[DATALAD RUNCMD] yolo /speckit.implement\n\n=== Do not change lines below ===\n"
        '{\n "chain": [],\n "cmd": "yolo /speckit.implement",\n "exit": 0,\n'
        ' "extra_inputs": [],\n "inputs": [],\n "outputs": [],\n "pwd": "."\n}\n'
        "^^^ Do not change lines above ^^^"
    )
    commit = parse_commit("e" * 40, record)
    assert commit.body == ""
    assert knowledge_reason(commit) is None
    # a brace that opens no JSON (a code sample in the prose) is kept
    sample = "Guard the retry loop because it spun forever:\n{\n  retries += 1;\n}"
    assert clean_body(sample) == sample
