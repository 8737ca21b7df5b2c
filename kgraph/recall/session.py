"""The session briefing: what a session starting now should know.

What the session is about comes from more than ``git status`` (a clean tree, the usual
start, used to say nothing at all):

1. the files changed now (``git status``);
2. recent work: the branch's own commits since it left the default branch (on the
   default branch, the project's recent activity: its latest commits), the files edited in
   this project's most recent sessions (session records), and the active workflow
   checkpoint's commits;
3. their code areas, the branch's issue, and the files that depend on the current work
   (code graph, blast radius).

Knowledge about those files is ranked by :mod:`kgraph.recall.relevance` (evidence
weighted by how rare a file is among stored items), then a short tail of project-wide
rules. The block names the changed files and what depends on them. Everything is read
with the standard library (:mod:`kgraph.recall.readmodel`), so the SessionStart hook
(:mod:`kgraph.hooks.session_start`) and the library give the same briefing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from kgraph.checkpoint.lookup import WorkflowBrief, active_workflow
from kgraph.codegraph.filedeps import dependents_by_level, graph_present
from kgraph.db.reader import ReadConnection
from kgraph.knowledge.areas import AreaRules, infer_code_area
from kgraph.recall import items as recall
from kgraph.recall.briefing import Block, fit, render_checkpoint
from kgraph.recall.evidence import EvidenceSettings
from kgraph.recall.gitinfo import CommitFiles, RecentWork, commit_files, issue_from_branch
from kgraph.recall.items import RecallItem
from kgraph.recall.provenance import lists_changes, named_only
from kgraph.recall.readmodel import (
    focus_for,
    gather,
    has_sessions,
    one_part_each,
    recent_session_files,
)
from kgraph.recall.relevance import MIN_EVIDENCE, Focus, Ranked, rank
from kgraph.recall.stale import CodeCheck, current_only
from kgraph.runtime.settings import HookSettings, clamp_chars

__all__ = ["LEAD_SOURCES", "Briefing", "SessionSignals", "session_briefing"]

LEAD_SOURCES = frozenset({"compact", "resume"})
# Dependent files whose knowledge is looked up, nearest first.
BLAST_FILES = 40
NAMED_FILES = 6  # changed files named in the title
NAMED_DEPENDENTS = 6
NAMED_COMMITS = 3
RULES = 3
# Day one (no session recorded yet): what the git history `kgraph install` learned about
# the project's busiest files, so the first session sees kgraph knows the project.
DAY_ONE_ITEMS = 3
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
ITEMS_PER_FILE = 8
# Candidates loaded per file before ranking keeps ITEMS_PER_FILE: room for items that
# rank higher through other files, or are left out as stale or unused.
GATHERED_PER_FILE = 3 * ITEMS_PER_FILE
# Strength of each kind of evidence about what the session works on (changed now = 1).
OWN_COMMIT = 0.9
WORKFLOW_COMMIT = 0.9
RECENT_SESSION = 0.7
RECENT_COMMIT = 0.6
DECAY = 0.85  # per step back in time (a commit of the branch, a session)
# The default branch's latest commits, as recent activity: a file's latest change counts,
# slowly less with age (replayed histories: the next change lands where the project has
# been busy over the last few dozen commits far more often than on the last commit's files).
ACTIVITY_DECAY = 0.97


@dataclass(frozen=True)
class SessionSignals:
    """What git and the hook input say about the session."""

    branch: str | None = None
    changed: tuple[str, ...] = ()
    recent: RecentWork = field(default_factory=RecentWork)
    session_id: str | None = None
    source: str | None = None

    @property
    def issue_number(self) -> int | None:
        return issue_from_branch(self.branch)


@dataclass(frozen=True)
class Briefing:
    text: str | None
    ids: tuple[str, ...]
    why: str = ""  # when ``text`` is None: why nothing is said (the hook logs it)


@dataclass(frozen=True)
class Work:
    """What the session is about: file -> strength and the words for why (the strongest
    source wins), and whether that is the session's own work or only recent activity."""

    strength: dict[str, float]
    reasons: dict[str, str]
    current: bool  # changed files, the branch's own commits or the workflow's


def _work(
    signals: SessionSignals,
    sessions: Sequence[tuple[str, int]],
    workflow_commits: Sequence[CommitFiles],
) -> Work:
    """The session's own work when there is any (changed files, the branch's own commits,
    the workflow's commits, plus the last sessions' files); else the project's recent
    activity (the last sessions' files and the default branch's latest commits)."""
    strength: dict[str, float] = {}
    reasons: dict[str, str] = {}

    def add(path: str, value: float, why: str) -> None:
        if value > strength.get(path, 0.0):
            strength[path], reasons[path] = value, why

    own = signals.recent.commits if signals.recent.own else ()
    for path in signals.changed:
        add(path, 1.0, "changed")
    for step, commit in enumerate(own):
        for path in commit.files:
            add(path, OWN_COMMIT * DECAY**step, "changed on this branch")
    for commit in workflow_commits:
        for path in commit.files:
            add(path, WORKFLOW_COMMIT, "in the workflow's commits")
    current = bool(strength)
    for path, step in sessions:
        add(path, RECENT_SESSION * DECAY**step, "edited in a recent session")
    if not current and not signals.recent.own:
        for step, commit in enumerate(signals.recent.commits):
            for path in commit.files:
                add(path, RECENT_COMMIT * ACTIVITY_DECAY**step, "recently changed")
    return Work(strength, reasons, current)


