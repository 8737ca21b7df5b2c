"""Commit messages as items: which carry knowledge, and how a long one is cut."""

from __future__ import annotations

from kgraph.capture.gate import prose
from kgraph.capture.sources.commit_items import commit_candidates, commit_parts
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
