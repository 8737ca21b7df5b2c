"""The pure extraction step of capture: transcript entries and commits → candidate items.

No database, no git, no clock: :func:`extract_candidates` takes what was read and returns
what may be stored, so it is tested on fragments cut from real transcripts. Sources, in
order of trust:

1. the session's commit messages that explain (:mod:`kgraph.capture.sources.commit_items`);
2. Claude Code's compaction summaries (:mod:`kgraph.capture.sources.summary_items`);
3. the conversation: the agent's explanations of causes and fixes
   (:mod:`kgraph.capture.sources.explanations`), the user's corrections, decisions and rules
   (:mod:`kgraph.capture.sources.dialogue`), the issue/fix tables of the agent's closing
   summaries (:mod:`kgraph.capture.sources.tables`), and AskUserQuestion answers;
4. one Topic: what the session was about (stored when at least two items are).

Every candidate passes the rubric (:mod:`kgraph.capture.gate.junk`); paths are made repo-relative
through the transcript's own cwd and home directories masked (:mod:`kgraph.capture.gate.paths`);
the files an item is about are the ones it names, resolved against what the session touched
(:mod:`kgraph.capture.gate.mentions`). Secrets are redacted thoroughly *before* any text is cut.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgraph.capture.gate import prose
from kgraph.capture.gate.candidates import Candidate, text_hash
from kgraph.capture.gate.junk import rubric_reason
from kgraph.capture.gate.mentions import FileIndex, build_index
from kgraph.capture.gate.paths import PathMap
from kgraph.capture.sources.commit_items import commit_candidates, transcript_commits
from kgraph.capture.sources.commits import CommitInfo
from kgraph.capture.sources.dialogue import corrections_and_decisions, rules
from kgraph.capture.sources.explanations import Found, explanations, failure_causes
from kgraph.capture.sources.retractions import Retraction, retracted, retractions
from kgraph.capture.sources.stream import Event, Ran, Said, conversation
from kgraph.capture.sources.summary_items import SummaryItem, summary_items
from kgraph.capture.sources.tables import fix_tables
from kgraph.tools import TEXT_EDIT_TOOLS

_SUMMARY_KIND = {
    "errors": "Mistake",
    "feedback": "Mistake",  # a correction, as the dialogue's own
    "solving": "Learning",
    "concepts": "Learning",
}
_SUMMARY_CONFIDENCE = {
    "errors": 0.75,
    "feedback": 0.6,
    "solving": 0.75,
    "concepts": 0.6,
    "files": 0.65,
}
_ANSWER = re.compile(r'"((?:[^"\\]|\\.)*)"="((?:[^"\\]|\\.)*)"')
_INTENT = re.compile(r"Primary Request and Intent:\s*\n(?P<body>.+?)(?:\n\s*\n|\n\s*\d+\.)", re.S)
MAX_TOPIC_CHARS = 200


@dataclass(frozen=True)
class Extraction:
    candidates: list[Candidate]
    rejected: dict[str, int]
    # What the conversation took back: capture hides items an earlier batch stored.
    retractions: tuple[Retraction, ...] = ()


def _scrubbed(text: str, paths: PathMap) -> str:
    """Paths mapped and homes masked, secrets redacted, then cut to the item limit."""
    from kgraph.redact import redact

    return prose.shorten(redact(paths.scrub(text), thorough=True))


def _from_summary(item: SummaryItem, index: FileIndex, number: int, n: int) -> Found:
    kind = _SUMMARY_KIND.get(item.section, "Learning")
    confidence = _SUMMARY_CONFIDENCE[item.section]
    ref = f"summary:{number}:{n}"
    return Found(kind, item.text, ref, 5.0, confidence, origin=f"summary.{item.section}")


# Origins whose claims a commit of the session can back: the agent's own account of code it
# changed. A user's correction or answer names the file being edited because its template
# does ("who stopped the Edit of `x.go`"), not because it says something about that file.
# Nor does a summary's "Files and Code Sections": it lists the files the session worked on,
# so a commit of them is no second word; read on sessions of a repository nobody had
# used, the bullets a commit backed were listings of selectors and wiring 4 times in 4.
# Nor does the agent's running commentary ("explanation"): a session that commits often
# commits every file its passing diagnoses name. On 43 sessions of seven repositories
# nobody had used, the explanations a commit backed were real knowledge 3 times in 28
# (12 junk: diagnoses the session disproved, designs it replaced), and replayed, the 28
# shown to later sessions were useful 0 times, junk 22. Nor, read the same way, a failed
# command's error line or a row of the agent's fix table: captured where the session's
# commits are in the repository (a sixth batch's sessions of two repositories, at their
# main), the 12 a commit backed were knowledge 0 times, junk 7 (a linter's naming rule, a
# branch-name check, "Test duplication. Fix: extracted helpers").
COMMIT_BACKED = frozenset({"summary.solving", "summary.concepts"})
# A found item's ref prefix -> its origin (kgraph.capture.gate.candidates: which are trusted)
_ORIGINS = {
    "say": "explanation",
    "failed": "failure",
    "corrected": "correction",
    "agreed": "agreement",
    "stopped": "interruption",
    "option": "option",
    "said": "user-rule",
    "table": "fix-table",
    "ask": "question-answer",
}


def _decisions_asked(events: Sequence[Event]) -> list[Found]:
    """AskUserQuestion answers, the chosen option expanded to its description."""
    found: list[Found] = []
    for event in events:
        if not isinstance(event, Ran) or event.name != "AskUserQuestion" or event.is_error:
            continue
        answers = {
            q.replace('\\"', '"'): a.replace('\\"', '"') for q, a in _ANSWER.findall(event.result)
        }
        questions = event.input.get("questions")
        for number, item in enumerate(questions if isinstance(questions, list) else []):
            if not isinstance(item, dict) or item.get("question") not in answers:
                continue
            answer = answers[item["question"]]
            described = {
                str(o.get("label")): str(o.get("description") or "")
                for o in item.get("options") or []
                if isinstance(o, dict)
            }
            why = described.get(answer, "")
            text = f"Decision: {item['question'].rstrip('?')} — {answer}" + (
                f" ({why})" if why else ""
            )
            if prose.words(answer + " " + why) >= 3:
                found.append(Found("Learning", text, f"ask:{event.call_id}:{number}", 3.0, 0.8))
    return found


_CONTENT_WORD = re.compile(r"[a-z][a-z0-9_.]{3,}")


def _stem(word: str) -> str:
    """ "rebased", "rebases", "rebasing" → "rebas": enough to see two texts say the same."""
    word = word.strip(".")
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> frozenset[str]:
    return frozenset(_stem(w) for w in _CONTENT_WORD.findall(text.lower()))


def repeats(words: frozenset[str], kept: list[frozenset[str]]) -> bool:
    """Mostly the words of an item already kept: the summary's bullet and the agent's
    sentence about the same cause, or the error and the explanation it quotes."""
    return any(len(words & other) / max(1, min(len(words), len(other))) > 0.7 for other in kept)


def topic_text(summaries: Sequence[str], events: Sequence[Event]) -> str | None:
    """What the session was about: the compaction summary's stated intent, else its first
    prompt's first sentence."""
    for summary in summaries:
        match = _INTENT.search(summary)
        if match:
            sentences = [s for p in prose.units(match.group("body")) for s in p]
            if sentences:
                return sentences[0].rstrip(" :,")
    for event in events:
        if isinstance(event, Said) and event.who == "user" and event.via == "prompt":
            sentences = [s for p in prose.units(event.text) for s in p]
            lead = next((s for s in sentences[:3] if prose.words(s) >= 4), None)
            if lead:
                return lead.rstrip(" :,")
    return None