def per_file(ranked: Sequence[Ranked], most: int) -> list[Ranked]:
    """At most ``most`` items brought by any one file (a file much knowledge is about, such
    as a core module, must not fill the briefing alone); order kept."""
    counts: dict[str | None, int] = {}
    kept: list[Ranked] = []
    for entry in ranked:
        if entry.via is not None and counts.get(entry.via, 0) >= most:
            continue
        counts[entry.via] = counts.get(entry.via, 0) + 1
        kept.append(entry)
    return kept


def _dependents(
    conn: ReadConnection, files: Sequence[str], depth: int
) -> dict[str, tuple[int, str]]:
    if not files or depth <= 0 or not graph_present(conn):
        return {}
    found = dependents_by_level(conn, files, depth)
    nearest = sorted(found, key=lambda f: (found[f][0], f))[:BLAST_FILES]
    return {f: found[f] for f in nearest}


def _names(paths: Sequence[str], limit: int) -> str:
    shown = ", ".join(paths[:limit])
    return shown + (f" (+{len(paths) - limit} more)" if len(paths) > limit else "")


def _title(
    signals: SessionSignals,
    sessions: Sequence[tuple[str, int]],
    dependents: dict[str, tuple[int, str]],
) -> str:
    about = []
    if signals.branch:
        about.append(f"branch {signals.branch}")
    if signals.issue_number:
        about.append(f"issue #{signals.issue_number}")
    lines = [
        f"kgraph project memory{' for ' + ', '.join(about) if about else ''}: facts recorded "
        "in earlier sessions of this project; `kgraph knowledge show ID` prints one in full."
    ]
    if signals.changed:
        lines.append(f"Changed now: {_names(list(signals.changed), NAMED_FILES)}.")
    commits = [c for c in signals.recent.commits if c.files][:NAMED_COMMITS]
    if commits:
        label = "This branch's commits" if signals.recent.own else "Latest commits"
        lines.append(
            f"{label}: "
            + "; ".join(f"{c.sha[:7]} {c.subject[:72]}" for c in commits)
            + (
                f" (+{len(signals.recent.commits) - len(commits)} more)"
                if signals.recent.own and len(signals.recent.commits) > len(commits)
                else ""
            )
            + "."
        )
    if sessions:
        lines.append(f"Edited in recent sessions: {_names([p for p, _ in sessions], NAMED_FILES)}.")
    direct = [(f, via) for f, (depth, via) in dependents.items() if depth == 1]
    if direct:
        lines.append(_depending(direct))
    return "\n".join(lines)


def _depending(direct: Sequence[tuple[str, str]]) -> str:
    """The files depending directly on the changed ones, grouped by the file they depend
    on: one changed file that many import would otherwise be repeated beside each."""
    on: dict[str, list[str]] = {}
    for path, via in direct[:NAMED_DEPENDENTS]:
        on.setdefault(via, []).append(path)
    more = len(direct) - NAMED_DEPENDENTS
    groups = "; ".join(f"on {via}: {', '.join(paths)}" for via, paths in on.items())
    return f"What depends on them: {groups}" + (f" (+{more} more)" if more > 0 else "") + "."


def _day_one(
    conn: ReadConnection,
    commits: Sequence[CommitFiles],
    focus: Focus,
    exclude: set[str] | frozenset[str],
) -> list[Ranked]:
    """The first session on a clean tree (once a session is recorded, a clean tree says no
    more than the latest commits' subjects): the items covering most of the project's
    recent activity, each file weighed by how often the latest ``commits`` changed it
    (newer ones count more) and how telling it is (``focus``: a changelog counts little);
    newest first among equals (the caller keeps the first DAY_ONE_ITEMS).

    The latest commits' own learnings repeat the subjects the briefing already lists;
    replaying three histories, the next change shared a file with these items far more
    often than with the newest ones (docs/benchmarks.md, "day one"). A commit's list of its
    changes is left out, as on a file read (no prompt's words picked it): summing the
    files it covers favours it, and on the first sessions of eleven replayed repositories
    the lists it brought were junk 2 times in 3 (docs/benchmarks.md)."""
    busy: dict[str, float] = {}
    for step, commit in enumerate(commits):
        for path in commit.files:
            busy[path] = busy.get(path, 0.0) + ACTIVITY_DECAY**step

    def cover(item: RecallItem) -> float:
        return sum(busy.get(f, 0.0) * focus.weight(f) for f in set(item.files))

    scored = [
        (cover(i), i)
        for i in gather(conn, focus)
        if i.id not in exclude and not named_only(i) and not lists_changes(i)
    ]
    scored = [(value, item) for value, item in scored if value > 0]
    scored.sort(key=lambda p: p[1].updated_at or _EPOCH, reverse=True)
    scored.sort(key=lambda p: p[0], reverse=True)  # stable: newest first among equals
    return [Ranked(item, value, "about the files changed most lately") for value, item in scored]


