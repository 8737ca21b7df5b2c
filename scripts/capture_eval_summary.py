"""Records of a capture evaluation, the verdicts file, and the summary (pure: no capture, no
database; ``capture_eval.py`` runs the captures and prints).

A verdict is a person's reading of one stored item: ``knowledge`` (stands alone and is worth
keeping), ``partial`` (part of a lesson, or useful but incomplete) or ``junk`` (by the
rubric: action lists, restated prompts, status, chatter, transcript excerpts ...). Junk % is
over judged items only, so a half-judged run says so (``unjudged``) instead of looking clean.
Lessons covered are the union of the ``lessons`` of items judged knowledge or partial among
the items this run stored (a verdict for an item no longer stored counts for nothing).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict, cast

from capture_eval_lessons import LessonIndex, Proposal

from kgraph.recall.provenance import NAMED_ONLY_ORIGINS

__all__ = [
    "VERDICTS",
    "EvalItem",
    "SetSummary",
    "Summary",
    "TranscriptResult",
    "Verdict",
    "item_key",
    "load_verdicts",
    "summarise",
    "write_template",
]

VERDICTS = ("knowledge", "partial", "junk")


class Verdict(TypedDict, total=False):
    verdict: str | None
    lessons: list[str]
    note: str
    transcript: str  # written by --write-template to help the reader; not used
    item: str


@dataclass(frozen=True)
class EvalItem:
    key: str
    type: str
    content: str
    files: tuple[str, ...]
    areas: tuple[str, ...]
    source: str
    confidence: float
    proposals: tuple[Proposal, ...] = ()
    origin: str = ""  # the kind of text capture cut it from ("commit", "explanation", ...)
    shown: bool = True  # False for a candidate (stored hidden until corroborated)


@dataclass(frozen=True)
class TranscriptResult:
    session_id: str
    section: int | None  # its section in LESSONS.md, when labelled
    entries: int
    cpu_s: float  # worker CPU of the first capture
    items: tuple[EvalItem, ...]
    home_paths_items: int  # stored items holding an absolute home path
    home_paths_sessions: int  # session rows holding one
    home_path_samples: tuple[str, ...]
    second_run_created: int  # items the second capture of the same session created
    errors: tuple[str, ...]  # worker exit codes / logged errors

    @property
    def prefix(self) -> str:
        return self.session_id[:8]

    @property
    def failed_checks(self) -> bool:
        return bool(
            self.errors
            or self.second_run_created
            or self.home_paths_items
            or self.home_paths_sessions
        )


def item_key(type_: str, content: str) -> str:
    """Stable across runs while capture stores the same text: the verdicts' key."""
    return hashlib.sha256(f"{type_}\n{content}".encode()).hexdigest()[:10]


def load_verdicts(path: Path) -> dict[str, Verdict]:
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise SystemExit(f"{path}: expected a JSON object of item key -> verdict")
    verdicts: dict[str, Verdict] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            verdicts[str(key)] = cast(Verdict, value)
    return verdicts


def write_template(
    path: Path, verdicts: dict[str, Verdict], results: Sequence[TranscriptResult]
) -> int:
    """Add an unjudged entry for every item key not in the file; keep every existing entry
    as it is. Returns how many were added."""
    merged = dict(verdicts)
    added = 0
    for result in results:
        for item in result.items:
            if item.key in merged:
                continue
            merged[item.key] = Verdict(
                verdict=None,
                lessons=[],
                note="",
                transcript=result.prefix,
                item=f"{item.type}: {item.content[:200]}",
            )
            added += 1
    if added or not path.exists():
        text = json.dumps(merged, indent=2, ensure_ascii=False) + "\n"
        path.write_text(text, encoding="utf-8")
    verdicts.update(merged)
    return added


@dataclass
class SetSummary:
    """Counts over a set of transcripts (all, labelled, unlabelled)."""

    transcripts: int = 0
    items: int = 0
    knowledge: int = 0
    partial: int = 0
    junk: int = 0
    unjudged: int = 0

    @property
    def judged(self) -> int:
        return self.knowledge + self.partial + self.junk

    @property
    def junk_pct(self) -> float | None:
        return round(100 * self.junk / self.judged, 1) if self.judged else None

    def add(self, verdict: str | None) -> None:
        self.items += 1
        if verdict == "knowledge":
            self.knowledge += 1
        elif verdict == "partial":
            self.partial += 1
        elif verdict == "junk":
            self.junk += 1
        else:
            self.unjudged += 1

    def line(self, name: str) -> str:
        pct = "n/a" if self.junk_pct is None else f"{self.junk_pct}%"
        return (
            f"{name:<11} {self.transcripts:>2} transcripts, {self.items:>3} items: "
            f"knowledge {self.knowledge}, partial {self.partial}, junk {self.junk} "
            f"(junk {pct} of {self.judged} judged), unjudged {self.unjudged}"
        )


