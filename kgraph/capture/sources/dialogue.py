"""The user's side of the conversation: corrections, decisions and rules.

- **Corrections.** The user pushes back and the agent concedes ("You're right — …"): what
  the agent then says is the corrected fact, a Mistake worth keeping. Stopping a tool call
  with a reason ("our PR tracks the other branch") is a correction too.
- **Decisions.** The user states how something should be and the agent agrees ("Exactly.
  …"), or the user picks a numbered option: stored as a decision with its reason/option.
- **Rules.** "always …", "never …", "from now on …", "remember this …" in the user's words;
  "add this to CLAUDE.md" refers to the statement before it, which is what is kept.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kgraph.capture.gate import prose
from kgraph.capture.sources.explanations import LOOKAHEAD, Found
from kgraph.capture.sources.stream import Event, Ran, Said

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
_ANNOUNCES = re.compile(r"^(?:let me|let'?s|i'?ll|i will|now (?:let|i)|next|ok|okay)\b", re.I)
_ASKS_CHOICE = re.compile(
    r"\b(?:which|would you (?:like|prefer)|do you want|should (?:i|we)|prefer|option|choose|"
    r"approach)\b[^?]*\?",
    re.IGNORECASE,
)
MAX_RULE_PROMPT = 800


def _next_assistant(events: Sequence[Event], start: int) -> Said | None:
    for event in events[start + 1 : start + 1 + LOOKAHEAD]:
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
