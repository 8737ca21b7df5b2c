from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kgraph.capture.metrics import metrics_summary, update_session_metrics
from kgraph.capture.session_capture import capture_session
from kgraph.capture.sessions import record_session_start
from kgraph.db import Database
from kgraph.knowledge.store import add_item
from tests.capture.transcript_builder import TranscriptBuilder


def test_uptake_counts_injected_items_about_files_then_read_or_edited(
    db: Database, tmp_repo: Path, tmp_path: Path, git: Callable[..., str]
) -> None:
    used = add_item(
        db, "The config loader reads UTF-8 only since 2024", files=["src/config.py"]
    ).entity_id
    unused = add_item(
        db, "The billing module rounds half-even per line", files=["billing.py"]
    ).entity_id
    record_session_start(
        db,
        "s1",
        head=git(tmp_repo, "rev-parse", "HEAD").strip(),
        issue_number=4,
        injected_ids=[used, unused],
    )
    path = (
        TranscriptBuilder("s1", str(tmp_repo))
        .prompt("fix it")
        .error_fix(tmp_repo)
        .say(
            "The issue was that `load` in src/config.py used the locale encoding, "
            "so non-ASCII values crashed."
        )
        .prompt("Always open config files with an explicit encoding in this repository.")
        .compaction("This session is being continued from a previous conversation.")
        .write(tmp_path / "t.jsonl")
    )
    capture_session(db, tmp_repo, "s1", transcript_path=str(path), final=True)
    metrics = update_session_metrics(db, "s1")
    assert metrics.learnings_injected == 2 and metrics.uptake == 1
    assert metrics.files_edited == 1 and metrics.compacted == 1
    # the failure with the edit that fixed it, its cause, the user's rule, the session's topic
    assert metrics.learnings_captured == 4
    assert metrics.issue_number == 4 and metrics.duration_minutes is not None

    record_session_start(db, "s2", injected_ids=[])
    summary = metrics_summary(db)
    assert summary.sessions == 2 and summary.sessions_captured == 1
    assert summary.learnings_injected == 2 and summary.sessions_with_injection == 1
    assert summary.uptake == 1 and summary.uptake_rate == 0.5
    assert summary.compactions == 1 and summary.learnings_captured == 4
    assert metrics_summary(db, days=1).sessions == 2
