"""Score the call graph on the project's cases, per category (precision, recall, exact cases).

    python scripts/score_callgraph_cases.py [--code CHECKOUT] [--cases DIR ...] [--misses] [--json]

Parses every case of a corpus (one folder each: ``main.py`` and the modules it imports,
``callgraph.json`` the expected adjacency list in PyCG's format) into a scratch database,
exports each case's call graph and compares it edge by edge with the expectation.
Categories come from the corpus's ``categories.json``. The corpora are one per language:
``tests/codegraph/cases/`` (Python) and ``tests/codegraph/cases_<language>/`` (``cases_go``:
``main.go``...; ``cases_js``, ``cases_ts``: ``main.js``, ``main.ts``); all are scored, a
table each, unless ``--cases`` names some. ``--code`` scores another checkout of kgraph on
the same cases (a before/after table for a change: ``git worktree add /tmp/before
<commit>``); ``--misses`` lists every wrong and missing edge. ``--json`` prints the first
corpus's ``categories`` and ``misses`` at the top level (as before there were others), and
every corpus's under ``corpora``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
Edge = tuple[str, str]


def _edges(graph: dict[str, list[str]]) -> set[Edge]:
    return {(caller, callee) for caller, callees in graph.items() for callee in callees}


def score(cases_dir: Path) -> dict[str, tuple[set[Edge], set[Edge], set[Edge]]]:
    """Case -> (true positives, false positives, false negatives)."""
    from kgraph.codegraph.export import export_callgraph
    from kgraph.codegraph.indexer import parse_repository
    from kgraph.db import open_database

    cases = sorted(p.name for p in cases_dir.iterdir() if (p / "callgraph.json").is_file())
    with tempfile.TemporaryDirectory() as folder:
        db = open_database(f"sqlite:///{folder}/cases.db")
        try:
            parse_repository(db, cases_dir, root=cases_dir, jobs=1)
            result = {}
            for case in cases:
                found = _edges(export_callgraph(db, case))
                expected = _edges(json.loads((cases_dir / case / "callgraph.json").read_text()))
                result[case] = (found & expected, found - expected, expected - found)
        finally:
            db.close()
    return result


class CategoryScore(NamedTuple):
    category: str
    cases: int
    exact: int  # cases whose graph is exactly the expected one
    tp: int
    fp: int
    fn: int
    precision: float
    recall: float


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 1.0


def table(
    scores: dict[str, tuple[set[Edge], set[Edge], set[Edge]]], categories: dict[str, str]
) -> list[CategoryScore]:
    """One row per category (sorted), then the total ("ALL")."""
    rows: dict[str, list[int]] = {}
    for case, (tp, fp, fn) in scores.items():
        for key in (categories.get(case, "uncategorised"), "ALL"):
            row = rows.setdefault(key, [0, 0, 0, 0, 0])
            row[0] += 1
            row[1] += int(not fp and not fn)
            row[2] += len(tp)
            row[3] += len(fp)
            row[4] += len(fn)
    ordered = [*sorted(k for k in rows if k != "ALL"), "ALL"]
    return [
        CategoryScore(
            key,
            *rows[key],
            round(_ratio(rows[key][2], rows[key][2] + rows[key][3]), 3),
            round(_ratio(rows[key][2], rows[key][2] + rows[key][4]), 3),
        )
        for key in ordered
    ]


def corpora() -> list[Path]:
    """The corpora, Python's first: ``cases`` and every ``cases_<language>``."""
    folder = ROOT / "tests" / "codegraph"
    return [folder / "cases", *sorted(folder.glob("cases_*"))]


def language(cases: Path) -> str:
    return cases.name.partition("_")[2] or "python"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", type=Path, default=ROOT, help="kgraph checkout to score")
    parser.add_argument("--cases", type=Path, nargs="+", default=corpora())
    parser.add_argument("--misses", action="store_true", help="list wrong and missing edges")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(args.code.resolve()))
    results: dict[str, Any] = {}
    for cases in args.cases:
        mapping = json.loads((cases / "categories.json").read_text())
        categories = {case: name for name, names in mapping.items() for case in names}
        scores = score(cases.resolve())
        rows = table(scores, categories)
        misses: dict[str, Any] = {
            case: {"wrong": sorted(fp), "missing": sorted(fn)}
            for case, (_tp, fp, fn) in scores.items()
            if fp or fn
        }
        results[language(cases)] = {"categories": [r._asdict() for r in rows], "misses": misses}
        if args.json:
            continue
        if len(args.cases) > 1:
            shown = cases.relative_to(ROOT) if cases.is_relative_to(ROOT) else cases
            print(f"{language(cases)} ({shown})")
        width = max(14, *(len(r.category) for r in rows))
        print(
            f"{'category':{width}} {'cases':>5} {'exact':>5} {'tp':>4} {'fp':>4} {'fn':>4} "
            "prec.  recall"
        )
        for r in rows:
            print(
                f"{r.category:{width}} {r.cases:5} {r.exact:5} {r.tp:4} {r.fp:4} {r.fn:4} "
                f"{r.precision:6.3f} {r.recall:6.3f}"
            )
        if args.misses:
            for case, (_tp, fp, fn) in scores.items():
                for caller, callee in sorted(fp):
                    print(f"  {case}: wrong   {caller} -> {callee}")
                for caller, callee in sorted(fn):
                    print(f"  {case}: missing {caller} -> {callee}")
    if args.json:
        first = next(iter(results.values()))
        print(json.dumps({**first, "corpora": results}, indent=2))


if __name__ == "__main__":
    main()
