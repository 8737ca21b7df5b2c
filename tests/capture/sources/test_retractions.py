"""A diagnosis the session later took back is not stored, or is hidden once it was."""

from __future__ import annotations

from pathlib import Path

from kgraph.capture.session_capture import capture_session
from kgraph.capture.sources.retractions import retracted, retractions
from kgraph.capture.sources.stream import Said
from kgraph.db import Database
from kgraph.knowledge.query import list_items
from tests.capture.transcript_builder import TranscriptBuilder

# Shaped after capture-dev 03a1382e: the agent blamed the stop hook; it had run fine.
GUESS = (
    "The issue is that `handleStop` never fires for the second worktree, so the shadow "
    "branch keeps the stale tree and the index points at a missing blob."
)
TAKEN_BACK = (
    "I was wrong about `handleStop`: the log shows it fired for both worktrees. "
    "The missing blob comes from the post-commit hook's own `git gc`."
)
# Cut from capture-dev2 (entireio/cli): a rule-out that names the code it rules out.
RULED_OUT = "The `.git` file correctly points to `.git/worktrees/1`, so that's not the issue."


def said(text: str) -> Said:
    return Said("assistant", text, "text", turn_end=True)


def test_retractions_name_the_code_they_take_back() -> None:
    (first,) = retractions([said("Let me look."), said(TAKEN_BACK)])
    assert first.at == 1 and "handlestop" in first.names
    (ruled,) = retractions([said(RULED_OUT)])
    assert ".git/worktrees/1" in ruled.names
    assert retractions([said("I was wrong, sorry about that.")]) == []  # names nothing


def test_only_what_was_said_before_and_names_the_same_code_is_taken_back() -> None:
    found = retractions([said(GUESS), said(TAKEN_BACK)])
    assert retracted(GUESS, 0, found) is not None
    assert retracted(GUESS, 2, found) is None  # said after the retraction
    assert retracted("`parseConfig` reads UTF-8 only, so BOMs break it.", 0, found) is None
    assert retracted(GUESS, -1, found) is None  # a compaction summary's, written after


def session(repo: Path) -> TranscriptBuilder:
    return (
        TranscriptBuilder("s1", str(repo))
        .prompt("why is the index corrupt in the second worktree?")
        .say(GUESS)
        .prompt("ok, now look at the hook log for the second worktree")
    )


def test_a_guess_taken_back_in_the_same_capture_is_not_stored(
    db: Database, tmp_repo: Path, tmp_path: Path
) -> None:
    path = session(tmp_repo).say(TAKEN_BACK).write(tmp_path / "t.jsonl")
    result = capture_session(db, tmp_repo, "s1", transcript_path=str(path), final=True)
    stored = list_items(db, include_superseded=True)
    assert not any("never fires" in i.content for i in stored)
    assert result.rejected.get("retracted") == 1


def test_a_guess_stored_by_an_earlier_capture_is_hidden_when_taken_back(
    db: Database, tmp_repo: Path, tmp_path: Path
) -> None:
    builder = session(tmp_repo)
    path = builder.write(tmp_path / "t.jsonl")
    capture_session(db, tmp_repo, "s1", transcript_path=str(path))
    (guess,) = [i for i in list_items(db, include_superseded=True) if "never fires" in i.content]
    builder.say(TAKEN_BACK).prompt("ok, thanks")
    builder.write(path)
    capture_session(db, tmp_repo, "s1", transcript_path=str(path), final=True)
    (after,) = [i for i in list_items(db, include_superseded=True) if i.id == guess.id]
    assert (
        after.hidden_at is not None and "I was wrong about `handleStop`" in after.data["retracted"]
    )
