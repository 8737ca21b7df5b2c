"""What ``kgraph graph`` prints for its queries and a parse, and how it reads a NAME or FILE
argument: shared by the Click commands (kgraph.cli.graph) and the runs that skip Click
(kgraph.cli.graph_fast), so both print the same text for the same database. No Click
import here (kgraph.cli.plain prints).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgraph.cli.plain import echo, print_json, table

if TYPE_CHECKING:
    from kgraph.codegraph import (
        AmbiguousNameError,
        BlastRadius,
        CallerRecord,
        EntityRecord,
        FileDependent,
        ParseReport,
    )

__all__ = [
    "PATH_SUFFIXES",
    "entity_name",
    "repo_path",
    "show_ambiguity",
    "show_blast_radius",
    "show_callers",
    "show_dependents",
    "show_exports",
    "show_found",
    "show_parse",
]

# A NAME ending so is a file's path (a dotted name never ends in a source suffix).
PATH_SUFFIXES = (".py", ".pyi", ".ts", ".tsx", ".js", ".go", ".java", ".rs")
SHOWN_CANDIDATES = 30


def repo_path(value: str) -> str:
    """A FILE/DIR argument as the graph stores it (the rule parse uses for its root)."""
    from kgraph.codegraph import graph_path

    return graph_path(value)


def entity_name(value: str) -> str:
    """A NAME argument: a file path or ``path::qualified.name`` is mapped like FILE; a plain
    or dotted name is kept (a folder that happens to share it is not a path here)."""
    path, separator, rest = value.partition("::")
    if separator or "/" in path or Path(path).suffix in PATH_SUFFIXES:
        return repo_path(path) + separator + rest
    return value


def show_ambiguity(exc: AmbiguousNameError, as_json: bool) -> int:
    """Print an ambiguous name's candidates, one a line (a one-line list was cut at the
    terminal's edge; ``--json`` gets them as data); the exit code, 2."""
    if as_json:
        candidates = [c.to_dict() for c in exc.candidates]
        print_json({"error": str(exc), "candidates": candidates})
        return 2
    count = len(exc.candidates)
    echo(
        f"Error: {exc.name!r} is ambiguous: {count} candidates; use a qualified name "
        "or one of these ids (path::name):",
        err=True,
    )
    for candidate in exc.candidates[:SHOWN_CANDIDATES]:
        echo(f"  {candidate.id}", err=True)
    if count > SHOWN_CANDIDATES:
        echo(f"  (+{count - SHOWN_CANDIDATES} more: --json lists all)", err=True)
    return 2


def show_callers(target: EntityRecord, callers: list[CallerRecord], as_json: bool) -> None:
    if as_json:
        print_json({"target": target.to_dict(), "callers": [c.to_dict() for c in callers]})
        return
    table(
        f"Callers of {target.id}",
        ["caller", "type", "location", "confidence", "resolution"],
        [
            [
                c.caller.qualified_name,
                c.caller.type,
                c.to_dict()["location"],
                f"{c.confidence:.2f}",
                c.resolution,
            ]
            for c in callers
        ],
    )


def show_blast_radius(result: BlastRadius, depth: int, as_json: bool) -> None:
    if as_json:
        print_json(result.to_dict())
        return
    echo(f"Blast radius of {result.target.id} (depth {depth}): {len(result.impacts)} dependents")
    for tests in (False, True):
        groups = result.by_file(tests)
        if groups:
            echo("\nTests:" if tests else "")
        for path, impacts in groups.items():
            echo(f"  {path}")
            for i in impacts:
                where = f":{i.line}" if i.line else ""
                echo(
                    f"    [{i.depth}] {i.entity.qualified_name} ({i.entity.type}) "
                    f"{i.via_type} {i.via.split('::')[-1]}{where}"
                )


def show_found(name: str, how: str, matches: list[EntityRecord], as_json: bool) -> None:
    if as_json:
        print_json({"match": how, "results": [m.to_dict() for m in matches]})
        return
    table(
        f"{how} matches for {name!r}",
        ["name", "type", "location", "id"],
        [[m.qualified_name, m.type, m.location, m.id] for m in matches],
    )


def show_exports(path: str, result: list[dict[str, Any]], as_json: bool) -> None:
    if as_json:
        print_json(result)
        return
    table(
        f"Exports of {path}",
        ["name", "type", "kind", "location"],
        [
            [
                r["entity"].get("qualified_name", r["entity"]["id"]),
                r["entity"].get("type", ""),
                r["kind"],
                r["entity"].get("location", ""),
            ]
            for r in result
        ],
    )


def show_dependents(path: str, result: list[FileDependent], as_json: bool) -> None:
    if as_json:
        print_json([r.to_dict() for r in result])
        return
    table(
        f"Files depending on {path}",
        ["file", "depth", "edges"],
        [
            [r.path, r.depth, ", ".join(sorted({e[0] for e in r.edges})) or f"via {r.via}"]
            for r in result
        ],
    )


def show_parse(report: ParseReport, as_json: bool) -> None:
    if as_json:
        print_json(report.to_dict())
        return
    echo(report.summary())
    if report.files_with_errors:
        echo(f"{report.files_with_errors} file(s) had syntax errors (parsed around them)")
    if report.failed:
        echo(
            f"{report.failed} file(s) failed analysis, the rest is built "
            "(kgraph graph summary lists them, with why)"
        )
