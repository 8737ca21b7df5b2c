"""``kg.workflows`` and ``kg.milestones``: the checkpoint functions bound to a project's database.

Each method is one call of the same-named :mod:`kgraph.checkpoint` function with the
project's ``db`` filled in; the less common operations (delete, cleanup, baselines) are
called there directly: ``kgraph.checkpoint.cleanup_workflows(kg.db)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kgraph import checkpoint
from kgraph.checkpoint import MilestoneRecord, WorkflowRecord
from kgraph.db import Database


@dataclass(frozen=True)
class Workflows:
    """An agent's work on an issue: phase, status, actions and commits (seed 004)."""

    db: Database

    def create(
        self, issue: int, branch: str, *, worktree: str | None = None, phase: str = "research"
    ) -> WorkflowRecord:
        return checkpoint.create_workflow(self.db, issue, branch, worktree, phase)

    def get(self, workflow_id: str) -> WorkflowRecord:
        """The workflow ``workflow_id`` (NotFoundError when there is none)."""
        return checkpoint.get_workflow(self.db, workflow_id)

    def find(self, issue: int) -> WorkflowRecord | None:
        """The issue's running or paused workflow, else its most recent one."""
        return checkpoint.find_workflow(self.db, issue)

    def for_branch(self, branch: str) -> WorkflowRecord | None:
        """The branch's most recent running or paused workflow."""
        return checkpoint.find_workflow_for_branch(self.db, branch)

    def list(
        self, *, status: str | None = None, active: bool = False, limit: int | None = None
    ) -> list[WorkflowRecord]:
        return checkpoint.list_workflows(self.db, status, active, limit)

    def set_phase(self, workflow_id: str, phase: str) -> WorkflowRecord:
        return checkpoint.set_phase(self.db, workflow_id, phase)

    def set_status(self, workflow_id: str, status: str) -> WorkflowRecord:
        """Setting a failed workflow running again counts a retry."""
        return checkpoint.set_status(self.db, workflow_id, status)

    def log_action(
        self,
        workflow_id: str,
        action: str,
        result: str,
        metadata: dict[str, Any] | None = None,
    ) -> WorkflowRecord:
        """Record an action and its result (success, failed or pending)."""
        return checkpoint.log_action(self.db, workflow_id, action, result, metadata)

    def log_commit(self, workflow_id: str, sha: str, message: str) -> WorkflowRecord:
        return checkpoint.log_commit(self.db, workflow_id, sha, message)


@dataclass(frozen=True)
class Milestones:
    """Groups of workflows run in waves, with lint/typecheck baselines."""

    db: Database

    def create(
        self, name: str, *, github_number: int | None = None, phase: str = "planning"
    ) -> MilestoneRecord:
        return checkpoint.create_milestone(self.db, name, github_number, phase)

    def get(self, milestone_id: str) -> MilestoneRecord:
        return checkpoint.get_milestone(self.db, milestone_id)

    def find(self, name: str) -> MilestoneRecord | None:
        return checkpoint.find_milestone(self.db, name)

    def list(self, *, status: str | None = None) -> list[MilestoneRecord]:
        return checkpoint.list_milestones(self.db, status)

    def set_phase(self, milestone_id: str, phase: str) -> MilestoneRecord:
        return checkpoint.set_milestone_phase(self.db, milestone_id, phase)

    def set_status(self, milestone_id: str, status: str) -> MilestoneRecord:
        return checkpoint.set_milestone_status(self.db, milestone_id, status)

    def add_workflow(
        self, milestone_id: str, workflow_id: str, *, wave: int = 1
    ) -> MilestoneRecord:
        return checkpoint.add_workflow_to_milestone(self.db, milestone_id, workflow_id, wave)
