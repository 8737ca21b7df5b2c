from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kgraph.capture.sources.commits import (
    clean_body,
    commit_content,
    explains_why,
    is_review_response,
    issue_reference,
    knowledge_reason,
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


def test_a_gitmoji_review_answer_is_known_as_one() -> None:
    assert is_review_response(parse_commit("abc", "🐛 fix: Address PR review feedback" + BODY))


def test_non_conventional_subject_keeps_its_text() -> None:
    commit = parse_commit("abc", "Fix the thing")
    assert commit.type is None and commit.scope is None and commit.description == "Fix the thing"


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ("feat: x\n\nBREAKING CHANGE: the config key moved to [hooks]", "breaking"),
        (
            "refactor(db): split the module\n\nThe engine setup and retries were tangled; "
            "retries now wrap whole transactions.",
            "body",
        ),
        ("fix(api): 500 on empty body because the parser assumed JSON", "cause"),
        # A one-line message must say why (subjects cut from entireio/cli and mako):
        # one naming only the change reached replayed sessions as junk.
        ("Fix deprecation warnings due to invalid escape sequences.", "cause"),
        ("compare shas instead of comparing contents", None),
        ("Make Gemini hooks always use go run (#80)", None),
        ("bugfix: make sure we always use the right path, even if claude cwd", None),
        ("fix: typo", None),
        ("docs: update readme", None),
        ("chore(release): 1.2.3", None),
        # A prompt a tool committed as the message, cut short: headings explain nothing
        # (cut from a repository nobody had used when the rules were written).
        (
            "Implement the following plan:\n\n# Plan: Implement Pydantic Logfire for Ag\n\n"
            "Entire-Checkpoint: e16729a1a7f8",
            None,
        ),
        (
            "Implement the following plan:\n\n# Plan: Cache the tokens\n\nTokens expired "
            "mid-request because the refresh ran after the call",
            "body",
        ),
        (
            "feat: add login\n\nCo-authored-by: Claude <noreply@anthropic.com>\n\n"
            "🤖 Generated with [Claude Code](https://claude.com/claude-code)",
            None,
        ),
    ],
)
def test_knowledge_reason(message: str, reason: str | None) -> None:
    assert knowledge_reason(parse_commit("abc", message)) == reason


BODY = "\n\n- Use Committer.When instead of Author.When for RewindPoint.Date\n- Capitalize [Task]"


@pytest.mark.parametrize(
    "subject",
    [  # subjects of entireio/cli's history, and one of httpx's
        "fix(explain): address low severity PR feedback",
        "Address PR review: use state.WorktreePath, scope amend to current HEAD",
        "Address Bugbot review: extract turn-end helper, add load-error warnings",
        "fix: address PR review comments for worktree-specific shadow branches",
        "Copilot review comments addressed",
        "Implement feedback: Remove duplicates, add hooks.enabled assertion",
        "review feedback, one more case tested",
        "addresses pull request feedback",
        "lint: GH inline feedback & golangci-lint latest (#211)",
        "Address review comments",
    ],
)
def test_a_commit_answering_a_review_is_known_by_its_subject(subject: str) -> None:
    assert is_review_response(parse_commit("abc", subject + BODY))


@pytest.mark.parametrize(
    "subject",
    [  # a review as a feature or an act, not a list of a reviewer's points
        "Review URL percent escaping sets, from whatwg. (#3371)",
        "Add .gitreview file",
        "fix(cli): review command crashes on an empty store",
        "Fix review page layout on narrow screens",
        "feat: feedback form validates the email",
        "chore: update prompts and sandbox configuration for live preview functionality",
    ],
)
def test_a_subject_naming_a_review_feature_is_no_answer_to_one(subject: str) -> None:
    assert not is_review_response(parse_commit("abc", subject + BODY))


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


