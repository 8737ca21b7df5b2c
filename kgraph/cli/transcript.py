"""``kgraph transcript``: read Claude Code session transcripts (sessions, show, stats, status,
qa, mistakes, subagents). Thin shells over :mod:`kgraph.transcript`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from kgraph.cli.common import int_range, json_option, print_json, table
from kgraph.errors import KgraphError, NotFoundError

if TYPE_CHECKING:
    from kgraph.transcript import Entry

PROGRESS_MIN_BYTES = 16 * 1024 * 1024  # show a progress bar for transcripts this big

claude_dir_option = click.option(
    "--claude-dir",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="CLAUDE_CONFIG_DIR",
    help="Claude home (default: $CLAUDE_CONFIG_DIR, else ~/.claude).",
)
project_option = click.option(
    "--project",
    "project",
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory Claude Code ran in (default: the current directory, else its git root).",
)


def _project_sessions(project: Path | None, claude_dir: Path | None) -> tuple[Path, list[Any]]:
    from kgraph.db import project_root
    from kgraph.transcript import list_sessions

    base = (project or Path.cwd()).resolve()
    sessions = list_sessions(base, claude_dir)
    if not sessions and project is None:
        root = project_root(base)
        if root != base:
            base, sessions = root, list_sessions(root, claude_dir)
    return base, sessions


def _resolve(ref: str, claude_dir: Path | None) -> Path:
    """A transcript path from a file path or a session id."""
    from kgraph.transcript import find_session

    path = Path(ref).expanduser()
    try:
        exists = path.exists()
    except (OSError, ValueError):  # too long for a path: it can only be a session id
        exists = False
    if exists:
        from kgraph.transcript import compressed_kind

        kind = compressed_kind(path) if path.is_file() else None
        if kind is not None:
            raise KgraphError(
                f"cannot read transcript {path}: it is {kind}-compressed: decompress it first"
            )
        return path
    found = find_session(ref, claude_dir)
    if found is None:
        raise NotFoundError(f"no transcript file or session id {ref!r}")
    return found


def _one_line(text: str, limit: int = 100) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@click.group()
def transcript() -> None:
    """Read Claude Code session transcripts (~/.claude/projects/<project>/<session>.jsonl).

    \b
    Example:
      kgraph transcript sessions
      kgraph transcript stats ~/.claude/projects/-home-me-app/1234.jsonl --json
      kgraph transcript status --json
    """


@transcript.command("sessions")
@project_option
@claude_dir_option
@json_option
def sessions_cmd(project: Path | None, claude_dir: Path | None, as_json: bool) -> None:
    """List the sessions of a project, newest first (subagent files excluded).

    \b
    Example:
      kgraph transcript sessions --project ~/src/app --json
    """
    base, sessions = _project_sessions(project, claude_dir)
    if as_json:
        print_json([s.to_dict() for s in sessions])
        return
    table(
        f"Sessions of {base}",
        ["session", "modified", "size", "path"],
        [[s.session_id, s.mtime.strftime("%Y-%m-%d %H:%M"), s.size, s.path] for s in sessions],
    )


def _entry_summary(entry: Entry) -> str:
    if entry.type == "assistant":
        parts = []
        for block in entry.blocks:
            if block.kind == "tool_use":
                parts.append(f"[{block.name}] {_one_line(json.dumps(block.input), 60)}")
            elif block.kind == "text" and block.text.strip():
                parts.append(block.text)
            elif block.kind in {"thinking", "redacted_thinking"}:
                parts.append("(thinking)")
        return _one_line(" ".join(parts))
    if entry.type == "user":
        results = [b for b in entry.blocks if b.kind == "tool_result"]
        if results:
            flag = " ERROR" if any(b.is_error for b in results) else ""
            return _one_line(f"(tool result{flag}) " + " ".join(b.text for b in results))
        return _one_line(entry.text)
    if entry.type == "summary":
        return _one_line(str(entry.raw.get("summary", "")))
    content = entry.raw.get("content")
    return _one_line(content) if isinstance(content, str) else ""


def _entry_type(entry: Entry) -> str:
    label = entry.type + (f"/{entry.subtype}" if entry.subtype else "")
    return label + (" (sidechain)" if entry.is_sidechain else "")


@transcript.command("show")
@click.argument("ref", metavar="FILE|SESSION_ID")
@click.option("--tail", "tail", type=int_range(1), help="Only the last N entries.")
@click.option("--raw", is_flag=True, help="With --json: include each entry's raw object.")
@claude_dir_option
@json_option
def show_cmd(ref: str, tail: int | None, raw: bool, claude_dir: Path | None, as_json: bool) -> None:
    """Show a transcript's entries (all, or the last N read from the end of the file).

    \b
    Example:
      kgraph transcript show 5c0375b4-57a5-4f26-b12d-d022ee4e51b7 --tail 20
    """
    from kgraph.transcript import iter_entries, read_tail

    path = _resolve(ref, claude_dir)
    entries = read_tail(path, tail) if tail else list(iter_entries(path))
    if as_json:
        rows = []
        for e in entries:
            row: dict[str, Any] = {
                "offset": e.offset,
                "type": e.type,
                "subtype": e.subtype,
                "uuid": e.uuid,
                "parent_uuid": e.parent_uuid,
                "timestamp": e.timestamp,
                "is_sidechain": e.is_sidechain,
                "summary": _entry_summary(e),
            }
            if raw:
                row["raw"] = e.raw
            rows.append(row)
        print_json(rows)
        return
    table(
        str(path),
        ["time", "type", "uuid", "summary"],
        [
            [
                (e.timestamp or "")[11:19],
                _entry_type(e),
                (e.uuid or "")[:8],
                _entry_summary(e),
            ]
            for e in entries
        ],
    )


@transcript.command("stats")
@click.argument("ref", metavar="FILE|SESSION_ID")
@claude_dir_option
@json_option
def stats_cmd(ref: str, claude_dir: Path | None, as_json: bool) -> None:
    """Count a transcript's entries, types, tool calls, errors, files, compactions, subagents.

    \b
    Example:
      kgraph transcript stats session.jsonl --json | jq .types
    """
    from kgraph.transcript import transcript_stats

    path = _resolve(ref, claude_dir)
    size = path.stat().st_size if path.is_file() else 0
    if size >= PROGRESS_MIN_BYTES and sys.stderr.isatty():
        with click.progressbar(length=size, label="reading", file=sys.stderr) as bar:
            done = [0]

            def advance(position: int) -> None:
                bar.update(position - done[0])
                done[0] = position

            stats = transcript_stats(path, progress=advance)
    else:
        stats = transcript_stats(path)
    if as_json:
        print_json(stats.to_dict())
        return
    data = stats.to_dict()
    rows = [
        [key, data[key]]
        for key in (
            "entries",
            "unique_entries",
            "malformed",
            "tool_calls",
            "tool_errors",
            "files_read",
            "files_edited",
            "commands",
            "compactions",
            "microcompactions",
            "subagents",
            "compaction_agents",
            "sidechain_entries",
            "first_timestamp",
            "last_timestamp",
        )
    ]
    rows.append(["types", ", ".join(f"{k} {v}" for k, v in stats.types.items())])
    table(str(stats.path), ["field", "value"], rows)


@transcript.command("status")
@project_option
@click.option("--session", "session_ref", metavar="FILE|SESSION_ID", help="A given session.")
@claude_dir_option
@json_option
def status_cmd(
    project: Path | None, session_ref: str | None, claude_dir: Path | None, as_json: bool
) -> None:
    """Is the latest session working, waiting for the user, or stuck (and on what)?

    Stuck thresholds come from [transcript] in .claude/kgraph.toml (stuck_window,
    stuck_same_action, stuck_same_error, stuck_alternation_cycles).

    \b
    Example:
      kgraph transcript status --project ~/src/app --json
    """
    from kgraph.config import load_config, section
    from kgraph.db import project_root
    from kgraph.transcript import StuckThresholds, session_status

    if session_ref:
        path = _resolve(session_ref, claude_dir)
        base = (project or Path.cwd()).resolve()
    else:
        base, sessions = _project_sessions(project, claude_dir)
        if not sessions:
            raise NotFoundError(f"no Claude Code sessions for {base}")
        path = sessions[0].path
    thresholds = StuckThresholds.from_config(section(load_config(project_root(base)), "transcript"))
    status = session_status(path, thresholds)
    if as_json:
        print_json(status.to_dict())
        return
    line = f"{status.state} ({status.base_state.reason})"
    if status.stuck:
        line += f"; stuck pattern {status.stuck.pattern}: {status.stuck.detail}"
    click.echo(f"{status.session_id or path.stem}: {line}")


@transcript.command("qa")
@click.argument("ref", metavar="FILE|SESSION_ID")
@click.option("--include-sidechains", is_flag=True, help="Also subagent prompts and answers.")
@claude_dir_option
@json_option
def qa_cmd(ref: str, include_sidechains: bool, claude_dir: Path | None, as_json: bool) -> None:
    """Question/answer pairs: user prompts with replies, and answers to AskUserQuestion.

    \b
    Example:
      kgraph transcript qa session.jsonl --json | jq '.[] | select(.source=="ask_user_question")'
    """
    from kgraph.transcript import iter_entries, qa_pairs

    pairs = qa_pairs(iter_entries(_resolve(ref, claude_dir)), include_sidechains=include_sidechains)
    if as_json:
        print_json([p.to_dict() for p in pairs])
        return
    table(
        "Q&A",
        ["source", "question", "answer"],
        [[p.source, _one_line(p.question, 80), _one_line(p.answer, 120)] for p in pairs],
    )


@transcript.command("mistakes")
@click.argument("ref", metavar="FILE|SESSION_ID")
@claude_dir_option
@json_option
def mistakes_cmd(ref: str, claude_dir: Path | None, as_json: bool) -> None:
    """Error→fix sequences: a failing tool call, then a success on the same command or file.

    \b
    Example:
      kgraph transcript mistakes session.jsonl --json
    """
    from kgraph.transcript import error_fix_sequences, iter_entries

    fixes = error_fix_sequences(iter_entries(_resolve(ref, claude_dir)))
    if as_json:
        print_json([f.to_dict() for f in fixes])
        return
    table(
        "Error → fix",
        ["tool", "target", "error", "fix"],
        [
            [f.tool, _one_line(f.target, 60), _one_line(f.error, 80), _one_line(f.fix, 100)]
            for f in fixes
        ],
    )


@transcript.command("subagents")
@click.argument("ref", metavar="FILE|SESSION_ID")
@claude_dir_option
@json_option
def subagents_cmd(ref: str, claude_dir: Path | None, as_json: bool) -> None:
    """Subagent transcripts of a session (subagents/ dir, legacy agent-*.jsonl, inline).

    \b
    Example:
      kgraph transcript subagents 491e126e-1e71-469c-ade2-fcc8af567c74 --json
    """
    from kgraph.transcript import find_subagents

    found = find_subagents(_resolve(ref, claude_dir))
    if as_json:
        print_json([s.to_dict() for s in found])
        return
    table(
        "Subagents",
        ["agent", "layout", "compaction", "path"],
        [[s.agent_id, s.layout, "yes" if s.is_compaction else "", s.path] for s in found],
    )
