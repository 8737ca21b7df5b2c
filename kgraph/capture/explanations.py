"""Knowledge in the conversation itself: the agent's explanations of causes, the user's
corrections, decisions and rules.

- **Explanations.** Between a failure and its fix the agent usually says what the cause was
  ("That's the bug. go-git doesn't read global gitignore files…"), and the last text of a
  turn says what was found and changed. Sentences that name code and state a cause, a fix,
  a rule or a behaviour are kept with the sentences that complete them; narration ("Let me
  check…"), status ("tests pass") and questions are not. Mid-turn text must carry a strong
  marker (the issue/cause/fix was…); mid-turn guesses without one are left out.
- **Corrections.** The user pushes back and the agent concedes ("You're right — …"): what
  the agent then says is the corrected fact, a Mistake worth keeping.
- **Decisions.** The user states how something should be and the agent agrees ("Exactly.
  …"), or the user picks a numbered option: stored as a decision with its reason/option.
- **Rules.** "always …", "never …", "from now on …", "remember this …" in the user's words;
  "add this to CLAUDE.md" refers to the statement before it, which is what is kept.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kgraph.capture import prose
from kgraph.capture.stream import Event, Ran, Said

_ACK = re.compile(
    r"^\s*(?:you'?re (?:absolutely |totally |completely )?(?:right|correct)|good (?:catch|point|"
    r"call|question)|fair point|great (?:catch|point)|correct|exactly|that'?s (?:right|correct|"
    r"a (?:good|fair|great) point)|yes,? (?:that'?s|you'?re) (?:right|correct)|ah,? (?:you'?re "
    r"right|right|good (?:catch|point)|i see)|right[,.!—-])[\s.,!:;—–-]*",
    re.IGNORECASE,
)
_CORRECTION_ACK = re.compile(
    r"^\s*(?:you'?re (?:absolutely |totally |completely )?(?:right|correct)|good (?:catch|point)|"
    r"fair point|great catch|ah,? (?:you'?re right|good catch))",
    re.IGNORECASE,
)
_LEAD_IN = re.compile(
    r"^(?:found (?:it|the (?:issue|bug|problem|cause|culprit))|that'?s (?:the|our) (?:bug|issue|"
    r"problem|cause|culprit)|(?:the )?root cause(?: found)?|got it|there it is)\W*$",
    re.IGNORECASE,
)
_CONTINUES = re.compile(
    r"^(?:so|this|that|it|which|the fix|fix|instead|because|otherwise|as a result|meanwhile|but)\b",
    re.IGNORECASE,
)
_OPTION_PICK = re.compile(
    r"^\s*(?:option\s*)?#?(\d)\b[.,:)]?\s*(?P<rest>.*)$", re.IGNORECASE | re.S
)
_NUMBERED = re.compile(r"^\s*(?:\*\*)?(?:option\s*)?(\d)[.):]\s*(?:\*\*)?\s*(.+)$", re.IGNORECASE)
_LEARNING_TRIGGER = re.compile(
    r"\b(?:remember (?:this|that)|lessons? learned|lesson\s*:|note for (?:the )?future|"
    r"for future reference|keep in mind|important to know)\b",
    re.IGNORECASE,
)
_RULE_TRIGGER = re.compile(
    r"(?:^(?:please\s+|and\s+|so\s+|also\s+)?(?:always|never(?! ?mind)|don'?t ever|"
    r"do not ever)\b)|"
    r"\b(?:should|must|need to|have to|we|you)\s+(?:always|never)\b|\bfrom now on\b|"
    r"\bmake sure (?:to|you) always\b|\bwe (?:don'?t|do not) (?:use|want|support)\b|"
    r"\bnever (?:call|use|import|commit|push|run)\b",
    re.IGNORECASE,
)
_META_REQUEST = re.compile(
    r"\b(?:claude\.md|agents\.md|remember (?:this|that)|so you (?:remember|know)|"
    r"(?:write|note|add) (?:this|that) down)\b",
    re.IGNORECASE,
)
_ASKS_TO_NOTE = re.compile(r"\b(?:add|put|write|note|save|record)\b", re.IGNORECASE)
_TRIGGER_PREFIX = re.compile(
    r"^\s*(?:please\s+)?(?:remember (?:this|that)|lessons? learned|lesson|note for (?:the )?"
    r"future|for future reference|keep in mind)\s*[:,-]?\s*",
    re.IGNORECASE,
)
_TRAILING_CHECK = re.compile(r",?\s*(?:right|yeah|yes|no|correct|isn'?t it|ok)\s*\?*\s*$", re.I)
_CHALLENGE = re.compile(
    r"^\W*(?:really|are you sure|is that (?:true|right|correct)|i don'?t think|that'?s not|no[,.!]|"
    r"hm+|wait)\b|\bare you sure\b|\bdoesn'?t (?:seem|look) right\b",
    re.IGNORECASE,
)
_FIRST_PERSON = re.compile(r"\b(?:I|my|me|I'?ve|I'?m)\b")  # the agent's own doings
_ANNOUNCES = re.compile(r"^(?:let me|let'?s|i'?ll|i will|now (?:let|i)|next|ok|okay)\b", re.I)
_LOCATION = re.compile(r"^(?:there it is\W*)?(?:lines?|at line)\s+\d", re.IGNORECASE)
_TESTS_NEXT = re.compile(
    r"\blet me (?:also )?(?:check|verify|test|see|try|confirm|look|investigate|debug|dig|trace)\b",
    re.IGNORECASE,
)
_ASKS_CHOICE = re.compile(
    r"\b(?:which|would you (?:like|prefer)|do you want|should (?:i|we)|prefer|option|choose|"
    r"approach)\b[^?]*\?",
    re.IGNORECASE,
)
MAX_EXPLANATIONS = 10
MAX_RULE_PROMPT = 800
_LOOKAHEAD = 6  # events after a user message in which the agent's concession counts


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
    for later in events[index + 1 : index + 1 + _LOOKAHEAD]:
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


def _next_assistant(events: Sequence[Event], start: int) -> Said | None:
    for event in events[start + 1 : start + 1 + _LOOKAHEAD]:
        if isinstance(event, Said) and event.via != "thinking":
            return event if event.who == "assistant" else None
    return None


def _statement_after_ack(text: str) -> str:
    body = _ACK.sub("", text, count=1).lstrip(" -—–:,.")
    sentences = [s for p in prose.units(body) for s in p]
    kept = [s for s in sentences[:4] if not prose.is_narration(s) and not s.endswith("?")]
    return " ".join(kept[:3])


def _user_claim(text: str) -> str:
    claim = _TRAILING_CHECK.sub("", " ".join(text.split())).rstrip(" ?!")
    return prose.shorten(claim, 300)


def corrections_and_decisions(events: Sequence[Event]) -> list[Found]:
    """What the user corrected or decided and the agent acknowledged (see module docstring)."""
    found: list[Found] = []
    for index, event in enumerate(events):
        if not isinstance(event, Said) or event.who != "user":
            continue
        reply = _next_assistant(events, index)
        if reply is None or not _ACK.match(reply.text):
            continue
        statement = _statement_after_ack(reply.text)
        if prose.words(statement) < 6 or not prose.has_code(statement + " " + event.text):
            continue
        claim = _user_claim(event.text)
        if _CORRECTION_ACK.match(reply.text):
            text = f"Correction from the user ({claim}): {statement}"
            found.append(Found("Mistake", text, f"corrected:{index}", 3.0, 0.75, index))
        elif prose.words(claim) >= 6 and not prose.is_hedged(statement):
            label = (
                "Decision"
                if prose.DECISION.search(claim) or prose.RULE.search(claim)
                else "Confirmed"
            )
            text = f"{label}: {claim}. {statement}"
            found.append(Found("Learning", text, f"agreed:{index}", 3.0, 0.75, index))
    found += _option_picks(events) + _rejections(events)
    return found


def _action(event: Event) -> str:
    if isinstance(event, Ran):
        command = event.input.get("command")
        target = event.input.get("file_path")
        if isinstance(command, str):
            return f"`{prose.shorten(command.splitlines()[0], 100)}`"
        if isinstance(target, str):
            return f"the {event.name} of `{target}`"
    return "a tool call"


def _rejections(events: Sequence[Event]) -> list[Found]:
    """The user stopped a tool call and said why; the agent's next statement is the fix."""
    found: list[Found] = []
    for index, event in enumerate(events):
        if not isinstance(event, Said) or event.via != "rejection" or index == 0:
            continue
        claim = _user_claim(event.text)
        statement = ""
        for later in events[index + 1 : index + 12]:
            if isinstance(later, Said) and later.who == "user":
                break
            if isinstance(later, Said) and later.via == "text":
                kept = [
                    s
                    for p in prose.units(later.text)
                    for s in p
                    if not _ANNOUNCES.match(s)  # "The PR is based on X" answers the user here
                    and not s.endswith("?")
                    and prose.words(s) >= 5
                    and not prose.is_hedged(s)
                ]
                if kept:
                    statement = " ".join(kept[:2])
                    break
        if not statement or prose.words(claim) < 4:
            continue
        if not prose.has_code(claim + " " + statement):
            continue
        text = (
            f"Correction from the user, who stopped {_action(events[index - 1])}: {claim}. "
            f"{statement}"
        )
        found.append(Found("Mistake", text, f"stopped:{index}", 2.5, 0.7, index))
    return found


