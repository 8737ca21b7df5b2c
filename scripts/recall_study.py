"""Would another ranking of the stored items have served a replayed session's prompts?

A recall study starts from a replay kept on disk (``session_replay.py ... --keep DIR``)::

    python scripts/recall_study.py DIR FOLDER --pool pairs.json         # what judges read
    python scripts/recall_study.py DIR FOLDER --verdicts verdicts.json  # counts per ranking
    python scripts/recall_study.py DIR FOLDER \
        --labels scripts/session_replay_recall_unseen14.json

For every prompt of each session but the first (or of each labelled session), each
ranking puts forward its best ``--k`` items among the visible ones stored before the
session began (``created_at``: roughly the replay's memory then, without its stale and
recency checks):

- ``hook``: kgraph's prompt ranking (:func:`kgraph.recall.prompt_ranked`), as the prompt
  hook ranks before it fits the block;
- ``bm25``: the FTS5 index's best matches for the prompt's significant words, no floor;
- ``meaning>=C`` (with ``--model``): MiniLM cosine to the prompt, the best ``k`` at or
  above each floor of ``--cosine`` (loads the model: about 10 s).

``--pool`` writes every (session, item) pair a ranking put forward, keyed ``<session
prefix>:<item id>``, with the prompt that first brought it and not which ranking did:
judges read them blind. ``--verdicts`` (key -> {"verdict": useful | irrelevant | junk})
counts each ranking's pairs by verdict. ``--labels`` (session prefix -> [{"id": item id}],
what a judge said each session needed) counts the labelled pairs each ranking reached.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from session_replay_lib import Prompt, read_plan

from kgraph.db.reader import ReadConnection, open_reader, parse_time
from kgraph.recall import items as recall
from kgraph.recall.evidence import load_evidence_settings
from kgraph.recall.prompt import prompt_ranked
from kgraph.recall.words import significant_terms

MIN_PROMPT = 25  # "push", "yes", "merged, ff main": no ranking has anything to go on
Ranking = Callable[[str, frozenset[str]], list[str]]


@dataclass(frozen=True)
class Session:
    prefix: str
    started: datetime
    prompts: tuple[str, ...]
    transcript: Path


# (session prefix, item id) -> the prompt that first brought it, per ranking
Shown = dict[str, dict[tuple[str, str], str]]


def _visible(conn: ReadConnection, column: str) -> list[tuple[str, object]]:
    """(id, ``column``) of every visible knowledge item."""
    rows = conn.execute(
        f"SELECT id, {column} FROM entities WHERE hidden_at IS NULL "
        "AND type IN ('Learning', 'Pattern', 'Mistake', 'Decision')"
    ).fetchall()
    return [(str(item_id), value) for item_id, value in rows]


def stored_before(conn: ReadConnection) -> dict[str, datetime]:
    """Visible item id -> when it was stored."""
    rows = _visible(conn, "created_at")
    return {i: t for i, c in rows if (t := parse_time(c)) is not None}


def hook_ranking(conn: ReadConnection, root: Path, k: int) -> Ranking:
    settings = load_evidence_settings(root)

    def rank(prompt: str, allowed: frozenset[str]) -> list[str]:
        found = prompt_ranked(conn, prompt, settings=settings, exclude=set())
        return [r.item.id for r in found if r.item.id in allowed][:k]

    return rank


def bm25_ranking(conn: ReadConnection, k: int) -> Ranking:
    def rank(prompt: str, allowed: frozenset[str]) -> list[str]:
        query = " ".join(significant_terms(prompt)[:30])
        return [i for i in recall.lexical_ids(conn, query, 200) if i in allowed][:k]

    return rank


def meaning_rankings(conn: ReadConnection, k: int, floors: Sequence[float]) -> dict[str, Ranking]:
    import numpy as np

    from kgraph.embeddings.sentence import load_minilm

    model = load_minilm()
    rows = _visible(conn, "content")
    ids = [item_id for item_id, _ in rows]
    vectors = model.embed(
        [str(text) for _, text in rows]
    )  # the model, not the replay's fake vectors
    vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    def at(floor: float) -> Ranking:
        def rank(prompt: str, allowed: frozenset[str]) -> list[str]:
            query = model.embed([prompt])[0]
            scores = vectors @ (query / np.linalg.norm(query))
            order = [int(n) for n in np.argsort(-scores) if ids[int(n)] in allowed]
            return [ids[n] for n in order[:k] if scores[n] >= floor]

        return rank

    return {f"meaning>={floor:.2f}": at(floor) for floor in floors}


def study(
    sessions: Sequence[Session], stored: dict[str, datetime], rankings: dict[str, Ranking]
) -> Shown:
    """What each ranking puts forward to each session, once per item."""
    shown: Shown = {name: {} for name in rankings}
    for session in sessions:
        allowed = frozenset(i for i, when in stored.items() if when < session.started)
        for name, rank in rankings.items():
            for prompt in session.prompts:
                for item_id in rank(prompt, allowed):
                    shown[name].setdefault((session.prefix, item_id), prompt)
    return shown


def read_sessions(folder: Path, prefixes: Sequence[str] = ()) -> list[Session]:
    """The sessions named by ``prefixes``, or every session of ``folder`` but the earliest
    (its memory is only the history), oldest first."""
    found = []
    for transcript in sorted(folder.glob("*.jsonl")):
        plan = read_plan(transcript)
        if plan is None:
            continue
        named = next((p for p in prefixes if plan.session_id.startswith(p)), None)
        if prefixes and named is None:
            continue
        texts = [s.text for s in plan.steps if isinstance(s, Prompt)]
        prompts = tuple(t for t in texts if len(t.strip()) >= MIN_PROMPT)
        found.append(Session(named or plan.prefix, plan.started, prompts, transcript))
    found.sort(key=lambda s: s.started)
    return found if prefixes else found[1:]


def pool(
    conn: ReadConnection, shown: Shown, sessions: Sequence[Session]
) -> dict[str, dict[str, str]]:
    """Every pair some ranking put forward, for judges who must not know which."""
    transcripts = {s.prefix: str(s.transcript) for s in sessions}
    first: dict[tuple[str, str], str] = {}
    for pairs in shown.values():
        for pair, prompt in pairs.items():
            first.setdefault(pair, prompt)
    texts = recall.item_texts(conn, sorted({item for _, item in first}))
    return {
        f"{session}:{item}": {
            "transcript": transcripts[session],
            "prompt": prompt[:600],
            "item": texts.get(item, ""),
        }
        for (session, item), prompt in sorted(first.items())
    }


def report(shown: Shown, verdicts: dict[str, str], labels: dict[str, set[str]]) -> list[str]:
    kinds = ("useful", "irrelevant", "junk", "unjudged")
    head = f"{'ranking':<16}{'shown':>6}" + "".join(f"{k:>11}" for k in kinds)
    lines = [head + ("    labelled reached" if labels else "")]
    for name, pairs in shown.items():
        counts = Counter(verdicts.get(f"{s}:{i}", "unjudged") for s, i in pairs)
        line = f"{name:<16}{len(pairs):>6}" + "".join(f"{counts[k]:>11}" for k in kinds)
        if labels:
            line += f"{sum(1 for s, i in pairs if i in labels.get(s, ())):>20}"
        lines.append(line)
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("keep", type=Path, help="a replay's --keep folder (replay.db, clone/)")
    parser.add_argument("sessions", type=Path, help="the folder of the replayed transcripts")
    parser.add_argument("--labels", type=Path, help="JSON: session prefix -> [{id: item}]")
    parser.add_argument("--verdicts", type=Path, help="JSON: session:item -> {verdict}")
    parser.add_argument("--pool", type=Path, help="write the pairs to judge here (JSON)")
    parser.add_argument("--k", type=int, default=1, help="items a prompt may bring (default 1)")
    parser.add_argument("--model", action="store_true", help="add MiniLM cosine rankings")
    parser.add_argument("--cosine", type=float, nargs="+", default=[0.4, 0.5])
    args = parser.parse_args(argv)
    conn = open_reader(args.keep / "replay.db")
    if conn is None:
        parser.error(f"no replay.db in {args.keep}")
    labels: dict[str, set[str]] = {}
    if args.labels:
        data = json.loads(args.labels.read_text())
        labels = {p: {x["id"] for x in v} for p, v in data.items()}
    sessions = read_sessions(args.sessions, sorted(labels))
    if missing := sorted(set(labels) - {s.prefix for s in sessions}):
        parser.error(f"no transcript for {', '.join(missing)} in {args.sessions}")
    rankings = {
        "hook": hook_ranking(conn, args.keep / "clone", args.k),
        "bm25": bm25_ranking(conn, args.k),
    }
    if args.model:
        rankings.update(meaning_rankings(conn, args.k, args.cosine))
    shown = study(sessions, stored_before(conn), rankings)
    if args.pool:
        if args.pool.exists() and not args.pool.is_file():
            parser.error(f"{args.pool} is not a regular file")
        args.pool.write_text(json.dumps(pool(conn, shown, sessions), indent=1) + "\n")
    verdicts: dict[str, str] = {}
    if args.verdicts:
        data = json.loads(args.verdicts.read_text())
        verdicts = {k: str(v["verdict"]) for k, v in data.items()}
    labelled = sum(len(v) for v in labels.values())
    print(
        f"{len(sessions)} sessions, {sum(len(s.prompts) for s in sessions)} prompts, "
        f"k = {args.k}" + (f", {labelled} labelled pairs" if labels else "")
    )
    print("\n".join(report(shown, verdicts, labels)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
