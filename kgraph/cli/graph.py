"""``kgraph graph``: parse a repository into the code graph and query it.

What the queries and a parse print is kgraph.cli.graph_show's: the one-off queries and a
no-change parse usually run without Click (kgraph.cli.graph_fast, from the console
script) and print through the same functions.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from kgraph.cli.common import (
    MAX_JOBS,
    MAX_NAME_CHARS,
    get_db,
    int_range,
    json_option,
    max_length,
    print_json,
    table,
)
from kgraph.cli.graph_show import (
    entity_name,
    repo_path,
    show_ambiguity,
    show_blast_radius,
    show_callers,
    show_dependents,
    show_exports,
    show_found,
    show_parse,
)


@contextmanager
def parse_progress(enabled: bool) -> Iterator[Callable[[str, int, int], None] | None]:
    """A rich progress bar on stderr (only on a terminal: logs stay clean)."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        tasks: dict[str, Any] = {}

        labels = {
            "parse": "Parsing",
            "resolve": "Resolving",
            "wait": "Waiting for another parse of this database",
        }

        def update(stage: str, done: int, total: int) -> None:
            if stage != "wait" and "wait" in tasks:
                bar.remove_task(tasks.pop("wait"))
            if stage not in tasks:
                tasks[stage] = bar.add_task(labels.get(stage, stage), total=total or None)
            bar.update(tasks[stage], completed=done, total=total or None)

        yield update


def _ambiguity(as_json: bool) -> Any:
    """Print an ambiguous name's candidates (graph_show.show_ambiguity) and exit 2."""
    from kgraph.codegraph import AmbiguousNameError

    @contextmanager
    def guard() -> Iterator[None]:
        try:
            yield
        except AmbiguousNameError as exc:
            raise click.exceptions.Exit(show_ambiguity(exc, as_json)) from exc

    return guard()


@click.group()
def graph() -> None:
    """Code graph: calls, imports and classes of Python, TS/JS, Go, Java and Rust.

    \b
    Example:
      kgraph graph parse .
      kgraph graph what-calls get_database
      kgraph graph blast-radius WorkflowManager.save --depth 3
    """


@graph.command("parse")
@click.argument("path", type=click.Path(exists=True, file_okay=True), default=".")
@click.option(
    "--root",
    type=click.Path(exists=True, file_okay=False),
    help="Folder paths are relative to (default: the git root of PATH; outside git, the "
    "current folder when it holds PATH).",
)
@click.option("--jobs", "-j", type=int_range(1, MAX_JOBS), help="Worker processes (default: CPUs).")
@click.option("--force", is_flag=True, help="Re-parse files even when unchanged.")
@json_option
@click.pass_context
def parse_cmd(
    ctx: click.Context, path: str, root: str | None, jobs: int | None, force: bool, as_json: bool
) -> None:
    """Parse PATH (default: .) into the code graph; only changed files are re-parsed.

    A PATH outside this project (another git repository, or outside the current folder
    when not in git) needs --root: its files would replace the stored graph's.

    Example: kgraph graph parse src --jobs 2
    """
    from kgraph.codegraph import graph_root, parse_repository

    if root is None and graph_root(Path(path)) != graph_root(Path.cwd()):
        raise click.BadParameter(
            f"{Path(path).resolve()} is outside this project ({graph_root(Path.cwd())}): its "
            f"files would replace the stored graph's. To parse it all the same: --root "
            f"{graph_root(Path(path))}",
            param_hint="PATH",
        )

    with parse_progress(not as_json) as progress:
        report = parse_repository(
            get_db(ctx),
            Path(path),
            root=Path(root) if root else None,
            jobs=jobs,
            force=force,
            progress=progress,
            on_wait=lambda line: click.echo(line, err=True),
        )
    show_parse(report, as_json)


def _callers(ctx: click.Context, name: str, include_unresolved: bool, as_json: bool) -> None:
    from kgraph.codegraph import what_calls

    with _ambiguity(as_json):
        target, callers = what_calls(
            get_db(ctx), entity_name(name), include_unresolved=include_unresolved
        )
    show_callers(target, callers, as_json)


_unresolved_option = click.option(
    "--include-unresolved",
    is_flag=True,
    help="Also count calls resolved by method name only (low confidence).",
)


@graph.command("what-calls")
@click.argument("name", callback=max_length(MAX_NAME_CHARS))
@_unresolved_option
@json_option
@click.pass_context
def what_calls_cmd(ctx: click.Context, name: str, include_unresolved: bool, as_json: bool) -> None:
    """Direct callers of NAME (a name, Class.method, pkg.mod.func or path::qualified.name).

    Example: kgraph graph what-calls get_database --json
    """
    _callers(ctx, name, include_unresolved, as_json)


