from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kgraph.errors import KgraphError, NotFoundError
from kgraph.transcript.reader import (
    ReadStats,
    iter_entries,
    parse_line,
    parse_timestamp,
    read_new_entries,
    read_tail,
)
from tests.transcript.factory import Session


def _write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    return path


def test_empty_file_yields_nothing(tmp_path: Path) -> None:
    path = _write(tmp_path / "empty.jsonl", "")
    stats = ReadStats()
    assert list(iter_entries(path, stats=stats)) == []
    assert stats.malformed == 0
    assert read_tail(path, 10) == []
    assert read_new_entries(path, 0) == ([], 0)


def test_only_malformed_lines_are_counted_not_raised(tmp_path: Path) -> None:
    path = _write(tmp_path / "bad.jsonl", "not json\n{broken\n[1, 2]\n42\n\n")
    stats = ReadStats()
    assert list(iter_entries(path, stats=stats)) == []
    assert stats.malformed == 4
    assert read_tail(path, 5) == []


def test_missing_file_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="transcript not found"):
        iter_entries(tmp_path / "nope.jsonl")
    with pytest.raises(NotFoundError):
        read_tail(tmp_path / "nope.jsonl", 3)
    with pytest.raises(NotFoundError):
        read_new_entries(tmp_path / "nope.jsonl", 0)


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read unreadable files")
def test_unreadable_file_is_a_clear_error(tmp_path: Path) -> None:
    path = _write(tmp_path / "locked.jsonl", '{"type":"user"}\n')
    path.chmod(0)
    try:
        with pytest.raises(KgraphError, match="cannot read transcript"):
            iter_entries(path)
    finally:
        path.chmod(0o600)


def test_directory_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(KgraphError, match="directory"):
        iter_entries(tmp_path)


def test_unknown_types_and_blocks_are_kept(tmp_path: Path) -> None:
    lines = [
        {"type": "future-type", "data": 1},
        {"no_type": True},
        {"type": "assistant", "message": {"content": [{"type": "hologram", "x": 1}, "bare"]}},
    ]
    path = _write(tmp_path / "t.jsonl", "".join(json.dumps(x) + "\n" for x in lines))
    entries = list(iter_entries(path))
    assert [e.type for e in entries] == ["future-type", "unknown", "assistant"]
    assert [e.kind for e in entries] == ["unknown", "unknown", "assistant"]
    blocks = entries[2].blocks
    assert [(b.type, b.kind) for b in blocks] == [("hologram", "unknown"), ("text", "text")]
    # every accessor tolerates missing fields
    empty = entries[1]
    assert (empty.uuid, empty.parent_uuid, empty.timestamp, empty.session_id) == (None,) * 4
    assert (empty.cwd, empty.git_branch, empty.is_sidechain, empty.is_meta) == (
        None,
        None,
        False,
        False,
    )
    assert empty.blocks == [] and empty.text == "" and empty.time is None


def test_envelope_fields() -> None:
    (entry,), malformed = parse_line(
        '{"type":"user","uuid":"u1","parentUuid":"p1","sessionId":"s","cwd":"/x",'
        '"gitBranch":"main","isSidechain":true,"isMeta":true,"timestamp":"2026-01-16T10:00:00Z",'
        '"message":{"role":"user","content":"hi"}}'
    )
    assert malformed == 0
    assert (entry.uuid, entry.parent_uuid, entry.session_id, entry.cwd, entry.git_branch) == (
        "u1",
        "p1",
        "s",
        "/x",
        "main",
    )
    assert entry.is_sidechain and entry.is_meta and entry.text == "hi"
    assert entry.time is not None and entry.time.hour == 10


def test_concatenated_objects_on_one_line_all_yield() -> None:
    line = (
        '{"type":"assistant","uuid":"a"}{"type":"file-history-snapshot","messageId":"m"} '
        '{"type":"x"}'
    )
    entries, malformed = parse_line(line)
    assert [e.type for e in entries] == ["assistant", "file-history-snapshot", "x"]
    assert malformed == 0


def test_object_glued_after_a_torn_one_is_recovered() -> None:
    line = '{"type":"assistant","message":{"content":"trunc{"type":"user","uuid":"u2"}'
    entries, malformed = parse_line(line)
    assert malformed == 1
    assert [e.uuid for e in entries] == ["u2"]


def test_truncated_last_line_is_not_an_error(tmp_path: Path) -> None:
    s = Session()
    s.prompt("one")
    s.text("two")
    path = tmp_path / "t.jsonl"
    path.write_text(
        "\n".join(s.text_lines()) + '\n{"type":"assistant","uuid":"half', encoding="utf-8"
    )
    stats = ReadStats()
    entries = list(iter_entries(path, stats=stats))
    assert [e.type for e in entries] == ["user", "assistant"]
    assert stats.malformed == 0 and stats.partial_last_line
    assert [e.type for e in read_tail(path, 5)] == ["user", "assistant"]
    new, offset = read_new_entries(path, 0)
    assert len(new) == 2
    # the torn line is left for next time, then picked up once complete
    with path.open("a", encoding="utf-8") as f:
        f.write('-x"}\n')
    more, offset2 = read_new_entries(path, offset)
    assert [e.uuid for e in more] == ["half-x"]
    assert offset2 == path.stat().st_size


