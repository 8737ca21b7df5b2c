"""The MCP tools as a table: name, when to use it, argument schema, handler.

Few tools, each parameterised (peer servers with dozens of tools confuse agents). This
module does not import the MCP SDK: :func:`call` runs a tool against a Project and returns
``(text, is_error)``, so the server (kgraph.mcp.server) is only wiring, and the tools are
usable and testable without it. Every result is capped to ``max_chars`` characters.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kgraph.db import describe_failure
from kgraph.errors import KgraphError
from kgraph.limits import NAME_CHARS, PROMPT_CHARS, QUERY_CHARS
from kgraph.mcp import graph_tools as graph
from kgraph.mcp import knowledge_tools as knowledge
from kgraph.mcp.args import (
    NOTE_CHARS,
    TEXT_CHARS,
    Args,
    Schema,
    arguments,
    boolean,
    choice,
    clip,
    integer,
    number,
    obj,
    string,
    strings,
)
from kgraph.mcp.render import capped, one_line

if TYPE_CHECKING:
    from kgraph.api import Project

log = logging.getLogger("kgraph.mcp")

Handler = Callable[["Project", Args, int], str]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    schema: Schema
    handler: Handler
    read_only: bool = True


_NAME = string(
    "A function, method or class: name, Class.method, dotted path or file::id.",
    max_length=NAME_CHARS,
)

TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "search",
        "Search this project's memory (learnings, patterns, mistakes, topics recorded in "
        "earlier sessions) by words and meaning. Use before changing unfamiliar code or when "
        "a question may have been answered before. Returns ids with one-line summaries; call "
        "get for the full text. Says whether the search was hybrid or lexical + graph.",
        arguments(
            {
                "query": string("What to look for, in plain words.", max_length=QUERY_CHARS),
                "types": strings("Only these kinds.", max_items=4, enum=knowledge.TYPE_NAMES),
                "file": string(
                    "Only items about this file (repo-relative path).", max_length=NAME_CHARS
                ),
                "code_area": string("Only items about this code area.", max_length=NAME_CHARS),
                "limit": integer("Hits per page.", minimum=1, maximum=50, default=10),
                "offset": integer("Skip this many hits (paging).", minimum=0, maximum=500),
            },
            required=["query"],
        ),
        knowledge.search,
    ),
    ToolSpec(
        "get",
        "The full text and links of stored items by id (ids come from search, recall and "
        "context_for; a unique prefix works). related=true adds what lies within two links "
        "(same files, areas, superseded items).",
        arguments(
            {
                "ids": strings("Item ids, e.g. lrn-3f9a2c1b7d.", max_items=20),
                "related": boolean("Also list related items.", default=False),
            },
            required=["ids"],
        ),
        knowledge.get,
    ),
    ToolSpec(
        "recall",
        "What the project remembers that bears on a prompt or task: semantic + lexical "
        "matching of the text, plus items about the files and symbols it names (resolved "
        "through the code graph). Use at the start of a task or when the user mentions code "
        "you have not seen this session. format=hook returns a UserPromptSubmit hook's JSON.",
        arguments(
            {
                "prompt": string("The prompt or task description.", max_length=PROMPT_CHARS),
                "limit": integer("Most items to return.", minimum=1, maximum=20, default=8),
                "exclude": strings("Ids not to return (already seen).", max_items=200),
                "session_id": string(
                    "Claude Code session id: leaves out items already injected into it.",
                    max_length=NAME_CHARS,
                ),
                "format": choice("json (default) or hook.", ["json", "hook"]),
            },
            required=["prompt"],
        ),
        knowledge.recall,
        read_only=False,
    ),
    ToolSpec(
        "context_for",
        "The ranked briefing for files you are about to read or change: mistakes and "
        "learnings about them, their code areas and the files depending on them, plus the "
        "branch's workflow checkpoint and what recalls the prompt. The same briefing the "
        "session-start hook gives, on demand.",
        arguments(
            {
                "files": strings("Repo-relative paths.", max_items=50),
                "prompt": string("What you are about to do (optional).", max_length=PROMPT_CHARS),
                "branch": string(
                    "The git branch (its issue number selects the checkpoint).",
                    max_length=NAME_CHARS,
                ),
                "max_chars": integer("Size of the briefing.", minimum=500, maximum=9_000),
            }
        ),
        knowledge.context_for,
    ),
    ToolSpec(
        "what_calls",
        "Direct callers of a function, method or class in this repository's code graph, "
        "with file:line and how sure each edge is. Use before changing a signature.",
        arguments(
            {
                "name": _NAME,
                "include_unresolved": boolean(
                    "Also calls matched by method name only (low confidence).", default=False
                ),
            },
            required=["name"],
        ),
        graph.what_calls,
    ),
    ToolSpec(
        "blast_radius",
        "Everything that depends on a symbol, transitively (calls, imports, inheritance), "
        "grouped by file with tests apart. Use to judge what a change can break and which "
        "tests to run.",
        arguments(
            {
                "name": _NAME,
                "depth": integer("Edges to walk back.", minimum=1, maximum=6, default=3),
                "include_unresolved": boolean("Count name-only call matches.", default=False),
            },
            required=["name"],
        ),
        graph.blast_radius,
    ),
    ToolSpec(
        "find",
        "Find symbols in the code graph by name: exact, then prefix, substring, similar. "
        "Use to turn a vague or ambiguous name into an exact id.",
        arguments(
            {
                "name": string("A (partial) name.", max_length=NAME_CHARS),
                "limit": integer("Most matches.", minimum=1, maximum=50, default=20),
            },
            required=["name"],
        ),
        graph.find,
    ),
    ToolSpec(
        "exports",
        "What a file exports: its public definitions and re-exports. Use to learn a "
        "module's surface without reading it.",
        arguments(
            {"file": string("Repo-relative path.", max_length=NAME_CHARS)}, required=["file"]
        ),
        graph.exports,
    ),
    ToolSpec(
        "workflow",
        "Workflow checkpoints: where work on an issue stands (phase, status, recent actions "
        "and commits). op=find (by issue or branch), get, list; and writes: create, "
        "set_phase, set_status, log_action, log_commit — checkpoint before long steps so a "
        "compacted or new session resumes.",
        arguments(
            {
                "op": choice("What to do.", graph.WORKFLOW_OPS),
                "id": string("Workflow id (get and writes).", max_length=NAME_CHARS),
                "issue": integer("Issue number.", minimum=0, maximum=10**9),
                "branch": string("Git branch.", max_length=NAME_CHARS),
                "worktree": string("Worktree path (create).", max_length=NAME_CHARS),
                "phase": choice("Phase.", graph.CHOICES["phase"]),
                "status": choice("Status.", graph.CHOICES["status"]),
                "action": string("Action taken (log_action).", max_length=NOTE_CHARS),
                "result": choice("Its result (log_action).", graph.CHOICES["result"]),
                "metadata": obj("Extra JSON about the action (log_action)."),
                "sha": string("Commit sha (log_commit).", max_length=NAME_CHARS),
                "message": string("Commit message (log_commit).", max_length=NOTE_CHARS),
                "active": boolean("list: only running or paused.", default=False),
                "limit": integer("list: most workflows.", minimum=1, maximum=200),
            },
            required=["op"],
        ),
        graph.workflow,
        read_only=False,
    ),
    ToolSpec(
        "learn",
        "Record something worth knowing in later sessions: a cause, a fix, a rule or a "
        "decision with its reason, tied to the files it is about. Secrets are redacted; the "
        "same text again strengthens the stored item instead of adding a copy. Not for "
        "progress notes.",
        arguments(
            {
                "text": string(
                    "The knowledge, standing alone (what and why).", max_length=TEXT_CHARS
                ),
                "type": choice("Kind (default learning).", knowledge.TYPE_NAMES),
                "files": strings("Repo-relative files it is about.", max_items=20),
                "code_area": string(
                    "Code area (default: inferred from files).", max_length=NAME_CHARS
                ),
                "confidence": number("How sure (default 0.7).", minimum=0, maximum=1),
                "issue": integer("Issue number.", minimum=0, maximum=10**9),
            },
            required=["text"],
        ),
        knowledge.learn,
        read_only=False,
    ),
    ToolSpec(
        "review",
        "Captured candidates: what sessions said that nothing has corroborated yet, kept out "
        "of search and recall. Without ids, lists them; accept=[ids] shows those from now on, "
        "reject=[ids] hides them for good. Accept only a cause, rule or decision that stands "
        "alone and is still true.",
        arguments(
            {
                "accept": strings("Candidate ids to show from now on.", max_items=50),
                "reject": strings("Candidate ids to hide for good.", max_items=50),
                "limit": integer("How many to list (default 20).", minimum=1, maximum=200),
            }
        ),
        knowledge.review,
        read_only=False,
    ),
)

TOOL_NAMES = tuple(t.name for t in TOOLS)
_BY_NAME = {t.name: t for t in TOOLS}


def call(
    project: Project, name: str, values: Mapping[str, Any] | None, max_chars: int
) -> tuple[str, bool]:
    """Run tool ``name``: (result text, is_error). Never raises.

    The arguments are checked against the tool's schema first, so an oversized or
    malformed call is refused before any work (even the refresh). A KgraphError is the
    tool's error message; a database failure that escaped the database layer becomes
    kgraph's one-line DatabaseError (never SQLAlchemy's text with the SQL and its
    parameters); anything else is logged (stderr) and reported in one line."""
    spec = _BY_NAME.get(name)
    if spec is None:
        return f"unknown tool {clip(name)} (tools: {', '.join(TOOL_NAMES)})", True
    try:
        args = Args(values, spec.schema)
        project.refresh()  # another process's writes, a replaced file, a newer schema
        text = spec.handler(project, args, max_chars)
    except KgraphError as exc:
        return capped({"error": str(exc)}, max_chars), True
    except Exception as exc:
        failure = describe_failure(exc, project.db.where)
        if failure is not None:
            log.warning("tool %s: %s", name, failure)
            return capped({"error": one_line(str(failure), 400)}, max_chars), True
        log.exception("tool %s failed", name)
        message = one_line(f"internal error: {type(exc).__name__}: {exc}", 400)
        return capped({"error": message}, max_chars), True
    return text[:max_chars], False
