"""The call-graph case suite, scored like public Python call-graph benchmarks (PyCG's format).

Each folder of ``cases/`` holds ``main.py`` (and the modules it imports) and
``callgraph.json``, the expected adjacency list (see ``cases/README.md``). All cases are
parsed into one database; ``export_callgraph(db, root=<case>)`` must reproduce each case's
edges. The aggregate test holds the thresholds (precision >= 0.97, recall >= 0.90 over all
edges) and prints the per-case table; the per-case tests show which cases are exact, with the
known limitations marked xfail (strict: fixing one makes the test say so).

``test_expectations_match_runtime`` keeps the expectations honest: it runs every executable
case under a profiler (``trace_case.py``) and checks that, for every function that ran, the
expected callees are exactly the ones Python called (external modules and builtin classes
aside, which the profiler cannot name the same way).
"""

from __future__ import annotations

import builtins
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgraph.codegraph.export import export_callgraph
from kgraph.codegraph.indexer import parse_repository
from kgraph.db import Database, open_database
from tests.codegraph.conftest import CASES_DIR, HERE
from tests.conftest import backend_url

CASES = sorted(p.name for p in CASES_DIR.iterdir() if (p / "callgraph.json").is_file())
KNOWN_LIMITATIONS = {
    "mro_diamond": "super() follows the MRO of the class it is written in, not the instance's",
}
Edge = tuple[str, str]


def _edges(graph: dict[str, list[str]]) -> set[Edge]:
    return {(caller, callee) for caller, callees in graph.items() for callee in callees}


def _expected(case: str) -> set[Edge]:
    return _edges(json.loads((CASES_DIR / case / "callgraph.json").read_text()))


@pytest.fixture(scope="module")
def cases_db(
    request: pytest.FixtureRequest, backend: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Database]:
    database = open_database(
        backend_url(request, backend, tmp_path_factory.mktemp("cases") / "cases.db")
    )
    report = parse_repository(database, CASES_DIR, root=CASES_DIR, jobs=1)
    assert report.scanned >= 40
    yield database
    database.close()


def _score(db: Database, case: str) -> tuple[set[Edge], set[Edge], set[Edge]]:
    """(true positives, false positives, false negatives) of one case."""
    found = _edges(export_callgraph(db, case))
    expected = _expected(case)
    return found & expected, found - expected, expected - found


def test_suite_covers_at_least_40_cases() -> None:
    assert len(CASES) >= 40


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
    totals = [0, 0, 0]
    lines = [f"{'case':40} {'tp':>4} {'fp':>4} {'fn':>4}"]
    for case in CASES:
        tp, fp, fn = _score(cases_db, case)
        totals = [totals[0] + len(tp), totals[1] + len(fp), totals[2] + len(fn)]
        lines.append(f"{case:40} {len(tp):4} {len(fp):4} {len(fn):4}")
    precision = totals[0] / (totals[0] + totals[1])
    recall = totals[0] / (totals[0] + totals[2])
    lines.append(
        f"{'ALL':40} {totals[0]:4} {totals[1]:4} {totals[2]:4}  "
        f"precision {precision:.3f} recall {recall:.3f}"
    )
    print("\n" + "\n".join(lines))
    assert precision >= 0.97
    assert recall >= 0.90


def _comparable(edge: Edge, case_dir: Path) -> bool:
    """Edges the runtime trace can see: into the case's own modules, or builtin functions."""
    callee = edge[1]
    if callee.startswith("<builtin>."):
        return not isinstance(getattr(builtins, callee[len("<builtin>.") :], None), type)
    head = callee.split(".")[0]
    return (case_dir / f"{head}.py").is_file() or (case_dir / head).is_dir()


@pytest.mark.parametrize("case", [c for c in CASES if not (CASES_DIR / c / "STATIC_ONLY").exists()])
def test_expectations_match_runtime(case: str, tmp_path: Path) -> None:
    case_dir = CASES_DIR / case
    output = tmp_path / "trace.json"
    proc = subprocess.run(
        [sys.executable, str(HERE / "trace_case.py"), str(case_dir), str(output)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    trace = json.loads(output.read_text())
    observed = _edges(trace["edges"])
    ran = set(trace["ran"])
    expected = {e for e in _expected(case) if e[0] in ran and _comparable(e, case_dir)}
    assert observed == expected
