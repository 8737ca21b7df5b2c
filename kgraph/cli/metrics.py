"""``kgraph metrics``: the numbers that tell whether kgraph helps."""

from __future__ import annotations

from typing import Any

import click

from kgraph.cli.common import MAX_DAYS, get_db, int_range, json_option, print_json, table


@click.group()
def metrics() -> None:
    """Session metrics: injected vs captured knowledge, uptake, compactions, graph queries.

    \b
    Example:
      kgraph metrics summary --days 30
      kgraph metrics sessions --limit 10 --json
    """


@metrics.command("summary")
@click.option(
    "--days", type=int_range(1, MAX_DAYS), help="Only sessions started in the last N days."
)
@json_option
@click.pass_context
def summary(ctx: click.Context, days: int | None, as_json: bool) -> None:
    """Totals: sessions, items injected and captured, uptake rate, compactions, graph queries.

    Uptake counts injected items about files the session then read or edited.

    \b
    Example:
      kgraph metrics summary --json
    """
    from kgraph.capture import metrics_summary

    result = metrics_summary(get_db(ctx), days)
    if as_json:
        print_json(result.to_dict())
        return
    if result.uptake_rate is None:
        uptake = "n/a (no injected items yet)"
    else:
        uptake = (
            f"{result.uptake} ({result.uptake_rate:.0%} of injected items were about files "
            "then read/edited)"
        )
    rows: list[list[Any]] = [
        ["sessions", f"{result.sessions} ({result.sessions_captured} captured)"],
        [
            "items injected",
            f"{result.learnings_injected} in {result.sessions_with_injection} sessions",
        ],
        ["items captured", result.learnings_captured],
        ["uptake", uptake],
        ["compactions", f"{result.compactions} in {result.sessions_compacted} sessions"],
        ["files read / edited", f"{result.files_read} / {result.files_edited}"],
        [
            "median duration",
            "n/a"
            if result.median_duration_minutes is None
            else f"{result.median_duration_minutes:g} min",
        ],
        [
            "graph queries",
            ", ".join(f"{k} {v}" for k, v in sorted(result.graph_queries.items())) or "0",
        ],
    ]
    title = "kgraph metrics" + (f" (last {days} days)" if days else "")
    table(title, ["metric", "value"], rows)


@metrics.command("sessions")
@click.option("--limit", type=int_range(1), default=20, show_default=True)
@json_option
@click.pass_context
def sessions(ctx: click.Context, limit: int, as_json: bool) -> None:
    """Recent sessions with their metrics, newest first.

    \b
    Example:
      kgraph metrics sessions --limit 5
    """
    from kgraph.capture import list_sessions

    records = list_sessions(get_db(ctx), limit)
    if as_json:
        print_json([r.to_dict() for r in records])
        return
    from kgraph.db import isoformat

    table(
        "Sessions",
        [
            "session",
            "started",
            "branch",
            "issue",
            "injected",
            "captured",
            "read",
            "edited",
            "compactions",
        ],
        [
            [
                r.session_id[:12],
                isoformat(r.started_at),
                r.branch,
                r.issue_number,
                len(r.injected_ids),
                len(r.data.get("captured_ids") or []),
                len(r.data.get("files_read") or []),
                len(r.data.get("files_edited") or []),
                len(r.data.get("compactions") or []),
            ]
            for r in records
        ],
    )
