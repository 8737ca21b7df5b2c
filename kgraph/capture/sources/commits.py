"""A session's own commits, parsed as conventional commits, split into knowledge and facts.

The commits are the ones made during the session: ``git log <HEAD at session start>..HEAD``
(never "the last N commits"); for a session kgraph never saw start, the commits whose
commit time falls inside the transcript's time span. Only a message that carries knowledge —
a body that explains, a fix with its cause, a BREAKING CHANGE, a decision — becomes a
Learning (kgraph.capture.sources.commit_items decides which, and cuts them into items); the
rest are recorded as session facts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from kgraph.runtime.git import run_git

MAX_COMMITS = 200
_RS, _US = "\x1e", "\x1f"
# A conventional subject ("fix(scope)!: description"), after an optional gitmoji ("🐛 fix:
# …", ":bug: fix: …"), so that a gitmoji project's types and descriptions are read as
# anyone else's (its "📝 docs:" is documentation, its "🐛 fix: Address PR review feedback"
# answers a review).
_CONVENTIONAL = re.compile(
    r"^(?:(?:[^\x00-\x7f]+|:[a-z0-9_+-]+:)\s*)?(?P<type>[A-Za-z][A-Za-z0-9-]*)(?:\((?P<scope>[^()\n]{1,60})\))?(?P<bang>!)?:\s*(?P<desc>\S.*)$"
)
_TRAILER = re.compile(
    r"^(?:[A-Z][A-Za-z-]*-by|Refs?|Closes|Fixes|Resolves|Related|See-also|Change-Id|"
    r"Issue|Ticket|Reviewed-on|Cc|Link|Signed-off-by|Co-authored-by)\s*:.*$",
    re.IGNORECASE,
)
_TRAILER_TOKEN = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+\s*:\s*\S")
_GENERATED = re.compile(r"(?:🤖\s*)?Generated with \[?Claude Code\]?.*$", re.IGNORECASE)
# A squash merge lists the squashed commits' subjects; the ones a web editor or a merge
# wrote by default ("* Update httpx/_client.py", "Merge branch 'main' into x") explain
# nothing, and counted as words they made a bare list look like an explanation.
_DEFAULT_SUBJECT = re.compile(
    r"^(?:[*-]\s+)?(?:(?:Update|Create|Delete|Rename|Add) [\w./-]+|Merge (?:branch|pull request|"
    r"remote-tracking branch) .*|Apply suggestions? from code review)\s*$",
    re.IGNORECASE,
)
_BREAKING = re.compile(r"^BREAKING[ -]CHANGE\s*:\s*(?P<text>.+)", re.IGNORECASE | re.MULTILINE)
_ISSUE_REF = re.compile(r"(?:^|[\s(])#(\d{1,7})\b")
_BRANCH_ISSUE = (
    # issue-123, issues/123, fix/issue-123, gh-123, bug_123
    re.compile(r"(?:^|[/_.-])(?:issues?|gh|bug|ticket)[-_/#.]?(\d{1,7})(?!\d)", re.IGNORECASE),
    # #123 anywhere
    re.compile(r"#(\d{1,7})(?!\d)"),
    # feat/123-x, 123-x, feat/123
    re.compile(r"(?:^|/)(\d{1,7})(?:[-_]|$)"),
)


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    subject: str
    body: str  # trailers and tool signatures removed
    type: str | None
    scope: str | None
    description: str
    breaking: bool
    files: tuple[str, ...] = ()
    committed: datetime | None = None  # commit time, when read from git log
    author: str = ""  # "Name <email>", when read from git log

    def to_fact(self) -> dict[str, Any]:
        """The session fact kept for a commit that carries no knowledge."""
        return {
            "sha": self.sha,
            "type": self.type,
            "scope": self.scope,
            "subject": self.subject,
            "files": len(self.files),
        }


def issue_from_branch(branch: str | None) -> int | None:
    """The issue number a branch name refers to (``issue-123``, ``feat/123-x``,
    ``fix/issue-123``, ``#123``, ...), else None."""
    if not branch:
        return None
    for pattern in _BRANCH_ISSUE:
        match = pattern.search(branch)
        if match:
            number = int(match.group(1))
            if number > 0:
                return number
    return None


def _without_trailer_block(lines: list[str]) -> list[str]:
    """``lines`` without git's trailer block: the last paragraph when each of its lines is
    ``Token-Name: value`` (any hyphenated token, as tools add their own: ``Entire-Checkpoint:
    f4c22585e449``) or a known trailer."""
    start = max((i for i, line in enumerate(lines) if not line.strip()), default=-1) + 1
    tail = [line.strip() for line in lines[start:] if line.strip()]
    if tail and all(_TRAILER.match(t) or _TRAILER_TOKEN.match(t) for t in tail):
        return lines[:start]
    return lines


# A line that fences a program's record: "=== Do not change lines below ===", "^^^ … ^^^".
_FENCE = re.compile(r"^([=^~#*-])\1{2,}\s.*\s\1{3,}$")


def _record_end(lines: list[str], start: int) -> int | None:
    """The index of the line that closes a JSON value opened alone on ``lines[start]`` (a
    ``{`` or ``[``), or None when none does."""
    import json

    opener = lines[start].strip()
    if opener not in ("{", "["):
        return None
    closer = "}" if opener == "{" else "]"
    for end in range(start + 1, len(lines)):
        if lines[end].strip() == closer:
            try:
                json.loads("\n".join(lines[start : end + 1]))
            except ValueError:
                continue
            return end
    return None


def _without_records(lines: list[str]) -> list[str]:
    """``lines`` without the records a program wrote into the message: a JSON value on lines
    of its own and the fence lines around it. A tool that commits for its user (``datalad
    run`` records its command, exit code, inputs and outputs so) leaves data, not an
    explanation; counted as words, its keys made a one-line subject look like one."""
    kept: list[str] = []
    index = 0
    while index < len(lines):
        end = _record_end(lines, index)
        if end is None:
            kept.append(lines[index])
            index += 1
            continue
        while kept and _FENCE.match(kept[-1].strip()):
            kept.pop()
        index = end + 1
        while index < len(lines) and _FENCE.match(lines[index].strip()):
            index += 1
    return kept


def clean_body(body: str) -> str:
    """The body without trailers (Signed-off-by, Co-authored-by, Refs... anywhere, and the
    final trailer block), a program's records (:func:`_without_records`), tool signatures
    and the default subjects a squash merge lists ("* Update x.py")."""
    lines = _without_trailer_block([line.rstrip() for line in body.strip().splitlines()])
    lines = _without_records(lines)
    kept = [
        line
        for line in lines
        if not _TRAILER.match(line.strip())
        and not _GENERATED.match(line.strip())
        and not _DEFAULT_SUBJECT.match(line.strip())
    ]
    return "\n".join(kept).strip()


def parse_commit(
    sha: str,
    message: str,
    files: tuple[str, ...] = (),
    committed: datetime | None = None,
    author: str = "",
) -> CommitInfo:
    """Parse a full commit message (subject line, blank line, body)."""
    subject, _, body = message.strip().partition("\n")
    subject = subject.strip()
    body = clean_body(body)
    match = _CONVENTIONAL.match(subject)
    if match:
        type_ = match.group("type").lower()
        scope = (match.group("scope") or "").strip() or None
        description = match.group("desc").strip()
        bang = bool(match.group("bang"))
    else:
        type_, scope, description, bang = None, None, subject, False
    breaking = bang or bool(_BREAKING.search(body))
    return CommitInfo(
        sha, subject, body, type_, scope, description, breaking, files, committed, author
    )


def commit_content(commit: CommitInfo) -> str:
    """The Learning text of a knowledge-bearing commit: its subject and explanation."""
    text = commit.subject
    if commit.body:
        text += "\n\n" + commit.body
    return text


_HEREDOC = re.compile(r"<<-?\s*['\"]?(?P<tag>\w+)['\"]?\s*\n(?P<body>.*?)\n\s*(?P=tag)\b", re.S)
_MESSAGE_ARG = re.compile(
    r"(?:-m|--message)[ =](?P<q>[\"'])(?P<body>(?:\\.|(?!(?P=q)).)*)(?P=q)", re.S
)
_COMMITTED = re.compile(
    r"^\[(?P<branch>[^\]\s]+)(?: \(root-commit\))? (?P<sha>[0-9a-f]{7,40})\]", re.M
)
_GIT_ADD = re.compile(r"\bgit add\s+(?P<args>[^&|;\n]+)")


def commit_from_command(command: str, result: str) -> tuple[str, str, tuple[str, ...]] | None:
    """(sha, message, paths added) of a ``git commit -m …`` the agent ran and git accepted.

    The message is the heredoc of ``-m "$(cat <<'EOF' … EOF)"`` or the quoted ``-m`` value(s);
    paths are the ``git add`` arguments of the same command (as written). None for an amend
    without a message, a failed commit, or anything else.
    """
    if "git commit" not in command:
        return None
    done = _COMMITTED.search(result or "")
    if done is None:
        return None
    heredoc = _HEREDOC.search(command)
    if heredoc:
        message = heredoc.group("body")
    else:
        parts = [m.group("body") for m in _MESSAGE_ARG.finditer(command)]
        message = "\n\n".join(p.replace('\\"', '"') for p in parts)
    if not message.strip():
        return None
    added: list[str] = []
    for match in _GIT_ADD.finditer(command):
        added += [a for a in match.group("args").split() if not a.startswith("-")]
    return done.group("sha"), message, tuple(added)


def issue_reference(commit: CommitInfo) -> int | None:
    """An issue the message refers to (``#123`` in subject or body), else None."""
    match = _ISSUE_REF.search(commit.subject + "\n" + commit.body)
    return int(match.group(1)) if match else None


def current_head(root: Path) -> str | None:
    out = run_git(root, "rev-parse", "--verify", "-q", "HEAD")
    return out.strip() or None if out else None


_LOG_FORMAT = f"--format={_RS}%H{_US}%cI{_US}%an <%ae>{_US}%B{_US}"


def _time(value: str) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if value else None
    except ValueError:
        return None


def parse_log(output: str) -> list[CommitInfo]:
    """Parse ``git log --name-only --format=%x1e%H%x1f%cI%x1f%an <%ae>%x1f%B%x1f``."""
    commits: list[CommitInfo] = []
    for record in output.split(_RS):
        if not record.strip():
            continue
        parts = record.split(_US)
        if len(parts) < 5:
            continue
        sha, date, author = (part.strip() for part in parts[:3])
        message, names = parts[3], parts[4]
        files = tuple(line.strip() for line in names.splitlines() if line.strip())
        commits.append(parse_commit(sha, message, files, _time(date), author))
    return commits


def read_log(root: Path, *args: str, timeout: float = 30) -> list[CommitInfo]:
    """``git log --no-merges --name-only ARGS`` in ``root``, parsed (with commit times);
    empty outside a git work tree or when git fails."""
    out = run_git(root, "log", "--no-merges", "--name-only", _LOG_FORMAT, *args, timeout=timeout)
    return parse_log(out) if out else []


def session_commits(
    root: Path,
    start: str | None,
    *,
    end: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
) -> list[CommitInfo]:
    """Commits made during a session, oldest first.

    With ``start`` (HEAD at session start): ``start..end`` (``end`` defaults to HEAD; the
    final capture records it), further bounded by ``until`` when given. Without ``start``,
    commits whose commit time is within [since, until]; none when neither is known. Merges
    are skipped.
    """
    args = [f"--max-count={MAX_COMMITS}", "--reverse"]
    if start:
        if run_git(root, "cat-file", "-e", f"{start}^{{commit}}") is None:
            return []
        if until is not None:
            args.append(f"--until={until.isoformat()}")
        args.append(f"{start}..{end or 'HEAD'}")
    elif since is not None:
        args.append(f"--since={since.isoformat()}")
        if until is not None:
            args.append(f"--until={until.isoformat()}")
        args.append("HEAD")
    else:
        return []
    return read_log(root, *args)
