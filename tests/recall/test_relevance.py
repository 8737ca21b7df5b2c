from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from kgraph.recall.relevance import MIN_EVIDENCE, Focus, Ranked, rank, score_item

NOW = datetime(2026, 11, 20, tzinfo=UTC)


@dataclass(frozen=True)
class FakeItem:
    id: str
    type: str = "Learning"
    content: str = "The retry loop backs off because the server rate-limits"
    confidence: float = 0.7
    issue_number: int | None = None
    code_areas: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    updated_at: Any = NOW


FOCUS = Focus(
    files={"src/a.py": 1.0},
    reasons={"src/a.py": "changed"},
    areas=("Auth",),
    issue_number=7,
)


def ids(ranked: list[Ranked]) -> list[str]:
    return [r.item.id for r in ranked]


def test_a_mistake_in_a_session_file_ranks_first() -> None:
    items = [
        FakeItem("area", code_areas=("Auth",)),
        FakeItem("issue", issue_number=7, files=("src/z.py", "src/y.py")),
        FakeItem("learning-in-file", files=("src/a.py",), confidence=1.0),
        FakeItem("mistake-in-file", type="Mistake", files=("src/a.py",), confidence=0.1),
    ]
    assert ids(rank(items, FOCUS, NOW)) == ["mistake-in-file", "learning-in-file", "issue", "area"]


def test_items_matching_nothing_are_left_out() -> None:
    items = [FakeItem("other", files=("src/b.py",), code_areas=("Billing",), issue_number=8)]
    assert rank(items, FOCUS, NOW) == []
    assert rank(items, Focus(), NOW) == []


def test_a_hub_file_is_weak_evidence_and_a_rare_one_strong() -> None:
    focus = Focus(
        files={"CHANGES.rst": 1.0, "src/parser.py": 1.0},
        weights={"CHANGES.rst": 0.01, "src/parser.py": 0.9},
    )
    only_hub = FakeItem("hub", files=("CHANGES.rst",))
    both = FakeItem("both", files=("CHANGES.rst", "src/parser.py"))
    assert score_item(only_hub, focus, NOW) is None
    scored = score_item(both, focus, NOW)
    assert scored is not None and "src/parser.py" in scored.why


def test_an_item_about_many_files_says_less_about_each() -> None:
    focus = Focus(files={"a.py": 1.0})
    narrow = FakeItem("narrow", files=("a.py",))
    broad = FakeItem("broad", files=("a.py", *(f"f{i}.py" for i in range(9))))
    ranked = rank([broad, narrow], focus, NOW)
    assert ids(ranked) == ["narrow", "broad"]
    assert ranked[0].score > 2 * ranked[1].score


def test_weak_files_do_not_dilute_an_item() -> None:
    focus = Focus(files={"a.py": 1.0}, is_weak=lambda p: p.startswith("CHANGES"))
    with_changelog = score_item(FakeItem("c", files=("a.py", "CHANGES.rst")), focus, NOW)
    alone = score_item(FakeItem("a", files=("a.py",)), focus, NOW)
    assert with_changelog is not None and alone is not None
    assert with_changelog.score == alone.score


def test_dependents_bring_warnings_not_every_learning() -> None:
    focus = Focus(files={"src/a.py": 1.0}, dependents={"src/b.py": 1, "src/c.py": 2})
    items = [
        FakeItem("far", type="Mistake", files=("src/c.py",)),
        FakeItem("near", type="Pattern", files=("src/b.py",)),
        FakeItem("learning", files=("src/b.py",)),
    ]
    ranked = rank(items, focus, NOW)
    assert ids(ranked) == ["near", "far"]
    assert ranked[0].why == "src/b.py depends on it"


def test_confidence_and_recency_break_ties() -> None:
    old = NOW - timedelta(days=200)
    focus = Focus(files={"src/a.py": 1.0})
    by_confidence = [
        FakeItem("unsure", files=("src/a.py",), confidence=0.2),
        FakeItem("sure", files=("src/a.py",), confidence=0.9),
    ]
    assert ids(rank(by_confidence, focus, NOW)) == ["sure", "unsure"]
    by_age = [
        FakeItem("old", files=("src/a.py",), updated_at=old),
        FakeItem("new", files=("src/a.py",)),
    ]
    assert ids(rank(by_age, focus, NOW)) == ["new", "old"]


def test_weaker_strength_needs_stronger_files() -> None:
    focus = Focus(files={"a.py": MIN_EVIDENCE * 0.9, "b.py": 0.6})
    assert score_item(FakeItem("a", files=("a.py",)), focus, NOW) is None
    assert score_item(FakeItem("b", files=("b.py",)), focus, NOW) is not None


def test_duplicates_are_ranked_once() -> None:
    item = FakeItem("x", files=("src/a.py",))
    assert ids(rank([item, item], FOCUS, NOW)) == ["x"]


def test_a_sweep_over_many_files_is_about_none_of_them() -> None:
    focus = Focus(files={"f0.py": 1.0})
    sweep = FakeItem("sweep", files=tuple(f"f{i}.py" for i in range(21)))
    wide = FakeItem("wide", files=tuple(f"f{i}.py" for i in range(20)))
    assert score_item(sweep, focus, NOW) is None
    scored = score_item(wide, focus, NOW)
    assert scored is not None and scored.via == "f0.py"
