#!/usr/bin/env python
"""Size and render time of ``kgraph viz`` pages for kgraph's own repository.

Builds a throwaway database in a temp folder: kgraph's code graph (``parse_repository`` of
this checkout) and knowledge from its own history: every commit message becomes an item
(``fix`` commits Mistakes, the others Learnings; confidence 0.8 when the capture rules of
``kgraph.capture.sources.commits`` say the message carries knowledge, else 0.5), tied to the files
the commit touched that still exist. kgraph's commit subjects are mostly one long sentence
with the why, which the capture rules (a body, a cause, a decision word) often pass over;
for a picture of the repository every one is kept. Then, for the overview and a few
``--focus`` pages, reports:

- nodes and edges, and whether the page aggregated;
- the HTML file's size;
- Python time to read and build the page (median of ``--runs``);
- time to draw it in headless Chromium (median of ``--runs`` fresh browser runs): the page's
  own ``data-render-ms`` (navigation start to the first frame after the layout) and the
  wall time seen from outside (navigation to ``data-ready``).

Every run also checks the page made no network request and reported no error.

Usage: python scripts/bench_viz.py [--runs 5] [--screenshots docs] [--repo PATH ...]
(``--screenshots DIR`` saves one PNG per page: viz-kgraph-overview.png, viz-kgraph-<focus>.png;
``--repo`` adds another repository, learned as ``kgraph install`` learns it, with its
overview and a focus on the file most items are about)
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import time
from pathlib import Path

from kgraph.capture import history
from kgraph.capture.sources.commit_items import knowledge_reason
from kgraph.capture.sources.commits import commit_content, read_log
from kgraph.codegraph.indexer import parse_repository
from kgraph.db import Database, open_database
from kgraph.knowledge.store import add_item
from kgraph.viz import build_view, write_page
from kgraph.viz.browser import check_page, find_chromium

ROOT = Path(__file__).resolve().parent.parent
FOCUSES = (None, "kgraph/db/core.py", "Database.read", "kgraph/codegraph/query.py::blast_radius")
# Before a screenshot: select the focus (else the first Mistake or Learning) so the side
# panel shows a node's full text and id.
SELECT = """(() => {
  const cy = window.kgraphViz.cy;
  let node = cy.nodes('[role = "focus"]').filter((n) => !n.isParent()).first();
  if (node.empty()) node = cy.nodes('[type = "Mistake"], [type = "Learning"]').first();
  if (node.nonempty()) window.kgraphViz.select(node.id());
})()"""


def learn_from_history(db: Database, root: Path) -> int:
    """Every commit of ``root`` as an item; returns how many were stored."""
    stored = 0
    for commit in read_log(root):
        files = [f for f in commit.files if (root / f).is_file()]
        add_item(
            db,
            commit_content(commit),
            type="mistake" if commit.type == "fix" else "learning",
            confidence=0.5 if knowledge_reason(commit) is None else 0.8,
            files=files,
            source="commit",
            source_ref=commit.sha,
            project_root=root,
        )
        stored += 1
    return stored


def known_file(db: Database, root: Path) -> str | None:
    """The file most items are about (a focus page worth a look), if any."""
    view = build_view(db, project_root=root)
    counts: dict[str, int] = {}
    for node in view.nodes:
        found = re.match(r"([\d,]+) item", dict(node.details).get("knowledge", ""))
        if node.type == "File" and found:
            counts[node.label] = int(found.group(1).replace(",", ""))
    return max(counts, key=lambda p: (counts[p], p)) if counts else None


def build_database(folder: Path, root: Path) -> tuple[Database, str]:
    """A database of ``root``: its code graph, and knowledge from its history (kgraph's own
    every commit, see above; another repository's as ``kgraph install`` learns it)."""
    db = open_database(f"sqlite:///{folder / (root.name + '.db')}")
    started = time.perf_counter()
    report = parse_repository(db, root, root=root)
    parse_s = time.perf_counter() - started
    if root == ROOT:
        items = learn_from_history(db, root)
    else:
        items = history.learn_from_history(db, root).stored
    return db, (
        f"{'kgraph' if root == ROOT else root.name}: {report.scanned} files parsed "
        f"in {parse_s:.1f} s "
        f"({report.entities:,} entities, {report.relationships:,} edges); "
        f"{items} knowledge items from its commits"
    )


def bench(
    db: Database,
    root: Path,
    focuses: tuple[str | None, ...],
    args: argparse.Namespace,
    chromium: str,
    folder: Path,
) -> None:
    print(
        "| page | nodes | edges | HTML | build (Python) | drawn in Chromium (page) "
        "| wall (navigation to ready) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for focus in focuses:
        slug = "overview" if focus is None else focus.rsplit("::", 1)[-1].replace("/", "_")
        builds: list[float] = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            view = build_view(db, focus=focus, project_root=root)
            page = write_page(view, folder / "viz.html")
            builds.append(time.perf_counter() - t0)
        drawn: list[float] = []
        wall: list[float] = []
        for run in range(args.runs):
            shot = None
            if args.screenshots and run == 0:
                name = "kgraph" if root == ROOT else root.name
                shot = args.screenshots / f"viz-{name}-{slug}.png"
            script = SELECT if shot and focus is not None else None
            check = check_page(page.path, screenshot=shot, executable=chromium, script=script)
            if check.requests or check.errors or check.attributes.get("ready") != "1":
                raise SystemExit(f"page failed: {check.requests} {check.errors}")
            if int(check.attributes["nodes"]) != page.nodes:
                raise SystemExit("the page drew another number of nodes than it was given")
            drawn.append(float(check.attributes["renderMs"]))
            wall.append(check.wall_ms)
        name = "overview" if focus is None else f"`--focus {focus}`"
        if page.aggregated:
            name += f" (aggregated from {page.nodes_before_aggregation:,})"
        print(
            f"| {name} | {page.nodes:,} | {page.edges:,} | {page.bytes / 1024:,.0f} KB "
            f"| {statistics.median(builds) * 1000:,.0f} ms "
            f"| {statistics.median(drawn):,.0f} ms | {statistics.median(wall):,.0f} ms |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--screenshots", type=Path, help="save each page's screenshot here")
    parser.add_argument(
        "--repo",
        type=Path,
        action="append",
        default=[],
        help="another git work tree to picture (repeatable): overview and its best-known file",
    )
    args = parser.parse_args()
    chromium = find_chromium()
    if chromium is None:
        raise SystemExit("no Chromium found (Debian: apt-get install -y chromium)")

    with tempfile.TemporaryDirectory(prefix="kgraph-bench-viz-") as tmp:
        folder = Path(tmp)
        for root in [ROOT, *(r.resolve() for r in args.repo)]:
            db, summary = build_database(folder, root)
            print(summary)
            focuses = FOCUSES if root == ROOT else (None, known_file(db, root))
            bench(db, root, focuses, args, chromium, folder)
            db.close()
    if args.screenshots:
        print(f"screenshots in {args.screenshots}")


if __name__ == "__main__":
    main()
