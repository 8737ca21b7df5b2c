"""Knowledge in the agent's own words: the causes and fixes it explains, and failures with
what explained or fixed them.

- **Explanations.** Between a failure and its fix the agent usually says what the cause was
  ("That's the bug. go-git doesn't read global gitignore files…"), and the last text of a
  turn says what was found and changed. Sentences that name code and state a cause, a fix,
  a rule or a behaviour are kept with the sentences that complete them; narration ("Let me
  check…"), status ("tests pass") and questions are not. Mid-turn text must carry a strong
  marker (the issue/cause/fix was…); mid-turn guesses without one are left out.
- **Failures.** A failed command's informative error line with the explanation that names
  the same thing, or the one short edit after which the same command passed.

The user's corrections, decisions and rules are in :mod:`kgraph.capture.sources.dialogue`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kgraph.capture.gate import prose
from kgraph.capture.sources.stream import Event, Ran, Said
from kgraph.tools import TEXT_EDIT_TOOLS

_LEAD_IN = re.compile(
    r"^(?:found (?:it|the (?:issue|bug|problem|cause|culprit))|that'?s (?:the|our) (?:bug|issue|"
    r"problem|cause|culprit)|(?:the )?root cause(?: found)?|got it|there it is)\W*$",
    re.IGNORECASE,
)
_CONTINUES = re.compile(
    r"^(?:so|this|that|it|which|the fix|fix|instead|because|otherwise|as a result|meanwhile|but)\b",
    re.IGNORECASE,
)
_CHALLENGE = re.compile(
    r"^\W*(?:really|are you sure|is that (?:true|right|correct)|i don'?t think|that'?s not|no[,.!]|"
    r"hm+|wait)\b|\bare you sure\b|\bdoesn'?t (?:seem|look) right\b",
    re.IGNORECASE,
)
_FIRST_PERSON = re.compile(r"\b(?:I|my|me|I'?ve|I'?m)\b")  # the agent's own doings
_LOCATION = re.compile(r"^(?:there it is\W*)?(?:lines?|at line)\s+\d", re.IGNORECASE)
_TESTS_NEXT = re.compile(
    r"\blet me (?:also )?(?:check|verify|test|see|try|confirm|look|investigate|debug|dig|trace)\b",
    re.IGNORECASE,
)
MAX_EXPLANATIONS = 10
LOOKAHEAD = 6  # events after a message in which the agent's concession counts


@dataclass(frozen=True)
class Found:
    """An item found in the conversation, before paths and files are attached."""

    kind: str  # "Learning" | "Pattern" | "Mistake"
    text: str
    ref: str  # stable within the session: where it was found
    score: float = 1.0
    confidence: float = 0.65
    at: int = -1  # the event it was found at (its turn's edits are its files if it names none)
    stated: bool = False  # the user's own words ("remember this: …"): no marker needed
    origin: str = ""  # the kind of text it came from; "" = read from the ref's prefix


def _acceptable(sentence: str) -> bool:
    return (
        6 <= prose.words(sentence) <= 90
        and not sentence.rstrip().endswith("?")
        and not prose.is_narration(sentence)
        and not prose.is_hedged(sentence)
        and not prose.is_imperative(sentence)
        and not prose.is_title(sentence)
        and prose.has_code(sentence)
    )


def _explanation(paragraph: list[str], start: int, heading: str = "") -> str:
    """The sentence at ``start`` with the sentences that complete it (at most two more),
    after the heading it sits under when it leans on context ("This fails when…")."""
    text = _completed(paragraph, start)
    text = prose.strip_lead_in(text)
    usable = (
        prose.has_code(heading) and not _LEAD_IN.match(heading) and not _LOCATION.match(heading)
    )
    if usable and (prose.needs_context(text) or text[:1].islower()) and prose.words(heading) <= 14:
        text = f"{heading}: {text}"
    return text


def _completed(paragraph: list[str], start: int) -> str:
    picked = [paragraph[start]]
    if _LEAD_IN.match(paragraph[start]) or paragraph[start].endswith(":"):
        picked = []
    for sentence in paragraph[start + 1 : start + 4]:
        if len(picked) >= 3 or sentence.endswith("?") or prose.is_narration(sentence):
            break
        if picked and not (_CONTINUES.match(sentence) or prose.knowledge_markers(sentence)):
            break
        picked.append(sentence)
    return " ".join(picked)


def explanations(events: Sequence[Event]) -> list[Found]:
    """Cause, fix and rule statements from the agent's text (see module docstring)."""
    found: list[Found] = []
    for index, event in enumerate(events):
        if not isinstance(event, Said) or event.via != "text" or _challenged(events, index):
            continue
        for p_index, (heading, paragraph) in enumerate(prose.headed_units(event.text)):
            s_index = 0
            while s_index < len(paragraph):
                sentence = paragraph[s_index]
                markers = prose.knowledge_markers(sentence) - {"rule"}
                strong = markers & {"issue", "cause", "fix"}
                wanted = strong if not event.turn_end else markers - {"behaviour"} or markers
                after = " ".join(paragraph[s_index + 1 : s_index + 3])
                if not event.turn_end and _TESTS_NEXT.search(after):
                    wanted = set()  # "The issue is X. Let me check…": a guess about to be tested
                if _LEAD_IN.match(sentence) and s_index + 1 < len(paragraph):
                    wanted = {"issue"}
                text = _explanation(paragraph, s_index, heading) if wanted else ""
                if not wanted or not _acceptable(text or sentence):
                    s_index += 1
                    continue
                score = 1.0 + 2 * ("issue" in markers) + 1.5 * ("cause" in markers)
                score += 1.0 * ("fix" in markers) + 1.0 * event.turn_end
                kind = "Mistake" if markers & {"issue"} else "Learning"
                if prose.needs_context(text):
                    s_index += 1
                    continue  # "So it's a tradeoff…" means nothing on its own
                found.append(Found(kind, text, f"say:{index}:{p_index}:{s_index}", score, at=index))
                s_index += max(1, len(prose.split_sentences(text)))
    return _best(found, MAX_EXPLANATIONS)


