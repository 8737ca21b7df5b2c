"""Reading prose for knowledge: sentences out of markdown, and the markers that tell a
statement of cause, rule or decision from narration.

An agent's text mixes three things: narration ("Let me check the tests"), status ("All tests
pass") and knowledge ("go-git doesn't read the global gitignore, so the file counted as
untracked"). Knowledge names code and says why, what must hold, or what was decided; the
functions here find such sentences and leave the rest.
"""

from __future__ import annotations

import re

MAX_ITEM_CHARS = 600

_CODE_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_TABLE_LINE = re.compile(r"^\s*\|.*\|\s*$")
_BULLET = re.compile(r"^\s*(?:[-*•+]|\d+[.)])\s+")
_HEADING = re.compile(r"^\s*#{1,6}\s+")
_CODE_SPAN = re.compile(r"`[^`\n]*`")
# Emphasis is a pair of delimiters around text: the opener starts a word (not after a word
# character, a slash, a backslash or a dot), the closer ends one (not before a word character,
# a slash, a backslash or ".ext"). So a/__init__.py, snake__case, **kwargs, *.py and
# src/**/*.ts keep their markers. A lone lowercase identifier between "__" is a dunder name
# (__call__, __tests__), not bold; "__Note__" and "__two words__" are bold.
_EMPHASIS = (
    re.compile(r"(?<![\w*/\\.])\*\*(?=\S)(.+?)(?<=\S)\*\*(?![\w*/\\]|\.\w)"),
    re.compile(
        r"(?<![\w/\\.])__(?![a-z0-9_]*__(?!\w))(?=[^\s_])(.+?)(?<=[^\s_])__(?![\w/\\]|\.\w)"
    ),
    re.compile(r"(?<![\w*/\\.])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*/\\]|\.\w)"),
    re.compile(r"(?<![\w/\\.])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\w/\\]|\.\w)"),
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(*\[])")
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|etc|vs|cf|approx)\.$", re.IGNORECASE)

CODE_TOKEN = re.compile(
    r"`[^`\n]{2,}`"  # `anything in backticks`
    r"|\b[a-z]+[A-Z]\w*\b"  # camelCase
    r"|\b[A-Z][a-z0-9]+[A-Z]\w*\b"  # PascalCase with a second capital
    r"|\b\w+_\w+\b"  # snake_case
    r"|\b\w+\(\)"  # call()
    r"|\b[\w.-]+/[\w./-]+\b"  # a/path
    r"|\b\w+\.(?:py|go|ts|tsx|js|rs|java|rb|md|json|ya?ml|toml|sh|sql)\b"  # file.ext
    r"|\b[a-z][a-z0-9]*(?:-[a-z0-9]+){2,}\b"  # kebab-case-names (branches, flags)
)
CAUSE = re.compile(
    r"\b(?:because|due to|caused by|(?:the )?root cause|which (?:means|causes?|caused|breaks|broke|"
    r"is why)|that'?s why|this is why|the reason (?:is|was)|turns out|so (?:it|the|that|they|we|"
    r"any|every|a |an )|otherwise|as a result|that means|this means)\b",
    re.IGNORECASE,
)
ISSUE = re.compile(
    r"\b(?:the|this|that|one|another|a) (?:real |actual |underlying |core )?(?:issue|problem|bug|"
    r"culprit|cause|catch|gotcha) (?:is|was|here is|comes from|lies)\b|\bfound (?:it|the (?:issue|"
    r"bug|problem|cause|culprit))\b|\bthat'?s (?:the|our) (?:bug|issue|problem|cause|culprit)\b|"
    r"\b(?:bug|issue|problem):\s|\bthere'?s already (?:a|an)\b|"
    r"\balready (?:exists|defined|declared) in\b",
    re.IGNORECASE,
)
FIX = re.compile(
    r"\b(?:the fix (?:is|was)|fixed by|to fix (?:this|it)|the solution (?:is|was)|"
    r"the (?:right|correct|proper) (?:way|approach|tool) (?:is|was))\b|\bfix(?:ed)?:\s",
    re.IGNORECASE,
)
RULE = re.compile(
    r"\b(?:must(?: not)?|never|always|shouldn'?t|should not|should be|should use|only (?:when|if|"
    r"works|for)|requires?|needs? to|has to|have to|instead of|rather than|don'?t use|do not use|"
    r"avoid|is not allowed|forbid\w*|banned|prefer)\b",
    re.IGNORECASE,
)
BEHAVIOUR = re.compile(
    r"\b(?:doesn'?t|does not|don'?t|do not|isn'?t|is not|aren'?t|can'?t|cannot|won'?t|will not|"
    r"ignores?|ignored|fails?|failed|breaks?|returns?|rejects?|reads?|writes?|rewrites?|deletes?|"
    r"expects?|treats?|resolves?|honou?rs?|respects?|skips?)\b",
    re.IGNORECASE,
)
DECISION = re.compile(
    r"\b(?:decid\w+|decision|we (?:chose|use|keep|want|prefer|don'?t|never|always)|let'?s (?:keep|"
    r"use|not)|go with|in favou?r of|instead of|rather than|trade-?off)\b",
    re.IGNORECASE,
)
CORRECTION = re.compile(r"\bcorrect(?:ion|ed)\b|\b(?:stopped|rejected) by the user\b", re.I)
NARRATION = re.compile(
    r"^(?:let me|let'?s|i'?ll|i will|i'?m going|i am going|i'?m now|i need|i should|i can|i see|"
    r"i have|i'?ve|now (?:let|i|we)|next\b|first\b|then\b|ok\b|okay\b|great\b|perfect\b|good\b|"
    r"done\b|excellent\b|all (?:tests|checks|\d+)|tests? pass|the (?:tests?|build|lint|linter) "
    r"(?:pass|passed|is clean)|here'?s|here is|summary\b|looking\b|checking\b|running\b|"
    r"you can\b|want me|would you|shall i|should i|do you|can you|could you|please\b|"
    r"thanks?\b|sure\b|yes\b|no\b|exactly\b|right\b|correct\b|now\b|also\b|"
    r"this (?:pr|commit|session|conversation|summary)\b|the (?:pr|commit) )",
    re.IGNORECASE,
)
STATUS = re.compile(
    r"\b(?:all (?:\d+ )?(?:tests?|checks?) pass\w*|tests? (?:now )?pass|0 issues|lint (?:passes|is "
    r"clean)|build (?:passes|succeeds)|should (?:pass|work) now|ready for|is now (?:complete|done)|"
    r"successfully (?:created|updated|pushed|committed)|(?:fail|pass)\w* as expected)\b",
    re.IGNORECASE,
)