def _is_user(event: Event) -> bool:
    return isinstance(event, Said) and event.who == "user"


def _turn_files(events: Sequence[Event], at: int, paths: PathMap) -> tuple[str, ...]:
    """Files edited in the turn of event ``at`` (between the user's messages), if one or two:
    an explanation that names no file is about what its turn changed."""
    if at < 0:
        return ()
    start, end = at, at
    while start > 0 and not _is_user(events[start - 1]):
        start -= 1
    while end + 1 < len(events) and not _is_user(events[end + 1]):
        end += 1
    edited: list[str] = []
    for event in events[start : end + 1]:
        if isinstance(event, Ran) and event.name in TEXT_EDIT_TOOLS and not event.is_error:
            raw = event.input.get("file_path")
            rel = paths.rel(raw) if isinstance(raw, str) else None
            if rel and rel not in edited:
                edited.append(rel)
    return tuple(edited) if len(edited) <= 2 else ()


def transcript_cwd(entries: Sequence[Any]) -> str | None:
    """The working directory the transcript's session started in (its first recorded one)."""
    return next(iter(transcript_cwds(entries)), None)


def transcript_cwds(entries: Sequence[Any]) -> tuple[str, ...]:
    """Every working directory the transcript recorded, in order: the cwd follows the
    agent's ``cd`` (into a folder of the repo, a worktree elsewhere, or from the folder
    the session started in into the repo), so no one of them is the checkout for sure."""
    return tuple(dict.fromkeys(str(c) for e in entries if (c := getattr(e, "cwd", None))))