_NAME_TOKEN = re.compile(r"[A-Za-z_][\w.]{3,}")
_PLAIN = frozenset(
    {
        "error",
        "failed",
        "cannot",
        "found",
        "should",
        "must",
        "with",
        "from",
        "that",
        "this",
        "file",
        "line",
        "used",
        "does",
        "have",
        "test",
        "tests",
        "when",
    }
)


def _challenged(events: Sequence[Event], index: int) -> bool:
    """Whether the user's next message doubts what the agent just said ("are you sure?"): the
    claim is not knowledge, the correction that follows is."""
    for later in events[index + 1 : index + 1 + LOOKAHEAD]:
        if isinstance(later, Said) and later.who == "user":
            head = later.text[:300]
            doubt = head.lower().startswith("but ") and "?" in head
            return doubt or _CHALLENGE.search(head) is not None
    return False


def _shared_name(left: str, right: str) -> bool:
    """Whether two texts share a distinctive word (a name, not "error" or "failed")."""
    names = {t.lower().strip(".") for t in _NAME_TOKEN.findall(left)} - _PLAIN
    return any(t.lower().strip(".") in names for t in _NAME_TOKEN.findall(right))


def _overlap(a: str, b: str) -> float:
    left, right = set(a.lower().split()), set(b.lower().split())
    return len(left & right) / max(1, min(len(left), len(right)))


def _best(found: list[Found], limit: int) -> list[Found]:
    """The ``limit`` best-scored, near-duplicates (mostly the same words) kept once."""
    kept: list[Found] = []
    for item in sorted(found, key=lambda f: -f.score):
        if any(_overlap(item.text, other.text) > 0.6 for other in kept):
            continue
        kept.append(item)
        if len(kept) >= limit:
            break
    return sorted(kept, key=lambda f: f.ref)


def _edit_fix(events: Sequence[Event], start: int, failed: Ran) -> str:
    """ "`file`: `old` → `new`" when one short edit between a failure and the same command
    succeeding is what fixed it, else ""."""
    head = " ".join(str(failed.input.get("command", "")).split()[:3])
    edits: list[Ran] = []
    for later in events[start + 1 : start + 15]:
        if isinstance(later, Said) and later.who == "user":
            return ""
        if not isinstance(later, Ran):
            continue
        if later.name in TEXT_EDIT_TOOLS and not later.is_error:
            edits.append(later)
        elif later.name == "Bash" and head and str(later.input.get("command", "")).startswith(head):
            if later.is_error or len(edits) != 1:
                return ""
            old, new = edits[0].input.get("old_string"), edits[0].input.get("new_string")
            if not isinstance(old, str) or not isinstance(new, str):
                return ""
            old, new = " ".join(old.split()), " ".join(new.split())
            if not old or not new or max(len(old), len(new)) > 120:
                return ""
            path = edits[0].input.get("file_path")
            return f"fixed by changing `{old}` to `{new}`" + (f" in `{path}`" if path else "")
    return ""


def _explaining(events: Sequence[Event], index: int, error: str) -> str:
    """The agent's first acceptable explanation within a few events after the failure at
    ``index`` that names something the error names ("" if none)."""
    for later in events[index + 1 : index + 5]:
        if isinstance(later, Said) and later.who == "user":
            return ""
        if not isinstance(later, Said):
            continue
        for paragraph in prose.units(later.text):
            for s_index, sentence in enumerate(paragraph):
                if not prose.knowledge_markers(sentence) or prose.is_narration(sentence):
                    continue
                candidate = _explanation(paragraph, s_index)
                if (
                    _acceptable(candidate)
                    and _shared_name(error, candidate)
                    and not _FIRST_PERSON.search(candidate)
                ):
                    return candidate
    return ""


def failure_causes(events: Sequence[Event]) -> list[Found]:
    """A failed command's informative error line with what explains or fixed it: the agent's
    explanation (its text or thinking) that names the same thing, else the one short edit
    after which the same command passed."""
    from kgraph.capture.sources.errors import informative_lines, is_protocol_error

    found: list[Found] = []
    for index, event in enumerate(events):
        if not isinstance(event, Ran) or not event.is_error or event.name != "Bash":
            continue
        lines = [] if is_protocol_error(event.result) else informative_lines(event.result)
        if not lines:
            continue
        error = " | ".join(lines)
        explanation = _explaining(events, index, error) or _edit_fix(events, index, event)
        if explanation:
            text = f"{error} — {explanation}"
            found.append(Found("Mistake", text, f"failed:{event.call_id}", 2.0, 0.65, index))
    return found
