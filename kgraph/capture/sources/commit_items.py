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
from kgraph.capture.sources.commits import CommitInfo, commit_content
from kgraph.capture.sources.stream import Event, Ran
from kgraph.knowledge.areas import DOCUMENTATION, infer_code_area

# A one-line message is knowledge only when it says why. "Use X instead of Y", "always
# use go run": the subject of a change, which readers of replayed sessions judged junk
# whenever it reached an agent (it names neither the problem nor where it was).
_REASON_WORDS = (
    r"because|caused by|due to|so that|otherwise|root cause|which (?:broke|caused)|"
    r"was (?:missing|wrong|broken)"
)
_REASON = re.compile(rf"\b({_REASON_WORDS})\b", re.IGNORECASE)
# A fix's subject may say why more loosely ("fix crash when ...", "... instead of ...").
_CAUSE = re.compile(rf"\b({_REASON_WORDS}|since|when|instead of|rather than)\b", re.IGNORECASE)
# Accounts that write commits for a program (dependabot[bot], renovate[bot],
# pre-commit-ci[bot], github-actions[bot], a "release-bot"): their messages are templates
# (flask's history gave 77 "Bump pip-tools from 5.2.0 to 5.2.1" items, links and YAML).
_BOT = re.compile(r"\[bot\]|(?:^|[-_. ])bot\b", re.IGNORECASE)
# A commit answering a review ("Address PR review feedback", "fix(explain): address low
# severity PR feedback", "Copilot review comments addressed") lists the reviewer's points
# fixed one by one. Such a message is knowledge (capture-dev's lessons count them), but
# replaying real sessions, a whole-file read or a prompt's word brought it to later agents
# 23 times, and it was of use once: its item gets origin "commit.review", which recall
# shows only where it names the code at hand (kgraph.recall.provenance.named_only). "Review
# URL escaping" or "Fix review page" (a word after "review" that is no list of points) is
# not such a commit.
_REVIEW_RESPONSE = re.compile(
    r"^(?:(?:address(?:ed|es|ing)?|add(?:ed|s)?|appl(?:y|ied|ies)|implement(?:ed|s)?|"
    r"handle[ds]?|resolve[ds]?|fix(?:ed|es)?|more|remaining|additional|further|local|minor|"
    r"low|medium|high|severity|the|all|pr|mr|pull\s+request|code|co-?pilot|bugbot|cursor|"
    r"coderabbit|gemini|reviewers?'?s?|inline|gh)\s+)*"
    r"(?:review(?:\s+(?:feedback|comments?|suggestions?|findings?|nits?))?|feedback)"
    r"(?=\s*(?:$|[:;,.(&—–-]|\b(?:from|for|on|of|in|by|to|and|round|items?|points?|"
    r"addressed|fixes)\b))",
    re.IGNORECASE,
)
# A release or a version bump ("chore(release): v0.16.1", "Release 2.3.0", "Bump to 0.2.0
# for flattened layout"): its body lists what other commits changed, each said better by
# its own message.
_RELEASE = re.compile(
    r"^(?:(?:release|bump(?:ed|s)?(?: (?:the )?version)?(?: to)?)[:\s]+v?\d"
    r"|v?\d+\.\d+(?:\.\d+)?\b)",
    re.IGNORECASE,
)
_MIN_BODY_WORDS = 6
# A Markdown heading is a title, not an explanation. A tool that commits with the user's
# prompt as the message, cut short, leaves "Implement the following plan:" over "# Plan:
# Implement Pydantic Logfire for Ag": replaying a repository nobody had used, 19 of the 23
# junk items its sessions were shown were such messages.
_HEADING = re.compile(r"^\s*#{1,6}\s")


# A commit that only touched documentation (``docs:``, or files of the Documentation code
# area: Markdown, reST, AsciiDoc, docs/ folders) says what the documents now hold, and the
# documents say it better, unless its message gives a reason, a rule or a decision: "docs:
# require a changeset for user-facing changes" is one, "docs: Add guild management
# implementation plan" is not.
_DOC_MARKERS = frozenset({"cause", "issue", "rule", "decision", "correction"})


def docs_only(commit: CommitInfo) -> bool:
    """True for a ``docs:`` commit, or one whose files are all documentation."""
    files = commit.files
    return commit.type == "docs" or (
        bool(files) and all(infer_code_area(f) == DOCUMENTATION for f in files)
    )


def knowledge_reason(commit: CommitInfo) -> str | None:
    """Why a commit's message carries knowledge ("breaking", "body", "cause"), or None for
    a trivial commit (no body, a subject that does not say why), a release (_RELEASE) or
    one a bot wrote.

    A documentation commit (:func:`docs_only`) carries knowledge only when its message
    gives a reason, a rule or a decision (_DOC_MARKERS). Read item by item on two batches
    of sessions nobody tuned on, 17 of 23 such messages were junk and one was knowledge
    ("Add the design", "Mark X as done", "Rewrite README"); replayed, the ones a session
    found useful stated a rule ("docs: require bun verify before creating PRs")."""
    if _BOT.search(commit.author):
        return None
    if commit.breaking:
        return "breaking"
    if commit.type == "release" or _RELEASE.match(commit.description):
        return None
    if docs_only(commit):
        markers = prose.knowledge_markers(" ".join(commit_content(commit).split()))
        if not markers & _DOC_MARKERS:
            return None
    lines = [line for line in commit.body.splitlines() if not _HEADING.match(line)]
    if len(" ".join(lines).split()) >= _MIN_BODY_WORDS:
        return "body"
    if commit.type == "fix" and _CAUSE.search(commit.description):
        return "cause"
    if _REASON.search(commit.description):
        return "cause"
    return None


# Words by which a message says why, not only what: a cause or purpose ("because", "so",
# "to prevent"), an effect ("this reduces latency"), a contrast ("but", "without"), a
# negation ("doesn't", "never", "no longer"), a failure ("fails", "wrong") or a rule
# ("must", "only"). A message with none of them lists what the diff shows ("- Change X to
# Y", "Add colored badges"): read item by item on sessions nobody tuned on, 8 of 56 such
# commit items were real knowledge, against 30 of 55 of the ones that say why.
# "Instead of" and "rather than" name what a change replaced, not why ("use the shared
# helper instead of building it inline", "Simplify after review"): on three batches of
# sessions nobody tuned on, the 20 commit items with no other such word were knowledge 2
# times and junk 10 times.
_EXPLAINS = re.compile(
    r"\b(?:because|since|so|due to|caus(?:e|es|ed|ing)|which|but|otherwise|prevent(?:s|ing)?|"
    r"avoid(?:s|ing)?|eliminat(?:e|es|ed|ing)|ensur(?:e|es|ing)|reduc(?:es|ed|ing)|without|"
    r"never|not|no longer|only|must|should|requires?|break(?:s|ing)?|broke|"
    r"fail(?:s|ed|ing|ure)?|wrong|incorrect(?:ly)?)\b|n't\b",
    re.IGNORECASE,
)


def explains_why(text: str) -> bool:
    """Whether a commit message, or the part of one an item keeps, says why (_EXPLAINS)."""
    return bool(_EXPLAINS.search(text))


def is_review_response(commit: CommitInfo) -> bool:
    """True for a commit whose subject says it answers a code review (_REVIEW_RESPONSE)."""
    return any(_REVIEW_RESPONSE.match(text) for text in (commit.description, commit.subject))


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
    part of one an item keeps) that only says what changed (explains_why, kept as
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
