"""Commit messages as items: which carry knowledge, and how a long one is cut."""

from __future__ import annotations

import pytest

from kgraph.capture.gate import prose
from kgraph.capture.sources.commit_items import (
    commit_candidates,
    commit_parts,
    explains_why,
    is_review_response,
    knowledge_reason,
)
from kgraph.capture.sources.commits import parse_commit
from kgraph.knowledge.areas import AreaRules

# Cut from JanDeDobbeleer/oh-my-posh (MIT), 2d032d4: a cause, then its fix, 750 characters
PWSH = """fix(pwsh): stop async prompt clobbering third-party prompt wrappers

async: true deferred the entire init script, including the line that
installs the global `prompt` function, to the first prompt draw.
Anything wrapping `prompt` before that draw (e.g. zoxide's directory
hook) got silently overwritten once the deferred script ran, since
PowerShell's global prompt binding is written to unconditionally.

Route the deferred install through a global function pointer variable
instead: the trampoline installed at init time now owns the `prompt`
binding permanently and never gets replaced, so anything wrapping it
keeps a valid reference across the lazy load, re-init, and module
removal.
"""


def test_a_message_that_fits_is_one_item() -> None:
    commit = parse_commit("a" * 40, "fix: retry on 503\n\nThe proxy answers 503 while warming up.")
    assert commit_parts(commit) == ["fix: retry on 503\n\nThe proxy answers 503 while warming up."]


def test_a_long_message_without_bullets_is_cut_at_a_sentence() -> None:
    (part,) = commit_parts(parse_commit("a" * 40, PWSH))
    assert part.endswith("written to unconditionally.")  # the cause, whole
    assert len(part) <= prose.MAX_ITEM_CHARS


def test_a_long_message_s_bullets_that_say_something_are_items_with_the_subject() -> None:
    body = (
        "The cache key ignored the locale, so a French user got the English page.\n\n"
        "- Key pages by locale, because two users of one page may differ in language\n"
        "- Drop the old keys on deploy, otherwise the English pages stay cached\n"
        + "\n".join(f"- Badge {n}" for n in range(60))
    )
    parts = commit_parts(parse_commit("d" * 40, f"fix(cache): key pages by locale\n\n{body}"))
    assert parts == [
        "fix(cache): key pages by locale — Key pages by locale, because two users of one page "
        "may differ in language",
        "fix(cache): key pages by locale — Drop the old keys on deploy, otherwise the English "
        "pages stay cached",
    ]


def test_a_commit_listing_what_changed_waits_as_a_candidate() -> None:

    listed = parse_commit(
        "a" * 40,
        "feat(web): wire random IPNS keys through useFolder hook\n\n"
        "- handleAddFile passes userPublicKey to createFileMetadata\n"
        "- forward ipnsPrivateKeyEncrypted to addFileToFolder",
    )
    explained = parse_commit(
        "b" * 40,
        "fix(docker): add database name to postgres healthcheck\n\n"
        "pg_isready without -d connects to a database named after the user, which "
        "does not exist on staging.",
    )
    breaking = parse_commit("c" * 40, "feat!: drop v1 tokens\n\n- Remove v1 parsing")
    found = commit_candidates([listed, explained, breaking], AreaRules())
    assert [(c.origin, c.trusted) for c in found] == [
        ("commit.what", False),  # the diff says as much
        ("commit", True),
        ("commit", True),  # a breaking change is news wherever it is shown
    ]


def test_a_review_answer_that_only_lists_changes_waits() -> None:

    # Cut from 135yshr/meow (MIT): the reviewer's points, done, with no reason given
    listed = parse_commit(
        "a" * 40,
        "🔒 fix: Address CodeRabbit review feedback\n\n"
        "- Pin all GitHub Actions to full commit SHAs\n"
        "- Pin stringer (v0.42.0) and golangci-lint (v2.9.0) versions\n"
        "- Narrow .gitignore *.out to coverage*.out",
    )
    explained = parse_commit(
        "b" * 40,
        "fix: address PR review feedback on gitutil package\n\n"
        '- CheckoutBranch: reject refs starting with "-" to prevent option injection',
    )
    found = commit_candidates([listed, explained], AreaRules())
    assert [(c.origin, c.trusted) for c in found] == [
        ("commit.what", False),
        ("commit.review", True),
    ]


def test_a_gitmoji_review_answer_is_known_as_one() -> None:
    assert is_review_response(parse_commit("abc", "🐛 fix: Address PR review feedback" + BODY))


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
