from __future__ import annotations

from pathlib import Path

import pytest

from kgraph.capture.from_transcript import transcript_facts
from kgraph.transcript.reader import iter_entries
from tests.capture.transcript_builder import TranscriptBuilder
from tests.conftest import TRANSCRIPTS_DIR


def facts_of(builder: TranscriptBuilder, tmp_path: Path, repo: Path) -> object:
    path = builder.write(tmp_path / "t.jsonl")
    return transcript_facts(list(iter_entries(path)), repo)


def test_files_read_and_edited_are_repo_relative_through_the_transcripts_cwd(
    tmp_path: Path,
) -> None:
    cwd = "/Users/ann/elsewhere/repo"  # recorded on another machine
    builder = TranscriptBuilder("s1", cwd).prompt("run the tests").error_fix(Path(cwd))
    builder.tool("Read", {"file_path": f"{cwd}/README.md"}, "# readme")
    facts = facts_of(builder, tmp_path, tmp_path / "repo")
    assert facts.files_edited == {"src/config.py"}  # type: ignore[attr-defined]
    assert facts.files_read == {"README.md"}  # type: ignore[attr-defined]


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


@pytest.mark.parametrize(
    "path", sorted(TRANSCRIPTS_DIR.rglob("*.jsonl")), ids=lambda p: p.name[:20]
)
def test_real_transcripts_give_facts_without_errors(path: Path, tmp_path: Path) -> None:
    entries = list(iter_entries(path))
    cwd = next((e.cwd for e in entries if e.cwd), None) or str(tmp_path)
    facts = transcript_facts(entries, Path(cwd))
    assert all(not p.startswith("/") for p in facts.files_read | facts.files_edited)
