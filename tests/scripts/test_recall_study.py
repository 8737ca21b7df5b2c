"""The recall study (scripts/recall_study.py): which sessions it reads, what each ranking
may put forward (only items stored before the session), and how pairs are counted."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from recall_study import Session, read_sessions, report, study

from tests.capture.transcript_builder import TranscriptBuilder

EARLY = "11111111-0000-4000-8000-000000000001"
LATE = "22222222-0000-4000-8000-000000000002"


def _write(folder: Path, session_id: str, minute: int, prompts: list[str]) -> None:
    builder = TranscriptBuilder(session_id, "/home/dev/project")
    builder.session.second = minute * 60
    for prompt in prompts:
        builder.prompt(prompt).say("Done.")
    builder.write(folder / f"{session_id}.jsonl")


def test_every_session_but_the_earliest_and_only_prompts_with_words(tmp_path: Path) -> None:
    _write(tmp_path, LATE, 30, ["push", "why does the sync loop come back after a set?"])
    _write(tmp_path, EARLY, 5, ["fix the retry loop in the coordinator please"])
    sessions = read_sessions(tmp_path)
    assert [s.prefix for s in sessions] == ["22222222"]
    assert sessions[0].prompts == ("why does the sync loop come back after a set?",)
    assert sessions[0].started == datetime(2026, 2, 1, 10, 30, 1, 123000, tzinfo=UTC)


def test_labelled_sessions_are_read_even_the_earliest(tmp_path: Path) -> None:
    _write(tmp_path, LATE, 30, ["why does the sync loop come back after a set?"])
    _write(tmp_path, EARLY, 5, ["fix the retry loop in the coordinator please"])
    assert [s.prefix for s in read_sessions(tmp_path, ["1111"])] == ["1111"]


def test_a_ranking_sees_only_what_was_stored_before_the_session() -> None:
    start = datetime(2026, 3, 1, tzinfo=UTC)
    stored = {"old": datetime(2026, 2, 1, tzinfo=UTC), "new": datetime(2026, 3, 2, tzinfo=UTC)}
    session = Session("aaaa", start, ("first prompt here", "second prompt here"), Path("a.jsonl"))
    shown = study([session], stored, {"all": lambda prompt, allowed: sorted(allowed)})
    # Once per item, with the prompt that first brought it.
    assert shown == {"all": {("aaaa", "old"): "first prompt here"}}


def test_report_counts_verdicts_and_labelled_pairs() -> None:
    shown = {
        "a": {("s1", "x"): "p", ("s1", "y"): "p", ("s2", "x"): "p"},
        "b": {},
    }
    verdicts = {"s1:x": "useful", "s1:y": "junk"}
    lines = report(shown, verdicts, {"s1": {"x"}, "s2": {"z"}})
    assert lines[1].split() == ["a", "3", "1", "0", "1", "1", "1"]
    assert lines[2].split() == ["b", "0", "0", "0", "0", "0", "0"]
