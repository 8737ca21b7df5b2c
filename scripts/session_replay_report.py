"""Records of a session replay, the verdicts file, the summary table and the text report
(pure: no hooks, no database; ``session_replay.py`` runs the sessions).

A verdict is a person's reading of one item *in one session* (``"<session prefix>:<item
key>"``): ``useful`` (it helps this session's work), ``irrelevant`` (true but not about this
session) or ``junk`` (wrong, stale, or no knowledge at all). Shares are over judged
session-items; ``unjudged`` says how much of the run is not judged yet.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict, cast

VERDICTS = ("useful", "irrelevant", "junk")
HOOKS = ("session-start", "user-prompt", "post-tool-use")


class Verdict(TypedDict, total=False):
    verdict: str | None
    note: str
    item: str


@dataclass(frozen=True)
class Injected:
    """An item a hook injected into a session (the first hook that brought it)."""

    key: str  # item_key(type, content): the verdicts' key, with the session prefix
    hook: str
    item_id: str
    type: str
    source: str
    files: tuple[str, ...]
    text: str
    line: str = ""  # the line the hook printed, with its reason
    trigger: str = ""  # what brought it: "prompt 2", "Read cmd/x.go", "Edit cmd/x.go"


@dataclass(frozen=True)
class Captured:
    item_id: str
    type: str
    text: str
    shown: bool = True  # False: stored hidden, a candidate waiting for corroboration


@dataclass
class SessionResult:
    session_id: str
    date: str
    sha: str
    first_prompt: str
    prompts: int = 0
    tool_calls: int = 0
    skipped_missing: int = 0  # Read/Edit of a file not in the checkout
    skipped_outside: int = 0  # a path outside the session's cwd
    skipped_failed: int = 0  # an errored tool call
    chars: dict[str, int] = field(default_factory=lambda: dict.fromkeys(HOOKS, 0))
    items: list[Injected] = field(default_factory=list)
    repeats: int = 0  # items injected again in the same session
    unknown_ids: list[str] = field(default_factory=list)  # bracketed ids the db lacks
    unparsed: list[str] = field(default_factory=list)  # item lines without an id
    problems: list[str] = field(default_factory=list)  # hook/worker failures and log lines
    notices: list[str] = field(default_factory=list)  # systemMessage texts
    captured: list[Captured] = field(default_factory=list)
    capture_log: list[str] = field(default_factory=list)
    capture_s: float = 0.0
    hook_s: float = 0.0

    @property
    def prefix(self) -> str:
        return self.session_id[:8]

    @property
    def total_chars(self) -> int:
        return sum(self.chars.values())

    def verdict_key(self, item: Injected) -> str:
        return f"{self.prefix}:{item.key}"


# ----------------------------------------------------------------------------- verdicts


def load_verdicts(path: Path) -> dict[str, Verdict]:
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise SystemExit(f"{path}: expected a JSON object of session:item key -> verdict")
    return {str(k): cast(Verdict, v) for k, v in data.items() if isinstance(v, dict)}


def verdict_of(verdicts: dict[str, Verdict], key: str) -> str | None:
    value = verdicts.get(key, {}).get("verdict")
    return value if value in VERDICTS else None


def write_template(
    path: Path, verdicts: dict[str, Verdict], results: Sequence[SessionResult]
) -> int:
    """Add an unjudged entry for each session-item not in the file (existing entries kept as
    they are); returns how many were added."""
    merged = dict(verdicts)
    added = 0
    for result in results:
        for item in result.items:
            key = result.verdict_key(item)
            if key in merged:
                continue
            prompt = " ".join(result.first_prompt.split())[:300]
            merged[key] = Verdict(
                verdict=None,
                note=f"[{item.hook}, {item.type}] session's first prompt: {prompt}",
                item=item.text[:200],
            )
            added += 1
    path.write_text(json.dumps(merged, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return added


# ----------------------------------------------------------------------------- summary


@dataclass(frozen=True)
class SummaryRow:
    label: str  # "all" or a hook
    injected: int  # session-items
    distinct: int  # distinct items
    counts: dict[str, int]  # useful / irrelevant / junk / unjudged
    mean_chars: float
    max_chars: int
    max_reach: int  # the most sessions any one item was injected into

    def share(self, verdict: str) -> float | None:
        judged = sum(self.counts[v] for v in VERDICTS)
        if verdict == "unjudged":
            return self.counts[verdict] / self.injected if self.injected else None
        return self.counts[verdict] / judged if judged else None


def _row(
    label: str, results: Sequence[SessionResult], verdicts: dict[str, Verdict], hook: str | None
) -> SummaryRow:
    counts = dict.fromkeys((*VERDICTS, "unjudged"), 0)
    reach: dict[str, int] = {}
    injected = 0
    for result in results:
        for item in result.items:
            if hook is not None and item.hook != hook:
                continue
            injected += 1
            reach[item.key] = reach.get(item.key, 0) + 1
            counts[verdict_of(verdicts, result.verdict_key(item)) or "unjudged"] += 1
    chars = [r.chars[hook] if hook else r.total_chars for r in results]
    return SummaryRow(
        label,
        injected,
        len(reach),
        counts,
        sum(chars) / len(chars) if chars else 0.0,
        max(chars, default=0),
        max(reach.values(), default=0),
    )


def summarise(results: Sequence[SessionResult], verdicts: dict[str, Verdict]) -> list[SummaryRow]:
    """One row for all hooks, then one per hook (an item counts for the hook that first
    brought it into the session)."""
    return [_row("all", results, verdicts, None)] + [
        _row(hook, results, verdicts, hook) for hook in HOOKS
    ]


# ----------------------------------------------------------------------------- text


def _count(row: SummaryRow, verdict: str) -> str:
    share = row.share(verdict)
    return f"{row.counts[verdict]} ({share:.0%})" if share is not None else "0"


def summary_table(rows: Sequence[SummaryRow], sessions: int) -> str:
    head = (
        f"{'hook':<14}{'injected':>9}{'distinct':>9}{'useful':>11}{'irrelevant':>12}"
        f"{'junk':>11}{'unjudged':>11}{'chars mean':>11}{'max':>7}{'max reach':>10}"
    )
    lines = [f"Summary over the {sessions} sessions after the first", head, "-" * len(head)]
    for row in rows:
        lines.append(
            f"{row.label:<14}{row.injected:>9}{row.distinct:>9}{_count(row, 'useful'):>11}"
            f"{_count(row, 'irrelevant'):>12}{_count(row, 'junk'):>11}"
            f"{_count(row, 'unjudged'):>11}{row.mean_chars:>11.0f}{row.max_chars:>7}"
            f"{row.max_reach:>10}"
        )
    lines.append(
        "useful/irrelevant/junk shares are of judged session-items, unjudged of all; "
        "max reach = most sessions one item was injected into."
    )
    return "\n".join(lines)


def _indent(text: str, prefix: str = "      ") -> str:
    return "\n".join(
        textwrap.fill(part, 96, initial_indent=prefix, subsequent_indent=prefix) or prefix
        for part in text.splitlines()
    )


def session_text(
    index: int,
    result: SessionResult,
    verdicts: dict[str, Verdict],
    show_captured: bool,
) -> str:
    chars = ", ".join(f"{hook} {n}" for hook, n in result.chars.items())
    lines = [
        f"== {index}. {result.prefix}  {result.date}  checkout {result.sha[:10]}",
        f"   replayed: {result.prompts} prompts, {result.tool_calls} file tool calls "
        f"(skipped: {result.skipped_missing} not in checkout, {result.skipped_outside} "
        f"outside cwd, {result.skipped_failed} errored); hooks {result.hook_s:.1f} s",
        f"   chars injected: {chars}; total {result.total_chars}",
        f"   injected: {len(result.items)} items"
        + (f" (+{result.repeats} repeated)" if result.repeats else ""),
    ]
    for problem in result.problems:
        lines.append(f"   PROBLEM: {problem}")
    for notice in result.notices:
        lines.append(f"   systemMessage: {notice}")
    if result.unknown_ids:
        lines.append(f"   ids not in the database: {', '.join(result.unknown_ids)}")
    for line in result.unparsed:
        lines.append(f"   item line without an id: {line}")
    for item in result.items:
        entry = verdicts.get(result.verdict_key(item), {})
        verdict = verdict_of(verdicts, result.verdict_key(item)) or "unjudged"
        files = ", ".join(item.files[:4]) + (" …" if len(item.files) > 4 else "")
        lines.append(
            f"   [{item.key}] {item.hook}  {item.item_id}  {item.type}  "
            f"source={item.source}  files={files or '-'}  verdict={verdict}"
        )
        if item.line:
            lines.append(_indent(f"printed: {item.line[:240]}"))
        lines.append(_indent(item.text))
        if entry.get("verdict") and entry.get("note"):
            lines.append(_indent(f"note: {entry['note']}"))
    lines.append(
        f"   captured at session end: {len(result.captured)} new items, "
        f"{sum(c.shown for c in result.captured)} of them shown (worker {result.capture_s:.1f} s)"
    )
    lines.extend(f"   {line}" for line in result.capture_log)
    if show_captured:
        for item in result.captured:
            lines.append(f"    + {item.item_id}  {item.type}")
            lines.append(_indent(item.text))
    return "\n".join(lines)
