"""File recall's order: what the edit touches, the file's Mistakes, then the items that
name the file's own code, before items that only changed the file once."""

from __future__ import annotations

from pathlib import Path

from kgraph.db import Database
from kgraph.db.reader import ReadConnection
from kgraph.knowledge.store import add_item
from kgraph.recall.evidence import EvidenceSettings
from kgraph.recall.file import file_recall, file_vocabulary

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
    words = file_vocabulary(tmp_path / "region.py", "dogpile/cache/region.py")
    assert words == {"region.py", "region", "CacheRegion", "get_or_create"}  # no run, __repr__
    assert file_vocabulary(tmp_path / "gone.py", "a/io.py") == {"io.py"}  # a missing file


def _recall(conn: ReadConnection, tmp_path: Path, **options: object) -> list[str]:
    found = file_recall(
        conn,
        "region.py",
        settings=EvidenceSettings(),
        exclude=set(),
        max_items=5,
        max_chars=5_000,
        vocabulary=file_vocabulary(tmp_path / "region.py", "region.py"),
        **options,  # type: ignore[arg-type]
    )
    return list(found.ids)


def test_items_naming_the_file_s_code_come_before_ones_that_only_touched_it(
    db: Database, conn: ReadConnection, tmp_path: Path
) -> None:
    (tmp_path / "region.py").write_text(SOURCE)
    plain = add_item(db, "Bumped the copyright year everywhere", files=["region.py"]).entity_id
    one = add_item(db, "get_or_create holds the mutex while it creates", files=["region.py"])
    two = add_item(db, "CacheRegion.get_or_create needs a creator", files=["region.py"])
    mistake = add_item(
        db, "A lock left held froze all readers", type="Mistake", files=["region.py"]
    ).entity_id
    order = _recall(conn, tmp_path)
    assert order == [mistake, two.entity_id, one.entity_id, plain]
    # What an edit touches leads, whatever else the item names.
    edited = _recall(conn, tmp_path, symbols={"CacheRegion"})
    assert edited[0] == two.entity_id and edited[1] == mistake
