"""The pure extraction step on fragments cut from real sessions (../shared/transcripts/
capture-dev, the lines LESSONS.md cites), and the junk cases that must produce nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgraph.capture.extract import extract_candidates, transcript_cwd, transcript_cwds
from kgraph.capture.gate.candidates import Candidate
from kgraph.transcript.reader import read_new_entries
from tests.capture.transcript_builder import TranscriptBuilder
from tests.conftest import TRANSCRIPTS_DIR

CAPTURE_DEV = TRANSCRIPTS_DIR / "capture-dev"
real = pytest.mark.skipif(
    not CAPTURE_DEV.is_dir(), reason="needs ../shared/transcripts beside the clone (README: Tests)"
)


def fragment(tmp_path: Path, prefix: str, first: int, last: int) -> list[Candidate]:
    """Candidates (Topic left out) from lines ``first``..``last`` (1-based) of a transcript."""
    source = next(CAPTURE_DEV.glob(f"{prefix}*.jsonl"))
    lines = source.read_text(encoding="utf-8").splitlines()[first - 1 : last]
    path = tmp_path / "fragment.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return extracted(path, tmp_path / "repo")


def extracted(path: Path, root: Path) -> list[Candidate]:
    entries, _ = read_new_entries(str(path), 0, final=True)
    return [c for c in extract_candidates(entries, root).candidates if c.type != "Topic"]


def only(candidates: list[Candidate]) -> Candidate:
    assert len(candidates) == 1, [c.content for c in candidates]
    return candidates[0]


@real
def test_the_cause_the_agent_states_after_finding_it_is_a_mistake(tmp_path: Path) -> None:
    # 1c38 L89: "The issue was that go-git doesn't respect the global gitignore …"
    found = fragment(tmp_path, "1c38", 85, 90)
    mistake = next(c for c in found if c.type == "Mistake")
    assert "go-git doesn't respect the global gitignore" in mistake.content
    # the path it names lies in another checkout, not this repository
    assert mistake.files == ()
    assert "/Users/" not in mistake.content


@real
def test_a_choice_the_user_states_and_the_agent_confirms_is_a_decision(tmp_path: Path) -> None:
    # 1c38 L107–L109: git CLI for the working tree, go-git for plumbing
    decision = only(fragment(tmp_path, "1c38", 105, 110))
    assert decision.type == "Learning"
    assert decision.content.startswith("Decision: using the git cli for this should be fine")
    assert "git CLI is the right tool" in decision.content


@real
def test_a_user_correction_keeps_the_claim_and_the_corrected_fact(tmp_path: Path) -> None:
    # 1c38 L152–L154: a local .gitignore test cannot catch the global-ignore bug
    correction = only(fragment(tmp_path, "1c38", 150, 155))
    assert correction.type == "Mistake"
    assert "local gitignore was already covered" in correction.content
    assert "go-git handles local `.gitignore` fine" in correction.content


@real
def test_a_lint_error_keeps_its_informative_line_and_the_fix(tmp_path: Path) -> None:
    # 1c38 L208–L225: noctx rejects exec.Command in tests too
    mistake = only(fragment(tmp_path, "1c38", 205, 226))
    assert mistake.type == "Mistake"
    assert "os/exec.Command must not be called" in mistake.content
    assert "exec.CommandContext" in mistake.content.split("—", 1)[1]
    assert mistake.files == ("cmd/entire/cli/git_operations_test.go",)


@real
def test_a_confirmed_bug_from_a_review_is_a_mistake(tmp_path: Path) -> None:
    # 847f L126–L127: shadow branches use 7-char hashes, BaseCommit 40
    mistake = only(fragment(tmp_path, "847f", 120, 128))
    assert mistake.type == "Mistake"
    assert "7-char hashes" in mistake.content and "40-char hash" in mistake.content


@real
def test_a_picked_option_is_expanded_to_the_option_next_to_the_question(tmp_path: Path) -> None:
    # 847f L374–L376: the user answers "3"; the findings listed earlier are numbered too
    decision = only(fragment(tmp_path, "847f", 370, 380))
    assert decision.content == "Decision: Add structured logging - For audit trail / debugging"


@real
def test_a_commit_made_in_the_session_is_read_from_its_command(tmp_path: Path) -> None:
    # 58e5 L103: `git commit -m` with the PR-review fixes of gitutil
    commit = only(fragment(tmp_path, "58e5", 100, 105))
    assert commit.source == "commit"
    # a commit answering a review: trusted, tagged for recall
    assert commit.origin == "commit.review" and commit.trusted
    assert 'CheckoutBranch: reject refs starting with "-"' in commit.content
    assert "cmd/entire/cli/gitutil/operations.go" in commit.files


@real
def test_compaction_summary_errors_and_fixes_become_mistakes(tmp_path: Path) -> None:
    # deeac L433: "Test failures in hooks_test.go … Fix: Added fallback to os.Getwd()"
    found = fragment(tmp_path, "deeac", 433, 433)
    hooks = [c for c in found if "hooks_test.go" in c.content]
    assert [c.type for c in hooks] == ["Mistake"]
    assert "paths.RepoRoot()" in hooks[0].content and "Fix:" in hooks[0].content


@real
def test_compaction_summary_root_cause_is_kept_with_its_code(tmp_path: Path) -> None:
    # 03a1 L777: the post-commit hook → getStagedFiles → worktree.Status() chain
    found = fragment(tmp_path, "03a1", 777, 777)
    assert any(
        "getStagedFiles" in c.content and "6d61daaa" in c.content and c.type == "Learning"
        for c in found
    )
    # the pending-task and current-work sections are a to-do list, not knowledge
    assert not any("Pending" in c.content or "Current Work" in c.content for c in found)


@real
def test_the_users_feedback_in_errors_and_fixes_waits_as_a_candidate(tmp_path: Path) -> None:
    # 03a1 L777: "User correction - "are you sure?": I asserted that `worktree.Status()` …"
    # beside the errors of the same section, which stay trusted
    found = fragment(tmp_path, "03a1", 777, 777)
    feedback = [c for c in found if c.content.startswith("User correction")]
    assert len(feedback) == 3
    assert all(c.origin == "summary.feedback" and not c.trusted for c in feedback)
    errors = [c for c in found if c.origin == "summary.errors"]
    assert errors and all(c.type == "Mistake" and c.trusted == bool(c.files) for c in errors)
    # names no file of the project: the session's incident until another session says it
    corruption = [c for c in errors if "Worktree index corruption" in c.content]
    assert corruption and not corruption[0].files and not corruption[0].trusted


@real
@pytest.mark.parametrize(
    ("prefix", "first", "last", "what"),
    [
        ("1c38", 112, 118, "/exit, 'See ya!', 'No response requested.'"),
        ("1c38", 70, 84, "running the tests: all pass, 0 issues"),
        ("1c38", 160, 172, "'core.excludesfile needs an absolute path': a guess, then tested"),
        ("b50a", 146, 154, "a permission-denied tool error"),
    ],
)
def test_junk_fragments_produce_nothing(
    tmp_path: Path, prefix: str, first: int, last: int, what: str
) -> None:
    assert fragment(tmp_path, prefix, first, last) == [], what


def conversation(tmp_path: Path, *turns: tuple[str, str]) -> list[Candidate]:
    """Candidates from a built session of (user prompt, assistant reply) turns."""
    builder = TranscriptBuilder("s1", str(tmp_path / "repo"))
    for prompt, reply in turns:
        builder.prompt(prompt).say(reply)
    return extracted(builder.write(tmp_path / "t.jsonl"), tmp_path / "repo")


@pytest.mark.parametrize(
    "turns",
    [
        [("hi", "Hello! How can I help you today?")],
        [("yes, that was it", "Great, glad `load_config` works now.")],
        [("never mind, we'll look at it later", "Sure, I'll leave `sync.py` as it is.")],
    ],
    ids=["greeting", "confirmation", "never-mind"],
)
def test_chatter_produces_nothing(tmp_path: Path, turns: list[tuple[str, str]]) -> None:
    assert conversation(tmp_path, *turns) == []


def test_asking_to_note_something_keeps_the_statement_before_it(tmp_path: Path) -> None:
    found = conversation(
        tmp_path,
        (
            "The importer must never call `session.commit()` itself; the caller owns the "
            "transaction. I wonder if we should add this to CLAUDE.md so you remember this?",
            "Good idea, I'll add it.",
        ),
    )
    rule = only(found)
    assert rule.content == (
        "Rule from the user: The importer must never call `session.commit()` itself; the "
        "caller owns the transaction."
    )
    assert "CLAUDE.md" not in rule.content


def test_a_numbered_answer_without_a_question_is_not_a_decision(tmp_path: Path) -> None:
    found = conversation(
        tmp_path,
        ("Summarise the findings", "1. `parse_args` ignores `--quiet` entirely\n2. Minor nits"),
        ("1, but enabled by default", "Done."),
    )
    assert not any(c.content.startswith("Decision") for c in found)


def test_an_error_without_an_informative_line_or_explanation_is_not_a_mistake(
    tmp_path: Path,
) -> None:
    builder = TranscriptBuilder("s1", str(tmp_path / "repo")).prompt("Run the linter please")
    builder.tool("Bash", {"command": "mise run lint"}, "[lint] ERROR task failed", error=True)
    builder.tool("Bash", {"command": "mise run lint"}, "[lint] ERROR task failed", error=True)
    builder.say("The lint task fails; let me look at the configuration next.")
    assert extracted(builder.write(tmp_path / "t.jsonl"), tmp_path / "repo") == []


def test_a_commit_backs_neither_the_agent_s_commentary_nor_the_user_s(
    tmp_path: Path,
) -> None:
    from kgraph.capture.sources.commits import parse_commit

    repo = tmp_path / "repo"
    http = repo / "src" / "http.py"
    path = (
        TranscriptBuilder("s1", str(repo))
        .prompt("why are redirects broken?")
        .tool("Read", {"file_path": str(http)}, "def parse_header(line):\n    ...\n")
        .say(
            "The issue was that `parse_header` in src/http.py splits on every colon, so a "
            "header value holding a URL was cut at its scheme."
        )
        .prompt("No, src/http.py must keep splitting there: the proxy relies on it.")
        .say("Understood, I'll leave the split as it is and fix the caller instead.")
        .write(tmp_path / "t.jsonl")
    )
    entries, _ = read_new_entries(str(path), 0, final=True)
    fix = parse_commit("a" * 40, "fix: keep URLs whole in headers", ("src/http.py",))
    found = extract_candidates(entries, repo, commits=[fix]).candidates
    # The agent's passing diagnosis waits for a second word, though the session committed
    # the file it names: such diagnoses were often disproved later in the same session.
    cause = next(c for c in found if c.origin == "explanation")
    assert "src/http.py" in cause.files
    assert cause.corroborated is None and not cause.trusted
    assert not any(c.trusted for c in found)  # nor anything else the conversation gave


def test_a_commit_of_the_fixed_file_does_not_back_a_failed_command(tmp_path: Path) -> None:
    # Captured where the session's commits are in the repository, the failures and fix-table
    # rows a commit backed were no knowledge in 12 (a linter's naming rule, a branch check).
    from kgraph.capture.sources.commits import parse_commit

    repo = tmp_path / "repo"
    path = TranscriptBuilder("s1", str(repo)).prompt("run the tests").error_fix(repo)
    entries, _ = read_new_entries(str(path.write(tmp_path / "t.jsonl")), 0, final=True)
    fix = parse_commit("c" * 40, "fix: read the config as UTF-8", ("src/config.py",))
    found = extract_candidates(entries, repo, commits=[fix]).candidates
    failure = next(c for c in found if c.origin == "failure")
    assert "src/config.py" in failure.files
    assert failure.corroborated is None and not failure.trusted


def test_a_commit_does_not_back_a_summary_s_listing_of_the_files_it_changed(
    tmp_path: Path,
) -> None:
    # A summary's "Files and Code Sections" lists the files the session worked on, so a
    # commit of them says nothing more (a fourth repository's listings, 4 of 4 junk).
    from kgraph.capture.sources.commits import parse_commit

    repo = tmp_path / "repo"
    summary = (
        "This session is being continued from a previous conversation.\n\n"
        "3. Files and Code Sections:\n"
        "   - `src/style.css`\n"
        "      - countdown selectors extended with #db-* ids; `#db-systems` panel state "
        "colors never reset when the level restarts, so the blink stays on\n"
    )
    path = (
        TranscriptBuilder("s1", str(repo))
        .prompt("restyle the countdown")
        .tool("Read", {"file_path": str(repo / "src" / "style.css")}, "#db-systems {}\n")
        .compaction(summary)
        .write(tmp_path / "t.jsonl")
    )
    entries, _ = read_new_entries(str(path), 0, final=True)
    styled = parse_commit("b" * 40, "Restyle the countdown", ("src/style.css",))
    found = extract_candidates(entries, repo, commits=[styled]).candidates
    listing = next(c for c in found if c.origin == "summary.files")
    assert "src/style.css" in listing.files
    assert listing.corroborated is None and not listing.trusted


@real
def test_a_user_s_interruption_is_not_backed_by_the_commit_of_the_file_it_stopped(
    tmp_path: Path,
) -> None:
    # e8811ad6 L550–L560: the user stops an Edit of manual_commit_hooks.go, which the
    # session later commits; the item names the file because its template does.
    from kgraph.capture.sources.commits import parse_commit

    source = next(CAPTURE_DEV.glob("e8811ad6*.jsonl"))
    path = tmp_path / "fragment.jsonl"
    path.write_text("\n".join(source.read_text(encoding="utf-8").splitlines()[549:560]) + "\n")
    entries, _ = read_new_entries(str(path), 0, final=True)
    hooks = "cmd/entire/cli/strategy/manual_commit_hooks.go"
    commit = parse_commit("b" * 40, "fix: subagent files", (hooks,))
    found = extract_candidates(entries, tmp_path / "repo", commits=[commit]).candidates
    stopped = only([c for c in found if c.origin == "interruption"])
    assert hooks in stopped.files and not stopped.trusted


def test_a_session_s_cwds_are_every_one_it_recorded_the_first_where_it_started() -> None:
    from types import SimpleNamespace

    entries = [
        SimpleNamespace(cwd=None),
        SimpleNamespace(cwd="/home/ann/repo"),
        SimpleNamespace(cwd="/home/ann/repo/spec/tools"),
    ]
    assert transcript_cwd(entries) == "/home/ann/repo"
    assert transcript_cwds(entries) == ("/home/ann/repo", "/home/ann/repo/spec/tools")


def test_an_answer_to_ask_user_question_waits_picked_or_typed(tmp_path: Path) -> None:
    # capture-dev2 d0224bdb L202/L205: two questions in one AskUserQuestion; the user picks
    # an option for the first and types an answer to the second. Both wait as candidates
    # (gate.candidates: most such answers are the session's own process steps).
    first = "Should merging follow the Horizon pattern where the worker handles it?"
    second = "Should merge mode be configurable like Horizon (auto/merge/pr)?"
    option = {
        "label": "Worker handles merge (Horizon pattern)",
        "description": "The worker runs the merge fragment; the orchestrator reads the result.",
    }
    questions = [
        {"question": first, "header": "Merge", "options": [option], "multiSelect": False},
        {"question": second, "header": "Mode", "options": [], "multiSelect": False},
    ]
    typed = "Discuss how we can have a PR-merging subagent that will specialize in it."
    answer = (
        f'User has answered your questions: "{first}"="{option["label"]}", "{second}"="{typed}".'
        " You can now continue with the user's answers in mind."
    )
    path = (
        TranscriptBuilder("s1", str(tmp_path / "repo"))
        .prompt("Let's settle the merge stage of the plan")
        .tool("AskUserQuestion", {"questions": questions}, answer, result_data={})
        .write(tmp_path / "t.jsonl")
    )
    found = {c.content.split(" — ")[0]: c for c in extracted(path, tmp_path / "repo")}
    picked = found[f"Decision: {first.rstrip('?')}"]
    assert picked.content.endswith(f"{option['label']} ({option['description']})")
    assert found[f"Decision: {second.rstrip('?')}"].content.endswith(typed)
    assert all(c.origin == "question-answer" and not c.trusted for c in found.values())
