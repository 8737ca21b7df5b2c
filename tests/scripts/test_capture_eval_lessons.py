from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from capture_eval_lessons import LessonIndex, parse_lessons, tokens

from tests.conftest import TRANSCRIPTS_DIR

LESSONS = TRANSCRIPTS_DIR / "capture-dev" / "LESSONS.md"
pytestmark = pytest.mark.skipif(
    not LESSONS.is_file(), reason="needs ../shared/transcripts beside the clone (README: Tests)"
)

TRANSCRIPT_1 = "1c38adc0-5071-4382-9e53-de8c30e2265f"
TRANSCRIPT_2 = "b50aaf5c-3ef3-472b-8d5e-75bb89ac3fe1"


@pytest.fixture(scope="module")
def index() -> LessonIndex:
    return LessonIndex(parse_lessons(LESSONS))


def test_parser_reads_every_lesson_of_the_real_file() -> None:
    sections = parse_lessons(LESSONS)
    assert [s.number for s in sections] == [1, 2, 3, 4, 5, 6]
    assert [len(s.lessons) for s in sections] == [8, 8, 10, 10, 10, 10]
    lessons = [lesson for s in sections for lesson in s.lessons]
    assert Counter(lesson.kind for lesson in lessons) == {
        "learning": 23,
        "mistake": 13,
        "decision": 10,
        "pattern": 10,
    }
    first = lessons[0]
    assert (first.id, first.transcript) == ("1.1", TRANSCRIPT_1)
    assert first.files == ("cmd/entire/cli/git_operations.go", "cmd/entire/cli/resume.go")
    assert first.text.startswith("`HasUncommittedChanges()` used go-git's")
    assert first.text.endswith("treats any output as dirty.")  # continuation lines joined
    assert first.evidence.startswith("L3 user text")
    assert lessons[-1].id == "6.10"
    no_files = next(lesson for lesson in lessons if lesson.id == "5.1")
    assert no_files.files == () and no_files.evidence  # "files: —"


def test_matcher_ranks_the_lesson_an_item_states_first(index: LessonIndex) -> None:
    cause = index.propose(
        TRANSCRIPT_1,
        "go-git's Worktree.Status() ignores the user's global gitignore, so "
        "HasUncommittedChanges() reported a clean checkout as dirty and `entire resume` "
        "refused to switch branches; it now runs `git status --porcelain`.",
        ["cmd/entire/cli/git_operations.go"],
    )
    assert cause[0].lesson == "1.1"
    stash = index.propose(
        TRANSCRIPT_1,
        "Mistake: `git stash` also stashed the new test, so its passing proved nothing; "
        "revert only the implementation file to check that a test catches the regression.",
        [],
    )
    assert stash[0].lesson == "1.7"
    duplicate = index.propose(
        TRANSCRIPT_2,
        "`taskToolInput` is already declared in hooks.go; reuse it and "
        "ParseSubagentTypeAndDescription instead of declaring a second one.",
        ["cmd/entire/cli/hooks_opencode_handlers.go"],
    )
    assert duplicate[0].lesson == "2.4"
    assert all(p.score >= 0.12 for p in cause + stash + duplicate)


def test_matcher_proposes_nothing_for_chatter_or_unlabelled_transcripts(
    index: LessonIndex,
) -> None:
    assert index.propose(TRANSCRIPT_1, "See ya! No response requested.", []) == []
    assert index.propose("not-labelled", "go-git ignores core.excludesfile", []) == []
    assert not index.labelled("not-labelled") and index.labelled(TRANSCRIPT_1)


def test_tokens_split_identifiers_and_drop_short_and_stop_words() -> None:
    found = tokens("The HasUncommittedChanges() check uses git_operations.go with go-git")
    assert {"hasuncommittedchanges", "uncommitted", "changes", "git_operations"} <= found
    assert {"operations", "check"} <= found
    assert not {"the", "with", "uses", "git", "go"} & found


def test_parser_skips_prose_and_junk_lists(tmp_path: Path) -> None:
    path = tmp_path / "LESSONS.md"
    path.write_text(
        "# Title\n\n1. **[learning]** not in a section\n\n"
        "## 7. `0000aaaa-0000-0000-0000-000000000000.jsonl`\n\nSome prose.\n\n"
        "1. **[decision]** Keep go-git for plumbing,\n   because it needs no checkout.\n"
        "   - files: `a/b.go`, `c.go`\n   - evidence: L1 user text\n\n"
        'Junk (tempting, but do not store)\n- "All tests pass": status.\n',
        encoding="utf-8",
    )
    (section,) = parse_lessons(path)
    (lesson,) = section.lessons
    assert (section.number, lesson.id, lesson.kind) == (7, "7.1", "decision")
    assert lesson.text == "Keep go-git for plumbing, because it needs no checkout."
    assert lesson.files == ("a/b.go", "c.go")
