from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from kgraph.capture.session_capture import capture_session
from kgraph.capture.sources.extractor import extract_candidates, parse_items, parse_marker
from kgraph.db import Database
from kgraph.knowledge.query import list_items
from tests.capture.transcript_builder import TranscriptBuilder


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("HAS_KNOWLEDGE: YES\n- [Learning] x", True),
        ("## **HAS_KNOWLEDGE: yes**\n- a", True),
        ("> has_knowledge: TRUE\n- a", True),
        ("HAS_KNOWLEDGE: NO", False),
        ("I found nothing of note.", False),
        ("", False),
    ],
)
def test_parse_marker(text: str, found: bool) -> None:
    assert parse_marker(text)[0] is found


def test_parse_items_defaults_to_learning() -> None:
    content = (
        "- [Mistake] The cache was not cleared.\n* [pattern] Use UTC.\n"
        "1. plain item here\nprose line"
    )
    assert parse_items(content) == [
        ("Mistake", "The cache was not cleared."),
        ("Pattern", "Use UTC."),
        ("Learning", "plain item here"),
    ]


@pytest.fixture
def fake_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `claude` on PATH that records its argv, env and stdin and answers with markers."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "claude-call.json"
    script = bin_dir / "claude"
    script.write_text(f"""#!/usr/bin/env python3
import json, os, sys
prompt = sys.stdin.read()
json.dump({{"argv": sys.argv[1:], "internal": os.environ.get("KGRAPH_INTERNAL"),
           "cwd": os.getcwd(), "prompt": prompt}}, open({str(record)!r}, "w"))
print(os.environ.get("FAKE_CLAUDE_ANSWER") or "Sure.\\nHAS_KNOWLEDGE: YES\\n- [Pattern] "
      "Reports are exported as UTF-8 with a BOM for Excel.")
""")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return record


def test_extraction_runs_claude_without_hooks_or_recursion(fake_claude: Path) -> None:
    (candidate,) = extract_candidates(["export the report"], ["Done, using a BOM."])
    assert candidate.kind == "Pattern" and candidate.origin == "llm" and candidate.stated
    call = json.loads(fake_claude.read_text())
    assert call["internal"] == "1"
    assert call["argv"][:3] == ["-p", "--settings", '{"disableAllHooks": true}']
    assert "--no-session-persistence" in call["argv"]
    assert "USER: export the report" in call["prompt"]
    assert "HAS_KNOWLEDGE" in call["prompt"]


def test_capture_with_the_extractor_enabled(
    fake_claude: Path, db: Database, tmp_repo: Path, tmp_path: Path, git: Callable[..., str]
) -> None:
    path = (
        TranscriptBuilder("s1", str(tmp_repo))
        .prompt("export the report")
        .say("Done.")
        .write(tmp_path / "t.jsonl")
    )
    result = capture_session(db, tmp_repo, "s1", transcript_path=str(path), extractor="claude")
    assert [
        i.content for i in list_items(db, include_superseded=True) if i.id in result.created
    ] == ["Reports are exported as UTF-8 with a BOM for Excel."]
    again = capture_session(db, tmp_repo, "s1", transcript_path=str(path), extractor="claude")
    assert again.created == ()


def test_a_missing_claude_extracts_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert extract_candidates(["a prompt"], ["a reply"]) == []


def test_the_model_path_passes_the_rubric_and_maps_paths_and_files(
    fake_claude: Path,
    db: Database,
    tmp_repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    report = tmp_repo / "src" / "report.py"
    report.parent.mkdir()
    report.write_text("def export_report(rows):\n    return rows\n")
    monkeypatch.setenv(
        "FAKE_CLAUDE_ANSWER",
        "HAS_KNOWLEDGE: YES\n"
        f"- [Mistake] `export_report` in {report} wrote cp1252 because open() used the "
        "locale encoding; it must pass encoding='utf-8'.\n"
        "- [Learning] The user asked about the bug and the agent answered it.\n",
    )
    path = (
        TranscriptBuilder("s1", str(tmp_repo))
        .prompt("export the report")
        .tool("Read", {"file_path": str(report)}, report.read_text())
        .say("Done.")
        .write(tmp_path / "t.jsonl")
    )
    capture_session(db, tmp_repo, "s1", transcript_path=str(path), extractor="claude", final=True)
    (item,) = list_items(db, include_superseded=True)
    assert item.type == "Mistake" and item.files == ("src/report.py",)
    assert str(tmp_repo) not in item.content and " src/report.py " in item.content
    assert item.data["origin"] == "llm"