@pytest.mark.parametrize(
    "message",
    [
        # Messages cut from the capture-dev sessions' repository (entireio/cli) that say why
        "perf: consolidate git status calls in stop hook\n\nCombine ComputeNewFiles and "
        "ComputeDeletedFiles into a single ComputeFileChanges function that calls "
        "worktree.Status() once instead of twice. This reduces stop hook latency by "
        "~40-80ms in repos with 400+ files.",
        "Fix missing TurnEnd transition in Gemini AfterAgent handler\n\nhandleGeminiAfterAgent "
        "was not firing EventTurnEnd, leaving sessions stuck in ACTIVE.",
        "fix: timestamps are UTC so that sessions sort across machines",
    ],
)
def test_a_message_that_says_why_explains(message: str) -> None:
    assert explains_why(message)


@pytest.mark.parametrize(
    "message",
    [
        # Change lists and descriptions: what the diff shows, no reason given
        "feat: improve header UX with blue download button\n\n- Change download button to "
        "blue theme color matching send button\n- Make logo and title area clickable",
        "Track last interaction time for sessions and show in status\n\nUpdate "
        "InitializeSession in both strategies to record LastInteractionAt on every prompt.",
        # What replaced what is not why (cut from unseen sessions: git-sync, a ClickHouse CLI)
        "Simplify after review: dedupe, trim comments, flatten conditionals\n\nUse "
        "convert.DesiredRefsForPlans in the bootstrap tail phase instead of building "
        "gitproto.DesiredRef inline.",
        "refactor: store migration journal in ClickHouse instead of local JSON\n\nRemove "
        "local journal read/write functions from migration-store.ts rather than keep both.",
    ],
)
def test_a_message_that_lists_what_changed_does_not_explain(message: str) -> None:
    assert knowledge_reason(parse_commit("abc", message)) == "body"  # still a Learning
    assert not explains_why(message)


@pytest.mark.parametrize(
    ("message", "files", "reason"),
    [
        # Cut from unseen sessions (tuicraft, duet, a medgemma fork): what the documents
        # now hold, no reason given.
        (
            "docs(14): capture phase context\n\nPhase 14: User-to-User Sharing\n- "
            "Implementation decisions documented\n- Phase boundary established",
            (),
            None,
        ),
        (
            "Rewrite README and trim CLAUDE.md preamble\n\nThe README was still bun init "
            "boilerplate. Replaced it with a proper project README covering usage.",
            ("README.md", "CLAUDE.md"),
            None,
        ),
        # A rule or a decision of the documents is knowledge.
        (
            "docs: require bun verify before creating PRs (#41)\n\nUpdate CLAUDE.md to "
            "enforce verification checks before PR creation: the agent must run bun verify.",
            ("CLAUDE.md",),
            "body",
        ),
        (
            "Add the plugin guide's configuration page\n\nDescribes every option the "
            "plugin reads, with an example of each one and its default value.",
            ("packages/plugin/docs/config.adoc",),
            None,
        ),
        # A requirements file is not a document: its change's message is read as any other.
        (
            "Pin numpy below 2\n\nThe wheels of the image library are built against the "
            "old ABI and crash on import with numpy 2 installed.",
            ("requirements.txt",),
            "body",
        ),
        # A release lists what other commits changed (cut from an unseen session).
        (
            "chore(release): v0.16.1\n\nPatch release: verify-docs gate edge-case "
            "hardening.\n\n- URI encoding for DB paths with special characters\n- Absolute "
            "path rejection in doc scanning",
            ("pyproject.toml", "CHANGELOG.md"),
            None,
        ),
        (
            "Bump to 0.2.0 for flattened layout and drop stale GEMINI.md reference\n\n"
            "Signals the repo-layout change to pinned installers of the skills.",
            ("package.json",),
            None,
        ),
        (
            "fix(release): tag after the upload\n\nThe release script tagged before the "
            "upload, so a failed upload left a tag that pointed at nothing published.",
            ("scripts/release.sh",),
            "body",
        ),
        # Code beside the documents is not a documentation commit.
        (
            "Rewrite README and the CLI usage text\n\nThe README was still bun init "
            "boilerplate. Replaced it with a proper project README covering usage.",
            ("README.md", "src/cli.ts"),
            "body",
        ),
    ],
)
def test_a_documentation_commit_carries_knowledge_only_with_a_reason_or_rule(
    message: str, files: tuple[str, ...], reason: str | None
) -> None:
    assert knowledge_reason(parse_commit("abc", message, files)) == reason
