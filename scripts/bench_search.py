"""Benchmark knowledge search at 1K / 10K / 100K learnings.

For each size a temporary database is filled with synthetic learnings (sentences from a
2,000-word vocabulary, each tied to one of 500 files in 25 code areas) that already carry
384-dimensional float32 vectors (random, L2-normalised) recorded under the fake embedder's
model name, so the hybrid search runs its full vector path without torch. It reports:

- in-process median time of ``kgraph.knowledge.search`` (hybrid: FTS5 + vectors + graph),
  of the lexical-only search (``embedder=None``), and of a plain FTS5 query
  (``SELECT entity_id FROM entities_fts WHERE entities_fts MATCH ? ORDER BY rank LIMIT 10``);
- whole-process median time of ``kgraph search QUERY --json`` beside a whole-process plain
  FTS5 query (``python -c`` with sqlite3 only);

with the ratios hybrid/FTS5 and the growth per size. "hybrid" is the warm median (the
vector matrix is kept in memory between queries of one process while the database is
unchanged); "uncached" clears that cache before every query, which is what the first query
of each process (e.g. every ``kgraph search``) pays. Usage::

    python scripts/bench_search.py                  # 1000 10000 100000
    python scripts/bench_search.py --sizes 10000 --queries 30 --runs 5
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from sqlalchemy import insert

from kgraph.db import open_database
from kgraph.embeddings import FAKE_MODEL_NAME, get_embedder, pack
from kgraph.knowledge import vectors
from kgraph.knowledge.model import content_hash, entity_id
from kgraph.knowledge.records import ENTITIES, RELATIONSHIPS
from kgraph.knowledge.search import search

DIM = 384
AREAS = [f"Area{i:02d}" for i in range(25)]
FILES = [f"src/area{i % 25:02d}/module_{i:03d}.py" for i in range(500)]
QUERIES = [
    "how do we log requests",
    "database session leak",
    "retry on locked database",
    "validate input before saving",
    "cache invalidation bug",
    "timeout when calling the payment api",
    "migration order matters",
    "use structured logging",
]


def vocabulary(rng: random.Random, size: int = 2000) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = {"".join(rng.choice(letters) for _ in range(rng.randint(3, 9))) for _ in range(size)}
    common = [
        "log",
        "logging",
        "request",
        "database",
        "session",
        "retry",
        "cache",
        "api",
        "timeout",
        "migration",
    ]
    return sorted(words) + common * 5


def populate(db_path: Path | str, n: int, seed: int = 7, text_vectors: bool = False) -> None:
    """Fill the database at ``db_path`` (a file, or a URL) with ``n`` learnings (vectors
    included: random ones, or with ``text_vectors`` the fake embedder's vectors of their
    texts, so that queries find neighbours as with a real model)."""
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    words = vocabulary(rng)
    db = open_database(db_path if isinstance(db_path, str) else f"sqlite:///{db_path}")
    now = datetime.now(UTC)
    structural = []
    for name in AREAS:
        structural.append(("CodeArea", name))
    for path in FILES:
        structural.append(("File", path))
    ent_rows = [
        {
            "id": entity_id(t, name),
            "type": t,
            "content": name,
            "content_hash": content_hash(name, t),
            "data": {},
            "confidence": 1.0,
            "source": "manual",
            "seen_count": 1,
            "created_at": now,
            "updated_at": now,
        }
        for t, name in structural
    ]
    edge_rows = [
        {
            "from_id": entity_id("File", p),
            "to_id": entity_id("CodeArea", AREAS[i % 25]),
            "type": "ABOUT",
            "created_at": now,
        }
        for i, p in enumerate(FILES)
    ]

    def write_structure(conn):  # type: ignore[no-untyped-def]
        conn.execute(insert(ENTITIES), ent_rows)
        conn.execute(insert(RELATIONSHIPS), edge_rows)

    db.write(write_structure)
    batch = 5000
    for start in range(0, n, batch):
        count = min(batch, n - start)
        vectors = nrng.standard_normal((count, DIM)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        texts: list[str] = []
        file_indexes: list[int] = []
        for k in range(count):
            number = start + k
            texts.append(
                " ".join(rng.choice(words) for _ in range(rng.randint(8, 24))) + f" #{number}"
            )
            file_indexes.append(rng.randrange(len(FILES)))
        if text_vectors:
            vectors = get_embedder("fake").embed(texts)
        rows = []
        edges = []
        for k in range(count):
            number = start + k
            text = texts[k]
            digest = content_hash(text)
            item_id = f"lrn-{digest[:10]}"
            file_index = file_indexes[k]
            rows.append(
                {
                    "id": item_id,
                    "type": "Learning",
                    "content": text,
                    "content_hash": digest,
                    "data": {},
                    "confidence": rng.uniform(0.3, 1.0),
                    "source": "manual",
                    "seen_count": 1,
                    "created_at": now - timedelta(seconds=number),
                    "updated_at": now - timedelta(seconds=number),
                    "embedding": pack(vectors[k]),
                    "embedding_model": FAKE_MODEL_NAME,
                    "embedding_dim": DIM,
                    "embedding_hash": digest,
                }
            )
            edges.append(
                {
                    "from_id": item_id,
                    "to_id": entity_id("File", FILES[file_index]),
                    "type": "IN_FILE",
                    "created_at": now,
                }
            )
            edges.append(
                {
                    "from_id": item_id,
                    "to_id": entity_id("CodeArea", AREAS[file_index % 25]),
                    "type": "ABOUT",
                    "created_at": now,
                }
            )

        def write(conn, rows=rows, edges=edges):  # type: ignore[no-untyped-def]
            conn.execute(insert(ENTITIES), rows)
            conn.execute(insert(RELATIONSHIPS), edges)

        db.write(write)
    if db.dialect == "postgresql":  # statistics, as autovacuum leaves a filled table
        db.write(lambda conn: conn.exec_driver_sql("ANALYZE"))
    db.close()


def median_ms(fn, repeat: int, clock=time.perf_counter) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = clock()
        fn()
        times.append((clock() - start) * 1000)
    return statistics.median(times)


def in_process(db_path: Path, queries: int) -> dict[str, float]:
    db = open_database(f"sqlite:///{db_path}")
    embedder = get_embedder("fake")
    qs = [QUERIES[i % len(QUERIES)] for i in range(queries)]
    search(db, qs[0], embedder=embedder)  # warm caches/imports once
    hybrid = statistics.median(
        [median_ms(lambda q=q: search(db, q, embedder=embedder), 1) for q in qs]
    )
    # CPU time of this process: less sensitive to other load on the machine than wall time.
    cpu = statistics.median(
        [median_ms(lambda q=q: search(db, q, embedder=embedder), 1, time.process_time) for q in qs]
    )
    lexical = statistics.median([median_ms(lambda q=q: search(db, q), 1) for q in qs])

    def uncached(q: str) -> None:
        vectors._cache.clear()  # what the first query of a process pays
        search(db, q, embedder=embedder)

    cold = statistics.median([median_ms(lambda q=q: uncached(q), 1) for q in qs])
    raw = sqlite3.connect(str(db_path))

    def fts(q: str) -> None:
        words = " OR ".join(f'"{w}"' for w in q.split())
        raw.execute(
            "SELECT entity_id FROM entities_fts WHERE entities_fts MATCH ? ORDER BY rank LIMIT 10",
            (words,),
        ).fetchall()

    plain = statistics.median([median_ms(lambda q=q: fts(q), 1) for q in qs])
    raw.close()
    db.close()
    return {"hybrid": hybrid, "cpu": cpu, "cold": cold, "lexical": lexical, "fts5": plain}


def whole_process(db_path: Path, runs: int) -> dict[str, float]:
    env = {**os.environ, "KGRAPH_DB": str(db_path), "KGRAPH_EMBEDDER": "fake"}
    cli = [sys.executable, "-m", "kgraph.cli.main", "search", QUERIES[0], "--json"]
    fts = [
        sys.executable,
        "-c",
        "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); "
        'print(c.execute("SELECT entity_id FROM entities_fts WHERE entities_fts MATCH ? '
        'ORDER BY rank LIMIT 10", (\'"log" OR "requests"\',)).fetchall())',
        str(db_path),
    ]

    def run(cmd: list[str]) -> None:
        subprocess.run(cmd, env=env, check=True, capture_output=True)

    run(cli)
    return {
        "cli": median_ms(lambda: run(cli), runs),
        "fts5_process": median_ms(lambda: run(fts), runs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--queries", type=int, default=24, help="queries per in-process median")
    parser.add_argument("--runs", type=int, default=5, help="runs per whole-process median")
    args = parser.parse_args()
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, dim {DIM}, "
        f"load average {os.getloadavg()[0]:.2f} at start"
    )
    header = (
        f"{'items':>8} {'hybrid ms':>10} {'(cpu ms)':>9} {'uncached ms':>12} {'lexical ms':>11} "
        f"{'fts5 ms':>8} {'hyb/fts5':>9} {'cli ms':>8} {'fts5 proc ms':>13} {'cli/fts5':>9}"
    )
    print(header)
    previous: tuple[int, float, float] | None = None
    growth = []
    for n in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "bench.db"
            populate(path, n)
            inproc = in_process(path, args.queries)
            proc = whole_process(path, args.runs)
        print(
            f"{n:>8} {inproc['hybrid']:>10.2f} {inproc['cpu']:>9.2f} {inproc['cold']:>12.2f} "
            f"{inproc['lexical']:>11.2f} "
            f"{inproc['fts5']:>8.2f} "
            f"{inproc['hybrid'] / inproc['fts5']:>9.1f} {proc['cli']:>8.0f} "
            f"{proc['fts5_process']:>13.0f} {proc['cli'] / proc['fts5_process']:>9.1f}"
        )
        if previous is not None:
            growth.append(
                f"{previous[0]}->{n}: items x{n / previous[0]:.0f}, "
                f"hybrid x{inproc['hybrid'] / previous[1]:.1f}, "
                f"uncached x{inproc['cold'] / previous[2]:.1f}"
            )
        previous = (n, inproc["hybrid"], inproc["cold"])
    for line in growth:
        print("growth", line)
    print(f"load average {os.getloadavg()[0]:.2f} at end (2 CPUs: above ~1 means contention)")


if __name__ == "__main__":
    main()