def _options(text: str) -> dict[str, str]:
    """The last numbered list of ``text``: the options are the list next to the question,
    not the findings listed before it."""
    options: dict[str, str] = {}
    for line in prose.clean_markdown(text).splitlines():
        match = _NUMBERED.match(line)
        if match:
            if match.group(1) == "1":
                options = {}
            options.setdefault(match.group(1), match.group(2).strip())
    return options


def _option_picks(events: Sequence[Event]) -> list[Found]:
    """A reply that picks a numbered option of the agent's last message, expanded to its text."""
    found: list[Found] = []
    last_assistant: Said | None = None
    for index, event in enumerate(events):
        if isinstance(event, Said) and event.via == "text":
            last_assistant = event
            continue
        if isinstance(event, Said) and event.via == "thinking":
            continue
        if not isinstance(event, Said) or last_assistant is None or event.via != "prompt":
            continue
        match = _OPTION_PICK.match(event.text)
        asked = _ASKS_CHOICE.search(last_assistant.text[-400:]) is not None
        options = _options(last_assistant.text) if asked else {}
        if match and match.group(1) in options and prose.words(event.text) <= 40:
            option = prose.shorten(options[match.group(1)], 300)
            rest = " ".join(match.group("rest").split()).strip(" ,.-")
            text = f"Decision: {option}" + (f" (the user added: {rest})" if rest else "")
            if prose.words(option) >= 4:
                found.append(Found("Learning", text, f"option:{index}", 2.0, 0.7))
        last_assistant = None
    return found


