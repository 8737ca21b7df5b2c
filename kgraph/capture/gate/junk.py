"""The quality gate every automatic capture passes before it writes.

The previous tool of this kind stored 74% noise ("Worked on Testing: modified 12 file(s)"),
and kgraph's own first release stored "Bash `X` succeeded after this change: …" by the
dozen. The rubric, enforced here on every captured item before it is written:

**An item states a cause, a rule, a decision with its reason, or a reusable way of doing
something, in sentences that stand alone without the transcript (≤ 600 characters).**

Never stored: empty or one-word text; activity logs ("modified 12 files"); symbol dumps
(hashes, paths, pastes, terminal transcripts); questions; status ("tests pass now", "0
issues", "fix pending", "Minor: …", "correct approach", "Solved: …", an "Option B: …" nobody
picked); list fragments without a subject ("Creates a file matching…", a "Fix: …" line
without its issue); change logs that give no reason ("Added `--force` flag"); narration of
what the agent is about to do ("Let me check…"); greetings and chatter; bare commands;
version bumps; merge commits; tracker bookkeeping (links to issues and tickets); text about
the session itself ("as discussed in this session"); build errors of the session's own work
in progress (a syntax error, a name used before it was defined or imported); mistakes of
the session's own version-control mechanics (a wrong branch, a stash, a refused pull);
errors of the agent's own tool protocol (an Edit before a Read, a file changed since it was
read, an ``old_string`` that did not match); and, for text taken from a conversation, anything
that carries no marker of knowledge at all (no cause, fix, rule, behaviour or decision).
Commit messages are trusted sources and skip only that last test: their subject and body
were written to explain. Anything already taken in the same capture is a duplicate.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kgraph.capture.gate import prose

MAX_CHARS = prose.MAX_ITEM_CHARS
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
_GREETING = re.compile(
    r"^\W*(?:hi|hello|hey|how can i help|thanks|thank you|see ya|bye|good (?:morning|night))\b",
    re.IGNORECASE,
)
_COMMAND = re.compile(
    r"^\W*(?:git|npm|npx|pnpm|yarn|go|pip|python3?|uv|mise|make|cd|ls|cat|grep|rg|cargo|docker|"
    r"kubectl|gh|curl)\s+\S+[^.!?]*$"
)
_VERSION_BUMP = re.compile(
    r"^\W*(?:bump(?:ed)?\b|release\b|chore\(release\)|v?\d+\.\d+\.\d+\W*$|"
    r"update (?:version|changelog)\b)",
    re.IGNORECASE,
)
_SESSION_TALK = re.compile(
    r"\b(?:this (?:session|conversation|chat)|the conversation|as (?:discussed|mentioned) "
    r"(?:above|earlier)|earlier in this|in the summary|"
    r"the (?:user|agent|assistant) (?:asked|said|wanted|requested|answered|explained|suggested|"
    r"confirmed|agreed|noted|pointed out))\b",
    re.IGNORECASE,
)
_PASTE_MARKS = re.compile(r"[⏺⎿✻│╭╰]|^\s*\$ ")
_FRAGMENT = re.compile(
    r"(?i:^(?:(?:otherwise|then|also),?\s+)?(?:creates|adds|catches|has|calls|runs|checks|verifies|"
    r"sets|makes|handles|buffers|includes|tests|covers|wraps|logs|finds|returns|reads|writes|"
    r"uses|skips|shows|prints|parses|loads|stores|resolves|detects)\b)"
    r"|^[A-Z][a-z]+s (?:a|an|the|when|if|whether|all|both|each|every|its|their)\b",
)
_BARE_FIX = re.compile(r"^(?:suggested )?fix:", re.IGNORECASE)  # the issue it fixes is elsewhere
_FILE_PREFIX = re.compile(
    r"^(?:`?[\w./-]+\.\w{1,5}`?\s*[:—–-]+\s*)?(?:lines? \d+(?:\s*[-–]\s*\d+)?\s*[:—–-]+\s*)?",
    re.IGNORECASE,
)
_LABEL = re.compile(  # a summary's progress labels, and options not (yet) chosen
    r"^(?:solved|ongoing|resolved|done|completed|in progress|what we want|goal|next steps?|"
    r"option [a-z0-9]+)\s*:",
    re.IGNORECASE,
)
_CHANGE_LOG = re.compile(
    r"^(?:added|modified|updated|changed|fixed|replaced|removed|refactored|renamed|moved|"
    r"extracted|introduced|deleted|implemented)\b",
    re.IGNORECASE,
)
_PENDING = re.compile(
    r"\b(?:fix (?:is )?(?:pending|in progress)|in progress|not yet (?:fixed|done|implemented)|"
    r"still (?:to do|pending|needs? (?:to be )?(?:fixed|done))|todo:?|already (?:fixed|done|"
    r"handled|addressed) (?:by|in) (?:our|the|this|my)|(?:correct|right|good) approach|looks good|"
    r"lgtm|(?:currently|still) (?:investigating|debugging|looking into|working on|trying)|"
    r"(?:not yet|yet to be) (?:verified|confirmed|tested))\b|^(?:minor|nit|nitpick)\b",
    re.IGNORECASE,
)
_DONE = re.compile(
    r"^(?:force-pushed|pushed|committed|rebased|merged|opened|filed|created (?:a |the )?(?:pr|pull "
    r"request|issue|ticket)|updated (?:the )?(?:pr|pull request))\b",
    re.IGNORECASE,
)
_TRACKER = re.compile(
    r"https?://(?:[\w-]+\.)?(?:linear\.app|atlassian\.net|github\.com/[^\s)]+/(?:issues|pull)/)",
    re.IGNORECASE,
)
# A merge, by git's default message or a conventional "merge:" one ("merge: resolve conflicts
# with main (codegen split)"): how two lines of work were joined, not what either learned.
_MERGE = re.compile(
    r"^(?:merge (?:branch|remote-tracking|pull request|origin/|[\w./-]+ into )"
    r"|merge(?:\([^)]*\))?!?:|resolve (?:merge )?conflicts\b)",
    re.I,
)
# A build error of the session's own code in progress: a syntax error, or a name it used
# before defining or importing it ("`X` undefined", "undefined: X", "not imported", ...),
# said of a build (a runtime "`port` is undefined when ..." is knowledge), and then defined.
_UNDEFINED_NAME = re.compile(
    r"\bsyntax error\b|`[^`]+`\s+(?:is\s+)?undefined\b|\bundefined:\s|\bundeclared\b|"
    r"\bnot (?:yet )?(?:imported|defined|declared)\b|\bcannot find (?:symbol|name|module)\b|"
    r"\bunresolved (?:reference|import|name)\b|\bno module named\b|"
    r"\berrors? (?:for|about|from) (?:a |the )?missing\b",
    re.IGNORECASE,
)
_BUILD = re.compile(r"\b(?:compil\w*|build|import\w*|package|symbol|module|tsc|typecheck)", re.I)
_DEFINED_IT = re.compile(
    r"\b(?:add(?:ed|ing)?|import(?:ed|ing)?|creat(?:ed|ing)|defin(?:ed|ing)|replac(?:ed|ing)|"
    r"renam(?:ed|ing)|declar(?:ed|ing))\b",
    re.IGNORECASE,
)
# Claude Code's own file tools and their protocol ("File has not been read yet. Read it
# first before writing to it.", "File has been modified since read, ... Read it again", an
# Edit's ``old_string`` that did not match or matched twice, ``replace_all``, a Read of a
# directory): an error of the agent's tools, which say how to recover, not something about
# the project. A compaction summary retells such errors in its own words ("Edit tool 'not
# unique' error", "String replacement not found in x.ts", "Tried to `Read` a directory"),
# so the tool named as such counts too.
_TOOL_PROTOCOL = re.compile(
    r"\bfile has (?:not been read yet|been modified since (?:it was )?read)\b|\bold_string\b"
    r"|\breplace_all\b|\bstring (?:to replace|replacement) (?:was )?not found\b"
    r"|\b(?-i:Edit|MultiEdit|Write|Read|Glob|Grep|NotebookEdit) tool\b"
    r"|\bwithout reading (?:it |the file )?first\b|\bread`?\s+(?:a|the) directory\b",
    re.IGNORECASE,
)
# A session's own version-control mechanics told as a mistake: a wrong branch, a stash that
# brought other files along, a pull refused over unstaged changes, a branch already deleted,
# a commit its signing agent refused, a merge conflict resolved. How that session's checkout
# stood, not how the project works (read on six batches of real sessions: of 17 such
# Mistakes, 10 junk and 7 of some use, none knowledge). A repository's protection ("commit
# to main blocked by a hook") is one of its rules and stays.
_VCS_MECHANICS = re.compile(
    r"\bgit\s+(?:commit|stash|pull|push|checkout|switch|branch|rebase|merge|cherry-pick|reset|"
    r"restore|clean|fetch|tag|worktree|check-ignore)\b"
    r"|\bwrong branch\b|\b(?:remote|local) branch\b|\bbranch (?:already|was)\b"
    r"|\bstash\w*\b|\bmerge conflicts?\b|^CONFLICT \(|\bgpg\b|\b(?:commit )?signing fail"
    r"|\b(?:unstaged|uncommitted) (?:changes|files|modifications)\b|\bdetached head\b"
    r"|\bnon-fast-forward\b|\bforce[- ]push\w*\b|\bpush(?:es)? (?:was )?(?:rejected|failed)\b"
    r"|\bworktree checkout\b",
    re.IGNORECASE,
)
_PROTECTED = re.compile(r"\b(?:block(?:ed|s)?|protect\w*|hooks?)\b", re.IGNORECASE)
_MAX_LINES = 8
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


def _change_log(flat: str) -> bool:
    body = _FILE_PREFIX.sub("", flat, count=1)
    return bool(_CHANGE_LOG.match(body)) and not prose.CAUSE.search(body)


def _transient_build_error(flat: str) -> bool:
    """A name the session's code used before it defined or imported it, then did: the
    compiler's complaint about work in progress, not something to remember (read on
    summaries' "Errors and fixes": "`X` undefined. Fix: Added the missing function")."""
    return all(p.search(flat) for p in (_UNDEFINED_NAME, _BUILD, _DEFINED_IT))


