"""What capture may store: a candidate knowledge item with its idempotence reference.

Every candidate carries a ``ref`` unique within its session ("commit:<sha>",
"summary:<content hash>", "say:<content hash>", ...), derived from its content so that
reading a transcript in other batches finds the same refs. Capture checks
``(source, source_ref)`` in the knowledge store before storing, so capturing the same session
again adds nothing.

Every candidate also names its **origin**, the kind of text it was cut from, and origins
differ in how often what they give is real knowledge. Read item by item on sessions the
rules were not written against (27 sessions, three repositories), commit messages were real
11 times in 12 and a compaction summary's "Errors and fixes" bullets were its best section,
while the agent's own explanations were real 31 times in 89 and the user's side 2 in 29.
Only the origins in :data:`TRUSTED_ORIGINS` are stored as knowledge at once; the others are
stored as *candidates*, which nothing returns until something corroborates them
(:mod:`kgraph.knowledge.candidates`): a smaller memory in front of the agent, but a clean one.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Candidate:
    ref: str
    type: str  # "Learning" | "Pattern" | "Mistake" | "Topic"
    content: str
    files: tuple[str, ...] = ()
    code_area: str | None = None
    confidence: float = 0.7
    source: str = "transcript"
    # Stated as knowledge in so many words (the user's "remember this", a model's answer to
    # "what is worth keeping"): the rubric does not ask it for a marker of cause or rule.
    stated: bool = False
    # The kind of text it was cut from: "commit", "summary.errors", "explanation", ...
    origin: str = "transcript"
    # What corroborates an untrusted origin within the capture ("commit": a commit of the
    # session changed a file the item names); None when nothing does.
    corroborated: str | None = None
    # When what it says was made: a commit's time (an item learned from a commit is dated by
    # it, as the history's are); None: when it is captured.
    at: datetime | None = None

    @property
    def trusted(self) -> bool:
        """Stored as knowledge at once (else as a candidate, see the module docstring)."""
        return self.corroborated is not None or self.origin in TRUSTED_ORIGINS


# Origins whose items were real knowledge at least 85% of the time on sessions nobody tuned
# the rules on (module docstring); everything else waits for corroboration.
# The model extractor (off unless a person turns it on) is trusted too: it is asked for
# durable knowledge only, and what it finds still passes the rubric. A commit answering a
# code review is a commit too; recall shows it only where it names the code at hand
# (kgraph.recall.provenance.named_only). A commit whose message only lists what changed
# ("commit.what": "Add colored badges", "- Change X to Y") is not: the diff says as much.
# On three batches of sessions nobody tuned on, such items were real knowledge 9 times in
# 105 and junk 56 times (on a sixth batch, read after, 1 and 0 in 6); replayed, the 14 shown
# to later sessions (only where they named the code at hand) were useful to none.
TRUSTED_ORIGINS = frozenset({"commit", "commit.review", "llm"})
# Not an AskUserQuestion answer ("question-answer"), even one picking an offered option: such
# picks were real knowledge 26 times in 33 on the sessions first read (most from one
# planning-heavy project), but trusted on that evidence and then read on 40 more from ten
# other repositories, they were knowledge once and junk 31 times: a release's version, an
# approval to merge or push, which files to commit, and designs the same session replaced.
# Not a compaction summary's "Errors and fixes" bullet, even one naming a file of the
# project: it was trusted so on three batches of sessions nobody had tuned on (real 13 times
# in 22 where it named a file), but the five batches read after that rule was written gave
# 12 real and 25 junk in 50 (the session's incidents: a lint hook's noise mid-edit, a name
# clash after a move, an API the agent invented, a fix the session later dropped). Such a
# bullet waits as a candidate; a rule of the repository comes back in another session,
# which corroborates it.


def text_hash(text: str, length: int = 12) -> str:
    normal = " ".join(text.split()).lower()
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()[:length]
