"""The hand-written lessons of ``LESSONS.md`` and a matcher that proposes which one an item covers.

``LESSONS.md`` (in ``../shared/transcripts/capture-dev/``) has one section per labelled
transcript, ``## N. `<uuid>.jsonl` ``, with numbered lessons::

    1. **[mistake]** text that may run over
       several lines.
       - files: `a/b.go`, `c.go`
       - evidence: L3 user text; ...

A lesson's id is ``"N.k"`` (section N, lesson k). The matcher only *proposes*: it scores a
captured item against the lessons of its transcript by the files they share (basenames, as
transcripts and lessons name files differently) and by the distinctive words they share
(weighted by how rare a word is across all lessons), so the person judging items reads the
likely lesson first. What counts is the verdict a person writes, never a proposal.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

__all__ = [
    "FILE_WEIGHT",
    "PROPOSAL_THRESHOLD",
    "Lesson",
    "LessonIndex",
    "Proposal",
    "Section",
    "parse_lessons",
    "tokens",
]

PROPOSAL_THRESHOLD = 0.12
FILE_WEIGHT = 0.4  # share of the score from shared files; the rest from shared words
MIN_TOKEN = 4

_SECTION = re.compile(r"^## (\d+)\. `([0-9a-f-]+)\.jsonl`\s*$")
_LESSON = re.compile(r"^(\d+)\. \*\*\[(\w+)\]\*\*\s*(.*)$")
_FIELD = re.compile(r"^\s+- (files|evidence):\s*(.*)$")
_BACKTICKED = re.compile(r"`([^`]+)`")
_WORD = re.compile(r"[A-Za-z0-9_]+")
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_FILE_IN_TEXT = re.compile(r"[\w./-]+\.\w{1,5}\b")

_STOP_TEXT = """about above after again against also another anything because been before being
    below between both cannot could does doing done down during each either even every
    first from further have having here instead into itself just last like made make makes
    many more most much must need needs never next once only other otherwise over same
    should since some still such than that their them then there these they this those
    through under until upon used uses using very want were what when where which while
    whose will with within without would your"""
STOPWORDS = frozenset(_STOP_TEXT.split())


@dataclass(frozen=True)
class Lesson:
    """One hand-written lesson: ``id`` is ``"N.k"``; ``files`` are repo-relative paths."""

    id: str
    section: int
    transcript: str  # session uuid (the transcript's file stem)
    kind: str  # learning | mistake | pattern | decision
    text: str
    files: tuple[str, ...]
    evidence: str


@dataclass(frozen=True)
class Section:
    number: int
    transcript: str
    lessons: tuple[Lesson, ...]


@dataclass(frozen=True)
class Proposal:
    lesson: str
    score: float


def parse_lessons(path: Path) -> list[Section]:
    """The sections of ``LESSONS.md`` with their lessons (junk lists and prose are skipped)."""
    sections: list[Section] = []
    number, transcript = 0, ""
    lessons: list[Lesson] = []
    current: dict[str, str] | None = None

    def close_lesson() -> None:
        nonlocal current
        if current is not None:
            lessons.append(_lesson(number, transcript, current))
        current = None

    def close_section() -> None:
        nonlocal lessons
        close_lesson()
        if number:
            sections.append(Section(number, transcript, tuple(lessons)))
        lessons = []

    for line in path.read_text(encoding="utf-8").splitlines():
        heading = _SECTION.match(line)
        if heading:
            close_section()
            number, transcript = int(heading.group(1)), heading.group(2)
            continue
        if not number:
            continue
        start = _LESSON.match(line)
        field = _FIELD.match(line)
        if start:
            close_lesson()
            current = {"k": start.group(1), "kind": start.group(2), "text": start.group(3)}
        elif current is not None and field:
            current[field.group(1)] = field.group(2).strip()
        elif current is not None and line.startswith("   ") and "files" not in current:
            current["text"] += " " + line.strip()
        elif current is not None and (not line.strip() or not line.startswith(" ")):
            close_lesson()
    close_section()
    return sections


def _lesson(section: int, transcript: str, raw: dict[str, str]) -> Lesson:
    return Lesson(
        id=f"{section}.{raw['k']}",
        section=section,
        transcript=transcript,
        kind=raw["kind"],
        text=raw["text"].strip(),
        files=tuple(_BACKTICKED.findall(raw.get("files", ""))),
        evidence=raw.get("evidence", ""),
    )


def tokens(text: str) -> set[str]:
    """Lowercased words of at least four characters, identifiers also split at camelCase and
    underscores (``HasUncommittedChanges`` → itself, ``uncommitted``, ``changes``), minus
    stopwords."""
    found: set[str] = set()
    for word in _WORD.findall(text):
        parts = [word, *word.split("_"), *_CAMEL.findall(word)]
        found.update(p.lower() for p in parts if len(p) >= MIN_TOKEN)
    return found - STOPWORDS


def basenames(files: Iterable[str]) -> set[str]:
    return {PurePosixPath(f).name.lower() for f in files if f}


class LessonIndex:
    """Lessons with word weights (inverse document frequency over all lessons)."""

    def __init__(self, sections: Sequence[Section]) -> None:
        self.lessons = [lesson for section in sections for lesson in section.lessons]
        self.by_transcript: dict[str, list[Lesson]] = {}
        for lesson in self.lessons:
            self.by_transcript.setdefault(lesson.transcript, []).append(lesson)
        self._words = {lesson.id: tokens(lesson.text) for lesson in self.lessons}
        self._files = {lesson.id: basenames(lesson.files) for lesson in self.lessons}
        count = max(1, len(self.lessons))
        frequency: dict[str, int] = {}
        for words in self._words.values():
            for word in words:
                frequency[word] = frequency.get(word, 0) + 1
        self._weight = {w: math.log(1 + count / n) for w, n in frequency.items()}
        self._unseen = math.log(1 + count)  # a word no lesson uses

    def labelled(self, transcript: str) -> bool:
        return transcript in self.by_transcript

    def score(self, lesson: Lesson, text: str, files: Sequence[str]) -> float:
        """0..1: weighted cosine of shared words, plus the share of the lesson's files the
        item names (in its files or its text)."""
        words = tokens(text)
        theirs = self._words[lesson.id]
        weight = self._weight.get
        shared = sum(weight(w, 0.0) for w in words & theirs)
        norm = math.sqrt(
            sum(weight(w, self._unseen) for w in words) * sum(weight(w, 0.0) for w in theirs)
        )
        word_score = shared / norm if norm else 0.0
        lesson_files = self._files[lesson.id]
        mine = basenames(files) | basenames(_FILE_IN_TEXT.findall(text))
        file_score = len(mine & lesson_files) / len(lesson_files) if lesson_files else 0.0
        return (1 - FILE_WEIGHT) * word_score + FILE_WEIGHT * file_score

    def propose(
        self,
        transcript: str,
        text: str,
        files: Sequence[str],
        *,
        top: int = 2,
        threshold: float = PROPOSAL_THRESHOLD,
    ) -> list[Proposal]:
        """The best ``top`` lessons of ``transcript`` for an item, scoring ≥ ``threshold``."""
        scored = [
            Proposal(lesson.id, round(self.score(lesson, text, files), 2))
            for lesson in self.by_transcript.get(transcript, [])
        ]
        scored.sort(key=lambda p: (-p.score, p.lesson))
        return [p for p in scored[:top] if p.score >= threshold]