def extract_candidates(
    entries: Sequence[Any],
    root: Path,
    *,
    commits: Sequence[CommitInfo] = (),
    area_rules: Any = None,
    summaries: Sequence[str] | None = None,
    model: Sequence[Found] = (),
) -> Extraction:
    """Candidate items from a session's transcript entries and commits (see module docstring).

    ``summaries``: compaction summaries to read (default: the ones in ``entries``; capture
    passes PostCompact's ``compact_summary`` too when it has one). ``model``: what the model
    extractor found, taken through the same steps as what the rules find.
    """
    from kgraph.transcript.views import compaction_summaries

    events = conversation(entries)
    paths = PathMap(root, transcript_cwds(entries))
    index = build_index(events, paths)
    if summaries is None:
        summaries = compaction_summaries(entries)
    found: list[Found] = []
    for number, summary in enumerate(summaries):
        found += [_from_summary(s, index, number, n) for n, s in enumerate(summary_items(summary))]
    found += corrections_and_decisions(events)
    found += rules(events)
    found += _decisions_asked(events)
    found += failure_causes(events)
    found += fix_tables(events)
    found += explanations(events)
    found += model

    rejected: dict[str, int] = {}
    taken_back = retractions(events)
    commits = [*commits, *transcript_commits(events, paths, index, commits)]
    candidates = commit_candidates(commits, area_rules, index)
    committed = {f for c in commits for f in c.files}
    kept = [content_words(c.content) for c in candidates]  # a commit says it best
    for item in sorted(found, key=lambda f: -f.score):
        text = _scrubbed(item.text, paths)
        reason = rubric_reason(text, stated=item.stated, kind=item.kind)
        words = content_words(text)
        if reason is None and repeats(words, kept):
            reason = "duplicate"
        if reason is None and retracted(text, item.at, taken_back):
            reason = "retracted"
        if reason is not None:
            rejected[reason] = rejected.get(reason, 0) + 1
            continue
        kept.append(words)
        key = text_hash(text)
        named = index.files_of(text)
        prefix = item.ref.split(":", 1)[0]
        origin = item.origin or _ORIGINS.get(prefix, prefix)
        backed = origin in COMMIT_BACKED and bool(set(named) & committed)
        candidates.append(
            Candidate(
                ref=f"{prefix}:{key}",
                type=item.kind,
                content=text,
                files=named or _turn_files(events, item.at, paths),
                confidence=item.confidence,
                stated=item.stated,
                origin=origin,
                corroborated="commit" if backed else None,
            )
        )
    topic = topic_text(summaries, events) if candidates else None
    if topic:
        text = _scrubbed(f"Session topic: {prose.shorten(topic, MAX_TOPIC_CHARS)}", paths)
        files = tuple(dict.fromkeys(f for c in candidates for f in c.files))[:6]
        candidates.append(
            Candidate(
                ref=f"topic:{text_hash(text)}",
                type="Topic",
                content=text,
                files=files,
                confidence=0.6,
                origin="topic",
            )
        )
    return Extraction(candidates, rejected, tuple(taken_back))