def test_invalid_utf8_is_tolerated(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.jsonl", b'{"type":"user","x":"\xff\xfe"}\n\xff\xff\n')
    stats = ReadStats()
    entries = list(iter_entries(path, stats=stats))
    assert [e.type for e in entries] == ["user"]
    assert stats.malformed == 1


def test_read_new_entries_is_incremental(tmp_path: Path) -> None:
    s = Session()
    s.prompt("a")
    path = s.write(tmp_path / "t.jsonl")
    first, offset = read_new_entries(path, 0)
    assert len(first) == 1 and offset == path.stat().st_size
    assert read_new_entries(path, offset) == ([], offset)
    s.text("b")
    s.write(path)
    second, offset2 = read_new_entries(path, offset)
    assert [e.type for e in second] == ["assistant"]
    assert offset2 > offset


def test_read_new_entries_restarts_when_file_shrank_or_offset_is_mid_line(tmp_path: Path) -> None:
    s = Session()
    s.prompt("a")
    s.text("b")
    path = s.write(tmp_path / "t.jsonl")
    entries, offset = read_new_entries(path, 0)
    assert len(entries) == 2
    path.write_text(s.text_lines()[0] + "\n", encoding="utf-8")  # rewritten, smaller
    again, _ = read_new_entries(path, offset)
    assert len(again) == 1
    mid, _ = read_new_entries(path, 5)
    assert len(mid) == 1


def test_read_new_entries_final_takes_a_complete_line_without_newline(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.jsonl", '{"type":"user","uuid":"a"}\n{"type":"user","uuid":"b"}')
    entries, offset = read_new_entries(path, 0)
    assert [e.uuid for e in entries] == ["a"]
    rest, end = read_new_entries(path, offset, final=True)
    assert [e.uuid for e in rest] == ["b"] and end == path.stat().st_size


def test_tail_of_file_smaller_than_n(tmp_path: Path) -> None:
    s = Session()
    for i in range(3):
        s.prompt(f"p{i}")
    path = s.write(tmp_path / "t.jsonl")
    assert [e.text for e in read_tail(path, 50)] == ["p0", "p1", "p2"]
    assert read_tail(path, 0) == []


def test_tail_of_10000_entry_file_is_chronological(tmp_path: Path) -> None:
    s = Session()
    for i in range(10_000):
        s.prompt(f"prompt {i} " + "x" * (i % 300))
    path = s.write(tmp_path / "big.jsonl")
    assert path.stat().st_size > 64 * 1024  # exercises the backwards-chunk path
    tail = read_tail(path, 50)
    assert [e.text.split()[1] for e in tail] == [str(i) for i in range(9950, 10_000)]
    everything = list(iter_entries(path))
    assert [e.offset for e in tail] == [e.offset for e in everything[-50:]]
    assert len(read_tail(path, 20_000)) == 10_000


def test_tail_handles_lines_longer_than_a_chunk(tmp_path: Path) -> None:
    s = Session()
    s.prompt("small")
    s.prompt("huge " + "y" * 300_000)
    s.prompt("last")
    path = s.write(tmp_path / "t.jsonl")
    tail = read_tail(path, 2)
    assert [e.text[:4] for e in tail] == ["huge", "last"]
    assert [e.text[:5] for e in read_tail(path, 3)] == ["small", "huge ", "last"]


def test_tail_counts_concatenated_objects_and_skips_malformed(tmp_path: Path) -> None:
    body = ['{"type":"a"}', "garbage", '{"type":"b"}{"type":"c"}', '{"type":"d"}']
    path = _write(tmp_path / "t.jsonl", "\n".join(body) + "\n")
    assert [e.type for e in read_tail(path, 3)] == ["b", "c", "d"]
    assert [e.type for e in read_tail(path, 10)] == ["a", "b", "c", "d"]


@pytest.mark.parametrize(
    "value",
    [
        "2026-01-16T10:00:00Z",
        "2026-01-16T10:00:00.123Z",
        "2026-01-16T10:00:00.123456789Z",
        "2026-01-16T12:00:00+02:00",
        "2026-01-16t10:00:00z",
        "2026-01-16T10:00:00",
    ],
)
def test_rfc3339_timestamps_with_or_without_fractions(value: str) -> None:
    parsed = parse_timestamp(value)
    assert parsed is not None
    assert parsed.utcoffset() is not None
    assert (parsed.year, parsed.day) == (2026, 16)


@pytest.mark.parametrize("value", [None, "", "yesterday", "2026-13-01T00:00:00Z"])
def test_invalid_timestamps_are_none(value: str | None) -> None:
    assert parse_timestamp(value) is None


def test_permission_denied_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kgraph.transcript import reader

    path = _write(tmp_path / "t.jsonl", '{"type":"user"}\n')

    def denied(*_args: object, **_kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(reader.os, "open", denied)
    with pytest.raises(KgraphError, match=r"cannot read transcript .*Permission denied"):
        iter_entries(path)


def test_only_regular_files_within_the_size_limit_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gzip
    import os

    from kgraph.errors import KgraphError
    from kgraph.transcript.reader import compressed_kind, iter_entries, read_new_entries, read_tail

    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)  # opening it to read would wait for a writer forever
    for read in (iter_entries, lambda p: read_tail(p, 5), lambda p: read_new_entries(p, 0)):
        with pytest.raises(KgraphError, match="not a regular file"):
            read(fifo)
        with pytest.raises(KgraphError, match="not a regular file"):
            read("/dev/urandom")  # endless: would fill memory
    packed = tmp_path / "t.jsonl.gz"
    packed.write_bytes(gzip.compress(b'{"type": "user"}\n' * 50))
    assert compressed_kind(packed) == "gzip"  # for the commands; the reader reads any bytes
    big = tmp_path / "big.jsonl"
    big.write_bytes(b'{"type": "user"}\n' * 80_000)  # ~1.4 MB
    monkeypatch.setenv("KGRAPH_TRANSCRIPT_MAX_MB", "1")
    with pytest.raises(KgraphError, match="over the 1 MB limit"):
        iter_entries(big)
