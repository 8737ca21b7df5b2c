"""PostToolUse on Read/Edit/Write/MultiEdit: what is recorded about the file just touched.

The ranking is :func:`kgraph.recall.file.file_recall`; this face maps the tool's path into
the project, skips other tools and files outside it, and delivers once per session.
Standard library only: it runs on every file read.
"""

from __future__ import annotations

from kgraph.hooks.runner import HookContext
from kgraph.knowledge.areas import relative_path
from kgraph.recall.evidence import load_evidence_settings
from kgraph.recall.file import file_recall
from kgraph.runtime import seen

__all__ = ["FILE_TOOLS", "run", "tool_path"]

FILE_TOOLS = frozenset({"Read", "Edit", "Write", "MultiEdit", "NotebookEdit"})


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
    conn = ctx.open_store()
    if conn is None:
        return None
    session_id = ctx.payload.session_id
    try:
        settings = ctx.settings
        result = file_recall(
            conn,
            path,
            settings=load_evidence_settings(ctx.root),
            exclude=seen.seen_ids(ctx.root, session_id),
            max_items=settings.file_recall_max_items,
            max_chars=min(ctx.options.max_chars or settings.file_recall_max_chars, 9_000),
        )
    finally:
        conn.close()
    return None if result.text is None else ctx.deliver(result.text, result.ids)
