"""File recall: what the edit touches, the file's Mistakes, then (on a whole-file read) the
items that name the file's own code; an item that only changed the file once stays out."""

from __future__ import annotations

from pathlib import Path

from kgraph.db import Database
from kgraph.db.reader import ReadConnection
from kgraph.knowledge.store import add_item
from kgraph.recall.evidence import EvidenceSettings
from kgraph.recall.file import HUB_SHARE, FileRecall, file_recall, file_words
from kgraph.recall.stale import CodeCheck
from kgraph.recall.words import TaskWords, task_words

SOURCE = """\
class CacheRegion:
    def get_or_create(self, key, creator):
        return creator()

    def run(self):
        pass

    def __repr__(self):
        return "region"
"""


def test_a_file_s_vocabulary_is_its_name_and_its_telling_definitions(tmp_path: Path) -> None:
    (tmp_path / "region.py").write_text(SOURCE)
    words = file_words(tmp_path / "region.py", "dogpile/cache/region.py").vocabulary
    assert words == {"region.py", "region", "CacheRegion", "get_or_create"}  # no run, __repr__
    assert file_words(tmp_path / "gone.py", "a/io.py").vocabulary == {"io.py"}  # missing


def test_a_file_s_identifiers_are_every_name_its_code_uses(tmp_path: Path) -> None:
    (tmp_path / "region.py").write_text(SOURCE)
    names = file_words(tmp_path / "region.py", "region.py").uses
    assert {"CacheRegion", "get_or_create", "creator", "__repr__"} <= names
    assert file_words(tmp_path / "gone.py", "gone.py").uses == frozenset()


def _found(conn: ReadConnection, tmp_path: Path, **options: object) -> FileRecall:
    return file_recall(
        conn,
        "region.py",
        settings=EvidenceSettings(),
        exclude=set(),
        max_items=5,
        max_chars=5_000,
        vocabulary=file_words(tmp_path / "region.py", "region.py").vocabulary,
        **options,  # type: ignore[arg-type]
    )


def _recall(conn: ReadConnection, tmp_path: Path, **options: object) -> list[str]:
    return list(_found(conn, tmp_path, **options).ids)


def test_items_naming_the_file_s_code_come_and_ones_that_only_touched_it_stay_out(
    db: Database, conn: ReadConnection, tmp_path: Path
) -> None:
    (tmp_path / "region.py").write_text(SOURCE)
    add_item(db, "Bumped the copyright year everywhere", files=["region.py"])
    one = add_item(db, "get_or_create holds the mutex while it creates", files=["region.py"])
    two = add_item(db, "CacheRegion.get_or_create needs a creator", files=["region.py"])
    mistake = add_item(
        db, "A lock left held froze all readers", type="Mistake", files=["region.py"]
    ).entity_id
    # A whole-file read: the Mistake, then what names the most of the file's code.
    assert _recall(conn, tmp_path) == [mistake, two.entity_id, one.entity_id]
    # An edit: what names the symbol it touches, then the file's warnings; an item about
    # another part of the file waits for a change there.
    assert _recall(conn, tmp_path, symbols={"CacheRegion"}) == [two.entity_id, mistake]
    # A file a third of the recent sessions opened: a whole read brings only its warnings;
    # an edit still brings what names what it changes.
    assert _recall(conn, tmp_path, opened_by=HUB_SHARE) == [mistake]
    assert _recall(conn, tmp_path, opened_by=HUB_SHARE - 0.01) == [
        mistake,
        two.entity_id,
        one.entity_id,
    ]
    assert _recall(conn, tmp_path, symbols={"CacheRegion"}, opened_by=1.0) == [
        two.entity_id,
        mistake,
    ]


def test_a_reviews_answer_never_comes_with_a_file_and_an_edit_brings_only_warnings(
    db: Database, conn: ReadConnection, tmp_path: Path
) -> None:
    (tmp_path / "region.py").write_text(SOURCE)
    add_item(  # a review's answer, named-only: left to the prompt hook
        db,
        "Address PR review feedback — get_or_create: release the mutex when the creator raises",
        files=["region.py"],
        source="commit",
        data={"origin": "history.review"},
    )
    plain = add_item(db, "CacheRegion.get_or_create needs a creator", files=["region.py"])
    # A whole-file read brings what names the file's code, but not a review's answer; nor
    # does a Read of a range (its symbols are whatever the range covers).
    assert _recall(conn, tmp_path) == [plain.entity_id]
    assert _recall(conn, tmp_path, symbols={"get_or_create"}) == [plain.entity_id]
    # An edit of get_or_create: it is made; the learnings came with the read before it, and
    # only a warning about what it touched is news.
    assert _recall(conn, tmp_path, symbols={"get_or_create"}, edited=True) == []
    warning = add_item(
        db,
        "get_or_create kept the mutex when the creator raised",
        type="Mistake",
        files=["region.py"],
    ).entity_id
    assert _recall(conn, tmp_path, symbols={"get_or_create"}, edited=True) == [warning]


