"""The code-graph tools (what_calls, blast_radius, find, exports) and the workflow tool.

The graph tools do not log their queries in ``graph_queries`` (``record=False``): that log
is a write per call, and any write makes the server re-validate its in-memory vector
matrix on the next search (a scan of every stored vector row, ~25 ms at 10,000 items).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgraph.checkpoint import ACTION_RESULTS, PHASES, STATUSES
from kgraph.errors import InvalidValueError, NotFoundError
from kgraph.mcp.args import Args
from kgraph.mcp.render import capped, one_line

if TYPE_CHECKING:
    from kgraph.api import Project
    from kgraph.checkpoint import WorkflowRecord
    from kgraph.codegraph import EntityRecord

ENTITIES_PER_FILE = 8
WORKFLOW_OPS = (
    "find",
    "get",
    "list",
    "create",
    "set_phase",
    "set_status",
    "log_action",
    "log_commit",
)
RECENT = 5


def entity(record: EntityRecord) -> dict[str, Any]:
    return {
        "id": record.id,
        "type": record.type,
        "name": record.qualified_name,
        "location": record.location,
    }


def _require_graph(project: Project) -> None:
    if not project.graph.available:
        raise NotFoundError("no code graph yet: run `kgraph graph parse` in the project")


def what_calls(project: Project, args: Args, max_chars: int) -> str:
    _require_graph(project)
    target, callers = project.graph.what_calls(
        args.required_text("name"),
        include_unresolved=args.flag("include_unresolved"),
        record=False,
    )
    payload: dict[str, Any] = {
        "target": entity(target),
        "total": len(callers),
        "callers": [
            {
                "caller": c.caller.qualified_name,
                "id": c.caller.id,
                "at": f"{c.caller.file_path}:{c.line}" if c.line else c.caller.file_path,
                "confidence": c.confidence,
                "resolution": c.resolution,
            }
            for c in callers
        ],
    }
    more = "blast_radius groups every dependent by file; find narrows the name"
    return capped(payload, max_chars, list_key="callers", more=more)


def blast_radius(project: Project, args: Args, max_chars: int) -> str:
    _require_graph(project)
    radius = project.graph.blast_radius(
        args.required_text("name"),
        depth=args.integer("depth") or 3,
        include_unresolved=args.flag("include_unresolved"),
        record=False,
    )
    files: list[dict[str, Any]] = []
    for tests in (False, True):
        for path, impacts in radius.by_file(tests).items():
            names = sorted({i.entity.qualified_name for i in impacts})
            entry: dict[str, Any] = {
                "file": path,
                "depth": min(i.depth for i in impacts),
                "count": len(impacts),
                "names": names[:ENTITIES_PER_FILE],
            }
            if tests:
                entry["test"] = True
            files.append(entry)
    files.sort(key=lambda f: (f.get("test", False), f["depth"], f["file"]))
    payload: dict[str, Any] = {
        "target": entity(radius.target),
        "depth": radius.depth,
        "dependents": len(radius.impacts),
        "total": len(files),
        "files": files,
    }
    more = "ask again with a smaller depth, or what_calls for the direct callers"
    return capped(payload, max_chars, list_key="files", more=more)


def find(project: Project, args: Args, max_chars: int) -> str:
    _require_graph(project)
    name = args.required_text("name")
    matches = project.graph.find(name, limit=args.integer("limit") or 20)
    payload = {"name": name, "matches": [entity(m) for m in matches]}
    return capped(payload, max_chars, list_key="matches", more="use a longer name")


def exports(project: Project, args: Args, max_chars: int) -> str:
    _require_graph(project)
    file = args.required_text("file")
    rows = project.graph.exports(file, record=False)
    payload = {
        "file": project.relative(file),
        "exports": [
            {"kind": r.kind, **(entity(r.entity) if r.entity else {"id": r.id})} for r in rows
        ],
    }
    return capped(payload, max_chars, list_key="exports", more="exports of one file at a time")


def _workflow(record: WorkflowRecord, *, detail: bool) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": record.id,
        "issue": record.issue_number,
        "branch": record.branch,
        "phase": record.phase,
        "status": record.status,
        "retries": record.retry_count,
        "updated_at": record.updated_at.isoformat(timespec="seconds"),
        "actions": len(record.actions),
        "commits": len(record.commits),
    }
    if record.worktree:
        data["worktree"] = record.worktree
    if detail:
        data["recent_actions"] = [
            {"action": one_line(a.action), "result": a.result} for a in record.actions[-RECENT:]
        ]
        data["recent_commits"] = [
            {"sha": c.sha[:12], "message": one_line(c.message)} for c in record.commits[-RECENT:]
        ]
    return data


def _need(value: Any, name: str, op: str) -> Any:
    if value is None or (isinstance(value, str) and not value.strip()):
        raise InvalidValueError(f"{op} needs {name}")
    return value


def workflow(project: Project, args: Args, max_chars: int) -> str:
    op = args.required_text("op")
    workflows = project.workflows
    record: WorkflowRecord | None
    if op == "list":
        listed = workflows.list(
            status=args.text("status"), active=args.flag("active"), limit=args.integer("limit")
        )
        payload = {"workflows": [_workflow(w, detail=False) for w in listed]}
        return capped(payload, max_chars, list_key="workflows", more="filter by status or active")
    workflow_id = args.text("id")
    if op == "find":
        issue, branch = args.integer("issue"), args.text("branch")
        if issue is None and not branch:
            raise InvalidValueError("find needs issue or branch")
        record = workflows.find(issue) if issue is not None else None
        if record is None and branch:
            record = workflows.for_branch(branch)
        if record is None:
            return capped(
                {"workflow": None, "note": "no workflow for that issue/branch"}, max_chars
            )
    elif op == "get":
        record = workflows.get(_need(workflow_id, "id", op))
    elif op == "create":
        record = workflows.create(
            _need(args.integer("issue"), "issue", op),
            _need(args.text("branch"), "branch", op),
            worktree=args.text("worktree"),
            phase=args.text("phase") or "research",
        )
    elif op == "set_phase":
        record = workflows.set_phase(
            _need(workflow_id, "id", op), _need(args.text("phase"), "phase", op)
        )
    elif op == "set_status":
        record = workflows.set_status(
            _need(workflow_id, "id", op), _need(args.text("status"), "status", op)
        )
    elif op == "log_action":
        record = workflows.log_action(
            _need(workflow_id, "id", op),
            _need(args.text("action"), "action", op),
            _need(args.text("result"), "result", op),
            args.mapping("metadata"),
        )
    else:  # log_commit (the schema's enum allows nothing else)
        record = workflows.log_commit(
            _need(workflow_id, "id", op),
            _need(args.text("sha"), "sha", op),
            _need(args.text("message"), "message", op),
        )
    return capped({"workflow": _workflow(record, detail=True)}, max_chars)


CHOICES = {"phase": PHASES, "status": STATUSES, "result": ACTION_RESULTS}
