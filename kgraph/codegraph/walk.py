"""Which files the code graph parses: source files under a folder, minus ignored ones.

Honours every ``.gitignore`` from the repository root down (git's own matching rules, via
``pathspec``), skips vendored/generated/tool folders by name, and skips huge or minified
files (and Go files under ``testdata``, which the go tool ignores too). Paths are returned
repo-relative in POSIX form (the ids the graph uses).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LANGUAGES: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".go": "go",
    ".java": "java",
    ".rs": "rust",
}
# Files parsed by name: a go.mod gives the module path Go imports are read against; a
# Cargo.toml a Rust crate's name and root.
NAMED: dict[str, str] = {"go.mod": "gomod", "Cargo.toml": "cargo"}
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "venv",
        "env",
        ".env",
        "__pycache__",
        "site-packages",
        "build",
        "dist",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".eggs",
        ".next",
        ".nuxt",
        ".turbo",
        ".cache",
        "coverage",
        "htmlcov",
        "bower_components",
        "vendor",
        "third_party",
        ".idea",
        ".vscode",
        ".claude",
    }
)
# Names a virtual environment goes by, and also a package's (CPython's own ``venv``): such
# a folder is skipped unless it is a package, which a virtual environment never is.
ENV_DIRS = frozenset({".venv", "venv", "env", ".env"})
MAX_FILE_BYTES = 2_000_000


def skipped_folder(name: str, path: str) -> bool:
    """Whether the walk leaves out the folder ``name`` at ``path`` (and all below it).
    Shared with kgraph.codegraph.listing, which asks git for the files instead."""
    if name.endswith(".egg-info"):
        return True
    if name in ENV_DIRS:
        return not os.path.isfile(os.path.join(path, "__init__.py"))
    return name in SKIP_DIRS


def language_of(path: str) -> str | None:
    """The language of a path by its extension or name (``None``: not parsed)."""
    if path.endswith((".min.js", ".bundle.js")):
        return None
    named = NAMED.get(path[path.rfind("/") + 1 :])
    if named is not None:
        return named
    dot = path.rfind(".")
    return LANGUAGES.get(path[dot:]) if dot >= 0 else None


def source_language(relative: str) -> str | None:
    """The language the file at ``relative`` (root-relative, POSIX) is parsed as; None when
    the walk leaves it out by its name or place. Shared with kgraph.codegraph.listing,
    which asks git for the files instead: one rule for both."""
    language = language_of(relative[relative.rfind("/") + 1 :])
    if language == "go" and "testdata" in relative.split("/"):  # the go tool's data
        return None
    return language


@dataclass(frozen=True)
class SourceFile:
    path: str  # repo-relative, POSIX
    absolute: Path
    language: str


def _ignore_spec(folder: Path) -> Any:
    ignore = folder / ".gitignore"
    if not ignore.is_file():
        return None
    from pathspec import GitIgnoreSpec

    try:
        lines = ignore.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return GitIgnoreSpec.from_lines(lines)


def _ignored(specs: list[tuple[str, Any]], relative: str, is_dir: bool) -> bool:
    """Git semantics: deeper .gitignore files override shallower ones (last match wins)."""
    verdict = False
    for base, spec in specs:
        sub = relative[len(base) + 1 :] if base else relative
        candidate = sub + "/" if is_dir else sub
        result = spec.check_file(candidate)
        if result.include is not None:
            verdict = bool(result.include)
    return verdict


def iter_source_files(root: Path, start: Path | None = None) -> Iterator[SourceFile]:
    """Source files under ``start`` (default ``root``), paths relative to ``root``."""
    root = root.resolve()
    start = (start or root).resolve()
    specs: list[tuple[str, Any]] = []
    # .gitignore files above the start folder (within the root) apply too.
    relative_start = start.relative_to(root).as_posix() if start != root else ""
    chain = [root]
    if relative_start:
        for part in relative_start.split("/"):
            chain.append(chain[-1] / part)
    for folder in chain[:-1]:
        spec = _ignore_spec(folder)
        if spec is not None:
            specs.append((folder.relative_to(root).as_posix().strip("."), spec))
    yield from _walk(root, start, specs)


def _walk(root: Path, folder: Path, specs: list[tuple[str, Any]]) -> Iterator[SourceFile]:
    relative_folder = folder.relative_to(root).as_posix()
    relative_folder = "" if relative_folder == "." else relative_folder
    spec = _ignore_spec(folder)
    if spec is not None:
        specs = [*specs, (relative_folder, spec)]
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        relative = f"{relative_folder}/{entry.name}" if relative_folder else entry.name
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        if is_dir:
            if skipped_folder(entry.name, entry.path):
                continue
            if specs and _ignored(specs, relative, True):
                continue
            yield from _walk(root, Path(entry.path), specs)
            continue
        language = source_language(relative)
        if language is None or not entry.is_file(follow_symlinks=False):
            continue
        if specs and _ignored(specs, relative, False):
            continue
        try:
            if entry.stat().st_size > MAX_FILE_BYTES:
                continue
        except OSError:
            continue
        yield SourceFile(relative, Path(entry.path), language)
