"""Claude Code sessions the Entire CLI stored in a git repository: list them, or write some
out, to measure kgraph on sessions nobody tuned it on (``scripts/unseen_sessions.md``).

The Entire CLI commits each session's transcript to the branch ``entire/checkpoints/v1`` as
``<shard>/<checkpoint>/<n>/full.jsonl``, a ``metadata.json`` beside it (``agent``,
``session_id``), or in a newer layout to one ref per checkpoint
(``refs/entire/checkpoints/<xx>/<id>``) holding ``<n>/full.jsonl``. A session saved at
several checkpoints is stored once per save, each copy the one before and what followed, so
the largest copy is the session; a snapshot may lack the blobs of the largest files ("blob
missing"), and then the largest copy present is only the start of the session.

Each session is listed with the counts the unseen batches were chosen by (typed prompts,
tool calls, size), read with kgraph's own transcript reader, and where it started (its
first ``cwd``): a replay needs a session that ran in a checkout of the repository.

Usage (a fetched repository's git directory, bare or not)::

    python scripts/checkpoint_sessions.py GIT_DIR
    python scripts/checkpoint_sessions.py GIT_DIR --min-prompts 5 --min-tools 20 --min-kb 200
    python scripts/checkpoint_sessions.py GIT_DIR --extract 2980f522 d43002f0 --out DIR

``--extract`` writes the largest copy of each session named (an id or its prefix) to
``DIR/<session id>.jsonl``, byte for byte; bundle the default branch beside it for
``session_replay.py`` (``git --git-dir GIT_DIR bundle create R.bundle main``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from kgraph.capture.extract import transcript_cwds
from kgraph.capture.sources.stream import Ran, Said, conversation
from kgraph.transcript.reader import iter_entries

BRANCH = "entire/checkpoints/v1"
REFS = "refs/entire/checkpoints/"


@dataclass(frozen=True)
class Copy:
    """One ``full.jsonl`` blob: where it lies and its size (None: the snapshot lacks it)."""

    ref: str
    path: str
    blob: str
    size: int | None
    metadata: str | None  # the blob of the metadata.json beside it


@dataclass(frozen=True)
class Session:
    session_id: str
    agent: str
    branch: str  # the branch its checkout was on (metadata.json), "-" when not said
    copy: Copy  # the largest copy present
    copies: int
    missing: int  # copies whose blob the snapshot lacks
    prompts: int
    tools: int
    first: str
    cwd: str


def git(git_dir: Path, *args: str) -> bytes:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", *args], capture_output=True, check=True
    ).stdout


def checkpoint_refs(git_dir: Path) -> list[str]:
    """The checkpoint branch (local, else a remote's) and the per-checkpoint refs."""
    names = git(git_dir, "for-each-ref", "--format=%(refname)").decode().split()
    branch = [n for n in names if n == f"refs/heads/{BRANCH}"] or [
        n for n in names if n.startswith("refs/remotes/") and n.endswith(f"/{BRANCH}")
    ][:1]
    return branch + [n for n in names if n.startswith(REFS)]


def copies(git_dir: Path) -> Iterator[Copy]:
    """Every ``full.jsonl`` on the checkpoint refs, with the metadata.json beside it."""
    for ref in checkpoint_refs(git_dir):
        rows = git(git_dir, "ls-tree", "-r", "-l", ref).decode(errors="replace")
        blobs: dict[str, tuple[str, int | None]] = {}
        for row in rows.splitlines():
            meta, _, path = row.partition("\t")
            _, kind, blob, size = meta.split()
            if kind == "blob":
                blobs[path] = (blob, int(size) if size.isdigit() else None)
        for path, (blob, size) in blobs.items():
            if path == "full.jsonl" or path.endswith("/full.jsonl"):
                folder = path.rpartition("/")[0]
                beside = blobs.get(f"{folder}/metadata.json" if folder else "metadata.json")
                yield Copy(ref, path, blob, size, beside[0] if beside else None)


def read_blob(git_dir: Path, blob: str) -> bytes | None:
    try:
        return git(git_dir, "cat-file", "blob", blob)
    except subprocess.CalledProcessError:
        return None  # the snapshot lacks it


def _metadata(git_dir: Path, copy: Copy) -> dict[str, object]:
    data = read_blob(git_dir, copy.metadata) if copy.metadata else None
    try:
        value = json.loads(data) if data else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _counts(text: bytes) -> tuple[str | None, int, int, str, str]:
    """(session id, typed prompts, tool calls, first time, first cwd) of a transcript."""
    with tempfile.TemporaryDirectory(prefix="kgraph-checkpoint-") as tmp:
        path = Path(tmp) / "full.jsonl"
        path.write_bytes(text)
        entries = list(iter_entries(path))
    prompts = tools = 0
    for event in conversation(entries):
        if isinstance(event, Said) and event.who == "user" and event.via == "prompt":
            prompts += 1
        elif isinstance(event, Ran):
            tools += 1
    times = [e.time for e in entries if e.time is not None]
    cwds = transcript_cwds(entries)
    session_id = next((e.session_id for e in entries if e.session_id), None)
    first = min(times).isoformat(timespec="minutes") if times else "-"
    return session_id, prompts, tools, first, cwds[0] if cwds else "-"


def sessions(git_dir: Path) -> tuple[list[Session], list[str]]:
    """Each session once, by its largest copy present, oldest first; and the ids of the
    sessions whose every copy the snapshot lacks."""
    by_id: dict[str, list[tuple[Copy, dict[str, object]]]] = {}
    for copy in copies(git_dir):
        meta = _metadata(git_dir, copy)
        key = str(meta.get("session_id") or f"{copy.ref}:{copy.path}")
        by_id.setdefault(key, []).append((copy, meta))
    found, lacking = [], []
    for key, group in by_id.items():
        # ls-tree gave each copy's size: read only the largest the snapshot holds
        present = sorted(
            (p for p in group if p[0].size is not None), key=lambda p: -(p[0].size or 0)
        )
        text = read_blob(git_dir, present[0][0].blob) if present else None
        if text is None:
            lacking.append(key)
            continue
        copy, meta = present[0]
        session_id, prompts, tools, first, cwd = _counts(text)
        found.append(
            Session(
                session_id=session_id or key,
                agent=str(meta.get("agent") or "-"),
                branch=str(meta.get("branch") or "-"),
                copy=copy,
                copies=len(group),
                missing=len(group) - len(present),
                prompts=prompts,
                tools=tools,
                first=first,
                cwd=cwd,
            )
        )
    return sorted(found, key=lambda s: (s.first, s.session_id)), sorted(lacking)


def table(found: Sequence[Session]) -> str:
    header = ("session", "agent", "KB", "prompts", "tools", "copies", "first", "branch", "cwd")
    rows = [(*header, "path")]
    for s in found:
        size = s.copy.size or 0
        # a copy the snapshot lacks may be the largest: the one listed, only the start
        copies_ = f"{s.copies}" + (f", {s.missing} missing: maybe partial" if s.missing else "")
        rows.append(
            (s.session_id[:8], s.agent, str(size // 1024), str(s.prompts), str(s.tools),
             copies_, s.first, s.branch, s.cwd, s.copy.path)
        )  # fmt: skip
    widths = [max(len(r[n]) for r in rows) for n in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows)


def extract(git_dir: Path, listed: Sequence[Session], wanted: Sequence[str], out: Path) -> int:
    """Write the largest copy of each session ``wanted`` names (an id or a prefix of one,
    whatever the listing's filters) to ``out``; 1 when one matched none or several."""
    out.mkdir(parents=True, exist_ok=True)
    status = 0
    for prefix in wanted:
        match = [s for s in listed if s.session_id.startswith(prefix)]
        if len(match) != 1:
            print(f"{prefix}: {len(match)} sessions match", file=sys.stderr)
            status = 1
            continue
        text = read_blob(git_dir, match[0].copy.blob) or b""
        target = out / f"{match[0].session_id}.jsonl"
        if target.exists() and not target.is_file():
            print(f"{target}: exists and is not a file", file=sys.stderr)
            status = 1
            continue
        target.write_bytes(text)
        print(f"{target} ({len(text)} bytes, {match[0].copy.ref}:{match[0].copy.path})")
    return status


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("git_dir", type=Path)
    parser.add_argument("--min-prompts", type=int, default=0)
    parser.add_argument("--min-tools", type=int, default=0)
    parser.add_argument("--min-kb", type=int, default=0)
    parser.add_argument("--extract", nargs="+", metavar="ID", help="sessions (or id prefixes)")
    parser.add_argument("--out", type=Path, help="folder --extract writes to")
    args = parser.parse_args(argv)
    if args.extract and args.out is None:
        parser.error("--extract needs --out")
    try:
        listed, lacking = sessions(args.git_dir)
    except subprocess.CalledProcessError as failed:
        said = failed.stderr.decode(errors="replace").strip().splitlines() or ["no answer"]
        print(f"{args.git_dir}: git cannot read it ({said[0]})", file=sys.stderr)
        return 2
    if args.extract:
        return extract(args.git_dir, listed, args.extract, args.out)
    found = [
        s
        for s in listed
        if s.prompts >= args.min_prompts
        and s.tools >= args.min_tools
        and (s.copy.size or 0) >= args.min_kb * 1024
    ]
    if found:
        print(table(found))
    elif listed:
        print(f"none of the {len(listed)} sessions on the checkpoint refs passes the filters")
    else:
        print("no sessions on the checkpoint refs")
    if lacking:
        names = " ".join(key[:8] for key in lacking)
        print(f"{len(lacking)} more whose every copy the snapshot lacks: {names}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