def strip_emphasis(line: str) -> str:
    """``line`` without the markers of its **bold**, __bold__, *italic* and _italic_ runs;
    markers inside `code spans`, identifiers and paths stay."""
    masked = _CODE_SPAN.sub(lambda m: "\0" * len(m.group(0)), line)
    for pattern in _EMPHASIS:
        drop: set[int] = set()
        for match in pattern.finditer(masked):
            drop.update(range(match.start(), match.start(1)))
            drop.update(range(match.end(1), match.end()))
        if drop:
            line = "".join(c for i, c in enumerate(line) if i not in drop)
            masked = "".join(c for i, c in enumerate(masked) if i not in drop)
    return line


def clean_markdown(text: str) -> str:
    """Text without code fences, tables, headings and emphasis markers; bullets kept as lines."""
    text = _CODE_FENCE.sub(" ", text)
    lines = []
    for line in text.splitlines():
        if _TABLE_LINE.match(line):
            continue
        line = _HEADING.sub("", line)
        lines.append(strip_emphasis(line).rstrip())
    return "\n".join(lines)


def units(text: str) -> list[list[str]]:
    """Paragraphs (a bullet is its own paragraph), each a list of sentences."""
    return [sentences for _, sentences in headed_units(text)]


def headed_units(text: str) -> list[tuple[str, list[str]]]:
    """Paragraphs with the heading (or label line ending in ':') they sit under."""
    paragraphs: list[tuple[str, list[str]]] = []
    current: list[str] = []
    heading = ""

    def flush() -> None:
        if current:
            paragraphs.append((heading, split_sentences(" ".join(current))))
            current.clear()

    for line in _CODE_FENCE.sub(" ", text).splitlines():
        if _HEADING.match(line):
            flush()
            heading = strip_emphasis(_HEADING.sub("", line)).strip().rstrip(":")
            continue
        if _TABLE_LINE.match(line):
            continue
        line = strip_emphasis(line).rstrip()
        stripped = line.strip()
        if not stripped:
            flush()
            continue
        if _BULLET.match(line):
            flush()
            current.append(_BULLET.sub("", line).strip())
            continue
        label = stripped.endswith(":") and not _SENTENCE_END.search(stripped)
        if label and words(stripped) <= 12 and not current:
            heading = stripped.rstrip(":")
            continue
        current.append(stripped)
    flush()
    return [(h, p) for h, p in paragraphs if p]


