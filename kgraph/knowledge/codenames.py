"""The code an item names, and which of it the item's files hold.

An item describes code as it stood when it was captured: a commit message the code its
commit left, a session's explanation the code the session ended with. Months later the
function it names may be gone, the constant renamed; the item is still stored, still about
the same files, and a hook would still show it. Replaying real sessions, such items were
most of what readers judged junk: true once, wrong now, and shown to an agent that trusts
what it is told.

So capture records, with each item, the code names it writes that its files held at the
time (:func:`held_names`, kept in ``data["code"]``), and recall leaves out an item once its
files no longer hold one of them (:mod:`kgraph.recall.stale`). Recording what was held
keeps a commit that removed ``FooBar`` ("Remove FooBar, now unused") from being judged by
the name it removed, and a name the item only mentions (defined elsewhere) from being
judged at all.

A commit's message describes the change its commit made, and a change can be rewritten
while every name it wrote survives (a function taking a display name, later a typed
value). So capture also records, for an item of a commit, a key of each line the commit
wrote in its code files (:func:`written_lines`, kept in ``data["wrote"]``); once none of
those lines is left in its files, the change it describes is gone and so is the item. A
line is compared by its letters, digits and underscores only, so that a formatter's run
(spacing, quotes, trailing commas) does not erase it.

A code name is what a sentence writes only as code: ``CamelCase``, ``lowerCamel``,
``snake_case`` or ``SCREAMING_CASE``, of six or more characters; a file holds it when it
holds the same identifier, whole (``handleSessionStart`` is not held by a file that only
has ``handleSessionStartCommon``). Standard library only: the hooks use it.
"""

from __future__ import annotations

import os
import re
import stat
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath

from kgraph.knowledge.areas import DOCUMENTATION, infer_code_area

__all__ = [
    "MAX_BYTES",
    "MAX_FILES",
    "held_names",
    "identifiers",
    "line_keys",
    "named_code",
    "read_source",
    "written_files",
    "written_lines",
]

MIN_NAME = 6
MAX_FILES = 6  # files of an item read to judge it (the first ones it is about)
MAX_BYTES = 2_000_000  # of each file
_CODE_NAME = re.compile(
    r"(?<![\w./-])(?:[A-Z][a-z0-9]+[A-Z]\w*|[a-z][a-z0-9]*[A-Z]\w*|[A-Z][A-Z0-9]*_[A-Z0-9_]+"
    r"|[a-z][a-z0-9]*_[a-z0-9_]+)(?![\w/-])"
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A written line tells something when its letters, digits and underscores number at least
# MIN_LINE ("}", "return", "else:" are in every file); at most MAX_WRITTEN are kept per file.
MIN_LINE = 8
MAX_WRITTEN = 12
_NOT_WORD = str.maketrans("", "", "!\"#$%&'()*+,-./:;<=>?@[\\]^`{|}~ \t\n\r\x0b\x0c")


def named_code(text: str, files: Iterable[str] = ()) -> set[str]:
    """The code names ``text`` writes, less the stems of ``files`` (an item naming its own
    file's stem, ``manual_commit_hooks``, names a file, not code in it)."""
    stems = {PurePosixPath(f).stem for f in files}
    return {
        name
        for m in _CODE_NAME.finditer(text)
        if len(name := m.group(0)) >= MIN_NAME and name not in stems
    }


def read_source(path: Path) -> str | None:
    """A source file's text as recall and capture read it: its first MAX_BYTES, UTF-8 with
    replacement; None when it cannot be read (gone, a directory, no permission) or is not a
    regular file: opening a FIFO to read waits for a writer, and a hook must never wait."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks: list[bytes] = []
        left = MAX_BYTES
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks).decode("utf-8", errors="replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def identifiers(text: str) -> frozenset[str]:
    """Every identifier of a source text, whole."""
    return frozenset(_IDENTIFIER.findall(text))


def held_names(
    content: str, files: Iterable[str], read: Callable[[str], str | None]
) -> list[str] | None:
    """The code names ``content`` writes that one of its first MAX_FILES ``files`` (in path
    order, as recall reads them) holds, each file's text given by ``read`` (None when it
    has none), sorted; None when it writes names but none of those files could be read."""
    paths = sorted(files)
    names = named_code(content, paths)
    if not names:
        return []
    held: set[str] = set()
    texts = [text for path in paths[:MAX_FILES] if (text := read(path)) is not None]
    for text in texts:
        held |= names & identifiers(text[:MAX_BYTES])
    return sorted(held) if texts else None


def _words(line: str) -> str:
    """A line's letters, digits and underscores (punctuation and spaces dropped)."""
    return line.translate(_NOT_WORD)


def _key(words: str) -> str:
    return format(zlib.crc32(words.encode()), "08x")


def line_keys(text: str) -> frozenset[str]:
    """The keys of every telling line of a source text (a digest of its words)."""
    return frozenset(
        _key(words) for line in text.splitlines() if len(words := _words(line)) >= MIN_LINE
    )


def written_files(files: Iterable[str]) -> list[str]:
    """The files whose written lines are recorded, and read again to judge them: the first
    MAX_FILES code files in path order. Not documents: their lines are sentences, reworded
    without undoing what they say (replaying a repository of papers and replies, four
    commit items whose Markdown lines had all been rewritten were useful twice)."""
    return [path for path in sorted(files) if infer_code_area(path) != DOCUMENTATION][:MAX_FILES]


def written_lines(
    files: Iterable[str],
    after: Callable[[str], str | None],
    before: Callable[[str], str | None],
) -> list[str] | None:
    """The keys of the telling lines a change wrote in its :func:`written_files` of
    ``files``: lines of a file's text ``after`` it that its text ``before`` it (None for a
    new file) lacked, at most MAX_WRITTEN per file, sorted; None when no file could be
    read after the change (a commit git does not have, or only documents)."""
    written: set[str] = set()
    read = False
    for path in written_files(files):
        text = after(path)
        if text is None:
            continue
        read = True
        old = {_words(line) for line in (before(path) or "").splitlines()}
        new: dict[str, None] = {}
        for line in text.splitlines():
            words = _words(line)
            if len(words) >= MIN_LINE and words not in old:
                new[words] = None
                if len(new) == MAX_WRITTEN:
                    break
        written.update(_key(words) for words in new)
    return sorted(written) if read else None
