"""The knowledge tools: search, get, recall, context_for, learn, review.

Each handler reads its arguments, makes one or two calls on the Project, and returns the
capped JSON text (kgraph.mcp.render). Lists give ids and one-line summaries; ``get`` gives
the full text.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from kgraph.errors import InvalidValueError, NotFoundError
from kgraph.knowledge import KNOWLEDGE_TYPES
from kgraph.mcp.args import Args
from kgraph.mcp.render import capped, one_line

if TYPE_CHECKING:
    from kgraph.api import Project
    from kgraph.knowledge import KnowledgeItem

TYPE_NAMES = [t.lower() for t in KNOWLEDGE_TYPES]
MAX_RELATED = 10


def summary(item: KnowledgeItem) -> dict[str, Any]:
    """An item in a list: id, type and one line (``get`` gives the rest)."""
    entry: dict[str, Any] = {"id": item.id, "type": item.type, "summary": one_line(item.content)}
    if item.files:
        entry["files"] = list(item.files[:5])
    if item.code_areas:
        entry["areas"] = list(item.code_areas[:3])
    return entry


def full(item: KnowledgeItem) -> dict[str, Any]:
    data = item.to_dict()
    data.pop("data", None)
    data.pop("embedding_model", None)
    return {k: v for k, v in data.items() if v not in (None, [], "")}


def search(project: Project, args: Args, max_chars: int) -> str:
    query = args.required_text("query")
    limit = args.integer("limit") or 10
    offset = args.integer("offset") or 0
    result = project.search(
        query,
        types=args.texts("types") or None,
        file=args.text("file"),
        code_area=args.text("code_area"),
        limit=offset + limit + 1,
    )
    page = result.hits[offset : offset + limit]
    payload: dict[str, Any] = {"query": query, "mode": result.mode}
    if result.note:
        payload["note"] = result.note
    payload["hits"] = [{**summary(h.item), "score": round(h.score, 4)} for h in page]
    more = f"search again with offset={offset + len(page)}"
    if len(result.hits) > offset + limit:
        payload["more"] = more
    payload["next"] = "get(ids) returns the full text of an item"
    return capped(payload, max_chars, list_key="hits", more=more)


def get(project: Project, args: Args, max_chars: int) -> str:
    ids = args.texts("ids")
    if not ids:
        raise InvalidValueError("give at least one id")
    with_related = args.flag("related")
    found = project.get_many(ids)
    items: list[dict[str, Any]] = []
    for item in (i for i in found.values() if i is not None):
        entry = full(item)
        if with_related:
            _start, near = project.related(item.id, hops=2, limit=MAX_RELATED)
            entry["related"] = [
                {**summary(r.item), "distance": r.distance, "via": [s.type for s in r.steps]}
                for r in near
            ]
        items.append(entry)
    missing = [i for i, item in found.items() if item is None]
    if not items:
        raise NotFoundError(f"no item with id {', '.join(missing)}")
    payload: dict[str, Any] = {"items": items}
    if missing:
        payload["missing"] = missing
    return capped(payload, max_chars, list_key="items", more="get fewer ids at a time")


def recall(project: Project, args: Args, max_chars: int) -> str:
    prompt = args.required_text("prompt")
    limit = args.integer("limit") or 8
    result = project.recall(
        prompt,
        limit=limit,
        exclude=args.texts("exclude"),
        session_id=args.text("session_id"),
    )
    if args.text("format") == "hook":
        # For a UserPromptSubmit hook of type mcp_tool: the hook's own JSON, or nothing.
        block = result.block(max_chars=min(2_000, max_chars - 200))
        if block is None:
            return ""
        output = {"hookEventName": "UserPromptSubmit", "additionalContext": block}
        return json.dumps({"hookSpecificOutput": output}, ensure_ascii=False)
    payload: dict[str, Any] = {"mode": result.mode}
    if result.note:
        payload["note"] = result.note
    payload["items"] = [
        {**summary(r.item), "why": r.why, "score": round(r.score, 5)} for r in result.items
    ]
    payload["next"] = "get(ids) returns the full text of an item"
    return capped(payload, max_chars, list_key="items", more="ask for a smaller limit")


def context_for(project: Project, args: Args, max_chars: int) -> str:
    files = args.texts("files")
    prompt = args.text("prompt")
    if not files and not (prompt and prompt.strip()) and not args.text("branch"):
        raise InvalidValueError("give files, a prompt or a branch")
    budget = min(args.integer("max_chars") or 9_000, max_chars - 400)
    briefing = project.context_for(
        files=files, prompt=prompt, branch=args.text("branch"), max_chars=budget
    )
    payload: dict[str, Any] = {
        "context": briefing.text or "nothing recorded about these files",
        "item_ids": list(briefing.item_ids),
    }
    return capped(payload, max_chars)


def learn(project: Project, args: Args, max_chars: int) -> str:
    type_name = args.text("type") or "learning"
    result = project.learn(
        args.required_text("text"),
        type=type_name.capitalize(),
        files=args.texts("files"),
        code_area=args.text("code_area"),
        confidence=args.number("confidence", 0.7),
        issue=args.integer("issue"),
        source="manual",
    )
    item = project.get(result.entity_id)
    payload = {
        "id": item.id,
        "created": result.created,
        "duplicate_of": result.duplicate_of,
        "seen_count": item.seen_count,
        "files": list(item.files),
        "areas": list(item.code_areas),
        "embedded": item.embedding_model is not None,
    }
    return capped(payload, max_chars)


def review(project: Project, args: Args, max_chars: int) -> str:
    """Without ids: the pending candidates. With ``accept``/``reject`` ids: the verdicts."""
    accept, reject = args.texts("accept"), args.texts("reject")
    if not accept and not reject:
        pending = project.candidates(limit=args.integer("limit") or 20)
        payload: dict[str, Any] = {
            "candidates": [
                {**summary(i), "origin": i.data.get("origin"), "session": i.session_id}
                for i in pending
            ],
            "next": "review(accept=[ids]) shows an item from now on; reject=[ids] hides it",
        }
        return capped(payload, max_chars, list_key="candidates", more="ask for a smaller limit")
    done = {
        "accepted": [project.review(i, accept=True) for i in accept],
        "rejected": [project.review(i, accept=False) for i in reject],
    }
    return capped(done, max_chars)
