"""Preparing an item for storage: validated, redacted and normalised, before any database.

Everything a write needs that does not depend on what is stored already happens here, once
and outside the transaction: the type, confidence and source are checked, the text and every
other field are redacted (``kgraph.redact``) and cleaned, and the files the item is about
become repo-relative paths with their code areas. What comes out, a :class:`PreparedItem`, is
what both write paths take — :func:`kgraph.knowledge.store.write_item` (one item) and
:func:`kgraph.knowledge.batch.write_items` (many per transaction) — and what capture builds
up front so a slow step (an embedder) can run between preparing and writing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from kgraph.errors import InvalidValueError
from kgraph.knowledge.areas import AreaRules, infer_code_area, relative_path
from kgraph.knowledge.codenames import held_names
from kgraph.knowledge.model import (
    KNOWLEDGE_TYPES,
    MAX_CONTENT_CHARS,
    check_confidence,
    check_source,
    clean_content,
    content_hash,
    parse_type,
)
from kgraph.redact import redact, redact_data
from kgraph.redact.home import mask_home


@dataclass(frozen=True)
class PreparedItem:
    """A validated, redacted item ready to be written (see :func:`prepare_item`)."""

    type: str
    text: str
    digest: str
    confidence: float
    source: str
    source_ref: str | None
    issue_number: int | None
    session_id: str | None
    data: dict[str, Any]
    files: tuple[str, ...]
    areas: tuple[str, ...]
    created_at: datetime | None = None
    vector: Any = None  # numpy row, when embedded before the transaction
    model: str | None = None
    near_duplicate: str | None = None
    # Stored hidden until corroborated (kgraph.knowledge.candidates); a capture's untrusted
    # origins set it.
    candidate: bool = False


def prepared_text(content: str, thorough_redaction: bool = True) -> str:
    """An item's text as stored: redacted, home paths masked and cleaned. InvalidValueError
    when nothing is left or it is longer than ``MAX_CONTENT_CHARS``. New items and a replaced
    text (:func:`kgraph.knowledge.edit.replace_content`) go through this one check."""
    text = clean_content(mask_home(redact(content, thorough=thorough_redaction)))
    if not text:
        raise InvalidValueError("content is empty")
    if len(text) > MAX_CONTENT_CHARS:
        raise InvalidValueError(f"content is {len(text)} characters (max {MAX_CONTENT_CHARS})")
    return text


def prepare_targets(
    code_area: str | None,
    files: Sequence[str],
    project_root: Path | None,
    area_rules: AreaRules | None,
    thorough_redaction: bool = True,
) -> tuple[list[str], list[str]]:
    """Repo-relative file paths and the area names an item is about, redacted (a path outside
    the project with its home masked): they become
    File/CodeArea entities, their ids and FTS rows, and the context snapshot."""
    # Redacted before the path is normalised too: that folds "://" into ":/", which hides
    # a URL's password from the pattern that finds it.
    paths = list(
        dict.fromkeys(
            mask_home(
                redact(
                    relative_path(redact(f, thorough=thorough_redaction), project_root),
                    thorough=thorough_redaction,
                )
            )
            for f in files
            if f.strip()
        )
    )
    paths = [p for p in paths if p and p != "."]
    if code_area is not None and code_area.strip():
        areas = [redact(code_area.strip(), thorough=thorough_redaction)]
    else:
        areas = list(dict.fromkeys(infer_code_area(p, area_rules) for p in paths))
    return paths, areas


def prepare_item(
    content: str,
    *,
    type: str = "Learning",
    code_area: str | None = None,
    files: Sequence[str] = (),
    confidence: float = 0.7,
    source: str = "manual",
    source_ref: str | None = None,
    issue_number: int | None = None,
    session_id: str | None = None,
    data: dict[str, Any] | None = None,
    project_root: Path | None = None,
    area_rules: AreaRules | None = None,
    thorough_redaction: bool = True,
    created_at: datetime | None = None,
) -> PreparedItem:
    """Validate, redact and normalise an item (no database access). See
    :func:`kgraph.knowledge.store.add_item`."""
    type_ = parse_type(type, KNOWLEDGE_TYPES)
    confidence = check_confidence(confidence)
    check_source(source)
    text = prepared_text(content, thorough_redaction)
    ref = redact(source_ref, thorough=thorough_redaction) if source_ref else source_ref
    sid = redact(session_id, thorough=thorough_redaction) if session_id else session_id
    extra = redact_data(data or {}, thorough=thorough_redaction)
    if not isinstance(extra, dict):
        raise InvalidValueError("data must be a JSON object")
    paths, areas = prepare_targets(code_area, files, project_root, area_rules, thorough_redaction)
    return PreparedItem(
        type=type_,
        text=text,
        digest=content_hash(text),
        confidence=confidence,
        source=source,
        source_ref=ref,
        issue_number=issue_number,
        session_id=sid,
        data=extra,
        files=tuple(paths),
        areas=tuple(areas),
        created_at=created_at,
    )


def with_held_code(
    item: PreparedItem, read: Callable[[str], str | None], *, absent_is_news: bool = True
) -> PreparedItem:
    """``item`` with the code names its text writes that its files held when it was
    captured, as ``data["code"]``: ``read`` gives a file's text as the item describes it
    (at its commit, or in the work tree a session left). Recall leaves the item out once
    its files no longer hold one of them (:mod:`kgraph.knowledge.codenames`).

    Nothing is recorded when none of its files could be read (a commit git does not have:
    rebased away, or made on another machine), nor, unless ``absent_is_news`` (a commit
    that removed what it names says so), when they held none of the names (code the
    session removed again before it ended, a file the item is wrongly tied to): an empty
    record would vouch for the item forever, and without one recall judges it by the names
    it writes, leaving it out where its files do not hold most of them. Replaying a
    repository whose sessions worked on branches, items about the code of a branch never
    merged reached later sessions seven times, junk each time."""
    held = held_names(item.text, item.files, read)
    if held is None or (not held and not absent_is_news):
        return item
    return replace(item, data={**item.data, "code": held})
