"""The knowledge graph's vocabulary: entity and relationship types, sources, ids, hashing.

Adding an entity type is one line in ``ENTITY_TYPES`` (name -> id prefix); adding a
relationship type is one line in ``RELATIONSHIP_TYPES``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from kgraph.digest import sha256_hex
from kgraph.errors import InvalidValueError

# type -> id prefix. Knowledge types carry text a person or a capture wrote; structural types
# (CodeArea, File) are created from names/paths, once.
ENTITY_TYPES: dict[str, str] = {
    "Learning": "lrn",
    "Pattern": "pat",
    "Mistake": "mis",
    "Topic": "top",
    "CodeArea": "area",
    "File": "file",
}
STRUCTURAL_TYPES: tuple[str, ...] = ("CodeArea", "File")
KNOWLEDGE_TYPES: tuple[str, ...] = tuple(t for t in ENTITY_TYPES if t not in STRUCTURAL_TYPES)

# Edge meanings (from -> to):
#   ABOUT       knowledge item -> CodeArea it is about; File -> CodeArea it belongs to
#   IN_FILE     knowledge item -> File it is about
#   LED_TO      Mistake -> the Learning (or Pattern) that fixed it
#   APPLIES_TO  Pattern -> CodeArea (or File) it applies to
#   SUPERSEDES  newer item -> the older item it replaces (the older one drops out of search)
#   PART_OF     captured item -> the Topic of the session it was learned in
RELATIONSHIP_TYPES: tuple[str, ...] = (
    "ABOUT",
    "IN_FILE",
    "LED_TO",
    "APPLIES_TO",
    "SUPERSEDES",
    "PART_OF",
)

# Where an item came from; ``source_ref`` holds the reference (commit sha, session id, file).
SOURCES: tuple[str, ...] = ("manual", "commit", "transcript", "claude_md", "llm", "import")

MAX_CONTENT_CHARS = 20_000

_WHITESPACE = re.compile(r"\s+")
_SLUG = re.compile(r"[^a-z0-9]+")


def parse_type(value: str, allowed: Iterable[str] = tuple(ENTITY_TYPES)) -> str:
    """The canonical type name for ``value`` in any case ("learning" -> "Learning")."""
    allowed = tuple(allowed)
    lookup = {t.lower(): t for t in allowed}
    canonical = lookup.get(value.strip().lower().replace("_", "").replace("-", ""))
    if canonical is None:
        raise InvalidValueError(f"invalid type {value!r} (allowed: {', '.join(allowed)})")
    return canonical


def parse_types(values: Sequence[str] | None) -> tuple[str, ...]:
    """Canonical knowledge types for a filter; all knowledge types when empty/None."""
    if not values:
        return KNOWLEDGE_TYPES
    return tuple(dict.fromkeys(parse_type(v, ENTITY_TYPES) for v in values))


def check_relationship_type(value: str) -> str:
    canonical = value.strip().upper().replace("-", "_")
    if canonical not in RELATIONSHIP_TYPES:
        raise InvalidValueError(
            f"invalid relationship type {value!r} (allowed: {', '.join(RELATIONSHIP_TYPES)})"
        )
    return canonical


def check_source(value: str) -> str:
    if value not in SOURCES:
        raise InvalidValueError(f"invalid source {value!r} (allowed: {', '.join(SOURCES)})")
    return value


def check_confidence(value: float) -> float:
    if not 0.0 <= value <= 1.0:
        raise InvalidValueError(f"confidence must be between 0 and 1, got {value}")
    return float(value)


def clean_content(text: str) -> str:
    """The text as stored: surrounding whitespace trimmed, runs of blank lines collapsed."""
    lines = [line.rstrip() for line in text.strip().splitlines()]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out)


def normalise(text: str) -> str:
    """The dedup key text: lower-cased, whitespace collapsed, trailing punctuation dropped."""
    return _WHITESPACE.sub(" ", text).strip().lower().rstrip(".!;: ")


def content_hash(text: str, type_: str = "Learning") -> str:
    """sha256 of the normalised text: equal for texts differing only in case/whitespace.

    File paths are hashed exactly (``Foo.py`` and ``foo.py`` are different files).
    """
    key = text if type_ == "File" else normalise(text)
    return sha256_hex(key.encode("utf-8"))


def entity_id(type_: str, text: str, length: int = 10) -> str:
    """The deterministic id of an entity: ``lrn-3f9a2c1b7d``, ``area-testing``, ``file-…``.

    Knowledge items and files use a prefix of the content hash, so the same item learned in
    two clones of a repository gets the same id and imports merge cleanly; code areas use a
    readable slug of their name.
    """
    prefix = ENTITY_TYPES[type_]
    if type_ == "CodeArea":
        slug = _SLUG.sub("-", normalise(text)).strip("-")[:32]
        return f"{prefix}-{slug or content_hash(text, type_)[:length]}"
    return f"{prefix}-{content_hash(text, type_)[:length]}"
