"""Stale items: an item naming code its files no longer hold is not shown."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kgraph.recall.relevance import Ranked
from kgraph.recall.stale import CodeCheck, current_only, named_code

# Cut from the entireio/cli history: the commit's function was deleted as dead code later.
STALE = (
    "Add FindLegacyEntireSessionID for sessions created before the ID format change; "
    "currentSessionIDWithFallback tries it when the new ID has no state file."
)
SOURCE = """\
package cli

func currentSessionID() string { return readSessionID() }

func readSessionID() string { return "" }
"""


@dataclass(frozen=True)
class _Item:
    id: str
    content: str
    files: tuple[str, ...]
    type: str = "Learning"
    confidence: float = 0.8
    issue_number: int | None = None
    code_areas: tuple[str, ...] = ()
    updated_at: object = None


def test_code_names_are_the_identifier_shapes_of_six_or_more_characters() -> None:
    text = "Call `readSessionID` (not read_id); SESSION_TTL and HashWorktreeID; a Session."
    assert named_code(text) == {"readSessionID", "read_id", "SESSION_TTL", "HashWorktreeID"}


def test_an_item_naming_code_its_files_no_longer_hold_is_left_out(tmp_path: Path) -> None:
    (tmp_path / "cmd").mkdir()
    (tmp_path / "cmd" / "session.go").write_text(SOURCE)
    check = CodeCheck(tmp_path)
    stale = _Item("old", STALE, ("cmd/session.go",))
    current = _Item(
        "new", "readSessionID reads the state file; currentSessionID calls it", stale.files
    )
    vague = _Item("vague", "The session ID format changed in January", stale.files)
    gone = _Item("gone", "parseLegacyState and writeLegacyState moved", ("cmd/legacy.go",))
    assert not check.is_current(stale)
    assert check.is_current(current)
    assert check.is_current(vague)  # names no code: too little to judge
    assert not check.is_current(gone)  # every file it is about is gone
    ranked = [Ranked(item, 1.0, "") for item in (stale, current, vague, gone)]
    assert [r.item.id for r in current_only(ranked, check, 5)] == ["new", "vague"]
    assert [r.item.id for r in current_only(ranked, check, 1)] == ["new"]
    assert [r.item.id for r in current_only(ranked, None, 2)] == ["old", "new"]
