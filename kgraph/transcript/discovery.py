"""Finding transcripts under the Claude home: project directories, sessions, subagents.

Layout (``<home>`` is ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``)::

    <home>/projects/<encoded cwd>/<session-id>.jsonl
    <home>/projects/<encoded cwd>/<session-id>/subagents/agent-<id>.jsonl   (>= 2.1.2)
    <home>/projects/<encoded cwd>/<session-id>/subagents/workflows/<wf>/agent-<id>.jsonl
    <home>/projects/<encoded cwd>/agent-<id>.jsonl                          (2.0.x, legacy)

plus, before 2.0.x, subagent lines inlined in the session file with ``isSidechain: true``.
The directory name replaces every non-alphanumeric character with ``-`` (lossy: ``_``, ``.``,
``-`` and spaces collide), and names over 200 characters are cut to 200 plus ``-<hash>``; so a
candidate directory is confirmed with the ``cwd`` field inside its files.
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kgraph.transcript.reader import first_value, iter_entries

CONFIG_DIR_ENV = "CLAUDE_CONFIG_DIR"
MAX_DIR_NAME = 200
_NON_ALNUM = re.compile(r"[^a-zA-Z0-9]")
COMPACTION_AGENT_PREFIX = "acompact-"


def claude_home(claude_dir: str | os.PathLike[str] | None = None) -> Path:
    """The Claude home: ``claude_dir`` if given, else ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    if claude_dir:
        return Path(claude_dir).expanduser()
    env = os.environ.get(CONFIG_DIR_ENV)
    if env:
        return Path(env).expanduser()
    return Path.home() / ".claude"


def normalise_cwd(cwd: str | os.PathLike[str]) -> str:
    """The cwd as Claude Code records it: absolute, symlinks resolved, NFC-normalised."""
    return unicodedata.normalize("NFC", os.path.realpath(os.fspath(cwd)))


def encode_project_dir(cwd: str) -> str:
    """Claude Code's directory name for ``cwd`` (for names over 200 chars: the 200-char prefix).

    Every non-alphanumeric character becomes ``-``. Longer names get ``-<hash>`` appended by
    Claude Code with a hash that differs between its CLI and SDK, so callers match the prefix.
    """
    return _NON_ALNUM.sub("-", cwd)


def _candidate_dirs(projects: Path, cwd: str) -> list[Path]:
    name = encode_project_dir(cwd)
    if len(name) <= MAX_DIR_NAME:
        candidate = projects / name
        return [candidate] if candidate.is_dir() else []
    prefix = name[:MAX_DIR_NAME] + "-"
    try:
        return sorted(p for p in projects.iterdir() if p.name.startswith(prefix) and p.is_dir())
    except OSError:
        return []


def _session_cwd(path: Path) -> str | None:
    try:
        value = first_value(path, "cwd")
    except Exception:  # an unreadable file just doesn't confirm anything
        return None
    return value if isinstance(value, str) else None


def _main_files(directory: Path) -> list[Path]:
    try:
        return [
            p
            for p in directory.iterdir()
            if p.suffix == ".jsonl" and not p.name.startswith("agent-") and p.is_file()
        ]
    except OSError:
        return []


def project_dir_for(
    cwd: str | os.PathLike[str], claude_dir: str | os.PathLike[str] | None = None
) -> Path | None:
    """The transcript directory of the project whose Claude Code cwd was ``cwd``, or None.

    A candidate directory is accepted when one of its session files records this ``cwd``, or
    when none of its files records any cwd (nothing contradicts it). One whose files all
    belong to another path (a lossy-encoding collision) is rejected.
    """
    wanted = normalise_cwd(cwd)
    projects = claude_home(claude_dir) / "projects"
    for candidate in _candidate_dirs(projects, wanted):
        recorded = [c for c in (_session_cwd(p) for p in _main_files(candidate)) if c]
        if not recorded or any(_same_path(c, wanted) for c in recorded):
            return candidate
    return None


def _same_path(recorded: str, wanted: str) -> bool:
    return unicodedata.normalize("NFC", recorded.rstrip("/\\")) == wanted.rstrip("/\\")


@dataclass(frozen=True)
class SessionFile:
    """A main session transcript (agent files excluded)."""

    path: Path
    session_id: str
    mtime: datetime
    size: int
    cwd: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "session_id": self.session_id,
            "mtime": self.mtime.isoformat(),
            "size": self.size,
            "cwd": self.cwd,
        }


def list_sessions(
    cwd: str | os.PathLike[str], claude_dir: str | os.PathLike[str] | None = None
) -> list[SessionFile]:
    """Session transcripts of the project at ``cwd``, newest (by mtime) first.

    ``agent-*.jsonl`` files are excluded, and so are sessions whose recorded ``cwd`` is a
    different path that happens to encode to the same directory name.
    """
    directory = project_dir_for(cwd, claude_dir)
    if directory is None:
        return []
    wanted = normalise_cwd(cwd)
    sessions = []
    for path in _main_files(directory):
        try:
            stat = path.stat()
        except OSError:
            continue
        recorded = _session_cwd(path)
        if recorded is not None and not _same_path(recorded, wanted):
            continue
        sessions.append(
            SessionFile(
                path=path,
                session_id=path.stem,
                mtime=datetime.fromtimestamp(stat.st_mtime, UTC),
                size=stat.st_size,
                cwd=recorded,
            )
        )
    sessions.sort(key=lambda s: (s.mtime, s.path.name), reverse=True)
    return sessions


