"""Which source files a parse sees, and what git already knows of their contents.

In a git work tree (the parse's root holds ``.git``) the files come from git: two
``git ls-files`` runs give the tracked and untracked files with git's own reading of every
``.gitignore`` (``--exclude-per-directory=.gitignore``: the same files the walk of
kgraph.codegraph.walk honours, not ``.git/info/exclude``), and for each tracked file
whose work-tree copy git finds unmodified (by the index's stat data, which it keeps
fresh) the id of its content, the blob's SHA-1. A parse stores that same id as a file's
``content_hash`` (:func:`blob_hash`), so a run that changes nothing reads no file at all:
before, every run re-read and hashed every file, which was most of a no-change parse
after the imports (issue 36). Only untracked files, and the files git reports modified,
are hashed here.

Elsewhere (no git, git missing or refusing the folder, a root below the work tree's top)
the folder is walked (:func:`kgraph.codegraph.walk.iter_source_files`) and every file is
hashed, as before. Both ways apply the walk's rules to each file
(:func:`~kgraph.codegraph.walk.source_language`,
:func:`~kgraph.codegraph.walk.skipped_folder`, size, symlinks), and a nested repository
or submodule, whose files git lists apart, is walked. Standard library only.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
from pathlib import Path
from typing import NamedTuple

from kgraph.codegraph.walk import (
    MAX_FILE_BYTES,
    SourceFile,
    iter_source_files,
    skipped_folder,
    source_language,
)

__all__ = ["Listing", "blob_hash", "current_hash", "legacy_hash", "list_sources"]

# How long git may take to list a work tree before the walk is used instead.
GIT_TIMEOUT_S = 60.0
# Variables that point git at another repository than the folder's own (set inside a git
# hook, for one): git itself drops them when it enters a submodule.
_GIT_LOCATION_VARIABLES = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_PREFIX",
    "GIT_IMPLICIT_WORK_TREE",
)
_GITLINK = "160000"  # a submodule's mode in the index


class Listing(NamedTuple):
    """The source files under a folder, in walk order, and ``known``: path -> the content
    hash git vouches for without a read (tracked and unmodified). ``method``: "git" or
    "walk"."""

    files: list[SourceFile]
    known: dict[str, str]
    method: str


def blob_hash(data: bytes) -> str:
    """A file content's id, as git names the blob of it (``git hash-object``): the stored
    ``content_hash`` of a parsed file, so git's index answers whether it changed."""
    digest = hashlib.sha1(b"blob %d\x00" % len(data), usedforsecurity=False)
    digest.update(data)
    return digest.hexdigest()


def legacy_hash(data: bytes) -> str:
    """The ``content_hash`` releases before git's ids stored (BLAKE2b, 20 bytes): a file
    parsed by one of them is still recognised as unchanged, once."""
    return hashlib.blake2b(data, digest_size=20).hexdigest()


def current_hash(listing: Listing, source: SourceFile) -> str | None:
    """The content hash of ``source`` now: git's when it vouches for it, else read and
    hashed (None when it cannot be read)."""
    known = listing.known.get(source.path)
    if known is not None:
        return known
    try:
        return blob_hash(source.absolute.read_bytes())
    except OSError:
        return None


def list_sources(root: Path, start: Path | None = None) -> Listing:
    """The source files under ``start`` (default ``root``), paths relative to ``root``:
    from git when ``root`` is the top of a work tree and git answers, else walked."""
    root = root.resolve()
    start = (start or root).resolve()
    listed = _from_git(root, start) if (root / ".git").exists() else None
    if listed is not None:
        return listed
    return Listing(list(iter_source_files(root, start)), {}, "walk")


def _git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _GIT_LOCATION_VARIABLES}
    env["GIT_OPTIONAL_LOCKS"] = "0"  # reading must not take the index lock from a commit
    return env


def _ls_files(root: Path, args: list[str], prefix: str) -> list[str] | None:
    """``git ls-files -z ARGS`` under ``prefix`` (a literal path), NUL-split and decoded as
    ``os.scandir`` decodes names; None when git fails."""
    pathspec = [f":(literal){prefix}"] if prefix else []
    try:
        proc = subprocess.run(
            ["git", "ls-files", "-z", *args, "--", *pathspec],
            cwd=root,
            env=_git_env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    return [os.fsdecode(entry) for entry in proc.stdout.split(b"\x00") if entry]


def _from_git(root: Path, start: Path) -> Listing | None:
    prefix = "" if start == root else start.relative_to(root).as_posix()
    ignored_option = "--exclude-per-directory=.gitignore"
    # -v: a tag a line ("H" cached, "C" modified, "?" untracked; lower case: marked
    # assume-unchanged, which git does not check); -s: mode, blob id and stage.
    entries = _ls_files(root, ["-v", "-s", "-c", "-m", "-o", ignored_option], prefix)
    ignored = _ls_files(root, ["-c", "-i", ignored_option], prefix)  # tracked, yet ignored
    if entries is None or ignored is None:
        return None
    hashes: dict[str, str | None] = {}  # path -> the blob id git vouches for, or None
    folders: list[str] = []  # submodules and nested repositories: walked
    for entry in entries:
        tag, rest = entry[0], entry[2:]
        if tag == "?":
            if rest.endswith("/"):
                folders.append(rest.rstrip("/"))
            else:
                hashes[rest] = None
            continue
        fields, _, path = rest.partition("\t")
        mode, blob, stage = [*fields.split(" "), "", "", ""][:3]
        if mode == _GITLINK:
            folders.append(path)
        elif tag == "H" and stage == "0" and mode.startswith("100"):
            hashes.setdefault(path, blob)  # "C" (modified) comes after its "H"
        else:
            hashes[path] = None
    skip = set(ignored)
    files: list[SourceFile] = []
    known: dict[str, str] = {}
    kept_folders: dict[str, bool] = {}
    for path, vouched in hashes.items():
        if path in skip or not _inside(path, prefix):
            continue
        language = source_language(path)
        if language is None or not _folders_kept(root, path, kept_folders):
            continue
        absolute = root / path
        try:
            found = absolute.lstat()
        except OSError:  # deleted from the work tree, or unreadable
            continue
        if not stat.S_ISREG(found.st_mode) or found.st_size > MAX_FILE_BYTES:
            continue
        files.append(SourceFile(path, absolute, language))
        if vouched is not None:
            known[path] = vouched
    for folder in folders:
        if folder in skip or not _folders_kept(root, folder + "/", kept_folders):
            continue
        if _inside(folder, prefix) or _inside(prefix, folder):
            below = start if _inside(prefix, folder) and prefix else root / folder
            files += iter_source_files(root, below)
    files.sort(key=lambda f: f.path.split("/"))
    return Listing(files, known, "git")


def _inside(path: str, folder: str) -> bool:
    return not folder or path == folder or path.startswith(folder + "/")


def _folders_kept(root: Path, path: str, cache: dict[str, bool]) -> bool:
    """Whether no folder on the way to ``path`` is one the walk leaves out."""
    parts = path.split("/")[:-1]
    for end in range(1, len(parts) + 1):
        folder = "/".join(parts[:end])
        kept = cache.get(folder)
        if kept is None:
            kept = not skipped_folder(parts[end - 1], str(root / folder))
            cache[folder] = kept
        if not kept:
            return False
    return True
