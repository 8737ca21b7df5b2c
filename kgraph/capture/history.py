"""Day one: the repository's own git history as knowledge.

A project new to kgraph has no sessions to learn from, yet its commit messages are the
best knowledge it has: replaying real histories, commit bodies stored as learnings were
92% real knowledge and 0.99 precise for the files a later commit touched. So ``kgraph
install`` (and ``kgraph learn --from-git``) reads the history once, through the same rules
a session's own commits go through (:mod:`kgraph.capture.sources.commit_items`: a message
must explain something, trailers and tool signatures cut, long bodies split per bullet;
then the capture gate), each item dated when its commit was made and tied to the files it
changed. Merges are skipped. Running it again adds only newer commits (an item's
``source_ref`` is its commit), and the session-end capture keeps up from then on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from kgraph.capture.code_at import CodeAt
from kgraph.capture.sources.commits import CommitInfo, read_log
from kgraph.db import Database
from kgraph.runtime.git import Blobs

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

    from kgraph.capture.gate.junk import JunkGate
    from kgraph.knowledge.areas import AreaRules
    from kgraph.knowledge.prepare import PreparedItem

__all__ = ["DEFAULT_LIMIT", "HistoryReport", "history_commits", "learn_from_history"]

DEFAULT_LIMIT = 2_000  # newest commits read; older history says less about today's code
BATCH = 200
GIT_TIMEOUT_S = 120


@dataclass
class HistoryReport:
    """What a read of the history did (``rejected``: the gate's reasons and counts)."""

    commits: int = 0  # commits read
    explained: int = 0  # of them, messages that explain something
    stored: int = 0  # new items shown from now on
    waiting: int = 0  # new candidates: messages that only list what changed
    known: int = 0  # items already stored (an earlier run, or the same text)
    rejected: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        return (
            f"learned {self.stored} item(s) from {self.commits} commit(s) of git history "
            f"({self.explained} explain something; {self.waiting} more only say what changed "
            f"and wait as candidates; {self.known} already known)"
        )


def history_commits(
    root: Path, *, since: str | None = None, limit: int = DEFAULT_LIMIT
) -> list[CommitInfo]:
    """The newest ``limit`` non-merge commits of HEAD (since ``since``, any date git
    understands), oldest first, with their commit times; empty outside a git work tree or
    without commits."""
    options = [f"--max-count={max(0, limit)}", *([f"--since={since}"] if since else [])]
    return read_log(root, *options, "--reverse", "HEAD", timeout=GIT_TIMEOUT_S)


def learn_from_history(
    db: Database,
    root: Path,
    *,
    since: str | None = None,
    limit: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> HistoryReport:
    """Store the knowledge of the history's commit messages (see the module docstring);
    ``limit`` defaults to DEFAULT_LIMIT; ``progress(done, total)`` is called as commits
    are written."""
    from kgraph.capture.gate.junk import JunkGate
    from kgraph.errors import KgraphError
    from kgraph.knowledge.areas import DEFAULT_AREA_RULES, load_area_rules

    try:
        rules = load_area_rules(root)
    except KgraphError:
        rules = DEFAULT_AREA_RULES
    dated = history_commits(root, since=since, limit=DEFAULT_LIMIT if limit is None else limit)
    report = HistoryReport(commits=len(dated))
    gate = JunkGate()
    with Blobs(root) as blobs:
        code = CodeAt(root, blobs)
        for start in range(0, len(dated), BATCH):
            batch = dated[start : start + BATCH]
            _learn_batch(db, batch, rules, gate, code, report)
            if progress is not None:
                progress(start + len(batch), len(dated))
    report.rejected = dict(gate.rejected)
    return report


def _learn_batch(
    db: Database,
    batch: list[CommitInfo],
    rules: AreaRules,
    gate: JunkGate,
    code: CodeAt,
    report: HistoryReport,
) -> None:
    """Store one batch of commits' knowledge, each item with the code names its commit's
    files held then (``data["code"]``, for the stale check)."""
    from kgraph.capture.session_write import prepared_item
    from kgraph.capture.sources.commit_items import commit_candidates
    from kgraph.knowledge.store import write_item

    prepared: list[PreparedItem] = []
    for commit in batch:
        found = commit_candidates([commit], rules)
        report.explained += any(candidate.trusted for candidate in found)
        for candidate in found:
            if not gate.admit(candidate.content, trusted=True):
                continue
            source_ref = candidate.ref.removeprefix("commit:")
            prepared.append(
                prepared_item(
                    candidate,
                    code,
                    rules,
                    source_ref=source_ref,
                    # "history", or "history.review" for a commit answering a review
                    origin="history" + candidate.origin.removeprefix("commit"),
                    created_at=candidate.at,
                )
            )

    def write(conn: Connection) -> list[bool]:
        return [write_item(conn, i, bump=False, area_rules=rules).created for i in prepared]

    for item, created in zip(prepared, db.write(write), strict=True):
        report.known += not created
        if created and item.candidate:
            report.waiting += 1
        elif created:
            report.stored += 1
