"""Items from Claude Code's compaction summary.

When Claude Code compacts a session it writes a structured summary (the ``isCompactSummary``
entry, or PostCompact's ``compact_summary``): numbered sections such as "Key Technical
Concepts", "Files and Code Sections", "Errors and fixes", "Problem Solving", "Pending Tasks",
"Current Work". The first four hold what the session learned, often as exact cause → fix
bullets; the rest is the session's to-do list and is not knowledge.

- "Errors and fixes": each bullet (with its "Fix: …" sub-bullets) is a Mistake, but a
  bullet headed by the user ("User feedback on …:", "User correction - …:", "… User
  redirected:"; the summary is asked to note the user's feedback there) is the user's side
  of the dialogue, kept apart as "feedback" (a correction: read item by item, 3 such
  bullets in 8 were real knowledge, against most of the section's errors);
- "Problem Solving": each bullet that states a cause, rule or behaviour is a Learning;
- "Key Technical Concepts": a concept with an explanation of how something behaves;
- "Files and Code Sections": a file's bullets that say why or how the code behaves, about
  that file (at most a few; the rest of that section is a change log).

Compiler hygiene ("Unused import `plumbing`: Removed") and status ("All tests pass") are not
knowledge and are dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kgraph.capture.gate import prose

_SECTION = re.compile(r"^\s*(?:#+\s*)?(\d{1,2})\.\s+(?P<title>[A-Z][^:\n]{2,60}):\s*(?P<rest>.*)$")
_BULLET = re.compile(r"^(?P<indent>\s*)(?:[-*•+]|\d+[.)])\s+(?P<text>.*)$")
_FILE_HEAD = re.compile(
    r"^`?(?P<path>[\w./~-]+\.\w{1,5}|[\w./~-]+/)`?\s*(?:[—:-]+\s*(?P<rest>.*))?$"
)
_LINE_REF = re.compile(r"\s*\((?:lines? \d+(?:[-–]\d+)?(?:, \d+)*)\)")
# An error that is code hygiene: an unused name, an import, a typo, or what a linter or
# formatter flagged in the session's own new code ("Ruff lint: line too long (E501)",
# "Prettier formatting failure", "`ruff format` differences"), fixed by doing what it asked.
_HYGIENE = re.compile(
    r"^(?:unused|missing import|missing `?\w+`? import|unused import|declared and not used|"
    r"return nil|import cycle|gofmt|formatting|typo|"
    r"`?(?:[\w.-]+\s+)?(?:lint(?:er|ing)?|format(?:ter|ting)?)`?(?:\s+(?:check|errors?|"
    r"failures?|warnings?|issues?|differences?|mismatch(?:es)?))?\s*[:(])",
    re.IGNORECASE,
)
# An error of the agent's own half-done edit (a name used before it was written or imported,
# a module file not created yet): its fix is the rest of the edit, nothing to learn, whatever
# "because" it gives.
_HALF_DONE = re.compile(
    r"^(?:compile errors? for missing|`?[\w.]+`? (?:undefined|(?:package )?not imported|is not "
    r"defined)\b)",
    re.IGNORECASE,
)
_READ_TO = re.compile(r"\s*(?:Read|Reviewed|Checked|Opened) (?:to|for) [^.]*\.?\s*$")
MAX_FILE_ITEMS = 6
_USER = re.compile(r"\buser\b", re.IGNORECASE)


@dataclass(frozen=True)
class SummaryItem:
    section: str  # "errors" | "feedback" | "solving" | "concepts" | "files"
    text: str
    file_hint: str | None = None  # the file a "Files and Code Sections" bullet sits under


def _section_key(title: str) -> str | None:
    lowered = title.lower()
    if "error" in lowered and "fix" in lowered:
        return "errors"
    if "problem solving" in lowered:
        return "solving"
    if "technical concept" in lowered:
        return "concepts"
    if "files" in lowered and ("code" in lowered or "section" in lowered):
        return "files"
    return None


def _body(summary: str) -> str:
    """The part after "Summary:" (the "Analysis:" before it narrates the whole session)."""
    marker = re.search(r"^\s*Summary:\s*$", summary, re.MULTILINE)
    return summary[marker.end() :] if marker else summary


def sections(summary: str) -> dict[str, list[list[str]]]:
    """Known sections → their top-level bullets, each with its sub-bullet lines."""
    found: dict[str, list[list[str]]] = {}
    current: str | None = None
    bullets: list[list[str]] = []
    top_indent: int | None = None
    for line in prose.clean_markdown(_body(summary)).splitlines():
        header = _SECTION.match(line)
        if header and len(line) - len(line.lstrip()) < 2:
            if current:
                found.setdefault(current, []).extend(bullets)
            current, bullets, top_indent = _section_key(header.group("title")), [], None
            continue
        if current is None:
            continue
        bullet = _BULLET.match(line)
        if bullet:
            indent = len(bullet.group("indent"))
            if top_indent is None or indent <= top_indent:
                top_indent = indent
                bullets.append([bullet.group("text").strip()])
            elif bullets:
                bullets[-1].append(bullet.group("text").strip())
        elif bullets and line.strip() and top_indent is not None:
            bullets[-1].append(line.strip())
    if current:
        found.setdefault(current, []).extend(bullets)
    return found


def _join(parts: list[str]) -> str:
    text = parts[0].rstrip()
    for part in parts[1:]:
        text += ("" if text.endswith((".", ":", "!")) else ".") + " " + part.strip()
    return _LINE_REF.sub("", text)


def _error_section(text: str) -> str:
    """The section an "Errors and fixes" bullet belongs in: "feedback" when its head (the
    text before its first colon) names the user, else "errors"."""
    head = text.split(":", 1)[0] if ":" in text[:160] else ""
    return "feedback" if _USER.search(head) else "errors"


def _states_knowledge(text: str) -> bool:
    return bool(prose.knowledge_markers(text)) and not prose.STATUS.search(text)


def summary_items(summary: str) -> list[SummaryItem]:
    """The knowledge-bearing bullets of one compaction summary (see module docstring)."""
    items: list[SummaryItem] = []
    parsed = sections(summary)
    for bullet in parsed.get("errors", []):
        text = _join(bullet)
        if (_HYGIENE.match(text) and not prose.CAUSE.search(text)) or _HALF_DONE.match(text):
            continue
        if prose.words(text) >= 8:
            items.append(SummaryItem(_error_section(text), text))
    for key in ("solving", "concepts"):
        for bullet in parsed.get(key, []):
            text = _join(bullet)
            stated = _states_knowledge(text) and ":" in text[:120]
            caused = key == "solving" and prose.words(text) >= 10 and prose.CAUSE.search(text)
            if (prose.words(text) >= 8 and stated) or caused:
                items.append(SummaryItem(key, text))
    file_items = 0
    for bullet in parsed.get("files", []):
        head = _FILE_HEAD.match(bullet[0])
        path = head.group("path") if head else None
        lines = ([head.group("rest")] if head and head.group("rest") else []) + bullet[1:]
        for line in lines:
            line = _READ_TO.sub("", _LINE_REF.sub("", line or "")).strip()
            markers = prose.knowledge_markers(line)
            if prose.words(line) < 8 or not markers & {"cause", "issue", "rule", "behaviour"}:
                continue
            if (
                prose.is_narration(line)
                or prose.STATUS.search(line)
                or file_items >= MAX_FILE_ITEMS
            ):
                continue
            subject = f"`{path}`: " if path else ""
            items.append(SummaryItem("files", subject + line, path))
            file_items += 1
    return items
