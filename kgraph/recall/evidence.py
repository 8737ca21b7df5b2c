"""How much a shared file or code area says about an item: rare is strong, common is weak.

Replaying real histories, a changelog touched by almost every commit tied every stored item
to every session (411 of 411 injected items irrelevant in one repository). So a file counts
by how rare it is among the stored items (an inverse document frequency), and files that
say nothing about the code by their nature — changelogs, lock and pinned-requirements
files, version files — count little by default. Projects tune the list in ``.claude/kgraph.toml``::

    [recall]
    weak_files = ["docs/generated/", "*.snap"]   # added to the defaults
    use_default_weak_files = true
    weak_file_weight = 0.1                       # their weight relative to a rare file

Pure functions over counts (stdlib only): the read model supplies the counts.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from kgraph.config import load_config, section
from kgraph.errors import KgraphError
from kgraph.knowledge.areas import glob_match

__all__ = [
    "DEFAULT_WEAK_FILES",
    "EvidenceSettings",
    "is_weak_file",
    "load_evidence_settings",
    "name_weights",
    "rarity",
    "weigh",
]

# Matched case-insensitively against the repo-relative path (gitignore-style globs).
_LOG_NAMES = ("changelog", "changes", "history", "news", "release-notes", "release_notes")
DEFAULT_WEAK_FILES: tuple[str, ...] = (
    *(f"{name}{ext}" for name in _LOG_NAMES for ext in ("", ".md", ".rst", ".txt")),
    "**/unreleased/",
    "changelog.d/",
    "**/changelog/",
    "*.lock",
    "requirements*.txt",
    "**/requirements/*.txt",
    "constraints*.txt",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "pnpm-lock.yaml",
    "go.sum",
    "version",
    "version.txt",
    "version.py",
    "_version.py",
    "__version__.py",
)
WEAK_FILE_WEIGHT = 0.1
# Below this many stored items, frequencies say little: rarity is computed as if there
# were this many (a store of 3 items all about README.md is not "all about a hub").
MIN_BASE = 50


@dataclass(frozen=True)
class EvidenceSettings:
    weak_files: tuple[str, ...] = DEFAULT_WEAK_FILES
    weak_file_weight: float = WEAK_FILE_WEIGHT


def load_evidence_settings(root: Path) -> EvidenceSettings:
    """The ``[recall]`` settings of the project at ``root``; defaults for anything missing
    or invalid (a hook must not fail on a typo in the settings)."""
    try:
        config = section(load_config(root), "recall")
    except (KgraphError, OSError):
        return EvidenceSettings()
    extra = config.get("weak_files", [])
    extra = tuple(p for p in extra if isinstance(p, str) and p) if isinstance(extra, list) else ()
    defaults = DEFAULT_WEAK_FILES if config.get("use_default_weak_files", True) else ()
    weight = config.get("weak_file_weight", WEAK_FILE_WEIGHT)
    if isinstance(weight, bool) or not isinstance(weight, int | float) or not 0 <= weight <= 1:
        weight = WEAK_FILE_WEIGHT
    return EvidenceSettings(weak_files=(*extra, *defaults), weak_file_weight=float(weight))


@functools.lru_cache(maxsize=1 << 14)
def is_weak_file(path: str, settings: EvidenceSettings) -> bool:
    """Whether ``path`` matches a weak-file pattern. Cached: ranking asks it for every file
    of every candidate item, a few thousand times per briefing in a big store, and each
    answer tries every pattern."""
    lowered = path.lower()
    return any(glob_match(p.lower(), lowered) for p in settings.weak_files)


def rarity(count: int, total: int) -> float:
    """1.0 for a file (or area) one item names, falling towards 0 as it is named by every
    item: ``log(base / count) / log(base)`` with ``base = max(total, MIN_BASE)``."""
    base = max(total, MIN_BASE, 2)
    count = min(max(count, 1), base)
    return math.log(base / count) / math.log(base)


def name_weights(paths: Iterable[str], settings: EvidenceSettings) -> dict[str, float]:
    """Path -> 1, or ``weak_file_weight`` for a weak file: weights by name alone."""
    return {p: settings.weak_file_weight if is_weak_file(p, settings) else 1.0 for p in paths}


def weigh(
    counts: Mapping[str, int], total: int, settings: EvidenceSettings, *, paths: bool = True
) -> dict[str, float]:
    """Name -> weight in [0, 1]: its rarity, times ``weak_file_weight`` for a weak file
    (``paths=False`` for code areas, which have no weak names)."""
    weights: dict[str, float] = {}
    for name, count in counts.items():
        weight = rarity(count, total)
        if paths and is_weak_file(name, settings):
            weight *= settings.weak_file_weight
        weights[name] = weight
    return weights
