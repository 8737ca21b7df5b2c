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

Usage: python scripts/bench_viz.py [--runs 5] [--screenshots docs]
(``--screenshots DIR`` saves one PNG per page: viz-kgraph-overview.png, viz-kgraph-<focus>.png)
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from kgraph.capture.sources.commits import commit_content, knowledge_reason, parse_log
from kgraph.codegraph.indexer import parse_repository
from kgraph.db import Database, open_database
from kgraph.knowledge.store import add_item
from kgraph.viz import build_view, write_page
from kgraph.viz.browser import check_page, find_chromium

ROOT = Path(__file__).resolve().parent.parent
FOCUSES = (None, "kgraph/db/core.py", "Database.read", "blast_radius")
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
    log = subprocess.run(
        ["git", "log", "--no-merges", "--name-only", "--format=%x1e%H%x1f%B%x1f"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    stored = 0
    for commit in parse_log(log):
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--screenshots", type=Path, help="save each page's screenshot here")
    args = parser.parse_args()
    chromium = find_chromium()
    if chromium is None:
        raise SystemExit("no Chromium found (Debian: apt-get install -y chromium)")

    with tempfile.TemporaryDirectory(prefix="kgraph-bench-viz-") as tmp:
        folder = Path(tmp)
        db = open_database(f"sqlite:///{folder / 'kgraph.db'}")
        started = time.perf_counter()
        report = parse_repository(db, ROOT, root=ROOT)
        parse_s = time.perf_counter() - started
        items = learn_from_history(db, ROOT)
        print(
            f"kgraph at {ROOT.name}: {report.scanned} files parsed in {parse_s:.1f} s "
            f"({report.entities:,} entities, {report.relationships:,} edges); "
            f"{items} knowledge items from its commits"
        )
        print(
            "| page | nodes | edges | HTML | build (Python) | drawn in Chromium (page) "
            "| wall (navigation to ready) |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|")
        for focus in FOCUSES:
            slug = "overview" if focus is None else focus.replace("/", "_")
            builds: list[float] = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                view = build_view(db, focus=focus, project_root=ROOT)
                page = write_page(view, folder / "viz.html")
                builds.append(time.perf_counter() - t0)
            drawn: list[float] = []
            wall: list[float] = []
            for run in range(args.runs):
                shot = None
                if args.screenshots and run == 0:
                    shot = args.screenshots / f"viz-kgraph-{slug}.png"
                script = SELECT if shot else None
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
        db.close()
    if args.screenshots:
        print(f"screenshots in {args.screenshots}")


if __name__ == "__main__":
    main()
