"""Stale items: an item naming code its files no longer hold is not shown."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kgraph.db import Database
from kgraph.db.reader import ReadConnection
from kgraph.knowledge.store import add_item
from kgraph.recall.relevance import Ranked
from kgraph.recall.stale import CodeCheck, Elsewhere, current_only

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
    data: object = None  # {"code": the names its files held at capture}


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


def test_an_item_whose_recorded_code_is_gone_is_left_out(tmp_path: Path) -> None:
    (tmp_path / "cmd").mkdir()
    (tmp_path / "cmd" / "session.go").write_text(SOURCE)
    check = CodeCheck(tmp_path)
    files = ("cmd/session.go",)
    # Most of what it names is still there, but one name its files held is gone: the code
    # it described changed (judged junk in replayed sessions, where the majority rule of an
    # unrecorded item kept it).
    text = "currentSessionID calls readSessionID, then currentSessionIDWithFallback"
    recorded = _Item(
        "rec",
        text,
        files,
        data={"code": ["currentSessionID", "readSessionID", "currentSessionIDWithFallback"]},
    )
    assert not check.is_current(recorded)
    assert check.is_current(_Item("old", text, files))  # unrecorded: 2 of 3 still there
    # A commit that removed a name: its files no longer held it, so it was not recorded.
    removal = _Item(
        "rm",
        "Remove FindLegacyEntireSessionID; readSessionID reads the file",
        files,
        data={"code": ["readSessionID"]},
    )
    assert check.is_current(removal)
    # Nothing recorded as held: nothing to judge.
    assert check.is_current(_Item("none", STALE, files, data={"code": []}))


def test_a_name_is_still_there_only_as_a_whole_identifier(tmp_path: Path) -> None:
    (tmp_path / "h.go").write_text(
        "func handleSessionStartCommon() {}\nfunc handleGeminiStart() {}\n"
    )
    check = CodeCheck(tmp_path)
    renamed = _Item(
        "r", "handleSessionStart and handleGeminiSessionStart share a prefix", ("h.go",)
    )
    assert not check.is_current(renamed)


def test_the_items_of_commits_head_lacks_are_found_elsewhere(
    db: Database, conn: ReadConnection, tmp_repo: Path, git: Callable[..., str]
) -> None:
    here = git(tmp_repo, "rev-parse", "HEAD").strip()
    git(tmp_repo, "checkout", "-q", "-b", "work")
    git(tmp_repo, "commit", "-q", "--allow-empty", "-m", "work")
    there = git(tmp_repo, "rev-parse", "HEAD").strip()
    git(tmp_repo, "checkout", "-q", "main")
    branch = add_item(db, "Work on a branch", source="commit", source_ref=there)
    short = add_item(db, "Work named short", source="commit", source_ref=f"{there[:10]}:7")
    add_item(db, "Work on main", source="commit", source_ref=here)
    add_item(db, "A commit this clone lacks", source="commit", source_ref="ab" * 20)
    add_item(db, "Typed by hand", source="manual", source_ref=there)
    asked = Elsewhere(conn, tmp_repo)
    assert asked.ids(timeout=5.0) == {branch.entity_id, short.entity_id}
    assert not asked.unanswered
    nowhere = Elsewhere(conn, tmp_repo.parent)  # no repository: no answer, and it says so
    assert nowhere.ids(timeout=5.0) == set() and nowhere.unanswered
    git(tmp_repo, "merge", "-q", "--ff-only", "work")
    assert Elsewhere(conn, tmp_repo).ids(timeout=5.0) == set()