def rules(events: Sequence[Event]) -> list[Found]:
    """Lessons and rules the user stated in so many words."""
    found: list[Found] = []
    for index, event in enumerate(events):
        if not isinstance(event, Said) or event.who != "user" or len(event.text) > MAX_RULE_PROMPT:
            continue  # a pasted plan or log restates a document, it does not state a rule
        sentences = [s for p in prose.units(event.text) for s in p]
        for s_index, sentence in enumerate(sentences):
            if _LEARNING_TRIGGER.search(sentence) or _META_REQUEST.search(sentence):
                kind = "Learning"
            elif _RULE_TRIGGER.search(sentence):
                kind = "Pattern"
            else:
                continue
            text = _TRIGGER_PREFIX.sub("", sentence).strip()
            asks = sentence.endswith("?") or _ASKS_TO_NOTE.search(sentence)
            if (_META_REQUEST.search(sentence) and asks) or prose.words(text) < 4:
                # "add this to CLAUDE.md": the knowledge is the statement before it
                text = sentences[s_index - 1] if s_index > 0 else ""
            if "?" in text or prose.words(text) < 5 or prose.is_narration(text):
                continue
            text = f"Rule from the user: {prose.shorten(text, 500)}"
            found.append(Found(kind, text, f"said:{index}:{s_index}", 2.5, 0.8, index, True))
    return found


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
        if later.name in ("Edit", "MultiEdit", "Write") and not later.is_error:
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


def failure_causes(events: Sequence[Event]) -> list[Found]:
    """A failed command's informative error line with what explains or fixed it: the agent's
    explanation (its text or thinking) that names the same thing, else the one short edit
    after which the same command passed."""
    from kgraph.capture.errors import informative_lines, is_protocol_error

    found: list[Found] = []
    for index, event in enumerate(events):
        if not isinstance(event, Ran) or not event.is_error or event.name != "Bash":
            continue
        if is_protocol_error(event.result):
            continue
        lines = informative_lines(event.result)
        if not lines:
            continue
        error = " | ".join(lines)
        explanation = ""
        for later in events[index + 1 : index + 5]:
            if isinstance(later, Said) and later.who == "user":
                break
            if not isinstance(later, Said):
                continue
            for paragraph in prose.units(later.text):
                for s_index, sentence in enumerate(paragraph):
                    if prose.knowledge_markers(sentence) and not prose.is_narration(sentence):
                        candidate = _explanation(paragraph, s_index)
                        if (
                            _acceptable(candidate)
                            and _shared_name(error, candidate)
                            and not _FIRST_PERSON.search(candidate)
                        ):
                            explanation = candidate
                            break
                if explanation:
                    break
            if explanation:
                break
        explanation = explanation or _edit_fix(events, index, event)
        if not explanation:
            continue
        text = f"{error} — {explanation}"
        found.append(Found("Mistake", text, f"failed:{event.call_id}", 2.0, 0.65, index))
    return found
