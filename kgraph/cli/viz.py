"""``kgraph viz``: the project's memory and code graph as one offline HTML page."""

from __future__ import annotations

from pathlib import Path

import click

from kgraph.cli.common import get_db, json_option, output_file, print_json
from kgraph.viz import DEFAULT_MAX_NODES


@click.command("viz")
@click.option(
    "--output",
    "-o",
    callback=output_file,
    help="HTML file to write (default: <git root>/.claude/kgraph/viz.html).",
)
@click.option(
    "--focus",
    metavar="FILE|SYMBOL|ID",
    help="Show the neighbourhood of a file, a code symbol or a knowledge id.",
)
@click.option(
    "--depth",
    type=click.IntRange(1, 5),
    default=2,
    show_default=True,
    help="How far --focus reaches: callers, callees, dependents, dependencies, links.",
)
@click.option(
    "--max-nodes",
    type=click.IntRange(20, 20000),
    default=DEFAULT_MAX_NODES,
    show_default=True,
    help="Above this, functions fold into files and files into code areas (the page says so).",
)
@click.option("--open", "open_page", is_flag=True, help="Open the page in the default browser.")
@json_option
@click.pass_context
def viz(
    ctx: click.Context,
    output: Path | None,
    focus: str | None,
    depth: int,
    max_nodes: int,
    open_page: bool,
    as_json: bool,
) -> None:
    """Write one self-contained HTML page of knowledge items, files, code areas and the code
    graph. It works offline: the graph library is inlined and the page may load nothing.

    \b
    Example:
      kgraph viz --open
      kgraph viz --focus kgraph/db/core.py -o core.html
      kgraph viz --focus Database.read --depth 3
      kgraph viz --focus mis-3f9a2c1b7d
    """
    from kgraph.cli.graph_show import repo_path
    from kgraph.db import project_root
    from kgraph.viz import build_view, write_page

    root = project_root()
    target = output or root / ".claude" / "kgraph" / "viz.html"
    view = build_view(
        get_db(ctx),
        focus=repo_path(focus) if focus else None,
        depth=depth,
        max_nodes=max_nodes,
        project_root=root,
    )
    report = write_page(view, target)
    opened = _open(target) if open_page else None
    if as_json:
        print_json({**report.to_dict(), "opened": opened})
        return
    click.echo(
        f"Wrote {report.path} ({report.bytes / 1024:,.0f} KB): "
        f"{report.nodes:,} nodes, {report.edges:,} edges."
    )
    for note in report.notes:
        click.echo(note)
    if opened is False:
        click.echo(f"No browser found to open it: open {report.path.resolve().as_uri()}")


def _open(path: Path) -> bool:
    import webbrowser

    try:
        return webbrowser.open(path.resolve().as_uri())
    except webbrowser.Error:
        return False
