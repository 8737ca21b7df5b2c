"""The junk gate every automatic capture passes before it writes.

The previous tool of this kind stored 74% noise ("Worked on Testing: modified 12 file(s)").
An item is rejected when it is empty or a word or two, reads like an activity log, is mostly
symbols (a hash, a path, a dump), or repeats an item already taken in this capture.
"""

from __future__ import annotations

import re

MIN_WORDS = 3
MIN_CHARS = 15
MIN_LETTER_RATIO = 0.45
_ACTIVITY = re.compile(
    r"^\s*(?:worked on\b|session (?:summary|ended|started)\b|"
    r"(?:modified|updated|changed|edited|touched|created|deleted)\s+\d+\s+files?\b)"
    r"|\b(?:modified|updated|changed|edited|touched)\s+\d+\s+file(?:\(s\)|s)?\b",
    re.IGNORECASE,
)
_PLACEHOLDER = re.compile(
    r"^\s*(?:wip|fixup!?|squash!?|tmp|temp|todo|test|update|misc)\b[\s.:!]*$", re.IGNORECASE
)
_WHITESPACE = re.compile(r"\s+")
_WORD = re.compile(r"^[\"'(`]*[A-Za-z][A-Za-z'-]*[\"'`).,;:!?]*$")


def _key(text: str) -> str:
    return _WHITESPACE.sub(" ", text).strip().lower().rstrip(".!;: ")


def junk_reason(text: str | None) -> str | None:
    """Why ``text`` must not be stored ("empty", "too short", "activity log", "not prose"),
    or None when it may be."""
    if text is None or not text.strip():
        return "empty"
    stripped = text.strip()
    if len(stripped.split()) < MIN_WORDS or len(stripped) < MIN_CHARS:
        return "too short"
    if _PLACEHOLDER.match(stripped):
        return "placeholder"
    if _ACTIVITY.search(stripped) and len(stripped.split()) < 12:
        return "activity log"
    letters = sum(ch.isalpha() for ch in stripped)
    words = sum(1 for token in stripped.split() if _WORD.match(token))
    if letters / max(1, len(stripped)) < MIN_LETTER_RATIO or words < 2:
        return "not prose"
    return None


class JunkGate:
    """Stateful gate for one capture run: rejects junk and anything seen earlier in the run."""

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self.rejected: dict[str, int] = {}

    def admit(self, text: str | None) -> bool:
        reason = junk_reason(text)
        if reason is None:
            assert text is not None
            key = _key(text)
            if key in self.seen:
                reason = "duplicate"
            else:
                self.seen.add(key)
                return True
        self.rejected[reason] = self.rejected.get(reason, 0) + 1
        return False
