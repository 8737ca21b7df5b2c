"""Retractions: a later statement that an earlier diagnosis was wrong.

Sessions guess before they know. "The stop hook never fired" is a fine thing to store until
the same session finds that it had; a memory that keeps the guess tells every later session
something false. So the conversation is read for retractions, in the agent's words or the
user's ("I was wrong about…", "that's not the cause", "it was a red herring", "actually it
did fire", "you're wrong"), and for what code each one is about (the code names it writes).
An item said *before* a retraction that names the same code is dropped; one already stored
by an earlier capture of the session is hidden (:mod:`kgraph.capture.session_capture`).
A retraction that names no code says too little to take anything back.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kgraph.capture.gate import prose
from kgraph.capture.sources.stream import Event, Said

RETRACTION = re.compile(
    r"\b(?:(?:I|we) (?:was|were) (?:wrong|mistaken)|you(?:'re| are) wrong|"
    r"my (?:earlier|previous|initial|first|original) (?:diagnosis|analysis|assumption|theory|"
    r"guess|claim|conclusion|statement)s? (?:was|were|is) (?:wrong|incorrect|mistaken)|"
    r"misdiagnos\w*|red herring|ruled out|"
    r"(?:that|this|it) (?:was|is)n'?t (?:actually )?the (?:real |actual |root )?(?:cause|issue|"
    r"problem|bug|culprit)|"
    r"(?:that|this|it)'?s? not (?:actually )?the (?:real |actual |root )?(?:cause|issue|problem|"
    r"bug|culprit)|"
    r"(?:that|this|the|my) (?:theory|hypothesis|diagnosis|assumption|explanation) (?:is|was) "
    r"(?:wrong|incorrect|mistaken|not right)|"
    r"actually,? (?:it|that|this|they|the \w+) (?:did|does|do|was|were|is|works?|fired|ran)\b)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Retraction:
    at: int  # the event it was said at
    text: str
    names: frozenset[str]


def code_names(text: str) -> frozenset[str]:
    """The code a text names (backticked, call, snake/camel case, path, file), normalised."""
    found = set()
    for token in prose.CODE_TOKEN.findall(text):
        name = token.strip("`").removesuffix("()").strip().lower()
        if len(name) > 2:
            found.add(name)
    return frozenset(found)


def retractions(events: Sequence[Event]) -> list[Retraction]:
    """Every retraction in the conversation that names the code it takes back."""
    found: list[Retraction] = []
    for index, event in enumerate(events):
        if not isinstance(event, Said) or event.via == "thinking":
            continue
        sentences = [s for paragraph in prose.units(event.text) for s in paragraph]
        for number, sentence in enumerate(sentences):
            if not RETRACTION.search(sentence):
                continue
            # What is taken back is named in the sentence, or in the one after it ("I was
            # wrong. `stop_hook` did fire: …").
            context = " ".join(sentences[number : number + 2])
            names = code_names(context)
            if names:
                found.append(Retraction(index, sentence, names))
    return found


def retracted(text: str, at: int, found: Sequence[Retraction]) -> Retraction | None:
    """The retraction said after event ``at`` that names code ``text`` names, if any. An
    item at no event (a compaction summary's, written after the fact) is never retracted."""
    names = code_names(text)
    if at < 0 or not names:
        return None
    return next((r for r in found if r.at > at and names & r.names), None)