@graph.command("callers")
@click.argument("name", callback=max_length(MAX_NAME_CHARS))
@_unresolved_option
@json_option
@click.pass_context
def callers_cmd(ctx: click.Context, name: str, include_unresolved: bool, as_json: bool) -> None:
    """Alias of what-calls.

    Example: kgraph graph callers WorkflowManager.save
    """
    _callers(ctx, name, include_unresolved, as_json)


@graph.command("blast-radius")
@click.argument("name", callback=max_length(MAX_NAME_CHARS))
@click.option("--depth", type=click.IntRange(min=1, max=20), default=3, show_default=True)
@_unresolved_option
@json_option
@click.pass_context
def blast_radius_cmd(
    ctx: click.Context, name: str, depth: int, include_unresolved: bool, as_json: bool
) -> None:
    """Everything that transitively depends on NAME, grouped by file, tests listed apart.

    Example: kgraph graph blast-radius WorkflowManager.save --depth 3
    """
    from kgraph.codegraph import blast_radius

    with _ambiguity(as_json):
        result = blast_radius(
            get_db(ctx), entity_name(name), depth=depth, include_unresolved=include_unresolved
        )
    show_blast_radius(result, depth, as_json)


@graph.command("find")
@click.argument("name", callback=max_length(MAX_NAME_CHARS))
@click.option("--limit", type=int_range(1), default=20, show_default=True)
@json_option
@click.pass_context
def find_cmd(ctx: click.Context, name: str, limit: int, as_json: bool) -> None:
    """Find entities by name: exact, then prefix, substring, fuzzy.

    Example: kgraph graph find Workflow
    """
    from kgraph.codegraph import find_entities

    how, matches = find_entities(get_db(ctx), name, limit=limit)
    show_found(name, how, matches, as_json)


@graph.command("exports")
@click.argument("file", callback=max_length(MAX_NAME_CHARS))
@json_option
@click.pass_context
def exports_cmd(ctx: click.Context, file: str, as_json: bool) -> None:
    """What FILE exports (definitions and re-exports).

    Example: kgraph graph exports src/db/sqlite.py
    """
    from kgraph.codegraph import exports

    result = exports(get_db(ctx), repo_path(file))
    show_exports(repo_path(file), result, as_json)


@graph.command("what-depends-on")
@click.argument("file", callback=max_length(MAX_NAME_CHARS))
@click.option("--depth", type=click.IntRange(min=1, max=20), default=1, show_default=True)
@json_option
@click.pass_context
def depends_cmd(ctx: click.Context, file: str, depth: int, as_json: bool) -> None:
    """Files that import, call into or subclass from FILE.

    Example: kgraph graph what-depends-on src/db/sqlite.py --depth 2
    """
    from kgraph.codegraph import what_depends_on

    result = what_depends_on(get_db(ctx), repo_path(file), depth=depth)
    show_dependents(repo_path(file), result, as_json)


@graph.command("summary")
@json_option
@click.pass_context
def summary_cmd(ctx: click.Context, as_json: bool) -> None:
    """Counts of files, entities, relationships and how calls were resolved.

    Example: kgraph graph summary --json
    """
    from kgraph.codegraph import graph_summary

    result = graph_summary(get_db(ctx))
    if as_json:
        print_json(result)
        return
    if not result["files"]:
        click.echo("The code graph is empty: parse the project first (kgraph graph parse .).")
        return
    click.echo(
        f"{result['files']} files {result['languages']}, last parsed "
        f"{result['last_parsed_at']}; {result['files_with_errors']} with syntax errors"
    )
    if result["failed_files"]:
        table(
            "Files whose analysis failed",
            ["file", "stage", "reason"],
            [[f["path"], f["stage"], f["reason"]] for f in result["failed_files"]],
        )
    table("Entities", ["type", "count"], [[k, v] for k, v in sorted(result["entities"].items())])
    table(
        "Relationships",
        ["type", "count"],
        [[k, v] for k, v in sorted(result["relationships"].items())],
    )
    table(
        "Calls by resolution",
        ["resolution", "count"],
        [[k, v] for k, v in sorted(result["call_resolution"].items())],
    )


@graph.command("export")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["callgraph-json"]),
    default="callgraph-json",
    show_default=True,
)
@click.option("--root", default="", help="Folder names are relative to (a path, as for parse).")
@click.pass_context
def export_cmd(ctx: click.Context, fmt: str, root: str) -> None:
    """Print the call graph: {"caller": ["callee", ...]} (PyCG's benchmark format).

    Example: kgraph graph export --format callgraph-json --root tests/codegraph/cases/super_call
    """
    from kgraph.codegraph import export_callgraph, graph_summary

    db = get_db(ctx)
    exported = export_callgraph(db, repo_path(root) if root else "")
    print_json(exported)
    if not exported:  # stdout stays the format; the reason goes to stderr
        parsed = graph_summary(db, record=False)["files"]
        where = f" under {root}" if root and parsed else ""
        hint = "" if parsed else ": parse the project first (kgraph graph parse .)"
        click.echo(f"kgraph: no calls{where} in the code graph ({parsed} files){hint}", err=True)
