"""The replayed history: commits in first-parent order, the learning/session split, hub files.

Pure functions over :class:`Commit` records plus one reader (``git log``); the replay bench
(``replay_bench.py``) stores the learnings and runs the sessions. Only git is used here, never
kgraph: the bench measures kgraph from the outside, through its CLI.

Which commits become learnings mirrors kgraph's own commit capture
(``kgraph.capture.sources.commit_items.knowledge_reason``): a message whose body, without
trailers, has at least six words explains something; a bare subject does not.
"""

from __future__ import annotations

import random
import re
import subprocess
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

MIN_BODY_WORDS = 6
LEARNING_CONFIDENCE = 0.75  # what kgraph's capture gives a commit learning
_RS, _US = "\x1e", "\x1f"
_TRAILER = re.compile(
    r"^(?:[A-Z][A-Za-z-]*-by|Refs?|Closes|Fixes|Resolves|Related|See-also|Change-Id|"
    r"Issue|Ticket|Reviewed-on|Cc|Link|Signed-off-by|Co-authored-by)\s*:.*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Commit:
    """One first-parent commit: its place in the history, message and changed files."""

    index: int  # 0 = oldest
    sha: str
    parent: str | None  # first parent; None for the root commit
    subject: str
    body: str  # trailers removed
    files: tuple[str, ...]  # changed against the first parent (renames as delete + add)
    date: str | None = None  # committer date, ISO 8601

    @property
    def has_body(self) -> bool:
        return len(self.body.split()) >= MIN_BODY_WORDS

    @property
    def learning_text(self) -> str:
        """The learning's text, as kgraph's capture writes it: subject, blank line, body."""
        return f"{self.subject}\n\n{self.body}" if self.body else self.subject


@dataclass(frozen=True)
class Split:
    """The first ``fraction`` of the history (learnings come from it) and the rest."""

    cut: int  # index of the first commit after the learning period
    learnings: tuple[Commit, ...]  # commits with a body before ``cut``
    earlier: tuple[Commit, ...]  # every commit before ``cut``
    later: tuple[Commit, ...]  # every commit from ``cut`` on

    @property
    def last_learning_commit(self) -> Commit:
        """The commit the project stood at when the learnings were stored."""
        return self.earlier[-1]


def clean_body(body: str) -> str:
    """The body without trailers (Change-Id, Signed-off-by, Co-authored-by, Fixes, ...)."""
    kept = [line.rstrip() for line in body.strip().splitlines()]
    return "\n".join(line for line in kept if not _TRAILER.match(line.strip())).strip()


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo``; its stdout (raises CalledProcessError on failure)."""
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True, errors="replace"
    ).stdout


def parse_log(output: str) -> list[Commit]:
    """Parse ``git log --format=%x1e%H%x1f%P%x1f%cI%x1f%B%x1f --name-only`` (oldest first).

    The subject is the message's first line and the body the rest, as kgraph's capture
    splits it (git's own ``%s`` would join a first paragraph of several lines)."""
    commits: list[Commit] = []
    for record in output.split(_RS):
        parts = record.split(_US)
        if len(parts) < 5:
            continue
        sha, parents, date, message, names = parts[:5]
        subject, _, body = message.strip().partition("\n")
        files = tuple(dict.fromkeys(n.strip() for n in names.splitlines() if n.strip()))
        first_parent = parents.split()[0] if parents.split() else None
        commits.append(
            Commit(
                len(commits),
                sha.strip(),
                first_parent,
                subject.strip(),
                clean_body(body),
                files,
                date.strip() or None,
            )
        )
    return commits


def read_history(repo: Path) -> list[Commit]:
    """Every commit of HEAD's first-parent chain, oldest first, with its changed files
    (a merge's files are its changes against the first parent)."""
    out = git(
        repo,
        "log",
        "--first-parent",
        "--reverse",
        "--no-renames",
        "--diff-merges=first-parent",
        "--name-only",
        f"--format={_RS}%H{_US}%P{_US}%cI{_US}%B{_US}",
    )
    return parse_log(out)


def split_history(commits: Sequence[Commit], fraction: float = 0.8) -> Split:
    """Learnings from the first ``fraction`` of the commits; sessions come from the rest."""
    if not 0 < fraction < 1:
        raise ValueError("fraction must be between 0 and 1")
    cut = max(1, min(len(commits) - 1, round(len(commits) * fraction)))
    earlier = tuple(commits[:cut])
    return Split(
        cut=cut,
        learnings=tuple(c for c in earlier if c.has_body),
        earlier=earlier,
        later=tuple(commits[cut:]),
    )


def hub_files(commits: Sequence[Commit], share: float = 0.25) -> frozenset[str]:
    """Files changed by more than ``share`` of ``commits`` (changelogs, version files):
    sharing one of them says little about whether two changes are related."""
    counts = Counter(f for c in commits for f in set(c.files))
    limit = share * len(commits)
    return frozenset(f for f, n in counts.items() if n > limit)


def sample_sessions(later: Sequence[Commit], count: int, seed: int) -> list[Commit]:
    """``count`` of the later commits (seeded), oldest first: those with a parent and at least
    one changed file, since a session needs a tree to start from and a change to judge by."""
    usable = [c for c in later if c.parent and c.files]
    chosen = random.Random(seed).sample(usable, min(count, len(usable)))
    return sorted(chosen, key=lambda c: c.index)


def learning_record(commit: Commit) -> dict[str, object]:
    """The ``kgraph knowledge import`` line for a commit learning (kgraph's simple format),
    dated when the commit was made, as capture at the time would have stored it."""
    return {
        "content": commit.learning_text,
        "type": "learning",
        "files": list(commit.files),
        "confidence": LEARNING_CONFIDENCE,
        "source": "commit",
        "source_ref": commit.sha,
        **({"created_at": commit.date} if commit.date else {}),
    }


def default_branch(source: str) -> str | None:
    """``main`` or ``master`` when the bundle or repository has it, else None (its HEAD)."""
    out = subprocess.run(
        ["git", "ls-remote", "--heads", source], capture_output=True, text=True, check=False
    ).stdout
    heads = {line.split("refs/heads/", 1)[-1] for line in out.splitlines() if "refs/heads/" in line}
    return next((b for b in ("main", "master") if b in heads), None)


def clone(source: str, dest: Path) -> Path:
    """A private clone of a bundle or repository (the bench checks out and writes in it)."""
    branch = default_branch(source)
    args = ["git", "clone", "-q", *(["-b", branch] if branch else []), source, str(dest)]
    subprocess.run(args, check=True, capture_output=True)
    git(dest, "config", "user.email", "replay@example.com")
    git(dest, "config", "user.name", "Replay")
    # kgraph's own state (snapshot, logs, queue) lives in .claude/ of the tree: never a change.
    exclude = dest / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    with exclude.open("a", encoding="utf-8") as handle:
        handle.write("\n.claude/\n")
    return dest