def vcs_incident(flat: str) -> bool:
    """True when the head of ``flat`` (what precedes its first colon, else its first
    sentence) is about the session's version-control mechanics (_VCS_MECHANICS), not a
    repository's protection of a branch."""
    cut = flat.find(": ", 0, 200)
    head = flat[:cut] if cut > 0 else flat.split(". ", 1)[0][:200]
    return bool(_VCS_MECHANICS.search(head)) and not _PROTECTED.search(head)


def _bare_status(flat: str) -> bool:
    return bool(prose.STATUS.search(flat)) and not (
        prose.CAUSE.search(flat) or prose.ISSUE.search(flat)
    )


# The rubric for conversation text, in order: (reason, test on the flattened text).
_CHECKS: tuple[tuple[str, Callable[[str], object]], ...] = (
    ("too long", lambda flat: len(flat) > MAX_CHARS),
    ("question", lambda flat: flat.endswith("?")),
    ("incomplete", lambda flat: flat.endswith((":", ",", "—", "-"))),
    ("paste", _PASTE_MARKS.search),
    ("incomplete", lambda flat: _FRAGMENT.match(flat) or _BARE_FIX.match(flat)),
    ("change log", _change_log),
    ("transient build error", _transient_build_error),
    ("tool protocol", _TOOL_PROTOCOL.search),
    ("chatter", _GREETING.match),
    ("status", _PENDING.search),
    ("status", _LABEL.match),
    ("activity log", _DONE.match),
    ("tracker bookkeeping", _TRACKER.search),
    ("bare command", _COMMAND.match),
    ("version bump", _VERSION_BUMP.match),
    ("about the session", _SESSION_TALK.search),
    ("narration", prose.is_narration),
)


