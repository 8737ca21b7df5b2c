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


HYGIENE = """Summary:
4. Errors and fixes:
   - Ruff lint: line too long (E501): Graph docstrings exceeded 88 chars. Fixed by wrapping \
the pipeline flow description across two lines.
   - Prettier formatting failure: After adding message IDs 6-9, formatting check failed. \
Fixed by running `mise format:fix`.
   - `ruff format` differences: 2 files had line wrapping mismatches. Fixed by running \
`uv run ruff format`.
   - Linter config error: biome.json rejected the `vcs` block because `clientKind` was \
missing; biome needs `"clientKind": "git"` whenever vcs is enabled.
   - Ruff lint: B008 fired on every FastAPI `Depends()` default because the rule flags \
calls in defaults; the project ignores B008 in pyproject.toml for that reason.
"""


def test_what_a_linter_flagged_in_new_code_is_hygiene_not_an_error() -> None:
    # Cut from unseen sessions (medgemma-hackathon, tuicraft, chkit, entirecontext): a
    # linter's or a formatter's complaint fixed by doing what it asked teaches nothing; a
    # linter's configuration, or a finding with its cause, does.
    errors = [i.text.split(":", 1)[0] for i in summary_items(HYGIENE) if i.section == "errors"]
    assert errors == ["Linter config error", "Ruff lint"]
