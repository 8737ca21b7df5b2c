"""A tolerant, streaming reader of Claude Code transcript JSONL.

Claude Code's format is internal and changes between releases, so every field is optional:
unknown entry types and content blocks are kept (``kind == "unknown"``), a line that is not JSON
is skipped and counted, a line holding several concatenated JSON objects (an append race seen
in real files) yields all of them, and a final line still being written is not an error.

Three ways in, all streaming (no function here loads a whole file into memory):

- :func:`iter_entries` walks a file from a byte offset;
- :func:`read_new_entries` returns what complete lines were appended since an offset (for
  incremental capture from hooks);
- :func:`read_tail` reads backwards from the end in chunks for the last N entries.

The reader yields every JSON object in file order, duplicates included (an entry re-written
after a resume appears twice); :func:`kgraph.transcript.views.dedupe` collapses them.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

from kgraph.errors import KgraphError, NotFoundError
from kgraph.jsontext import may_hold_surrogates, without_surrogates
from kgraph.transcript.entry import (
    BLOCK_KINDS,
    ENTRY_KINDS,
    Block,
    Entry,
    content_text,
    parse_timestamp,
)

__all__ = [
    "BLOCK_KINDS",
    "ENTRY_KINDS",
    "Block",
    "Entry",
    "ReadStats",
    "compressed_kind",
    "content_text",
    "first_value",
    "iter_entries",
    "parse_line",
    "parse_timestamp",
    "read_new_entries",
    "read_tail",
]

# Small files are read in one go; larger ones backwards in chunks of this size.
TAIL_WHOLE_FILE_LIMIT = 64 * 1024
TAIL_CHUNK_SIZE = 64 * 1024
# Bounds the work spent re-synchronising inside one malformed line.
_MAX_RESYNC_ATTEMPTS = 32
DEFAULT_MAX_TRANSCRIPT_MB = 512
_COMPRESSED = (
    (b"\x1f\x8b", "gzip"),
    (b"PK\x03\x04", "zip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
)

_DECODER = json.JSONDecoder()


@dataclass
class ReadStats:
    """Counters a read fills in (pass one to :func:`iter_entries` to get them).

    ``malformed`` counts undecodable fragments and JSON values that are not objects;
    ``partial_last_line`` is True when the file ends in an incomplete line that did not parse
    (a line still being written: not counted as malformed).
    """

    objects: int = 0
    malformed: int = 0
    lines: int = 0
    partial_last_line: bool = False
    end_offset: int = 0


# ----------------------------------------------------------------------------- line parsing


def parse_line(line: bytes | str, offset: int = 0) -> tuple[list[Entry], int]:
    """The entries in one line and the number of malformed fragments in it.

    Concatenated objects (``{...}{...}``) all come back. After an undecodable fragment the
    parser re-synchronises on the next ``{"`` that is not a nested value (a nested object
    follows ``:``, ``,`` or ``[``), so an object glued after a torn one is still recovered.
    """
    text = line.decode("utf-8", errors="replace") if isinstance(line, bytes) else line
    entries: list[Entry] = []
    malformed = 0
    pos = 0
    end = len(text)
    while pos < end:
        while pos < end and text[pos] in " \t\r\n\ufeff":
            pos += 1
        if pos >= end:
            break
        try:
            value, next_pos = _DECODER.raw_decode(text, pos)
        except (json.JSONDecodeError, RecursionError):
            malformed += 1
            pos = _resync(text, pos)
            continue
        if isinstance(value, dict):
            if may_hold_surrogates(text):
                value = without_surrogates(value)
            entries.append(Entry(value, offset))
        else:
            malformed += 1
        pos = next_pos
    return entries, malformed


def _resync(text: str, failed_at: int) -> int:
    """Where to try decoding next after a failure at ``failed_at`` (``len(text)``: give up)."""
    search_from = failed_at + 1
    for _ in range(_MAX_RESYNC_ATTEMPTS):
        candidate = text.find('{"', search_from)
        if candidate < 0:
            return len(text)
        before = text[candidate - 1] if candidate > 0 else ""
        if before not in ":,[" and not before.isspace():
            try:
                _DECODER.raw_decode(text, candidate)
            except (json.JSONDecodeError, RecursionError):
                search_from = candidate + 1
                continue
            return candidate
        search_from = candidate + 1
    return len(text)


# ----------------------------------------------------------------------------- file access


def max_transcript_bytes() -> int:
    """The largest transcript read (``KGRAPH_TRANSCRIPT_MAX_MB``, default 512 MB; real ones
    reach tens of MB): a bound on what a mistaken path can cost."""
    try:
        return max(1, int(os.environ.get("KGRAPH_TRANSCRIPT_MAX_MB", ""))) * 1024 * 1024
    except ValueError:
        return DEFAULT_MAX_TRANSCRIPT_MB * 1024 * 1024


def _refusal(fd: int, path: str | os.PathLike[str]) -> str | None:
    """Why the open file ``fd`` is not a transcript to read, or None."""
    info = os.fstat(fd)
    if stat.S_ISDIR(info.st_mode):
        return "it is a directory"
    if not stat.S_ISREG(info.st_mode):
        return "it is not a regular file"
    limit = max_transcript_bytes()
    if info.st_size > limit:
        return (
            f"it is {info.st_size / 1e6:.0f} MB, over the {limit // (1024 * 1024)} MB limit "
            "(KGRAPH_TRANSCRIPT_MAX_MB)"
        )
    return None


def compressed_kind(path: str | os.PathLike[str]) -> str | None:
    """ "gzip", "zip", ... when the file starts with a compression format's magic bytes.

    For the commands a person runs on a file they name (``kgraph transcript stats x.gz``):
    the reader itself stays tolerant and reads any bytes as lines."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(6)
    except OSError:
        return None
    return next((kind for magic, kind in _COMPRESSED if head.startswith(magic)), None)


def _open(path: str | os.PathLike[str]) -> IO[bytes]:
    """Open a transcript for binary reading, turning OS errors into one-line KgraphErrors.

    Only regular files are read, up to :func:`max_transcript_bytes`: a FIFO would block
    forever and ``/dev/zero`` would fill memory. Opened non-blocking, so a FIFO is refused
    instead of waiting for a writer.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError as exc:
        raise NotFoundError(f"transcript not found: {path}") from exc
    except IsADirectoryError as exc:
        raise KgraphError(f"cannot read transcript {path}: it is a directory") from exc
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise KgraphError(f"cannot read transcript {path}: {reason}") from exc
    try:
        refusal = _refusal(fd, path)
    except OSError as exc:
        os.close(fd)
        raise KgraphError(f"cannot read transcript {path}: {exc.strerror or exc}") from exc
    if refusal is not None:
        os.close(fd)
        raise KgraphError(f"cannot read transcript {path}: {refusal}")
    return os.fdopen(fd, "rb")


def iter_entries(
    path: str | os.PathLike[str], start_offset: int = 0, *, stats: ReadStats | None = None
) -> Iterator[Entry]:
    """Stream the entries of ``path`` from byte ``start_offset`` on, in file order.

    The file is opened now (a missing or unreadable file raises NotFoundError/KgraphError at
    the call, not on first iteration) and read line by line. A final line without a newline is
    parsed if it is complete JSON, otherwise ignored (``stats.partial_last_line``).
    """
    handle = _open(path)
    return _iter_open(handle, max(0, start_offset), stats if stats is not None else ReadStats())


def _iter_open(handle: IO[bytes], start: int, stats: ReadStats) -> Iterator[Entry]:
    with handle:
        handle.seek(start)
        offset = start
        for line in handle:
            line_offset = offset
            offset += len(line)
            stats.end_offset = offset
            if not line.strip():
                continue
            stats.lines += 1
            entries, malformed = parse_line(line, line_offset)
            if malformed and not line.endswith(b"\n"):
                # The line still being written: keep what decoded, don't count the torn rest.
                stats.partial_last_line = True
            else:
                stats.malformed += malformed
            stats.objects += len(entries)
            yield from entries


def read_new_entries(
    path: str | os.PathLike[str], offset: int, *, final: bool = False
) -> tuple[list[Entry], int]:
    """Entries from the complete lines after byte ``offset``, and the offset to resume from.

    An incomplete last line (no newline yet) is left for the next call; with ``final=True``
    (the session has ended) a last line without a newline is taken when it decodes cleanly.
    When the file is now smaller than ``offset``, or ``offset`` does not sit just after a
    newline, the file was rewritten and reading restarts from 0 (capture dedupes by uuid, so
    re-reading is safe). Costs one ``stat`` and nothing else when there is nothing new.
    """
    try:
        info = os.stat(path)
    except FileNotFoundError as exc:
        raise NotFoundError(f"transcript not found: {path}") from exc
    except OSError as exc:
        raise KgraphError(f"cannot read transcript {path}: {exc.strerror or exc}") from exc
    if not stat.S_ISREG(info.st_mode):
        raise KgraphError(f"cannot read transcript {path}: it is not a regular file")
    size = info.st_size
    offset = max(0, offset)
    if offset > size:
        offset = 0
    if offset == size:
        return [], offset
    entries: list[Entry] = []
    with _open(path) as handle:
        if offset > 0:
            handle.seek(offset - 1)
            if handle.read(1) != b"\n":
                offset = 0
        handle.seek(offset)
        position = offset
        for line in handle:
            if not line.endswith(b"\n"):
                if final:
                    parsed, malformed = parse_line(line, position)
                    if parsed and not malformed:
                        entries.extend(parsed)
                        position += len(line)
                break
            parsed, _ = parse_line(line, position)
            entries.extend(parsed)
            position += len(line)
    return entries, position


def read_tail(path: str | os.PathLike[str], n: int) -> list[Entry]:
    """The last ``n`` entries of ``path`` in chronological (file) order.

    Files up to 64 KB are read whole; larger ones backwards from the end in 64 KB chunks until
    ``n`` entries are decoded, so the cost depends on ``n`` and the line sizes, not the file
    size. Malformed lines are skipped; a torn last line is ignored.
    """
    if n <= 0:
        _open(path).close()
        return []
    with _open(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size <= TAIL_WHOLE_FILE_LIMIT:
            data = handle.read()
            return _entries_from_lines(data, 0, n)
        collected: list[Entry] = []  # newest first
        position = size
        carry = b""  # the (possibly partial) first line of the previous chunk
        while position > 0 and len(collected) < n:
            read_size = min(TAIL_CHUNK_SIZE, position)
            position -= read_size
            handle.seek(position)
            buffer = handle.read(read_size) + carry
            if position > 0:
                cut = buffer.find(b"\n")
                if cut < 0:  # one line longer than the chunk: keep reading backwards
                    carry = buffer
                    continue
                carry, buffer = buffer[: cut + 1], buffer[cut + 1 :]
                start = position + cut + 1
            else:
                carry, start = b"", 0
            chunk_entries = _entries_from_lines(buffer, start, n - len(collected))
            collected.extend(reversed(chunk_entries))
        collected.reverse()
        return collected[-n:]


def _entries_from_lines(data: bytes, base: int, n: int) -> list[Entry]:
    """Up to the last ``n`` entries in ``data`` (whole lines starting at ``base``), oldest first."""
    lines = data.split(b"\n")
    starts = []
    pos = base
    for line in lines:
        starts.append(pos)
        pos += len(line) + 1
    newest_first: list[Entry] = []
    for index in range(len(lines) - 1, -1, -1):
        line = lines[index]
        if not line.strip():
            continue
        entries, _ = parse_line(line, starts[index])
        newest_first.extend(reversed(entries))
        if len(newest_first) >= n:
            break
    del newest_first[n:]
    newest_first.reverse()
    return newest_first


def first_value(path: str | os.PathLike[str], key: str, *, max_bytes: int = 256 * 1024) -> Any:
    """The first string value of top-level ``key`` in the file's first ``max_bytes``; else None.

    A cheap peek used by discovery (``cwd``, ``sessionId``, ``agentId``) without a full read.
    """
    stats = ReadStats()
    entries = iter_entries(path, stats=stats)
    try:
        for entry in entries:
            value = entry.raw.get(key)
            if isinstance(value, str) and value:
                return value
            if stats.end_offset > max_bytes:
                break
    finally:
        close = getattr(entries, "close", None)
        if close is not None:
            close()
    return None
