"""Printing without Click (kgraph.cli.plain): a piped table drawn as rich draws it."""

from __future__ import annotations

import io
import random
import string
from typing import Any

import pytest

from kgraph.cli.plain import PIPED_WIDTH, piped_table


def rich_table(title: str | None, columns: list[str], rows: list[list[Any]]) -> str:
    """What kgraph.cli.plain.table prints through rich for piped output."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    t = Table(title=title, title_justify="left", show_lines=False)
    for index, column in enumerate(columns):
        t.add_column(column, overflow="fold", no_wrap=index == 0)
    for row in rows:
        t.add_row(*(Text("" if v is None else str(v)) for v in row))
    out = io.StringIO()
    console = Console(file=out, highlight=False, soft_wrap=False, width=PIPED_WIDTH)
    console.print(t)
    return out.getvalue()


def _text(rng: random.Random, most: int) -> str:
    return "".join(rng.choice(string.printable[:95]) for _ in range(rng.randint(0, most)))


def test_random_tables_are_drawn_as_rich_draws_them() -> None:
    rng = random.Random(36)
    drawn = 0
    for _ in range(1500):
        columns = [_text(rng, 12) for _ in range(rng.randint(1, 6))]
        rows: list[list[Any]] = [
            [rng.choice([None, 3, 0.25, _text(rng, 40)]) for _ in columns]
            for _ in range(rng.randint(1, 8))
        ]
        title = rng.choice([None, "", _text(rng, 70), "Callers of a/b.py::C.m"])
        ours = piped_table(title, columns, rows)
        if ours is not None:
            drawn += 1
            assert ours + "\n" == rich_table(title, columns, rows), (title, columns, rows)
    assert drawn > 500  # most are plain enough to draw here


@pytest.mark.parametrize(
    ("title", "columns", "rows"),
    [
        ("wide", ["a"], [["x" * (PIPED_WIDTH - 3)]]),  # no room for the borders
        ("non-ASCII", ["name"], [["café"]]),
        ("a tab", ["name"], [["a\tb"]]),
        ("[b]markup[/b]", ["name"], [["x"]]),
        ("an emoji :smile:", ["name"], [["x" * 20]]),
        ("a title longer than its table", ["n"], [["x"]]),
        ("a row short of a cell", ["a", "b"], [["x"]]),
        ("a header of markup", ["[i]"], [["x"]]),
    ],
)
def test_anything_else_is_left_to_rich(
    title: str, columns: list[str], rows: list[list[Any]]
) -> None:
    assert piped_table(title, columns, rows) is None
