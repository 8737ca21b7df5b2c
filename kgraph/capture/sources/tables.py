"""Issue → fix tables in the agent's closing summaries.

At the end of a turn the agent often tabulates what it found and changed::

    | File | Function | Issue | Fix |
    | `checkpoint/temporary.go` | `buildTreeWithChanges` | used CWD-relative paths | … |

A row of a table with both a cause column (issue, problem, bug, cause) and a fix column
(fix, solution, change) is a Mistake with its cause and fix, about the file in the row.
Rows with the same issue and fix are one item naming every place. Tables without a cause
column ("| # | File | Fix |", "| Check | Result |") are change logs and status, not kept.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kgraph.capture.sources.explanations import Found
from kgraph.capture.sources.stream import Event, Said

_ROW = re.compile(r"^\s*\|(?P<cells>.+)\|\s*$")
_RULE = re.compile(r"^[\s|:-]+$")
_CAUSE_COLUMN = re.compile(r"^(?:issue|problem|bug|cause|root cause|why|what was wrong)$", re.I)
_FIX_COLUMN = re.compile(r"^(?:fix|fixed|solution|change|resolution|what changed)$", re.I)
_PLACE_COLUMN = re.compile(r"^(?:file|location|where|path|function|method|component)$", re.I)
MAX_ROWS = 6


def _cells(line: str) -> list[str] | None:
    match = _ROW.match(line)
    return [c.strip() for c in match.group("cells").split("|")] if match else None


def tables(text: str) -> list[list[list[str]]]:
    """The markdown tables in ``text``: each a header row followed by its body rows."""
    found: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        cells = _cells(line)
        if cells is None:
            if len(current) > 1:
                found.append(current)
            current = []
        elif not _RULE.match(line):
            current.append(cells)
    return found


def _row_items(table: list[list[str]]) -> list[tuple[str, str]]:
    """(place, "issue. Fix: …") per distinct issue and fix of a cause/fix table."""
    header = [h.strip("*` ") for h in table[0]]
    cause = next((i for i, h in enumerate(header) if _CAUSE_COLUMN.match(h)), None)
    fix = next((i for i, h in enumerate(header) if _FIX_COLUMN.match(h)), None)
    if cause is None or fix is None:
        return []
    places = [i for i, h in enumerate(header) if _PLACE_COLUMN.match(h)]
    merged: dict[tuple[str, str], list[str]] = {}
    for row in table[1:]:
        if len(row) != len(header) or not row[cause] or not row[fix]:
            continue
        place = " ".join(row[i] for i in places if row[i])
        merged.setdefault((row[cause], row[fix]), []).append(place)
    return [
        (", ".join(p for p in where if p), f"{issue.rstrip('.')}. Fix: {change}")
        for (issue, change), where in merged.items()
    ]


def fix_tables(events: Sequence[Event]) -> list[Found]:
    """Mistakes from the issue/fix tables of the agent's end-of-turn text."""
    found: list[Found] = []
    for index, event in enumerate(events):
        if not (isinstance(event, Said) and event.via == "text" and event.turn_end):
            continue
        for t_index, table in enumerate(tables(event.text)):
            for r_index, (place, body) in enumerate(_row_items(table)[:MAX_ROWS]):
                text = f"{place}: {body}" if place else body
                ref = f"table:{index}:{t_index}:{r_index}"
                found.append(Found("Mistake", text, ref, 2.5, 0.7, index))
    return found
