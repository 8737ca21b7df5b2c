"""The Java call-graph cases (``tests/codegraph/cases_java``), scored as the Python and Go
ones are: each case's exported call graph against its ``callgraph.json`` (see that
folder's README), and precision >= 0.95, recall >= 0.9 over all edges."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from kgraph.codegraph.export import export_callgraph
from kgraph.codegraph.indexer import parse_repository
from kgraph.db import Database, open_database
from tests.codegraph.conftest import HERE
from tests.conftest import backend_url

CASES_DIR = HERE / "cases_java"
CASES = sorted(p.name for p in CASES_DIR.iterdir() if (p / "callgraph.json").is_file())
KNOWN_LIMITATIONS = {
    "enums": "what an external method returns is not known: name().toLowerCase() stops at name()",
}
Edge = tuple[str, str]


def _edges(graph: dict[str, list[str]]) -> set[Edge]:
    return {(caller, callee) for caller, callees in graph.items() for callee in callees}


@pytest.fixture(scope="module")
def cases_db(
    request: pytest.FixtureRequest, backend: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Database]:
    database = open_database(
        backend_url(request, backend, tmp_path_factory.mktemp("cases_java") / "cases.db")
    )
    report = parse_repository(database, CASES_DIR, root=CASES_DIR, jobs=1)
    assert (report.files_with_errors, report.failed) == (0, 0)
    yield database
    database.close()


def _score(db: Database, case: str) -> tuple[set[Edge], set[Edge], set[Edge]]:
    found = _edges(export_callgraph(db, case))
    expected = _edges(json.loads((CASES_DIR / case / "callgraph.json").read_text()))
    return found & expected, found - expected, expected - found


def test_at_least_20_cases_in_categories() -> None:
    categories = json.loads((CASES_DIR / "categories.json").read_text())
    assert sorted(c for cases in categories.values() for c in cases) == CASES
    assert len(CASES) >= 20


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, marks=pytest.mark.xfail(reason=KNOWN_LIMITATIONS[c], strict=True))
        if c in KNOWN_LIMITATIONS
        else c
        for c in CASES
    ],
)
def test_case_is_exact(cases_db: Database, case: str) -> None:
    _tp, false_positives, false_negatives = _score(cases_db, case)
    assert (sorted(false_positives), sorted(false_negatives)) == ([], [])


def test_precision_and_recall_over_all_edges(cases_db: Database) -> None:
    tp = fp = fn = 0
    for case in CASES:
        found, wrong, missing = _score(cases_db, case)
        tp, fp, fn = tp + len(found), fp + len(wrong), fn + len(missing)
    assert tp / (tp + fp) >= 0.95
    assert tp / (tp + fn) >= 0.90
