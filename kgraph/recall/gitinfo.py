"""What git says about the session's repository: branch, HEAD, changed files, recent work.

``git status --porcelain=v2 --branch -z`` gives the branch, the HEAD commit and every
modified, staged and untracked path at once (:func:`start_status`, :func:`finish_status`).
A clean tree says nothing, so :func:`recent_work` adds the work the session most likely
continues: the branch's own commits since it left the default branch, or on the default
branch its latest commits, each with its files. Git runs as :mod:`kgraph.runtime.git` runs
it (``GIT_OPTIONAL_LOCKS=0`` keeps git from taking the index lock the user's own git commands
need; a failure is an empty answer).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kgraph.capture.sources.commits import issue_from_branch
from kgraph.runtime.git import GitRun, run_git

__all__ = [
    "CommitFiles",
    "GitState",
    "RecentWork",
    "commit_files",
    "finish_status",
    "git_state",
    "issue_from_branch",
    "parse_status",
    "recent_work",
    "start_status",
]

MAX_CHANGED_FILES = 200
OWN_COMMITS = 20  # the branch's own commits looked at, newest first
RECENT_COMMITS = 30  # on the default branch: its latest commits (recent activity)
MAX_COMMIT_FILES = 50  # a commit touching more is a sweep (reformat, rename), not a focus
DEFAULT_BRANCHES = ("main", "master", "trunk", "develop")
_RS, _US = "\x1e", "\x1f"


@dataclass(frozen=True)
class GitState:
    """A snapshot of the repository. Empty fields when git is missing or this is no repo."""

    branch: str | None = None
    head: str | None = None
    changed_files: tuple[str, ...] = ()


def start_status(root: Path) -> GitRun:
    """Start ``git status`` in ``root``."""
    return GitRun(root, "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all")


def finish_status(process: GitRun, timeout: float) -> GitState:
    """Collect the output of :func:`start_status` (waiting at most ``timeout`` seconds)."""
    out = process.output_bytes(timeout)
    return GitState() if out is None else parse_status(out)


def parse_status(output: bytes) -> GitState:
    """Parse ``git status --porcelain=v2 --branch -z`` output."""
    branch: str | None = None
    head: str | None = None
    files: list[str] = []
    parts = output.decode("utf-8", errors="replace").split("\x00")
    skip_next = False
    for part in parts:
        if skip_next:  # the original path of a rename/copy entry
            skip_next = False
            continue
        if not part:
            continue
        if part.startswith("# branch.oid "):
            value = part[len("# branch.oid ") :].strip()
            head = None if value == "(initial)" else value
        elif part.startswith("# branch.head "):
            value = part[len("# branch.head ") :].strip()
            branch = None if value == "(detached)" else value
        elif part.startswith("1 "):
            fields = part.split(" ", 8)
            if len(fields) == 9:
                files.append(fields[8])
        elif part.startswith("2 "):
            fields = part.split(" ", 9)
            if len(fields) == 10:
                files.append(fields[9])
            skip_next = True
        elif part.startswith("u "):
            fields = part.split(" ", 10)
            if len(fields) == 11:
                files.append(fields[10])
        elif part.startswith("? "):
            files.append(part[2:].rstrip("/"))
    unique = list(dict.fromkeys(f for f in files if f and not is_kgraph_state(f)))
    return GitState(branch=branch, head=head, changed_files=tuple(unique[:MAX_CHANGED_FILES]))


def is_kgraph_state(path: str) -> bool:
    """True for kgraph's own files (``.claude/kgraph/``, the database, the ignore file
    ``kgraph install`` writes), and for an untracked ``.claude/`` folder as a whole: not what
    the session is working on."""
    return path in (".claude", ".claude/kgraph", ".claude/.gitignore") or path.startswith(
        (".claude/kgraph/", ".claude/execution-state.db")
    )


def git_state(root: Path, timeout: float = 2.0) -> GitState:
    """Branch, HEAD and changed files of the repository at ``root``."""
    return finish_status(start_status(root), timeout)


@dataclass(frozen=True)
class CommitFiles:
    sha: str
    subject: str
    files: tuple[str, ...]


@dataclass(frozen=True)
class RecentWork:
    """Commits the session likely continues: the branch's own (``own``), else the latest of
    the default branch; newest first."""

    own: bool = False
    commits: tuple[CommitFiles, ...] = ()


def is_tracked(root: Path, name: str, timeout: float = 5.0) -> bool:
    """True when git tracks ``root/name`` (False outside a repository)."""
    return run_git(root, "ls-files", "--error-unmatch", "--", name, timeout=timeout) is not None


def parse_log(output: str) -> tuple[CommitFiles, ...]:
    """``git log --format=%x1e%H%x1f%s --name-only`` output as commits with their files
    (sweeping commits, over MAX_COMMIT_FILES files, keep no files)."""
    commits: list[CommitFiles] = []
    for record in output.split(_RS):
        head, _, rest = record.partition("\n")
        if _US not in head:
            continue
        sha, subject = head.split(_US, 1)
        files = tuple(f for f in rest.splitlines() if f.strip() and not is_kgraph_state(f))
        commits.append(
            CommitFiles(
                sha.strip(), subject.strip(), files if len(files) <= MAX_COMMIT_FILES else ()
            )
        )
    return tuple(commits)


def _log(root: Path, revisions: list[str], limit: int, timeout: float) -> tuple[CommitFiles, ...]:
    out = run_git(
        root,
        "log",
        "--no-merges",
        f"-n{limit}",
        f"--format={_RS}%H{_US}%s",
        "--name-only",
        *revisions,
        "--",
        timeout=timeout,
    )
    return parse_log(out) if out else ()


def default_branch(root: Path, timeout: float = 1.0) -> str | None:
    """The ref of the default branch: what ``origin/HEAD`` points at, else the first of
    main/master/trunk/develop that exists locally, else on origin."""
    refs = [f"refs/heads/{b}" for b in DEFAULT_BRANCHES]
    refs += ["refs/remotes/origin/HEAD"] + [f"refs/remotes/origin/{b}" for b in DEFAULT_BRANCHES]
    out = run_git(root, "for-each-ref", "--format=%(refname)%00%(symref)", *refs, timeout=timeout)
    if not out:
        return None
    found: dict[str, str] = {}
    for line in out.splitlines():
        name, _, target = line.partition("\x00")
        found[name] = target
    if found.get("refs/remotes/origin/HEAD"):
        return found["refs/remotes/origin/HEAD"]
    for ref in refs:
        if ref in found and not ref.endswith("/HEAD"):
            return ref
    return None


def recent_work(root: Path, branch: str | None, timeout: float = 2.0) -> RecentWork:
    """The branch's own commits (since it left the default branch), else the default
    branch's latest commits; empty outside git or without commits."""
    base = default_branch(root, timeout)
    on_default = base is None or (branch is not None and base.rsplit("/", 1)[-1] == branch)
    if not on_default and base is not None:
        own = _log(root, [f"{base}..HEAD"], OWN_COMMITS, timeout)
        if own:
            return RecentWork(own=True, commits=own)
    return RecentWork(own=False, commits=_log(root, ["HEAD"], RECENT_COMMITS, timeout))


def commit_files(root: Path, shas: list[str], timeout: float = 1.0) -> tuple[CommitFiles, ...]:
    """The given commits with their files (unknown shas are skipped)."""
    wanted = [s for s in shas if s and all(c in "0123456789abcdefABCDEF" for c in s)]
    if not wanted:
        return ()
    out = run_git(
        root, "show", "--name-only", f"--format={_RS}%H{_US}%s", *wanted, "--", timeout=timeout
    )
    return parse_log(out) if out else ()
