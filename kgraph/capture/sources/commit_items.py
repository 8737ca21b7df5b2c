"""Learnings from a session's commits: which messages carry knowledge, cut into items.

A message that fits the item limit is one item. A longer one is cut at its bullets, each
bullet that says something an item with the subject in front (so it stands alone); one
without bullets is cut at a sentence near the limit.

Cutting at paragraphs and numbered entries too, so that what follows the limit is kept,
was tried and dropped: on the third unseen batch it turned 52 cut messages (judged 32
knowledge, 13 partial, 7 junk) into 140 parts (58 knowledge, 49 partial, 33 junk). A
message's later paragraphs hold its tests, follow-ups and the details a later commit of
the session replaced; its first 600 characters are its best.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from kgraph.capture.gate import prose
from kgraph.capture.gate.candidates import Candidate
from kgraph.capture.gate.junk import rubric_reason
from kgraph.capture.gate.mentions import FileIndex
from kgraph.capture.gate.paths import PathMap
from kgraph.capture.sources.commits import (
    CommitInfo,
    commit_content,
    explains_why,
    is_review_response,
    knowledge_reason,
)
from kgraph.capture.sources.stream import Event, Ran

_BODY_BULLET = re.compile(r"^\s*[-*•]\s+(?P<text>.+(?:\n\s{2,}\S.*)*)", re.M)


def commit_parts(commit: CommitInfo) -> list[str]:
    """A commit's message as items: whole when it fits, else one per body bullet that says
    something (the subject in front, so each stands alone), else cut near the limit."""
    from kgraph.redact import redact

    content = redact(commit_content(commit), thorough=True)
    if len(content) <= prose.MAX_ITEM_CHARS:
        return [content]
    bullets = [" ".join(m.group("text").split()) for m in _BODY_BULLET.finditer(content)]
    parts = [
        prose.shorten(f"{commit.subject} — {b}")
        for b in bullets
        if prose.words(b) >= 5 and rubric_reason(b) is None
    ]
    return parts or [prose.shorten(content)]


def _commit_origin(commit: CommitInfo, part: str) -> str:
    """ "commit.review" for a commit answering a review, "commit.what" for a message (or the
    part of one an item keeps) that only says what changed (commits.explains_why, kept as
    a candidate: kgraph.capture.gate.candidates), else "commit"; recall shows a review's
    commit only where it names the code at hand (kgraph.recall.provenance.named_only).

    A review's answer that only lists what changed waits as any such commit does: on every
    batch read so far, the two that gave no reason ("Address CodeRabbit review feedback -
    Pin all GitHub Actions ...") were junk; the five that gave one were knowledge once,
    partial three times and junk once."""
    if not (commit.breaking or explains_why(part)):
        return "commit.what"
    return "commit.review" if is_review_response(commit) else "commit"


def commit_candidates(
    commits: Sequence[CommitInfo], rules_: Any, index: FileIndex | None = None
) -> list[Candidate]:
    """Learnings from the session's commits whose message explains something; a commit
    answering a code review has origin "commit.review" (recall shows it only where it
    names the code at hand)."""
    from kgraph.knowledge.areas import infer_code_area

    found = []
    for commit in commits:
        reason = knowledge_reason(commit)
        if reason is None:
            continue
        parts = commit_parts(commit)
        for number, part in enumerate(parts):
            files = commit.files
            if len(parts) > 1 and index is not None:
                named = index.files_of(part)
                files = tuple(f for f in named if f in commit.files or not commit.files) or files
            found.append(
                Candidate(
                    ref=f"commit:{commit.sha}" + (f":{number}" if number else ""),
                    type="Learning",
                    content=part,
                    files=files,
                    code_area=infer_code_area(f"{commit.scope}/_", rules_)
                    if commit.scope
                    else None,
                    confidence=0.8 if reason == "breaking" else 0.75,
                    source="commit",
                    origin=_commit_origin(commit, part),
                    at=commit.committed,
                )
            )
    return found


_CD = re.compile(r"(?:^|&&|;)\s*cd\s+(?P<dir>[^\s&;|]+)")


def transcript_commits(
    events: Sequence[Event], paths: PathMap, index: FileIndex, known: Sequence[CommitInfo]
) -> list[CommitInfo]:
    """Commits the agent made in this repo, read from its ``git commit`` calls: the commit
    messages of a session whose repository capture cannot read (another machine, or
    rewritten history). Commits git already reported, and commits in scratch repositories
    (``cd /tmp/x && git commit``), are left out."""
    from kgraph.capture.sources.commits import commit_from_command, parse_commit

    subjects = {c.subject for c in known}
    shas = [c.sha for c in known]
    found: list[CommitInfo] = []
    for event in events:
        if not isinstance(event, Ran) or event.name != "Bash" or event.is_error:
            continue
        command = event.input.get("command")
        if not isinstance(command, str):
            continue
        parsed = commit_from_command(command, event.result)
        if parsed is None:
            continue
        sha, message, added = parsed
        if any(
            m.group("dir").startswith("/") and paths.rel(m.group("dir") + "/x") is None
            for m in _CD.finditer(command)
        ):
            continue
        files = tuple(
            dict.fromkeys(f for a in added if (f := index.resolve_path(a) or paths.rel(a)))
        )
        commit = parse_commit(sha, message, files)
        if commit.subject in subjects or any(s.startswith(sha) for s in shas):
            continue
        subjects.add(commit.subject)
        found.append(commit)
    return found
