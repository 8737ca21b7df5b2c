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
# A linter's rule name closing a message: "… make it a constant (goconst)", "… (SA1019)"; not
# a call's argument ("Save(s)"), a commit hash ("(e88c8cf)") or a bare tag ("x.exs:52: (test)").
_RULE = r"[\w`'\")\].]\s+\((?![0-9a-f]{6,}\))[A-Za-z][\w-]*\)\s*$"
# A line that opens with a place and says something there: "file.go:12:5: message",
# "    x_test.go:760: message", "a.ts(3,5): message"; not a stack frame that only names a
# function ("lib/token.ex:266: Phoenix.Token.sign/4", "x.exs:52: (test)", "a.py:3: in f").
_AT_PLACE = (
    r"^\s*[\w./@~+-]*\w\.[A-Za-z]\w{0,4}(?::\d+(?::\d+)?:|\(\d+,\d+\):)\s+"
    r"(?!in\s+\S+\s*$)\S+\s+\S"
)
_LINTER_SHAPED = re.compile(f"{_RULE}|{_AT_PLACE}")
_INFORMATIVE = re.compile(
    _RULE + r"|\b[\w./-]+\.\w{1,5}:\d+(?::\d+)?:?\s+\S"  # (noctx); file.go:12:5: message
    r"|\b(?:must|should|use|undefined|declared and not used|not used|cannot|can't|expected|"
    r"unexpected|unknown|missing|no such|not found|does not|doesn't|is not|mismatch|invalid|"
    r"refused|conflict|denied|fatal|panic|\w*Error|\w*Exception)\b",
)


_TRACEBACK = "Traceback (most recent call last)"
_EXCEPTION = re.compile(
    r"^(?:E\s+)?[A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit|Interrupt)\b:?.*$", re.M
)
_FRAME = re.compile(r"^(?:Traceback \(most recent call last\)|File \"[^\"]+\", line \d+)")
# The marker a compiler or linter draws under the source line it echoes: "    ^", "  ~~~~".
_MARKER = re.compile(r"^[\s|]*[\^~][\s^~]*$")
# A source line in a snippet's line-number gutter, as rustc, ruff, clang and biome print it
# under a message: "156 |         # Count files after — should be …" (a comment's words are
# the code's, not the tool's), and the gutter's pointer to the place ("   --> a.py:157:17").
_GUTTER = re.compile(r"^\s*(?:\d+\s*[|│]|-->\s|[|│]\s)")
# A line of source code rather than a message: a declaration or an assignment from a call,
# a statement led by a keyword and ending in code punctuation, a bare call, or a line ending
# in "{" or ";".
_CODE = re.compile(
    r"^\s*(?:"
    r"[\w.,\s*&\[\]]+:=\s*\S"  # f, err := os.Create(traceFile)
    r"|(?:(?:let|const|var|auto|final)\s+)?[\w.\[\]]+(?:\s*,\s*[\w.\[\]]+)*\s*[-+*/|&]?=\s*"
    r"(?:new\s+|await\s+)?[\w.$]+\("  # let error = new Error(text);
    r"|(?:return|throw|raise|if|elif|else|while|switch|defer|await|yield|func|def|class|let|"
    r"const|var|try|catch|assert)\b.*[(){}\[\];:,]\s*(?:(?://|#).*)?$"  # return os.Remove(f)
    r"|[\w.$]+\(.*\)\s*;?\s*(?://.*)?$"  # t.Error("ToolInput is nil")
    r"|.*[{;]\s*(?://.*)?$"  # if err := x(); err != nil {
    r")"
)
# …unless it opens like a message: "[Error: ENOENT: no such file …] {", "error: …;".
_MESSAGE_HEAD = re.compile(
    r"^\s*(?:\[|\*\*\s*\()?[\w.]*(?:Error|Exception|Warning)\b|^\s*(?:error|warning|fatal|panic)\b",
    re.IGNORECASE,
)


def is_protocol_error(text: str) -> bool:
    return _PROTOCOL.search(text or "") is not None


def _exception_lines(text: str) -> list[str]:
    """The exception lines of Python tracebacks ("KeyError: 'name'"): a traceback's frames
    say where, its last line says what."""
    return [m.group(0).strip() for m in _EXCEPTION.finditer(text)] if _TRACEBACK in text else []


def _echoed_source(lines: list[str]) -> set[int]:
    """Indexes of the lines that echo source code: a line over a caret or tilde marker, a line
    shaped like code, a line in a snippet's line-number gutter, and the tab-indented lines
    under a "file:line:col: message" (golangci-lint prints the offending line there, dupl
    whole blocks). A message's indented continuation in spaces ("  Property 'b' is
    missing…") is not source."""
    echoed: set[int] = set()
    under_message = False
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        if _LINTER_SHAPED.search(line):
            under_message = True
            continue
        marked = index + 1 < len(lines) and _MARKER.match(lines[index + 1]) is not None
        code = _CODE.match(line) is not None and not _MESSAGE_HEAD.match(line)
        gutter = _GUTTER.match(line) is not None
        if marked or code or gutter or (under_message and line.startswith("\t")):
            echoed.add(index)
        else:
            under_message = False
    return echoed


def informative_lines(text: str) -> list[str]:
    """Up to MAX_LINES lines of ``text`` that state what went wrong (none if it says nothing).

    A traceback's exception line comes first, then linter-shaped lines ("path:line:col:
    message", "message (rule)"), then any other informative line; echoed source is never
    taken for a message."""
    text = text or ""
    lines = text.splitlines()
    echoed = _echoed_source(lines)
    located: list[str] = []
    others: list[str] = []
    for index, raw in enumerate(lines):
        if index not in echoed:
            (located if _LINTER_SHAPED.search(raw) else others).append(raw)
    picked: list[str] = []
    for raw in [*_exception_lines(text), *located, *others]:
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
