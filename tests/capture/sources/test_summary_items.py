"""The sections of a compaction summary, on bullets cut from real summaries
(../shared/transcripts)."""

from __future__ import annotations

from kgraph.capture.sources.summary_items import summary_items

SUMMARY = """Summary:
4. Errors and fixes:
   - Line numbers off (human_added: 90 instead of expected ~8):
     - Cause: `.claude/settings.json` (73 lines) counted as user code
     - User feedback: "revert those changes, I think it's correct if it's part of the commit"
     - Final fix: Update test script to commit setup files first to establish clean baseline
   - User feedback on Issue #3: Corrected my assumption that Research/Spec/Plan could run \
locally. User intended all stages in sandboxes to avoid blocking the orchestrator.
   - Attempted to copy CLI repo files manually. User redirected: "why don't you just do a \
`git clone` instead"

5. Problem Solving:
   - Solved the baseline question.
"""


def test_an_error_keeps_the_users_feedback_on_its_fix() -> None:
    # capture-dev2 0276a600: the feedback is a sub-bullet of the error it corrected
    errors = [i for i in summary_items(SUMMARY) if i.section == "errors"]
    assert len(errors) == 1
    assert errors[0].text.startswith("Line numbers off")
    assert "User feedback" in errors[0].text and "Final fix" in errors[0].text


def test_a_bullet_headed_by_the_user_is_feedback_not_an_error() -> None:
    # capture-dev2 665369bc L409 and capture-dev dfbb4922: the user's side of the dialogue
    feedback = [i.text for i in summary_items(SUMMARY) if i.section == "feedback"]
    assert [t.split(":", 1)[0] for t in feedback] == [
        "User feedback on Issue #3",
        "Attempted to copy CLI repo files manually. User redirected",
    ]
