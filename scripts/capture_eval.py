"""What automatic capture stores from real sessions, item by item, for judging by hand.

For each ``*.jsonl`` transcript in FOLDER (default ``../shared/transcripts/capture-dev/``
from the repo root) a throwaway project is made (temp git repo with one empty commit, temp
database; see ``capture_run.py``), the session-end capture is queued as the SessionEnd hook
queues it and the real worker applies it. Then every stored knowledge item is listed with a
stable key (a hash of its type and text), its files, areas, source and confidence. Checks:
no stored item or session row holds an absolute home path; capturing the same session again
creates nothing.

Verdicts are written by a person, in ``scripts/capture_eval_verdicts.json``:
``{"<key>": {"verdict": "knowledge"|"partial"|"junk", "lessons": ["1.3"], "note": "..."}}``.
``--write-template`` adds the keys not in the file yet (verdict null) and changes nothing
else. For the transcripts ``LESSONS.md`` labels, each item shows the two lessons it most
likely covers ("proposed: 1.3 (0.42)", see ``capture_eval_lessons.py``) — hints to read
first; coverage counts only the lessons a verdict names.

Usage:
    python scripts/capture_eval.py                      # all 15 capture-dev transcripts
    python scripts/capture_eval.py --only 1c38 --json
    python scripts/capture_eval.py --write-template     # add new item keys for judging
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import textwrap
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from capture_eval_lessons import LessonIndex, parse_lessons
from capture_eval_summary import (
    EvalItem,
    TranscriptResult,
    Verdict,
    item_key,
    load_verdicts,
    summarise,
    write_template,
)
from capture_run import make_project, run_session_end

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FOLDER = REPO_ROOT.parent / "shared" / "transcripts" / "capture-dev"
DEFAULT_VERDICTS = Path(__file__).resolve().parent / "capture_eval_verdicts.json"
HOME_PATH = re.compile(r"(?<![\w.])(?:/(?:Users|home)/[^/\s'\"`:;,()<>]+|/root(?=/|\b))")


def _home_paths(text: str) -> list[str]:
    return HOME_PATH.findall(text)


def _stored(db_url: str) -> tuple[list[Any], list[Any]]:
    """Every stored knowledge item and every session row, through the public APIs."""
    from kgraph.capture.sessions import list_sessions
    from kgraph.db import open_database
    from kgraph.knowledge import list_items

    db = open_database(db_url)
    try:
        return list_items(db, limit=1_000_000, include_superseded=True), list_sessions(db)
    finally:
        db.close()


def count_entries(path: Path) -> int:
    with path.open("rb") as lines:
        return sum(1 for line in lines if line.strip())


def evaluate(path: Path, index: LessonIndex, sections: dict[str, int]) -> TranscriptResult:
    """Capture ``path`` twice in a throwaway project; read back what was stored."""
    session_id = path.stem
    with tempfile.TemporaryDirectory(prefix="kgraph-capture-eval-") as tmp:
        project = make_project(Path(tmp))
        first = run_session_end(project, path, session_id)
        stored, sessions = _stored(project.db_url)
        second = run_session_end(project, path, session_id)
        again, _ = _stored(project.db_url)
    errors = [f"worker exit {r.returncode}" for r in (first, second) if r.returncode]
    errors += [*first.errors, *second.errors]
    samples: list[str] = []
    home_items = 0
    for item in stored:
        found = _home_paths(json.dumps(item.to_dict(), ensure_ascii=False))
        home_items += bool(found)
        samples += found
    home_sessions = 0
    for record in sessions:
        found = _home_paths(json.dumps(record.to_dict(), ensure_ascii=False, default=str))
        home_sessions += bool(found)
        samples += found
    items = [
        EvalItem(
            key=item_key(i.type, i.content),
            type=i.type,
            content=i.content,
            files=tuple(i.files),
            areas=tuple(i.code_areas),
            source=i.source,
            confidence=round(i.confidence, 2),
            proposals=tuple(index.propose(session_id, i.content, i.files)),
            origin=str(i.data.get("origin") or i.source),
            shown=i.active,
        )
        for i in sorted(stored, key=lambda i: (i.created_at, i.id))
    ]
    return TranscriptResult(
        session_id=session_id,
        section=sections.get(session_id),
        entries=count_entries(path),
        cpu_s=round(first.cpu_s, 2),
        items=tuple(items),
        home_paths_items=home_items,
        home_paths_sessions=home_sessions,
        home_path_samples=tuple(sorted(set(samples))[:5]),
        second_run_created=len({i.id for i in again} - {i.id for i in stored}),
        errors=tuple(errors),
    )


def _wrap(text: str, indent: str) -> str:
    return "\n".join(
        textwrap.fill(line, 100, initial_indent=indent, subsequent_indent=indent) or indent
        for line in text.splitlines()
    )


def print_transcript(result: TranscriptResult, verdicts: dict[str, Verdict]) -> None:
    label = f"labelled §{result.section}" if result.section else "unlabelled"
    print(
        f"\n== {result.prefix} ({label}): {result.entries} entries, {len(result.items)} items, "
        f"worker CPU {result.cpu_s:.2f} s; second capture created {result.second_run_created}; "
        f"home paths: {result.home_paths_items} items, {result.home_paths_sessions} sessions"
    )
    for sample in result.home_path_samples:
        print(f"   home path: {sample}")
    for error in result.errors:
        print(f"   ERROR: {error}")
    for number, item in enumerate(result.items, 1):
        files = ", ".join(item.files) or "-"
        areas = ", ".join(item.areas) or "-"
        shown = "" if item.shown else " · CANDIDATE"
        print(
            f"{number:3}. [{item.key}] {item.type} · {item.origin}{shown} · conf {item.confidence}"
            f" · files: {files} · areas: {areas}"
        )
        print(_wrap(item.content, "      "))
        if item.proposals:
            shown = ", ".join(f"{p.lesson} ({p.score:.2f})" for p in item.proposals)
            print(f"      proposed: {shown}")
        verdict = verdicts.get(item.key)
        if verdict and verdict.get("verdict"):
            lessons = ", ".join(verdict.get("lessons") or []) or "-"
            note = f" — {verdict['note']}" if verdict.get("note") else ""
            print(f"      verdict: {verdict['verdict']} (lessons {lessons}){note}")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT_FOLDER)
    parser.add_argument("--only", default=None, help="only transcripts whose name starts so")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--verdicts", type=Path, default=DEFAULT_VERDICTS)
    parser.add_argument(
        "--write-template", action="store_true", help="add unjudged item keys to the verdicts"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    folder: Path = args.folder.resolve()  # the worker runs elsewhere: an absolute path
    transcripts = sorted(folder.glob("*.jsonl"))
    if args.only:
        transcripts = [t for t in transcripts if t.name.startswith(args.only)]
    if not transcripts:
        print(f"no transcripts in {folder}", file=sys.stderr)
        return 2
    lessons_path = folder / "LESSONS.md"
    parsed = parse_lessons(lessons_path) if lessons_path.is_file() else []
    index = LessonIndex(parsed)
    sections = {s.transcript: s.number for s in parsed}
    verdicts = load_verdicts(args.verdicts)
    results = []
    for path in transcripts:
        result = evaluate(path, index, sections)
        results.append(result)
        if not args.json:
            print_transcript(result, verdicts)
    summary = summarise(results, verdicts, index)
    if args.write_template:
        added = write_template(args.verdicts, verdicts, results)
        summary.notes.append(f"template: {added} new keys added to {args.verdicts}")
    if args.json:
        payload = {
            "transcripts": [{"prefix": r.prefix, **asdict(r)} for r in results],
            "summary": asdict(summary),
        }
        print(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        print()
        print(summary.render())
    return 1 if any(r.failed_checks for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
