"""Which commit a replayed session starts on: the code the session itself saw.

A session replayed "on the newest commit made before it started" sees the default
branch as it stood then. A session recorded on a feature branch saw something else: the
default branch as the branch left it, plus the branch's own work. Replaying the
``capture-dev`` sessions, one session's branch predated a commit the default branch had
by then, and the replay showed it an item about that commit ("Unify DetectChangedFiles
and ComputeFileChanges", while the session's code still had ComputeFileChanges): junk
that a real session on that branch is never shown, since a commit its checkout lacks is
held back (``kgraph.recall.stale.Elsewhere``), and before it was learned it is not stored.

The transcript says what the checkout held: each Read the session made of a file before
changing it printed that file's lines with their numbers. Of the default branch's recent
commits (``MAX_BACK``, newest first, the branch's own commits included once merged), the
replay takes the one where most of those files read as the session read them; the newest
when none does better than the newest, so a session on the default branch, or one whose
reads say nothing, starts where it always did.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path

from kgraph.runtime.git import Blobs

MAX_BACK = 300  # commits before the session's start that may be the one it saw
# A Read's result: "     12→text" (a tab instead of the arrow in older Claude Code).
_READ_LINE = re.compile(r"^ *(\d+)(?:→|\t)(.*)$")
_OBJECT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")

Seen = Mapping[str, Mapping[int, str]]  # path -> line number -> text, as a Read showed it


def read_lines(result: str) -> dict[int, str]:
    """The numbered lines of a Read tool's result (a reminder the tool appends is not one)."""
    found: dict[int, str] = {}
    for line in result.split("\n"):
        match = _READ_LINE.match(line)
        if match:
            found[int(match.group(1))] = match.group(2).rstrip()
    return found


def seen_files(reads: Iterable[tuple[str, str, str]]) -> dict[str, dict[int, str]]:
    """What the session's Reads showed of each file before it changed it: ``reads`` is
    (tool, repo-relative path, result) in transcript order; an Edit, Write or MultiEdit of a
    path ends what its later Reads can say about the checkout."""
    seen: dict[str, dict[int, str]] = {}
    changed: set[str] = set()
    for tool, path, result in reads:
        if tool != "Read":
            changed.add(path)
        elif path not in changed and (lines := read_lines(result)):
            seen.setdefault(path, {}).update(lines)
    return seen


def _matches(text: str, lines: Mapping[int, str]) -> bool:
    held = text.split("\n")
    return all(0 < n <= len(held) and held[n - 1].rstrip() == line for n, line in lines.items())


def _blob_ids(repo: Path, specs: Sequence[str]) -> list[str]:
    """The object id of each ``sha:path`` in ``specs`` ("sha:path" itself when missing),
    from one ``git cat-file --batch-check``."""
    proc = subprocess.run(
        ["git", "cat-file", "--batch-check"],
        cwd=repo,
        input="\n".join(specs) + "\n",
        capture_output=True,
        text=True,
        check=True,
        errors="replace",
    )
    return [line.split(" ")[0] for line in proc.stdout.splitlines()]


def best_seen(repo: Path, shas: Sequence[str], seen: Seen) -> str:
    """Of ``shas`` (newest first), the first where the most ``seen`` files hold the lines
    the session read; ``shas[0]`` unless another does strictly better. Each version of a
    file (blob) is read and compared once."""
    paths = sorted(seen)
    if not paths or len(shas) < 2:
        return shas[0]
    ids = _blob_ids(repo, [f"{sha}:{path}" for sha in shas for path in paths])
    holds: dict[tuple[str, str], bool] = {}  # (blob, path) -> it holds what was read
    best, best_score = shas[0], -1
    with Blobs(repo) as blobs:
        for n, sha in enumerate(shas):
            score = 0
            for m, path in enumerate(paths):
                blob = ids[n * len(paths) + m]
                if not _OBJECT_ID.fullmatch(blob):
                    continue  # the file is missing there
                if (blob, path) not in holds:
                    text = blobs.text(sha, path)
                    holds[(blob, path)] = text is not None and _matches(text, seen[path])
                score += holds[(blob, path)]
            if score > best_score:
                best, best_score = sha, score
    return best


def candidates(repo: Path, when: datetime) -> list[str]:
    """The commits of ``main`` made before ``when``, newest first (at most MAX_BACK)."""
    proc = subprocess.run(
        ["git", "rev-list", f"-{MAX_BACK}", f"--before={when.isoformat()}", "main"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return proc.stdout.split()
