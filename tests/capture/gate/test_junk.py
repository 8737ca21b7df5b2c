from __future__ import annotations

import pytest

from kgraph.capture.gate.junk import JunkGate, junk_reason, rubric_reason


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("   ", "empty"),
        (None, "empty"),
        ("fixed", "too short"),
        ("works now", "too short"),
        ("Worked on Testing: modified 12 file(s)", "activity log"),
        ("Modified 3 files in src", "activity log"),
        ("3f9a2c1b7d 8e7f6a5b4c 0a1b2c3d4e", "not prose"),
        ("WIP", "too short"),
        ("The retry loop backs off because the auth server rate-limits", None),
    ],
)
def test_junk_reason(text: str | None, reason: str | None) -> None:
    assert junk_reason(text) == reason


def test_gate_rejects_duplicates_within_a_run() -> None:
    gate = JunkGate()
    assert gate.admit("The cache must be cleared after a schema change")
    assert not gate.admit("the cache must be cleared after a schema change.")
    assert not gate.admit("modified 4 files")
    assert gate.rejected == {"duplicate": 1, "activity log": 1}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        # Cut from real sessions' "Errors and fixes": the session's own code in progress.
        (
            "Error: Test compilation failure - `SimulateGeminiAfterAgent` undefined. Fix: Added "
            "the missing function to `hooks.go` and `testenv.go`",
            "transient build error",
        ),
        (
            "`session` package not imported: After editing `manual_commit_hooks.go` to add "
            "`session.Transition()` calls, the `session` package identifier is undefined "
            "because it's not imported yet. The import block was updated.",
            "transient build error",
        ),
        (
            "Compile errors for missing AnnotationMessageRef: Expected during incremental "
            "editing. Fixed by creating the module file.",
            "transient build error",
        ),
        (
            "Syntax error in main.go: Missing closing brace for `instrument` function. Fix: "
            "Added closing brace `}` after the inner function's closing brace. Verified with "
            "successful build",
            "transient build error",
        ),
        # Knowledge that speaks of undefined things, kept.
        (
            "`config.port` is undefined when PORT is unset, so the server listened on a random "
            "port; added a default of 8080",
            None,
        ),
        (
            "TypeScript compilation error in `tests/daytona_sandbox.test.ts`: `Type 'boolean' is "
            "not assignable to type 'void | Promise<void>'` because the arrow function returned "
            "the assertion; wrapped it in braces",
            None,
        ),
    ],
)
def test_a_name_the_session_used_before_defining_it_is_no_lesson(
    text: str, reason: str | None
) -> None:
    assert rubric_reason(text) == reason


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        # Cut from "Errors and fixes" of sessions of a repository nobody had used: Claude
        # Code's read-before-write protocol, however the summary words its recovery.
        (
            'MEMORY.md Edit failed ("File has not been read yet") - Read it, then edited.',
            "tool protocol",
        ),
        (
            '"File has been modified since read" Edit errors (islandView.js, style.css): a '
            "concurrent Codex session was editing the same files. Fixed by re-reading files "
            "and re-applying edits.",
            "tool protocol",
        ),
        (
            "Edit tool string mismatch: When trying to update the brainstorming session file, "
            "the `old_string` didn't match due to trailing whitespace. Fixed by reading the "
            "file first and using exact content.",
            "tool protocol",
        ),
        # Cut from the "Errors and fixes" of two later batches of unseen sessions: the
        # summary retells the tool's error in its own words, naming the tool.
        (
            'Edit tool "not unique" error — `"ignore-list": return undefined; }` matched twice '
            "in format.ts. Fixed by providing more context to uniquely identify the location.",
            "tool protocol",
        ),
        (
            "String replacement not found in plugin.test.ts: When trying to replace a "
            "multi-line string containing `runCli(['typegen',`, the replacement failed because "
            "it had already been globally replaced.",
            "tool protocol",
        ),
        (
            "Edit tool failed on LINEAGE_CONTRACT.md: Attempted to edit without reading first. "
            "Fixed by reading the file first, then making edits.",
            "tool protocol",
        ),
        (
            "Read directory error: Tried to `Read` a directory path "
            "(`services/protocol-processor-service/tests`) instead of using `Glob`. Fixed by "
            "using `Glob` to list files.",
            "tool protocol",
        ),
        # A pitfall of the project that an Edit ran into is still one, and so is reading
        # a directory as the project's code does it.
        (
            "Reading the plugins directory failed with EACCES because the installer creates it "
            "as root; the CLI now checks permissions first",
            None,
        ),
        (
            "Edit failed because the file uses CRLF line endings, so the string to replace "
            "never matched; the formatter must keep LF",
            None,
        ),
    ],
)
def test_the_agent_s_read_before_write_errors_are_no_lesson(text: str, reason: str | None) -> None:
    assert rubric_reason(text) == reason


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        # Cut from the "Errors and fixes" of sessions of repositories nobody had used: how
        # the session's checkout stood, told as a mistake.
        (
            "Wrong branch for Supabase commit: Discovered I was on `forge/ui-foundation` "
            "(Codex's branch) when trying to commit Supabase files. Fixed by: `git stash` → "
            "`git checkout main` → `git stash pop`.",
            "version control incident",
        ),
        (
            "`git pull` failed with unstaged changes: `.gitignore` had unstaged modifications. "
            "Fixed by running `git stash && git pull && git stash pop`.",
            "version control incident",
        ),
        (
            'GPG signing failure on commit: `git commit` failed with "agent refused '
            'operation" because the SSH agent for GPG signing refused. Fixed by retrying.',
            "version control incident",
        ),
        # A repository's protection of a branch is one of its rules.
        (
            'Git commit to main blocked by hook: Hook blocked with "BLOCK: Do not commit to '
            'main. Create a feature branch first." Fixed by creating a feature branch.',
            None,
        ),
        # The project's own code about branches is no checkout incident.
        (
            "Branch name parsing error: `parseRef` split `feat/a/b` at the first slash because "
            "it used `split` instead of `splitN`; fixed to keep nested names.",
            None,
        ),
    ],
)
def test_a_mistake_of_the_session_s_checkout_is_no_lesson(text: str, reason: str | None) -> None:
    assert rubric_reason(text, kind="Mistake") == reason
    # Only a mistake: a learning about git's behaviour may be the project's own.
    assert rubric_reason(text, kind="Learning") != "version control incident"


@pytest.mark.parametrize(
    "message",
    [
        "Merge branch 'main' into feat/friend-list\n\nConflicts resolved in bun.lock and the "
        "plugin manifests.",
        # Cut from an unseen session (chkit): a conventional merge commit.
        "merge: resolve conflicts with main (codegen split, obsessiondb plugin)\n\nMerge "
        "origin/main which refactored plugin-codegen into multiple files and added "
        "plugin-obsessiondb. Applied defineFlags/typedFlags to the new files.",
        "Resolve merge conflicts with main after the plugin rename",
    ],
)
def test_a_merge_commit_is_no_knowledge(message: str) -> None:
    assert rubric_reason(message, trusted=True) == "merge commit"


def test_a_fix_that_resolves_a_conflict_of_the_code_is_not_a_merge() -> None:
    text = "fix: resolve conflicts between --force and --prune because both rewrite refs"
    assert rubric_reason(text, trusted=True) is None
