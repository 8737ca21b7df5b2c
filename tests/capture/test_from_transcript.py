from __future__ import annotations

from pathlib import Path

import pytest

from kgraph.capture.from_transcript import statement_candidates, transcript_facts
from kgraph.transcript.reader import iter_entries
from tests.capture.transcript_builder import TranscriptBuilder
from tests.conftest import TRANSCRIPTS_DIR


def facts_of(builder: TranscriptBuilder, tmp_path: Path, repo: Path) -> object:
    path = builder.write(tmp_path / "t.jsonl")
    return transcript_facts(list(iter_entries(path)), repo, builder.session_id)


def test_error_then_fix_becomes_a_mistake_led_to_a_learning(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    builder = TranscriptBuilder("s1", str(repo)).prompt("run the tests").error_fix(repo)
    facts = facts_of(builder, tmp_path, repo)
    (mistake,) = [c for c in facts.candidates if c.type == "Mistake"]  # type: ignore[attr-defined]
    assert "pytest tests/test_config.py" in mistake.content
    assert "UnicodeDecodeError" in mistake.content
    assert str(repo) not in mistake.content  # paths inside the repo are written relative
    assert mistake.fixed_by is not None and mistake.fixed_by.type == "Learning"
    assert "src/config.py" in mistake.fixed_by.content
    assert mistake.files == ("src/config.py",)
    assert facts.files_edited == {"src/config.py"}  # type: ignore[attr-defined]


def test_retry_unchanged_and_tool_protocol_errors_are_not_mistakes(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    path = str(repo / "a.py")
    builder = (
        TranscriptBuilder("s1", str(repo))
        .tool("Bash", {"command": "curl http://localhost:8000"}, "connection refused", error=True)
        .tool("Bash", {"command": "curl http://localhost:8000"}, "ok")
        .tool(
            "Edit",
            {"file_path": path, "old_string": "a", "new_string": "b"},
            "<tool_use_error>File has not been read yet. "
            "Read it first before writing to it.</tool_use_error>",
            error=True,
        )
        .tool("Read", {"file_path": path}, "a")
        .tool("Edit", {"file_path": path, "old_string": "a", "new_string": "b"}, "ok")
    )
    facts = facts_of(builder, tmp_path, repo)
    assert [c for c in facts.candidates if c.type == "Mistake"] == []  # type: ignore[attr-defined]


def test_answers_to_the_agents_questions_are_learnings(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    builder = (
        TranscriptBuilder("s1", str(repo))
        .prompt("add the csv export")
        .say("I can write it now. Which encoding should the CSV export use for the reports?")
        .prompt("UTF-8 with a BOM, because Excel on Windows needs the BOM")
        .say("Done. Shall I proceed with the tests?")
        .prompt("yes")
    )
    facts = facts_of(builder, tmp_path, repo)
    contents = [c.content for c in facts.candidates]  # type: ignore[attr-defined]
    assert any(
        "Which encoding should the CSV export use" in c and "Excel on Windows" in c
        for c in contents
    )
    assert not any("Shall I proceed" in c for c in contents)


@pytest.mark.parametrize(
    ("prompt", "kind", "text"),
    [
        (
            "Remember this: the staging db is reset every night.",
            "Learning",
            "the staging db is reset every night",
        ),
        (
            "Lesson learned: never trust the cached token after logout.",
            "Learning",
            "never trust the cached token",
        ),
        ("Always run migrations before seeding the database.", "Pattern", "Always run migrations"),
        ("From now on, use ruff instead of flake8 here.", "Pattern", "use ruff instead of flake8"),
        ("We never deploy on Fridays in this team.", "Pattern", "We never deploy on Fridays"),
    ],
)
def test_explicit_statements(prompt: str, kind: str, text: str) -> None:
    (candidate,) = statement_candidates([prompt])
    assert candidate.type == kind and text in candidate.content


@pytest.mark.parametrize(
    "prompt", ["it never works on my machine", "this always fails, why?", "fix it", ""]
)
def test_ordinary_prompts_state_nothing(prompt: str) -> None:
    assert statement_candidates([prompt]) == []


def test_compaction_summary_and_time_span(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    builder = (
        TranscriptBuilder("s1", str(repo))
        .prompt("go")
        .say("ok")
        .compaction(
            "This session is being continued from a previous conversation. Summary: login done."
        )
    )
    facts = facts_of(builder, tmp_path, repo)
    assert any("login done" in s for s in facts.compaction_summaries)  # type: ignore[attr-defined]
    assert len(facts.compaction_ids) == 1  # type: ignore[attr-defined]
    assert facts.first_ts is not None and facts.first_ts < facts.last_ts  # type: ignore[attr-defined]


def test_own_injected_context_is_never_learned(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    builder = TranscriptBuilder("s1", str(repo)).prompt(
        "<kgraph-context>\nRemember this: injected facts are not user statements.\n"
        "</kgraph-context>\nhello there"
    )
    facts = facts_of(builder, tmp_path, repo)
    assert facts.candidates == []  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "path", sorted(TRANSCRIPTS_DIR.rglob("*.jsonl")), ids=lambda p: p.name[:20]
)
def test_real_transcripts_give_facts_without_errors(path: Path, tmp_path: Path) -> None:
    entries = list(iter_entries(path))
    cwd = next((e.cwd for e in entries if e.cwd), None) or str(tmp_path)
    facts = transcript_facts(entries, Path(cwd), "real")
    for candidate in facts.candidates:
        assert candidate.content.strip() and candidate.ref
