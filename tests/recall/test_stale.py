"""Stale items: an item naming code its files no longer hold is not shown."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kgraph.db import Database
from kgraph.db.reader import ReadConnection
from kgraph.knowledge.codenames import line_keys
from kgraph.knowledge.store import add_item
from kgraph.recall.relevance import Ranked
from kgraph.recall.stale import MIN_WRITTEN, CodeCheck, Elsewhere, current_only, landed

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


# Cut from the entireio/cli history: fecc0ed wrote these lines in registry.go; by the time a
# replayed session read the file, GetByAgentType took a typed AgentType and none was left.
INTERIM = (
    "fix: make GetByAgentType accept both display and registry names. Interim fix to "
    "support passing agent.Name() to functions that ultimately call GetByAgentType."
)
INTERIM_WROTE = """\
// GetByAgentType retrieves an agent by its type name.
// Accepts either human-readable names (e.g., "Claude Code", "Gemini CLI") or
// registry names (e.g., "claude-code", "gemini").
\t// Try human-readable name first
\tif registryName, ok := AgentTypeToRegistryName[agentType]; ok {
\t// Fall back to treating it as a registry name
\treturn Get(agentType)
"""
REGISTRY_NOW = """\
// GetByAgentType retrieves an agent by its AgentType.
func GetByAgentType(agentType AgentType) (Agent, error) {
\tfor _, ag := range registry {
\t\tif ag.Type() == agentType {
\t\t\treturn ag, nil
\t\t}
\t}
\treturn nil, fmt.Errorf("unknown agent type: %s", agentType)
}
"""


def test_a_commit_item_whose_written_lines_are_all_gone_is_left_out(tmp_path: Path) -> None:
    (tmp_path / "registry.go").write_text(REGISTRY_NOW)
    files = ("registry.go",)
    wrote = sorted(line_keys(INTERIM_WROTE))
    data = {"code": ["GetByAgentType"], "wrote": wrote}
    # every name it writes is still there; the change it describes is not
    assert not CodeCheck(tmp_path).is_current(_Item("old", INTERIM, files, data=data))
    # one of its lines left: the change is still (partly) the code at hand
    (tmp_path / "registry.go").write_text(
        REGISTRY_NOW + "\t// Fall back to treating it as a registry name\n"
    )
    assert CodeCheck(tmp_path).is_current(_Item("old", INTERIM, files, data=data))
    # too few written lines to tell by their absence
    few = {"code": ["GetByAgentType"], "wrote": wrote[: MIN_WRITTEN - 1]}
    (tmp_path / "registry.go").write_text(REGISTRY_NOW)
    assert CodeCheck(tmp_path).is_current(_Item("few", INTERIM, files, data=few))
    # a small fix (two lines written), both gone: the fix was undone (vault's "dismiss the
    # view before showing the rating dialog", reverted minutes later)
    small = {"code": ["GetByAgentType"], "wrote": wrote[:2]}
    assert not CodeCheck(tmp_path).is_current(_Item("small", INTERIM, files, data=small))
    # as JSON text in the database, as the read model hands it on
    text = json.dumps(data)
    assert not CodeCheck(tmp_path).is_current(_Item("json", INTERIM, files, data=text))


def test_written_lines_are_looked_for_where_capture_read_them(tmp_path: Path) -> None:
    # A commit of six documents and one Go file: capture recorded the Go file's lines
    # (documents are left out), so recall reads that file, not the first six in path order.
    docs = tuple(f"docs/{n}.md" for n in "abcdef")
    for doc in docs:
        (tmp_path / doc).parent.mkdir(exist_ok=True)
        (tmp_path / doc).write_text("Rewritten since.\n")
    (tmp_path / "registry.go").write_text(INTERIM_WROTE)
    wrote = sorted(line_keys(INTERIM_WROTE))
    item = _Item("docs", INTERIM, (*docs, "registry.go"), data={"wrote": wrote})
    assert CodeCheck(tmp_path).is_current(item)
    (tmp_path / "registry.go").write_text(REGISTRY_NOW)
    assert not CodeCheck(tmp_path).is_current(item)


def test_an_unrecorded_commit_item_needs_most_of_its_names_still_there(tmp_path: Path) -> None:
    # Cut from entireio/git-sync: a branch's commit, squash-merged under another sha, so
    # git does not have it and nothing was recorded; the type it names was removed since.
    (tmp_path / "smarthttp.go").write_text("func (c *HTTPConn) PostRPCStreamBody() {}\n")
    check = CodeCheck(tmp_path)
    text = "Encapsulate SpooledBody's request wiring so PostRPCStreamBody doesn't reach into it"
    files = ("smarthttp.go",)
    assert not check.is_current(_Item("c", text, files, data='{"origin": "commit"}'))
    assert not check.is_current(_Item("h", text, files, data={"origin": "history.what"}))
    # What a session said names code more loosely: half is enough.
    assert check.is_current(_Item("s", text, files, data='{"origin": "summary.errors"}'))
    one = _Item("one", "SpooledBody buffers the request body to a temp file", files)
    assert check.is_current(one)  # a single name says too little to judge


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


def _branch_commit(repo: Path, git: Callable[..., str], body: str) -> str:
    """A commit on branch ``work`` writing ``src/config.py``; main is checked out after."""
    git(repo, "checkout", "-q", "-b", "work")
    (repo / "src").mkdir()
    (repo / "src" / "config.py").write_text(body)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "fix(config): read the config as UTF-8")
    sha = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "main")
    return sha


UTF8 = (
    'def load_config(path):\n    with open(path, encoding="utf-8") as f:\n        return f.read()\n'
)


def test_a_squash_merged_commit_is_not_elsewhere(
    db: Database, conn: ReadConnection, tmp_repo: Path, git: Callable[..., str]
) -> None:
    sha = _branch_commit(tmp_repo, git, UTF8)
    item = add_item(db, "Read the config as UTF-8", source="commit", source_ref=sha)
    away = Elsewhere(conn, tmp_repo)
    assert away.ids(timeout=5.0) == {item.entity_id} and away.unlanded == 0  # not merged yet
    git(tmp_repo, "merge", "-q", "--squash", "work")
    git(tmp_repo, "commit", "-q", "-m", "Fix config encoding (#12)")
    git(tmp_repo, "branch", "-q", "-D", "work")
    assert Elsewhere(conn, tmp_repo).ids(timeout=5.0) == set()  # its lines are here


def test_a_commit_whose_lines_main_rewrote_stays_elsewhere(
    db: Database, conn: ReadConnection, tmp_repo: Path, git: Callable[..., str]
) -> None:
    sha = _branch_commit(tmp_repo, git, UTF8)
    item = add_item(db, "Read the config as UTF-8", source="commit", source_ref=sha)
    (tmp_repo / "src").mkdir()
    (tmp_repo / "src" / "config.py").write_text(
        'def load_config(path):\n    return open(path, encoding="latin-1").read()\n'
    )
    git(tmp_repo, "add", ".")
    git(tmp_repo, "commit", "-q", "-m", "main went another way")
    assert Elsewhere(conn, tmp_repo).ids(timeout=5.0) == {item.entity_id}


def test_landed_reads_the_lines_each_commit_added(tmp_repo: Path, git: Callable[..., str]) -> None:
    sha = _branch_commit(tmp_repo, git, UTF8 + "}\n")  # "}" is too short to tell
    assert landed(tmp_repo, [sha], timeout=5.0) == set()
    (tmp_repo / "src").mkdir()
    (tmp_repo / "src" / "config.py").write_text(UTF8.replace("    ", "\t"))  # re-indented
    assert landed(tmp_repo, [sha], timeout=5.0) == {sha}
    assert landed(tmp_repo, [], timeout=5.0) == set()
    assert landed(tmp_repo.parent, [sha], timeout=5.0) is None  # no repository: no answer
