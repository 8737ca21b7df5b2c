"""PostToolUse on Read/Edit/Write/MultiEdit: what is recorded about the file just touched.

The ranking is :func:`kgraph.recall.file.file_recall`; this face maps the tool's path into
the project, skips other tools and files outside it, and delivers once per session.
Standard library only: it runs on every file read.
"""

from __future__ import annotations

from kgraph.db.reader import ReadConnection
from kgraph.hooks.context import HookContext
from kgraph.knowledge.areas import relative_path
from kgraph.recall.evidence import load_evidence_settings
from kgraph.recall.file import (
    FileRecall,
    file_recall,
    file_words,
    touched_symbols,
)
from kgraph.recall.readmodel import history_shown, session_share
from kgraph.recall.stale import CodeCheck
from kgraph.recall.words import TaskWords
from kgraph.tools import FILE_TOOLS, TEXT_EDIT_TOOLS

__all__ = ["run", "tool_path"]


def tool_path(ctx: HookContext) -> str | None:
    """The repo-relative path of the file the tool worked on; None for other tools and for
    files outside the project."""
    payload = ctx.payload
    if payload.tool_name not in FILE_TOOLS or not payload.tool_file:
        return None
    path = relative_path(payload.tool_file, ctx.root)
    if not path or path.startswith(("/", "../")) or path == "..":
        return None
    return path


def run(ctx: HookContext) -> str | None:
    path = tool_path(ctx)
    if path is None:
        return None
    settings = ctx.settings
    tool_input = ctx.payload.raw.get("tool_input")
    symbols = touched_symbols(
        ctx.root / path,
        ctx.payload.tool_name,
        tool_input if isinstance(tool_input, dict) else {},
    )
    # The file's items come once; later, an edit brings only items naming what it touches.
    recalled = f"file:{path}" in ctx.seen().marks
    if recalled and not symbols:
        ctx.log.debug("post-tool-use printed nothing: %s was recalled before", path)
        return None
    mark = f"file:{path}" if not recalled else f"file:{path}#" + ",".join(sorted(symbols))[:300]
    seen = ctx.seen()
    tasks: list[TaskWords] = []
    words = None if recalled else file_words(ctx.root / path, path)  # one read of the file

    def find(conn: ReadConnection, exclude: set[str]) -> FileRecall:
        tasks.append(TaskWords(conn, seen.words, known=seen.rarity))
        return file_recall(
            conn,
            path,
            settings=load_evidence_settings(ctx.root),
            exclude=exclude | history_shown(conn, ctx.latest_sessions(conn)),
            max_items=settings.file_recall_max_items,
            max_chars=ctx.budget(settings.file_recall_max_chars),
            symbols=symbols,
            symbols_only=recalled,
            edited=ctx.payload.tool_name in TEXT_EDIT_TOOLS,
            vocabulary=words.vocabulary if words else (),
            uses=words.uses if words else (),
            check=CodeCheck(ctx.root),
            task=tasks[-1],
            opened_by=0.0 if symbols else session_share(ctx.latest_sessions(conn), path),
        )

    try:
        return ctx.recall(find, mark=mark)
    finally:
        if tasks:  # the words it counted, for the session's later reads
            ctx.remember_words([], tasks[0].rarity)