def split_sentences(paragraph: str) -> list[str]:
    pieces = _SENTENCE_END.split(" ".join(paragraph.split()))
    sentences: list[str] = []
    for piece in pieces:
        if sentences and _ABBREVIATION.search(sentences[-1]):
            sentences[-1] += " " + piece
        else:
            sentences.append(piece)
    return [s.strip() for s in sentences if s.strip()]


_PRONOUN_START = re.compile(r"^(?:this|it|that|these|those|they|here|if .{0,40}\bthis\b)\b", re.I)
_LEAD_PREFIX = re.compile(
    r"^(?:(?:i see|ah|oh),?\s+(?=there|the\b|that|`)|(?:i )?(?:found (?:it|the (?:issue|bug|"
    r"problem|cause|culprit))|that'?s (?:the|our) (?:bug|issue|problem|cause|culprit)|there it "
    r"is|got it)[.!:]*\s+)",
    re.IGNORECASE,
)


HEDGE = re.compile(
    r"\b(?:might|may|could|would|possibly|probably|perhaps|likely|i think|i suspect|i believe|"
    r"seems?|appears? to|not sure|maybe|hypothes\w+|theory)\b",
    re.IGNORECASE,
)
_IMPERATIVE = re.compile(
    r"^(?:run|use|add|set|try|check|consider|replace|remove|change|update|create|make|install|"
    r"delete|move|rename|verify|ensure|enable|disable|call|wrap|switch|revert|drop|keep)\b",
    re.IGNORECASE,
)


def needs_context(sentence: str) -> bool:
    """A sentence that leans on what came before ("This fails when…", "So it's…")."""
    head = sentence.strip()
    return _PRONOUN_START.match(head) is not None or head.lower().startswith(
        ("so ", "and ", "but ", "otherwise", "also,", "then,")
    )


def is_hedged(sentence: str) -> bool:
    """A guess rather than a finding ("this might be…", "probably…")."""
    return HEDGE.search(sentence) is not None


def is_imperative(sentence: str) -> bool:
    """An instruction or suggestion ("Run …", "Use …"), not a statement of what holds."""
    return _IMPERATIVE.match(sentence.strip()) is not None


def is_title(sentence: str) -> bool:
    """A heading in disguise ("Race Condition Between List and Delete")."""
    tokens = [t for t in sentence.split() if t[:1].isalpha() and "`" not in t]
    capitals = sum(1 for t in tokens if t[0].isupper())
    return len(tokens) >= 3 and capitals / len(tokens) > 0.6 and not sentence.endswith(".")


def strip_lead_in(text: str) -> str:
    """ "Found the issue. X" → "X"."""
    stripped = _LEAD_PREFIX.sub("", text.strip(), count=1)
    return stripped[:1].upper() + stripped[1:]


def words(text: str) -> int:
    return len(text.split())


def has_code(text: str) -> bool:
    return CODE_TOKEN.search(text) is not None


def is_narration(sentence: str) -> bool:
    head = sentence.lstrip("-*>#:• ").strip()
    return bool(NARRATION.match(head)) or bool(STATUS.search(head))


def knowledge_markers(sentence: str) -> set[str]:
    """Which kinds of knowledge a sentence carries: cause, issue, fix, rule, behaviour, decision."""
    found = set()
    for name, pattern in (
        ("cause", CAUSE),
        ("issue", ISSUE),
        ("fix", FIX),
        ("rule", RULE),
        ("behaviour", BEHAVIOUR),
        ("decision", DECISION),
        ("correction", CORRECTION),
    ):
        if pattern.search(sentence):
            found.add(name)
    return found


def shorten(text: str, limit: int = MAX_ITEM_CHARS) -> str:
    """``text`` flattened, cut at a sentence (else word) boundary to at most ``limit`` chars."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    end = max(cut.rfind(". "), cut.rfind("; "))
    if end > limit // 2:
        return cut[: end + 1]
    return cut.rsplit(" ", 1)[0].rstrip(",;:") + "…"