def rubric_reason(
    text: str | None, *, trusted: bool = False, stated: bool = False, kind: str | None = None
) -> str | None:
    """Why ``text`` fails the rubric (see module docstring), or None when it may be stored.

    ``trusted``: a commit message, which only needs to pass the basic checks. ``stated``: a
    rule the user stated in so many words ("remember this: …"), which needs no marker.
    ``kind``: the item's type; a "Mistake" about the session's own version-control
    mechanics (:func:`vcs_incident`) fails.
    """
    reason = junk_reason(text)
    if reason is None and text is not None and _MERGE.match(text.strip()):
        return "merge commit"
    if reason is not None or trusted:
        return reason
    assert text is not None
    if text.count("\n") > _MAX_LINES:
        return "paste"
    flat = " ".join(text.split())
    for name, failed in _CHECKS:
        if failed(flat):
            return name
    if kind == "Mistake" and vcs_incident(flat):
        return "version control incident"
    if not stated and not prose.knowledge_markers(flat):
        return "no knowledge"
    return "status" if _bare_status(flat) else None


class JunkGate:
    """Stateful gate for one capture run: rejects junk and anything seen earlier in the run."""

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self.rejected: dict[str, int] = {}

    def admit(self, text: str | None, *, trusted: bool = False, stated: bool = False) -> bool:
        reason = rubric_reason(text, trusted=trusted, stated=stated)
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
