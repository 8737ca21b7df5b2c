"""Workflow checkpoints, milestones and baselines: where an agent's work stood (seed 004).

Plain SQL on a DB-API connection of any kgraph.db.Transactions (a Database, or a
DirectDatabase on the driver alone), so the library, the MCP server and the checkpoint
commands a skill runs many times a session (without SQLAlchemy) run the same statements.
The names load on first use (PEP 562): a workflow command loads no milestone code, and
:mod:`kgraph.checkpoint.lookup`, the active-workflow lookup the session-start hook runs,
none of the records.
"""

from typing import TYPE_CHECKING

from kgraph.checkpoint.common import ACTION_RESULTS, PHASES, STATUSES
from kgraph.lazy import lazy

if TYPE_CHECKING:
    from kgraph.checkpoint.milestones import (
        BaselineRecord,
        MilestoneRecord,
        add_workflow_to_milestone,
        create_milestone,
        delete_milestone,
        find_milestone,
        get_milestone,
        latest_baseline,
        list_milestones,
        save_baseline,
        set_milestone_phase,
        set_milestone_status,
    )
    from kgraph.checkpoint.workflows import (
        ActionRecord,
        CommitRecord,
        WorkflowRecord,
        cleanup_workflows,
        create_workflow,
        delete_workflow,
        find_workflow,
        find_workflow_for_branch,
        get_workflow,
        list_workflows,
        log_action,
        log_commit,
        set_phase,
        set_status,
    )

_LAZY = {
    "BaselineRecord": "milestones",
    "MilestoneRecord": "milestones",
    "add_workflow_to_milestone": "milestones",
    "create_milestone": "milestones",
    "delete_milestone": "milestones",
    "find_milestone": "milestones",
    "get_milestone": "milestones",
    "latest_baseline": "milestones",
    "list_milestones": "milestones",
    "save_baseline": "milestones",
    "set_milestone_phase": "milestones",
    "set_milestone_status": "milestones",
    "ActionRecord": "workflows",
    "CommitRecord": "workflows",
    "WorkflowRecord": "workflows",
    "cleanup_workflows": "workflows",
    "create_workflow": "workflows",
    "delete_workflow": "workflows",
    "find_workflow": "workflows",
    "find_workflow_for_branch": "workflows",
    "get_workflow": "workflows",
    "list_workflows": "workflows",
    "log_action": "workflows",
    "log_commit": "workflows",
    "set_phase": "workflows",
    "set_status": "workflows",
}

__all__ = [
    "ACTION_RESULTS",
    "PHASES",
    "STATUSES",
    "ActionRecord",
    "BaselineRecord",
    "CommitRecord",
    "MilestoneRecord",
    "WorkflowRecord",
    "add_workflow_to_milestone",
    "cleanup_workflows",
    "create_milestone",
    "create_workflow",
    "delete_milestone",
    "delete_workflow",
    "find_milestone",
    "find_workflow",
    "find_workflow_for_branch",
    "get_milestone",
    "get_workflow",
    "latest_baseline",
    "list_milestones",
    "list_workflows",
    "log_action",
    "log_commit",
    "save_baseline",
    "set_milestone_phase",
    "set_milestone_status",
    "set_phase",
    "set_status",
]


__getattr__ = lazy(__name__, _LAZY)