@dataclass
class Summary:
    rows: list[str] = field(default_factory=list)
    all: SetSummary = field(default_factory=SetSummary)
    shown: SetSummary = field(default_factory=SetSummary)  # what a hook can return
    # shown without the code being named: a named-only origin (a review's answer, a change
    # list) reaches a session only where its prompt or edit names what it names
    unasked: SetSummary = field(default_factory=SetSummary)
    by_origin: dict[str, SetSummary] = field(default_factory=dict)
    labelled: SetSummary = field(default_factory=SetSummary)
    unlabelled: SetSummary = field(default_factory=SetSummary)
    lessons_total: int = 0
    lessons_full: list[str] = field(default_factory=list)  # in a "knowledge" verdict
    lessons_partial: list[str] = field(default_factory=list)  # only in "partial" verdicts
    lessons_missing: list[str] = field(default_factory=list)
    lessons_shown: list[str] = field(default_factory=list)  # by shown items' verdicts
    second_run_created: int = 0
    home_paths_items: int = 0
    home_paths_sessions: int = 0
    errors: int = 0
    cpu_s: float = 0.0
    notes: list[str] = field(default_factory=list)

    def render(self) -> str:
        covered = len(self.lessons_full) + len(self.lessons_partial)
        lines = [
            "== summary",
            f"{'transcript':<10} {'label':<6} {'entries':>7} {'items':>5} {'cpu s':>6} "
            f"{'know':>4} {'part':>4} {'junk':>4} {'unj':>4}  2nd-run home(i/s)",
            *self.rows,
            "",
            self.all.line("all"),
            self.shown.line("shown"),
            self.unasked.line("shown unasked (not named-only)"),
            self.labelled.line("labelled"),
            self.unlabelled.line("unlabelled"),
            "by origin (all stored):",
            *(f"  {s.line(name)}" for name, s in sorted(self.by_origin.items())),
            f"lessons covered: {covered}/{self.lessons_total} "
            f"({len(self.lessons_full)} fully, {len(self.lessons_partial)} partly); "
            f"by shown items {len(self.lessons_shown)}/{self.lessons_total}",
            f"  fully:  {', '.join(self.lessons_full) or '-'}",
            f"  partly: {', '.join(self.lessons_partial) or '-'}",
            f"  not:    {', '.join(self.lessons_missing) or '-'}",
            f"second capture created {self.second_run_created} items (must be 0); "
            f"home paths in {self.home_paths_items} items, {self.home_paths_sessions} session "
            f"rows (must be 0); worker errors {self.errors}; worker CPU total {self.cpu_s:.2f} s",
            *self.notes,
        ]
        return "\n".join(lines)


def _lesson_order(lesson: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else 0 for p in lesson.split("."))


def summarise(
    results: Sequence[TranscriptResult], verdicts: dict[str, Verdict], index: LessonIndex
) -> Summary:
    summary = Summary(lessons_total=len(index.lessons))
    known = {lesson.id for lesson in index.lessons}
    full: set[str] = set()
    partly: set[str] = set()
    unknown: set[str] = set()
    shown_lessons: set[str] = set()
    for result in results:
        row = SetSummary(transcripts=1)
        summary.shown.transcripts += 1
        summary.unasked.transcripts += 1
        for item in result.items:
            verdict = verdicts.get(item.key, Verdict())
            value = verdict.get("verdict")
            value = value if value in VERDICTS else None
            row.add(value)
            summary.by_origin.setdefault(item.origin or "?", SetSummary()).add(value)
            lessons = set(verdict.get("lessons") or [])
            if item.shown:
                summary.shown.add(value)
                if item.origin not in NAMED_ONLY_ORIGINS:
                    summary.unasked.add(value)
                if value in ("knowledge", "partial"):
                    shown_lessons |= lessons & known
            unknown |= lessons - known
            if value == "knowledge":
                full |= lessons & known
            elif value == "partial":
                partly |= lessons & known
        for target in (summary.all, summary.labelled if result.section else summary.unlabelled):
            target.transcripts += 1
            for name in ("items", "knowledge", "partial", "junk", "unjudged"):
                setattr(target, name, getattr(target, name) + getattr(row, name))
        label = f"§{result.section}" if result.section else "-"
        summary.rows.append(
            f"{result.prefix:<10} {label:<6} {result.entries:>7} {row.items:>5} "
            f"{result.cpu_s:>6.2f} {row.knowledge:>4} {row.partial:>4} {row.junk:>4} "
            f"{row.unjudged:>4}  {result.second_run_created:>7} "
            f"{result.home_paths_items}/{result.home_paths_sessions}"
        )
        summary.second_run_created += result.second_run_created
        summary.home_paths_items += result.home_paths_items
        summary.home_paths_sessions += result.home_paths_sessions
        summary.errors += len(result.errors)
        summary.cpu_s += result.cpu_s
    summary.lessons_full = sorted(full, key=_lesson_order)
    summary.lessons_partial = sorted(partly - full, key=_lesson_order)
    summary.lessons_missing = sorted(known - full - partly, key=_lesson_order)
    summary.lessons_shown = sorted(shown_lessons, key=_lesson_order)
    if unknown:
        summary.notes.append(f"verdicts name unknown lessons: {', '.join(sorted(unknown))}")
    produced = {item.key for result in results for item in result.items}
    stale = [key for key, v in verdicts.items() if key not in produced and v.get("verdict")]
    if stale:
        summary.notes.append(f"{len(stale)} judged keys not stored by this run (kept in file)")
    return summary
