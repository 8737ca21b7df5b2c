"""Which lines of a tool error say something.

"[lint] ERROR task failed" and "exit status 1" are the runner's wrapper; the knowledge is in
lines like "os/exec.Command must not be called. use os/exec.CommandContext (noctx)",
"declared and not used: commitRemoved", "string `message` has 3 occurrences, make it a
constant (goconst)" or a Python traceback's last line ("KeyError: 'name'"). Those are kept;
wrappers, progress and blank lines are not. Errors of Claude Code's own tool protocol (a
rejected call, an edit whose old text was not found) say nothing about the code.
"""

from __future__ import annotations

import re

MAX_LINES = 2
MAX_LINE_CHARS = 220
_PROTOCOL = re.compile(
    r"has not been read yet|modified since (?:it was )?read|string to replace not found|"
    r"found \d+ matches of the string|user (?:doesn't|does not) want|tool use was rejected|"
    r"interrupted by user|permission to use|<tool_use_error>|no such tool|InputValidationError|"
    r"was blocked|hook|No changes to make|File does not exist|Sibling tool call errored|"
    r"exceeds maximum allowed",
    re.IGNORECASE,
)
_WRAPPER = re.compile(
    r"^(?:\[[\w:-]+\]\s*)?(?:error:?\s*)?(?:task failed|exit (?:code|status) \d+|FAIL\b|"
    r"make: \*\*\*|error: script|npm ERR! (?:code|errno|A complete log)|ERROR: (?:task|command) "
    r"failed|--- FAIL|FAIL\s+\S+\s+[\d.]+s|Command failed|\d+ issues?\.?$|ok\s+\S+)",
    re.IGNORECASE,
)
_INFORMATIVE = re.compile(
    r"\(\w[\w-]*\)\s*$"  # a linter's rule name at the end: (noctx), (goconst)
    r"|\b[\w./-]+\.\w{1,5}:\d+(?::\d+)?:?\s+\S"  # file.go:12:5: message
    r"|\b(?:must|should|use|undefined|declared and not used|not used|cannot|can't|expected|"
    r"unexpected|unknown|missing|no such|not found|does not|doesn't|is not|mismatch|invalid|"
    r"refused|conflict|denied|fatal|panic|\w*Error|\w*Exception)\b",
)


_TRACEBACK = "Traceback (most recent call last)"
_EXCEPTION = re.compile(
    r"^(?:E\s+)?[A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit|Interrupt)\b:?.*$", re.M
)
_FRAME = re.compile(r"^(?:Traceback \(most recent call last\)|File \"[^\"]+\", line \d+)")


def is_protocol_error(text: str) -> bool:
    return _PROTOCOL.search(text or "") is not None


def _exception_lines(text: str) -> list[str]:
    """The exception lines of Python tracebacks ("KeyError: 'name'"): a traceback's frames
    say where, its last line says what."""
    return [m.group(0).strip() for m in _EXCEPTION.finditer(text)] if _TRACEBACK in text else []


def informative_lines(text: str) -> list[str]:
    """Up to MAX_LINES lines of ``text`` that state what went wrong (none if it says nothing)."""
    picked: list[str] = []
    for raw in [*_exception_lines(text or ""), *(text or "").splitlines()]:
        line = " ".join(raw.split())
        if len(line) < 12 or _WRAPPER.match(line) or _FRAME.match(line):
            continue
        if not _INFORMATIVE.search(line):
            continue
        line = line if len(line) <= MAX_LINE_CHARS else line[: MAX_LINE_CHARS - 1] + "…"
        if line not in picked:
            picked.append(line)
        if len(picked) >= MAX_LINES:
            break
    return picked
