"""The real Claude Code transcripts in ../shared/transcripts: every file parses, and
``kgraph transcript stats --json`` agrees with the counts SOURCES.md gives for it."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kgraph.transcript import views
from kgraph.transcript.discovery import find_subagents
from kgraph.transcript.reader import ReadStats, iter_entries, read_tail
from kgraph.transcript.stats import session_status, transcript_stats
from tests.conftest import TRANSCRIPTS_DIR

pytestmark = pytest.mark.skipif(
    not TRANSCRIPTS_DIR.is_dir(),
    reason="needs ../shared/transcripts beside the clone (README: Tests)",
)

_COUNT = re.compile(r"^([a-z][a-z_-]*) (\d+)$")


def _parse_counts(cell: str) -> tuple[dict[str, int], dict[str, dict[str, int]]]:
    """``"progress 44 (hook_progress 25, agent_progress 19), user 20"`` → types, subtypes."""
    cell = cell.split(" — ")[0]
    types: dict[str, int] = {}
    subtypes: dict[str, dict[str, int]] = {}
    for match in re.finditer(r"([a-z][a-z_-]*) (\d+)(?: \(([^)]*)\))?", cell):
        name, count, inner = match.group(1), int(match.group(2)), match.group(3)
        types[name] = count
        if inner:
            parts = [_COUNT.match(p.strip()) for p in inner.split(",")]
            if all(parts):
                subtypes[name] = {m.group(1): int(m.group(2)) for m in parts if m}
    return types, subtypes


def _sources() -> list[tuple[str, dict[str, int], dict[str, dict[str, int]]]]:
    rows = []
    text = (TRANSCRIPTS_DIR / "SOURCES.md").read_text(encoding="utf-8")
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 10 and cells[1].startswith("`") and cells[1].endswith(".jsonl`"):
            types, subtypes = _parse_counts(cells[9])
            rows.append((cells[1].strip("`"), types, subtypes))
    return rows


SOURCES = _sources() if TRANSCRIPTS_DIR.is_dir() else []
# capture-dev/ and capture-dev2/ have SOURCES.md files of their own; they are the capture
# evaluation sets, not these samples.
ALL_FILES = (
    sorted(
        p
        for p in TRANSCRIPTS_DIR.rglob("*.jsonl")
        if not any(part.startswith("capture-dev") for part in p.parts)
    )
    if TRANSCRIPTS_DIR.is_dir()
    else []
)


def test_sources_lists_every_file() -> None:
    assert len(SOURCES) == len(ALL_FILES) == 7
    assert {name for name, _, _ in SOURCES} == {
        str(p.relative_to(TRANSCRIPTS_DIR)) for p in ALL_FILES
    }


@pytest.mark.parametrize(
    "name,types,subtypes", SOURCES, ids=[s[0].split("/")[-1][:16] for s in SOURCES]
)
def test_stats_json_types_equal_sources(
    name: str,
    types: dict[str, int],
    subtypes: dict[str, dict[str, int]],
    run_kgraph: Callable[..., Any],
) -> None:
    result = run_kgraph("transcript", "stats", str(TRANSCRIPTS_DIR / name), "--json", use_db=False)
    assert result.returncode == 0, result.stderr
    stats = result.json()
    assert stats["types"] == types
    assert stats["malformed"] == 0
    for entry_type, expected in subtypes.items():
        assert stats["subtypes"][entry_type] == expected
    for key in (
        "entries",
        "tool_calls",
        "tool_errors",
        "files_read",
        "files_edited",
        "compactions",
        "subagents",
    ):
        assert isinstance(stats[key], int)


@pytest.mark.parametrize("path", ALL_FILES, ids=[p.name[:16] for p in ALL_FILES])
def test_every_view_runs_on_real_files(path: Path) -> None:
    stats = ReadStats()
    entries = list(iter_entries(path, stats=stats))
    assert stats.malformed == 0 and len(entries) == stats.objects
    assert [e.raw for e in read_tail(path, 25)] == [e.raw for e in entries[-25:]]
    calls = views.tool_calls(entries)
    views.files_touched(entries)
    views.error_fix_sequences(entries)
    views.qa_pairs(entries)
    views.user_prompts(entries)
    views.compaction_summaries(entries)
    views.detect_stuck(calls)
    assert session_status(path).state in {"working", "waiting", "stuck", "unknown"}


def _file(fragment: str) -> Path:
    (match,) = [p for p in ALL_FILES if fragment in str(p)]
    return match


def test_concatenated_line_file_counts_both_objects() -> None:
    path = _file("86cc3044")
    stats = transcript_stats(path)
    assert stats.entries == 242 and stats.unique_entries == 241  # the re-written line
    assert stats.tool_errors == 2


def test_compactions_in_real_files() -> None:
    stats = transcript_stats(_file("839b35f7"))
    assert (stats.compactions, stats.microcompactions) == (1, 1)
    summaries = views.compaction_summaries(iter_entries(_file("839b35f7")))
    assert len(summaries) == 1 and summaries[0].startswith("This session is being continued")
    assert transcript_stats(_file("bc505259")).compactions == 1


def test_ask_user_question_in_real_file() -> None:
    pairs = views.qa_pairs(iter_entries(_file("491e126e")))
    asked = [p for p in pairs if p.source == "ask_user_question"]
    assert len(asked) == 2
    assert asked[0].answer == "No rig" and "spotter" in asked[0].options


def test_real_error_fix_sequence() -> None:
    fixes = views.error_fix_sequences(iter_entries(_file("86cc3044")))
    edit = [f for f in fixes if f.tool == "Edit"]
    assert edit and edit[0].error.startswith("String to replace not found")


def test_subagent_layouts_in_real_files() -> None:
    inline = find_subagents(_file("5c0375b4"))
    assert [s.layout for s in inline] == ["inline", "inline"]
    assert transcript_stats(_file("5c0375b4")).subagents == 2
    spotter = transcript_stats(_file("491e126e-1e71"))
    assert spotter.subagents >= 1  # agent_progress lines name the Task subagent
    compact = _file("agent-acompact")
    assert views.compaction_summaries(iter_entries(compact))[0].startswith("<analysis>")