def test_with_the_sessions_words_a_whole_file_read_brings_what_shares_them(
    db: Database, conn: ReadConnection, tmp_path: Path
) -> None:
    (tmp_path / "region.py").write_text(SOURCE)
    for i in range(30):  # a store whose common words are told apart from its rare ones
        add_item(db, f"The region module keeps rule {i} for the backend", files=[f"m{i}.py"])
    expiry = add_item(
        db, "get_or_create ignores expiration_time when the creator raises", files=["region.py"]
    )
    mutex = add_item(
        db, "get_or_create holds the dogpile mutex while it creates", files=["region.py"]
    )
    mistake = add_item(
        db, "A lock left held froze all readers", type="Mistake", files=["region.py"]
    ).entity_id
    # Cut from a replayed session's prompt: the task is about expiration.
    task = TaskWords(conn, task_words("values never expire after expiration_time passes"))
    assert _recall(conn, tmp_path, task=task) == [mistake, expiry.entity_id]
    # No prompt words recorded yet (a resumed session): the file alone decides.
    everything = {mistake, mutex.entity_id, expiry.entity_id}
    assert set(_recall(conn, tmp_path, task=TaskWords(conn, []))) == everything
    assert set(_recall(conn, tmp_path)) == everything
    # An edit's own symbols lead whatever the prompt said.
    assert mutex.entity_id in _recall(conn, tmp_path, task=task, symbols={"get_or_create"})


# The shape of entireio/cli's "Fix task checkpoint detection without pre-existing untracked
# files": a subject, then the change told entry by entry.
CHANGE_LIST = """\
Fix get_or_create when the creator returns None

get_or_create() cached None as a value. This flowed through:
1. CacheRegion stored the None under the key
2. get_or_create returned it as a hit
3. the creator never ran again"""


def test_a_commits_change_list_is_left_to_the_prompt_hook(
    db: Database, conn: ReadConnection, tmp_path: Path
) -> None:
    (tmp_path / "region.py").write_text(SOURCE)

    def commit(text: str, origin: str) -> str:
        return add_item(
            db, text, files=["region.py"], source="commit", data={"origin": origin}
        ).entity_id

    listed = commit(CHANGE_LIST, "history")
    said = add_item(  # the same words from a session: not a commit's list
        db,
        CHANGE_LIST.replace("Fix", "Fixed"),
        files=["region.py"],
        data={"origin": "summary.errors"},
    ).entity_id
    prose = commit(
        "Fix get_or_create when the creator returns None: CacheRegion stored it as a hit",
        "history",
    )
    assert listed not in _recall(conn, tmp_path)
    assert listed not in _recall(conn, tmp_path, symbols={"get_or_create"})
    assert {said, prose} <= set(_recall(conn, tmp_path, symbols={"get_or_create"}))
    # flattened onto one line (as capture keeps some messages), still a list
    flat = commit(
        "Fix the CacheRegion lock - release it on error - time out after 30 s - log get_or_create",
        "commit",
    )
    assert flat not in _recall(conn, tmp_path)


def test_a_read_whose_only_items_are_stale_says_so(
    db: Database, conn: ReadConnection, tmp_path: Path
) -> None:
    (tmp_path / "region.py").write_text(SOURCE)
    add_item(  # it names get_or_create and a lock its file no longer holds
        db,
        "get_or_create takes the region_mutex_lock first",
        files=["region.py"],
        data={"code": ["get_or_create", "region_mutex_lock"]},
    )
    found = _found(conn, tmp_path, check=CodeCheck(tmp_path))
    assert found.text is None
    assert found.why == "1 item(s) about it describe code no longer there"
    assert _recall(conn, tmp_path) != []  # without the check it is shown


def test_one_read_brings_one_part_of_a_long_commit_message(
    db: Database, conn: ReadConnection, tmp_path: Path
) -> None:
    # ebridges/wakil: a read of release.yml brought two parts of one fix's message
    (tmp_path / "region.py").write_text(SOURCE)
    sha = "ab" * 20
    cause = add_item(
        db,
        "fix: CacheRegion.get_or_create deadlocked — get_or_create held the mutex while the "
        "creator ran, so a creator reading the region waited on itself",
        source="commit",
        source_ref=sha,
        files=["region.py"],
    )
    fix = add_item(
        db,
        "fix: CacheRegion.get_or_create deadlocked — Fixed by releasing the mutex in "
        "get_or_create before calling the creator",
        source="commit",
        source_ref=f"{sha}:1",
        files=["region.py"],
    )
    found = _recall(conn, tmp_path, symbols={"get_or_create"})
    assert len(found) == 1 and found[0] in {cause.entity_id, fix.entity_id}
