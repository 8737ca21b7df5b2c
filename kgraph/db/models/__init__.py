"""Typed SQLAlchemy 2 models of every table. Importing this registers them on Base.metadata."""

from kgraph.db.models.base import Base, isoformat, table_of, utcnow
from kgraph.db.models.checkpoint import (
    Action,
    Baseline,
    Commit,
    Milestone,
    MilestoneWorkflow,
    Workflow,
)
from kgraph.db.models.codegraph import GraphEntity, GraphFile, GraphRelationship, GraphSummary
from kgraph.db.models.knowledge import Entity, Relationship, VectorEpoch
from kgraph.db.models.sessions import ContextMetric, GraphQuery, Session

__all__ = [
    "Action",
    "Base",
    "Baseline",
    "Commit",
    "ContextMetric",
    "Entity",
    "GraphEntity",
    "GraphFile",
    "GraphQuery",
    "GraphRelationship",
    "GraphSummary",
    "Milestone",
    "MilestoneWorkflow",
    "Relationship",
    "Session",
    "VectorEpoch",
    "Workflow",
    "isoformat",
    "table_of",
    "utcnow",
]
