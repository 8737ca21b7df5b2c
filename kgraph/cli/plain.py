"""Printing for the CLI without Click: a line, JSON, a table.

The commands that run without Click (``kgraph graph what-calls`` and the other one-off
graph queries, :mod:`kgraph.cli.graph_fast`) print through these, and so do their Click
commands, through kgraph.cli.common, which re-exports them: the two ways print the same
text by construction. :func:`echo` does what ``click.echo`` does with text (a newline,
ANSI escapes stripped unless the stream is a terminal, a flush).

Tables are rich's. Piped (not a terminal: no colour, 200 columns), a table of plain ASCII
text that fits is drawn here instead, character for character as rich draws it (a test
holds the two side by side): importing rich and laying out a table of a hundred rows cost
a one-off query more than the query (issue 36). Anything else (a terminal, other text, a
table too wide, a title to wrap) is rich's to draw.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

__all__ = ["PIPED_WIDTH", "console", "echo", "piped_table", "print_json", "table"]

# click.termui's pattern of what it strips from output that is not a terminal.
_ANSI = re.compile(r"\033\[[;?0-9]*[a-zA-Z]")
PIPED_WIDTH = 200  # the console width of output that is not a terminal (see console())
# Text every character of which takes one column, as rich measures it.
_PLAIN = re.compile(r"[ -~]*")
# What rich reads in a title that is a str: markup ("[b]") and emoji codes (":smile:").
_MARKUP = re.compile(r"\[|:[^\s:]+:")


def echo(message: str = "", err: bool = False) -> None:
    """Print ``message`` and a newline on stdout (stderr with ``err``), as ``click.echo``."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:
        return
    text = message + "\n"
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):
        terminal = False
    stream.write(text if terminal else _ANSI.sub("", text))
    stream.flush()


def print_json(data: Any) -> None:
    echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def console() -> Any:
    """A rich Console (imported lazily: rich costs ~50 ms)."""
    from rich.console import Console

    # Piped output is not bound to a terminal's width; rich would fold it at 80 columns.
    width = None if sys.stdout.isatty() else PIPED_WIDTH
    return Console(highlight=False, soft_wrap=False, width=width)


def table(title: str | None, columns: list[str], rows: list[list[Any]]) -> None:
    """Print a rich table; a plain 'none' line when there are no rows."""
    if not rows:
        echo(f"{title + ': ' if title else ''}none")
        return
    if not sys.stdout.isatty():
        drawn = piped_table(title, columns, rows)
        if drawn is not None:
            echo(drawn)
            return
    from rich.table import Table
    from rich.text import Text

    t = Table(title=title, title_justify="left", show_lines=False)
    for index, column in enumerate(columns):
        # The first column is an id or a name a person copies: never fold it.
        t.add_column(column, overflow="fold", no_wrap=index == 0)
    for row in rows:  # cells are text, never markup: "[mcp]" or "[0]" must print as written
        t.add_row(*(Text("" if v is None else str(v)) for v in row))
    console().print(t)


def piped_table(title: str | None, columns: list[str], rows: list[list[Any]]) -> str | None:
    """The table as rich draws it for output that is not a terminal (heavy head box, one
    space of padding, columns as wide as their widest cell), without its final newline;
    None unless every cell and the title are printable ASCII, the title and the headers
    need no markup, the title fits above the table, and the table fits in
    :data:`PIPED_WIDTH` columns."""
    cells = [list(columns)] + [["" if v is None else str(v) for v in row] for row in rows]
    if any(len(row) != len(columns) for row in cells) or not columns:
        return None
    if not all(_PLAIN.fullmatch(text) for row in cells for text in row):
        return None
    if any(_MARKUP.search(column) for column in columns):  # headers are read as markup too
        return None
    widths = [max(len(row[i]) for row in cells) + 2 for i in range(len(columns))]
    total = sum(widths) + len(widths) + 1
    if total > PIPED_WIDTH:
        return None
    lines = []
    if title:
        if not _PLAIN.fullmatch(title) or _MARKUP.search(title) or len(title) > total:
            return None
        lines.append(title.ljust(total))

    def rule(left: str, line: str, middle: str, right: str) -> str:
        return left + middle.join(line * w for w in widths) + right

    def row(edge: str, texts: list[str]) -> str:
        padded = (f" {text.ljust(width - 2)} " for text, width in zip(texts, widths, strict=True))
        return edge + edge.join(padded) + edge

    lines.append(rule("┏", "━", "┳", "┓"))
    lines.append(row("┃", cells[0]))
    lines.append(rule("┡", "━", "╇", "┩"))
    lines += [row("│", texts) for texts in cells[1:]]
    lines.append(rule("└", "─", "┴", "┘"))
    return "\n".join(lines)
