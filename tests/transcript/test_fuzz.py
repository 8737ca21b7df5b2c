"""Property tests: no input makes the reader or the views raise."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgraph.transcript import views
from kgraph.transcript.reader import (
    ReadStats,
    iter_entries,
    parse_line,
    read_new_entries,
    read_tail,
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=5)
    ),
    max_leaves=20,
)
# Objects shaped like entries, with arbitrary values where real files have structure.
keys = st.sampled_from(
    [
        "type",
        "uuid",
        "parentUuid",
        "message",
        "content",
        "isSidechain",
        "isMeta",
        "timestamp",
        "subtype",
        "toolUseResult",
        "snapshot",
        "data",
        "agentId",
        "cwd",
        "stop_reason",
        "isCompactSummary",
        "compactMetadata",
        "attachment",
    ]
)
types = st.sampled_from(
    [
        "user",
        "assistant",
        "system",
        "progress",
        "summary",
        "attachment",
        "file-history-snapshot",
        "weird",
    ]
)
blocks = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "tool_use", "tool_result", "thinking", "image", "zzz"])},
    optional={
        "id": st.text(max_size=5),
        "tool_use_id": st.text(max_size=5),
        "name": json_values,
        "input": json_values,
        "content": json_values,
        "text": json_values,
        "is_error": json_values,
    },
)
entry_like = st.fixed_dictionaries(
    {"type": types},
    optional={
        "message": st.fixed_dictionaries(
            {},
            optional={
                "content": st.one_of(
                    st.text(max_size=30), st.lists(blocks | json_values, max_size=4), json_values
                ),
                "stop_reason": json_values,
                "id": json_values,
            },
        ),
        "uuid": st.text(max_size=4),
        "parentUuid": st.text(max_size=4) | st.none(),
    },
).flatmap(
    lambda d: st.dictionaries(keys, json_values, max_size=4).map(lambda extra: {**extra, **d})
)


def _run_everything(path: Path) -> None:
    stats = ReadStats()
    entries = list(iter_entries(path, stats=stats))
    read_tail(path, 3)
    read_new_entries(path, 0)
    read_new_entries(path, 7)
    for entry in entries:
        _ = (
            entry.type,
            entry.kind,
            entry.uuid,
            entry.parent_uuid,
            entry.time,
            entry.text,
            entry.blocks,
            entry.subtype,
            entry.stop_reason,
            entry.is_tool_result,
            entry.cwd,
        )
        for block in entry.blocks:
            _ = (block.text, block.id, block.name, block.input, block.tool_use_id, block.is_error)
    calls = views.tool_calls(entries)
    views.files_touched(entries)
    views.error_fix_sequences(entries)
    views.qa_pairs(entries)
    views.user_prompts(entries)
    views.compaction_summaries(entries)
    views.compaction_boundaries(entries)
    views.session_state(entries)
    views.detect_stuck(calls, same_action=2, same_error=2, alternation_cycles=2)


_SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(st.binary(max_size=2000))
def test_random_bytes_never_raise(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.jsonl"
        path.write_bytes(data)
        _run_everything(path)
    parse_line(data)


@_SETTINGS
@given(st.lists(json_values, max_size=8))
def test_random_json_values_never_raise(values: list[Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.jsonl"
        path.write_text("\n".join(json.dumps(v) for v in values), encoding="utf-8")
        _run_everything(path)


@_SETTINGS
@given(st.lists(entry_like, max_size=10), st.booleans())
def test_entry_shaped_objects_never_raise(objects: list[dict[str, Any]], glue: bool) -> None:
    separator = "" if glue else "\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.jsonl"
        path.write_text(separator.join(json.dumps(o) for o in objects), encoding="utf-8")
        entries = list(iter_entries(path))
        if glue and objects:
            # glued objects are still all recovered
            assert len(entries) == len(objects)
        _run_everything(path)