def session_briefing(
    conn: ReadConnection,
    root: Path,
    signals: SessionSignals,
    *,
    settings: HookSettings,
    evidence: EvidenceSettings,
    area_rules: AreaRules | None = None,
    exclude: set[str] | frozenset[str] = frozenset(),
    workflow_files: Callable[[list[str]], Sequence[CommitFiles]] | None = None,
    max_chars: int | None = None,
    now: datetime | None = None,
    check: CodeCheck | None = None,
) -> Briefing:
    """The briefing for a session (the same for the hook's own connection and a library
    caller's): ranked items about its work, the checkpoint, then project rules."""
    now = now or datetime.now(UTC)
    workflow: WorkflowBrief | None = active_workflow(conn, signals.issue_number, signals.branch)
    wf_commits: Sequence[CommitFiles] = ()
    if workflow is not None and workflow.commits:
        get_files = workflow_files or (lambda shas: commit_files(root, shas))
        wf_commits = get_files([c.sha for c in workflow.commits])
    sessions = recent_session_files(conn, root, signals.session_id)
    work = _work(signals, sessions, wf_commits)
    # The work itself (not what recent sessions or the default branch did) has a blast radius.
    current = list(dict.fromkeys(signals.changed))
    for commit in (*(signals.recent.commits if signals.recent.own else ()), *wf_commits):
        current += commit.files
    dependents = _dependents(conn, current, settings.blast_radius_depth)
    areas = tuple(sorted({infer_code_area(f, area_rules) for f in signals.changed}))
    focus: Focus = focus_for(
        conn,
        evidence,
        files=work.strength,
        reasons=work.reasons,
        dependents={f: depth for f, (depth, _) in dependents.items()},
        areas=areas,
        issue_number=signals.issue_number,
        # Recent activity is a guess at where work continues: a file the project keeps
        # changing is the likeliest place, so its frequency among items is not held
        # against it (weak files such as changelogs still count little).
        inverse_frequency=work.current,
        # A file the session is changing is evidence however many items name it: without a
        # floor, a file every stored item is about (rarity 0) silenced the whole briefing.
        at_least={f: MIN_EVIDENCE for f in signals.changed},
    )
    # On a clean tree the work is a guess (what recent sessions and commits touched), and
    # a briefing from it describes the previous sessions' work whatever this one does:
    # replayed real sessions found such items true but of no use to the session nearly
    # always. So by default it names the latest commits and the project's rules, and the
    # first prompt (kgraph.hooks.user_prompt) brings the knowledge.
    limit = (
        settings.session_start_max_items if work.current else settings.session_start_recent_items
    )
    ranked: list[Ranked] = []
    if limit:
        # A named-only item names no code a session start is about (recall.provenance.named_only).
        candidates = [i for i in gather(conn, focus, GATHERED_PER_FILE) if not named_only(i)]
        ranked = [r for r in rank(candidates, focus, now) if r.item.id not in exclude]
        ranked = one_part_each(conn, per_file(ranked, ITEMS_PER_FILE))
        ranked = current_only(ranked, check, limit)[:limit]
    elif not work.current and not has_sessions(conn, signals.session_id):
        day_one = _day_one(conn, signals.recent.commits, focus, exclude)
        ranked = current_only(one_part_each(conn, day_one), check, DAY_ONE_ITEMS)
    taken = set(exclude) | {r.item.id for r in ranked}
    rules = [
        Ranked(item, 0.0, "")
        for item in recall.project_rules(conn, limit=RULES + len(taken))
        if item.id not in taken
    ]
    rules = current_only(rules, check, RULES)[:RULES]
    block = Block(
        title=_title(signals, sessions, dependents),
        areas=areas,
        # Without changed files there are no session areas to group by: a flat list.
        group_by_area=bool(areas),
        checkpoint=render_checkpoint(workflow, now) if workflow is not None else None,
        lead_with_checkpoint=signals.source in LEAD_SOURCES,
    )
    if not ranked and not rules and workflow is None:
        if not limit:
            why = "clean tree: items from recent activity are off (session_start_recent_items)"
        else:
            why = f"no stored item clears the evidence bar for {len(work.strength)} file(s)"
        return Briefing(None, (), why)
    text, chosen = fit(
        ranked,
        block,
        clamp_chars(max_chars or settings.session_start_max_chars),
        limit or len(ranked),
        rules,
    )
    why = "" if text else "not even the block's frame fits the character budget"
    return Briefing(text, tuple(r.item.id for r in chosen), why)
