from __future__ import annotations

import json
from pathlib import Path

from capture_eval_lessons import Lesson, LessonIndex, Section
from capture_eval_summary import (
    EvalItem,
    TranscriptResult,
    Verdict,
    item_key,
    load_verdicts,
    summarise,
    write_template,
)

LABELLED = "aaaa0000-0000-0000-0000-000000000000"


def _item(text: str) -> EvalItem:
    return EvalItem(item_key("Learning", text), "Learning", text, (), (), "transcript", 0.6)


def _result(session_id: str, section: int | None, *texts: str) -> TranscriptResult:
    return TranscriptResult(
        session_id=session_id,
        section=section,
        entries=10,
        cpu_s=0.5,
        items=tuple(_item(t) for t in texts),
        home_paths_items=0,
        home_paths_sessions=0,
        home_path_samples=(),
        second_run_created=0,
        errors=(),
    )


def _index() -> LessonIndex:
    lessons = tuple(
        Lesson(f"1.{k}", 1, LABELLED, "learning", f"lesson {k}", (), "") for k in (1, 2, 3)
    )
    return LessonIndex([Section(1, LABELLED, lessons)])


def test_item_keys_are_stable_and_depend_on_type_and_text() -> None:
    assert item_key("Learning", "x") == item_key("Learning", "x")
    assert item_key("Learning", "x") != item_key("Mistake", "x")
    assert len(item_key("Learning", "x")) == 10


def test_template_adds_missing_keys_and_keeps_every_existing_entry(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.json"
    judged = _item("a")
    stale = {"verdict": "junk", "lessons": [], "note": "no longer stored"}
    path.write_text(json.dumps({judged.key: {"verdict": "knowledge"}, "old": stale}))
    verdicts = load_verdicts(path)
    added = write_template(path, verdicts, [_result(LABELLED, 1, "a", "b")])
    saved = json.loads(path.read_text())
    assert added == 1
    assert saved[judged.key] == {"verdict": "knowledge"} and saved["old"] == stale
    new = saved[_item("b").key]
    assert new["verdict"] is None and new["lessons"] == [] and new["item"] == "Learning: b"
    assert write_template(path, load_verdicts(path), [_result(LABELLED, 1, "a", "b")]) == 0


def test_summary_counts_junk_over_judged_items_and_lessons_by_verdict() -> None:
    results = [_result(LABELLED, 1, "a", "b", "c", "d"), _result("bbbb", None, "e")]
    verdicts = {
        _item("a").key: Verdict(verdict="knowledge", lessons=["1.1"]),
        _item("b").key: Verdict(verdict="partial", lessons=["1.1", "1.2"]),
        _item("c").key: Verdict(verdict="junk", lessons=["1.3"]),
        _item("e").key: Verdict(verdict="junk", lessons=[]),
        "gone": Verdict(verdict="knowledge", lessons=["1.3"]),
    }
    summary = summarise(results, verdicts, _index())
    assert (summary.all.items, summary.all.judged, summary.all.unjudged) == (5, 4, 1)
    assert summary.all.junk_pct == 50.0
    assert summary.labelled.junk_pct == round(100 / 3, 1)
    assert summary.unlabelled.junk_pct == 100.0
    assert summary.lessons_full == ["1.1"] and summary.lessons_partial == ["1.2"]
    assert summary.lessons_missing == ["1.3"]  # junk and items no longer stored count nothing
    assert "1 judged keys not stored" in summary.render()


def test_items_shown_only_where_named_are_counted_apart() -> None:
    items = (
        _item("a"),
        EvalItem(
            item_key("Learning", "b"), "Learning", "b", (), (), "commit", 0.75, (), "commit.what"
        ),
        EvalItem(
            item_key("Learning", "c"), "Learning", "c", (), (), "transcript", 0.6, shown=False
        ),
    )
    result = TranscriptResult(LABELLED, 1, 10, 0.5, items, 0, 0, (), 0, ())
    verdicts: dict[str, Verdict] = {i.key: {"verdict": "junk"} for i in items}
    summary = summarise([result], verdicts, _index())
    assert (summary.shown.junk, summary.unasked.junk) == (2, 1)
    assert "shown unasked" in summary.render()
