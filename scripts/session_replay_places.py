"""How useful an injected item was by its place in the block a hook printed.

Reads the JSON of one or more ``session_replay.py --json`` runs and the verdicts files that
judge them, and counts useful / irrelevant / junk per trigger (a prompt, a Read, an Edit)
and place (first, second, third and later), over the sessions after the first. This is
the reading behind the hooks' item caps (``user_prompt_max_items``,
``file_recall_max_items``): a second place that never helps is a place to leave empty.

Example:
    python scripts/session_replay_places.py dev.json entireio.json napoli.json \\
        --verdicts scripts/session_replay_verdicts.json \\
        --verdicts scripts/session_replay_verdicts_dev2.json
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from session_replay_report import VERDICTS, load_verdicts, verdict_of

PLACES = ("1st", "2nd", "3rd and later")
TRIGGERS = ("prompt", "Read", "Edit")


def count(runs: list[dict[str, object]], verdicts: dict[str, object]) -> Counter[tuple[str, ...]]:
    """(trigger, place, verdict) -> items, over each run's sessions after the first."""
    counts: Counter[tuple[str, ...]] = Counter()
    for run in runs:
        sessions = run["sessions"]
        assert isinstance(sessions, list)
        for session in sessions[1:]:
            placed: Counter[str] = Counter()
            for item in session["items"]:
                trigger = item["trigger"].split(" ")[0]
                place = PLACES[min(placed[item["trigger"]], len(PLACES) - 1)]
                placed[item["trigger"]] += 1
                key = f"{session['session_id'][:8]}:{item['key']}"
                verdict = verdict_of(verdicts, key) or "unjudged"  # type: ignore[arg-type]
                counts[(trigger, place, verdict)] += 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="session_replay.py --json output")
    parser.add_argument("--verdicts", action="append", type=Path, required=True)
    args = parser.parse_args()
    verdicts: dict[str, object] = {}
    for path in args.verdicts:
        verdicts.update(load_verdicts(path))
    counts = count([json.loads(p.read_text(encoding="utf-8")) for p in args.runs], verdicts)
    columns = (*VERDICTS, "unjudged")
    print(f"{'trigger':8} {'place':14} " + " ".join(f"{c:>10}" for c in columns))
    for trigger in TRIGGERS:
        for place in PLACES:
            row = [counts[(trigger, place, c)] for c in columns]
            if any(row):
                print(f"{trigger:8} {place:14} " + " ".join(f"{n:>10}" for n in row))


if __name__ == "__main__":
    main()
