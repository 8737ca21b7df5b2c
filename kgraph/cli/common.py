"""Helpers every command module shares: opening the database, --json, printing."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

import click

from kgraph.db import Database, open_database, resolve_database_url

F = TypeVar("F", bound=Callable[..., Any])

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")


def get_db(ctx: click.Context) -> Database:
    """The database for this invocation (opened once, on first use)."""
    root = ctx.find_root()
    obj = root.obj if isinstance(root.obj, dict) else {}
    db = obj.get("db")
    if db is None:
        db = open_database(resolve_database_url(obj.get("db_url")))
        obj["db"] = db
        root.obj = obj
        root.call_on_close(db.close)
    assert isinstance(db, Database)
    return db


def short_time(value: datetime | None) -> str:
    """A time for tables: local-free UTC to the minute, e.g. ``2026-11-22 04:30``."""
    return "" if value is None else value.astimezone(UTC).strftime("%Y-%m-%d %H:%M")


def print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def console() -> Any:
    """A rich Console (imported lazily: rich costs ~50 ms)."""
    import sys

    from rich.console import Console

    # Piped output is not bound to a terminal's width; rich would fold it at 80 columns.
    width = None if sys.stdout.isatty() else 200
    return Console(highlight=False, soft_wrap=False, width=width)


def table(title: str | None, columns: list[str], rows: list[list[Any]]) -> None:
    """Print a rich table; a plain 'none' line when there are no rows."""
    if not rows:
        click.echo(f"{title + ': ' if title else ''}none")
        return
    from rich.table import Table

    t = Table(title=title, title_justify="left", show_lines=False)
    for index, column in enumerate(columns):
        # The first column is an id or a name a person copies: never fold it.
        t.add_column(column, overflow="fold", no_wrap=index == 0)
    for row in rows:
        t.add_row(*("" if v is None else str(v) for v in row))
    console().print(t)


def parse_json_object(value: str | None, what: str) -> dict[str, Any] | None:
    """Parse a JSON object given on the command line; a clear error otherwise."""
    if value is None:
        return None
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(
            f"not valid JSON ({exc.msg} at position {exc.pos})", param_hint=what
        ) from exc
    if not isinstance(parsed, dict):
        raise click.BadParameter(
            'must be a JSON object, e.g. \'{"key": "value"}\'', param_hint=what
        )
    return parsed