def latest_session(
    cwd: str | os.PathLike[str], claude_dir: str | os.PathLike[str] | None = None
) -> SessionFile | None:
    """The most recently modified session of the project at ``cwd`` (agent files excluded)."""
    sessions = list_sessions(cwd, claude_dir)
    return sessions[0] if sessions else None


def find_session(session_id: str, claude_dir: str | os.PathLike[str] | None = None) -> Path | None:
    """The main transcript ``<session_id>.jsonl`` in any project directory, or None."""
    if not session_id or "/" in session_id or "\\" in session_id:
        return None
    projects = claude_home(claude_dir) / "projects"
    try:
        directories = [p for p in projects.iterdir() if p.is_dir()]
    except OSError:
        return None
    for directory in directories:
        candidate = directory / f"{session_id}.jsonl"
        if candidate.is_file():
            return candidate
    return None


# ----------------------------------------------------------------------------- subagents


@dataclass(frozen=True)
class Subagent:
    """A subagent of a session. ``layout`` is ``"subagents_dir"``, ``"legacy"`` or ``"inline"``.

    Inline subagents (1.0.x) live in the session file itself: ``path`` is the session file and
    ``root_uuid`` the first line of that sidechain. ``is_warmup`` marks the 2.0.x startup
    "Warmup" agents (first prompt ``Warmup``), which did no work.
    """

    agent_id: str
    path: Path
    layout: str
    is_compaction: bool = False
    root_uuid: str | None = None
    is_warmup: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent_id": self.agent_id,
            "path": str(self.path),
            "layout": self.layout,
            "is_compaction": self.is_compaction,
            "root_uuid": self.root_uuid,
            "is_warmup": self.is_warmup,
        }


def agent_id_from_name(name: str) -> str | None:
    """``"aac57f5"`` for ``agent-aac57f5.jsonl``; None for anything else."""
    if name.startswith("agent-") and name.endswith(".jsonl"):
        agent_id = name[len("agent-") : -len(".jsonl")]
        return agent_id or None
    return None


def is_compaction_agent(agent_id: str | None) -> bool:
    """True for the compaction summariser's agent (``agent-acompact-<hex>.jsonl``)."""
    return bool(agent_id) and str(agent_id).startswith(COMPACTION_AGENT_PREFIX)


def find_subagents(session_path: str | os.PathLike[str], *, inline: bool = True) -> list[Subagent]:
    """All subagents of the session transcript at ``session_path``, in all three layouts.

    - ``<session-id>/subagents/**/agent-*.jsonl`` beside the session file;
    - legacy ``agent-*.jsonl`` in the same directory whose ``sessionId`` is this session's;
    - with ``inline=True``, sidechain runs inside the session file itself (one per root).
    """
    session = Path(session_path)
    session_id = session.stem
    found: list[Subagent] = []
    subdir = session.parent / session_id / "subagents"
    if subdir.is_dir():
        for path in sorted(subdir.rglob("agent-*.jsonl")):
            agent_id = agent_id_from_name(path.name)
            if agent_id:
                found.append(
                    Subagent(
                        agent_id,
                        path,
                        "subagents_dir",
                        is_compaction_agent(agent_id),
                        is_warmup=_is_warmup(path),
                    )
                )
    try:
        siblings = sorted(session.parent.glob("agent-*.jsonl"))
    except OSError:
        siblings = []
    for path in siblings:
        agent_id = agent_id_from_name(path.name)
        if agent_id and _peek(path, "sessionId") == session_id:
            found.append(
                Subagent(
                    agent_id,
                    path,
                    "legacy",
                    is_compaction_agent(agent_id),
                    is_warmup=_is_warmup(path),
                )
            )
    if inline and session.is_file():
        found.extend(inline_subagents(session))
    return found


def _peek(path: Path, key: str) -> str | None:
    try:
        value = first_value(path, key)
    except Exception:
        return None
    return value if isinstance(value, str) else None


def _is_warmup(path: Path) -> bool:
    """True when the agent file's first user line is the 2.0.x startup prompt ``Warmup``."""
    try:
        for count, entry in enumerate(iter_entries(path)):
            if entry.type == "user":
                return entry.text.strip() == "Warmup"
            if count > 20:
                break
    except Exception:
        return False
    return False


def inline_subagents(session_path: Path) -> list[Subagent]:
    """Sidechain runs inlined in a (1.0.x) session file, one per sidechain root.

    A root is a sidechain line whose parent is absent or not a sidechain line. Files whose
    lines are all sidechains (agent files themselves) have no inline subagents.
    """
    sidechain: set[str] = set()
    roots: list[str] = []
    main_lines = 0
    for entry in iter_entries(session_path):
        if entry.type not in {"user", "assistant"}:
            continue
        if not entry.is_sidechain:
            main_lines += 1
            continue
        uuid = entry.uuid
        if uuid is None:
            continue
        parent = entry.parent_uuid
        if parent is None or parent not in sidechain:
            roots.append(uuid)
        sidechain.add(uuid)
    if main_lines == 0:
        return []
    return [Subagent(f"inline-{root[:8]}", session_path, "inline", False, root) for root in roots]
