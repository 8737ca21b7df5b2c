"""``kgraph knowledge``: inspect, query and traverse the knowledge graph.

The group also holds the commands that curate it (:mod:`kgraph.cli.knowledge_curate`),
share it (:mod:`kgraph.cli.knowledge_share`) and review candidates
(:mod:`kgraph.cli.review`), each defined in its own module and added here."""

from __future__ import annotations

from collections.abc import Sequence

import click

from kgraph.cli.common import (
    ISSUE,
    MAX_NAME_CHARS,
    get_db,
    get_project,
    json_option,
    max_length,
    print_json,
    table,
)
from kgraph.cli.knowledge_curate import forget_cmd, link_cmd, prune_cmd, restore_cmd, supersede_cmd
from kgraph.cli.knowledge_share import export_cmd, import_cmd, sync_claude_md_cmd
from kgraph.cli.learn import TYPE_CHOICE, short
from kgraph.cli.review import review_cmd
from kgraph.db import isoformat
from kgraph.knowledge import ENTITY_TYPES, KnowledgeItem

ALL_TYPES_CHOICE = click.Choice([t.lower() for t in ENTITY_TYPES], case_sensitive=False)
include_superseded_option = click.option(
    "--include-superseded", is_flag=True, help="Include forgotten and superseded items."
)


def _items_table(items: Sequence[KnowledgeItem], title: str) -> None:
    table(
        title,
        ["id", "type", "conf", "seen", "content", "area", "files"],
        [
            [
                i.id,
                i.type,
                f"{i.confidence:.2f}",
                i.seen_count,
                short(i.content),
                ", ".join(i.code_areas),
                ", ".join(i.files),
            ]
            for i in items
        ],
    )


@click.group()
def knowledge() -> None:
    """The knowledge graph: learnings, patterns, mistakes and topics tied to code.

    \b
    Example:
      kgraph learn "Retry SQLite writes on 'database is locked'" --file kgraph/db/retry.py
      kgraph knowledge query --file kgraph/db/retry.py --json
      kgraph knowledge related lrn-3f9a2c1b7d --hops 2
    """


knowledge.add_command(review_cmd)
for _command in (
    supersede_cmd,
    forget_cmd,
    restore_cmd,
    link_cmd,
    prune_cmd,
    export_cmd,
    import_cmd,
    sync_claude_md_cmd,
):
    knowledge.add_command(_command)


@knowledge.command("show")
@click.argument("item_id", callback=max_length(MAX_NAME_CHARS), metavar="ID")
@json_option
@click.pass_context
def show_cmd(ctx: click.Context, item_id: str, as_json: bool) -> None:
    """Show one item (an id prefix works) with all its relationships.

    Example: kgraph knowledge show lrn-3f9a
    """
    from kgraph.knowledge import item_edges

    item, edges = item_edges(get_db(ctx), item_id)
    if as_json:
        print_json({**item.to_dict(), "edges": [e.to_dict() for e in edges]})
        return
    state = "active" if item.active else ("forgotten" if item.hidden_at else "superseded")
    if item.hidden_at and isinstance(item.data.get("candidate"), str):
        state = f"candidate ({item.data['candidate']})"
    click.echo(
        f"{item.id}  {item.type}  confidence {item.confidence:.2f}  seen {item.seen_count}  {state}"
    )
    click.echo(item.content)
    click.echo(
        f"source: {item.source}{' ' + item.source_ref if item.source_ref else ''}"
        f"{'  issue #' + str(item.issue_number) if item.issue_number else ''}"
        f"  created {isoformat(item.created_at)}  updated {isoformat(item.updated_at)}"
    )
    table(
        "Edges",
        ["direction", "type", "id", "entity", "content"],
        [
            [
                "->" if e.direction == "out" else "<-",
                e.type,
                e.other_id,
                e.other_type,
                short(e.other_content, 80),
            ]
            for e in edges
        ],
    )


@knowledge.command("list")
@click.option(
    "--type",
    "types",
    type=ALL_TYPES_CHOICE,
    multiple=True,
    help="Only this type (repeatable; default: all knowledge types).",
)
@click.option("--source", help="Only items from this source (manual, commit, transcript, ...).")
@click.option("--limit", type=click.IntRange(1, 100000), default=50, show_default=True)
@include_superseded_option
@json_option
@click.pass_context
def list_cmd(
    ctx: click.Context,
    types: tuple[str, ...],
    source: str | None,
    limit: int,
    include_superseded: bool,
    as_json: bool,
) -> None:
    """List knowledge items, most recently updated first.

    Example: kgraph knowledge list --type pattern --limit 20
    """
    from kgraph.knowledge import list_items

    items = list_items(
        get_db(ctx),
        types=types or None,
        limit=limit,
        include_superseded=include_superseded,
        source=source,
    )
    if as_json:
        print_json([i.to_dict() for i in items])
    else:
        _items_table(items, "Knowledge")


@knowledge.command("query")
@click.option(
    "--file",
    "files",
    multiple=True,
    metavar="PATH",
    help="Items about this file or its code area (repeatable).",
)
@click.option("--code-area", "areas", multiple=True, help="Items about this area (repeatable).")
@click.option("--issue", type=ISSUE, help="Items tied to this issue number.")
@click.option("--type", "types", type=TYPE_CHOICE, multiple=True, help="Only this type.")
@click.option("--limit", type=click.IntRange(1, 10000), default=50, show_default=True)
@include_superseded_option
@json_option
@click.pass_context
def query_cmd(
    ctx: click.Context,
    files: tuple[str, ...],
    areas: tuple[str, ...],
    issue: int | None,
    types: tuple[str, ...],
    limit: int,
    include_superseded: bool,
    as_json: bool,
) -> None:
    """Structured lookup: items about any of the files/areas or tied to the issue.

    Ranked: direct file matches, then the issue, then the files' areas.

    \b
    Example:
      kgraph knowledge query --file src/api/handler.py --issue 42 --json
    """
    if not (files or areas or issue is not None):
        raise click.UsageError("give at least one of --file, --code-area, --issue")
    items = get_project(ctx).query(
        files=files,
        code_areas=areas,
        issue=issue,
        types=types or None,
        limit=limit,
        include_superseded=include_superseded,
    )
    if as_json:
        print_json([i.to_dict() for i in items])
    else:
        _items_table(items, "Knowledge")


@knowledge.command("related")
@click.argument("item_id", callback=max_length(MAX_NAME_CHARS), metavar="ID")
@click.option("--hops", type=click.IntRange(1, 4), default=2, show_default=True)
@click.option(
    "--type",
    "types",
    type=ALL_TYPES_CHOICE,
    multiple=True,
    help="Only return this type (all types are walked through).",
)
@click.option("--limit", type=click.IntRange(1, 10000), default=50, show_default=True)
@include_superseded_option
@json_option
@click.pass_context
def related_cmd(
    ctx: click.Context,
    item_id: str,
    hops: int,
    types: tuple[str, ...],
    limit: int,
    include_superseded: bool,
    as_json: bool,
) -> None:
    """The neighbourhood of ID within --hops edges, with the path to each item.

    \b
    Example:
      kgraph knowledge related lrn-3f9a --hops 2 --type learning --type pattern
    """
    from kgraph.knowledge import RelatedItem, related

    start, results = related(
        get_db(ctx),
        item_id,
        hops=hops,
        types=types or None,
        limit=limit,
        include_superseded=include_superseded,
    )
    if as_json:
        print_json({"start": start.to_dict(), "related": [r.to_dict() for r in results]})
        return
    names = {start.id: start.id}
    for r in results:
        names[r.item.id] = r.item.content if r.item.type in ("CodeArea", "File") else r.item.id

    def render(r: RelatedItem) -> str:
        parts = [names.get(r.path[0], r.path[0])]
        for step, node in zip(r.steps, r.path[1:], strict=True):
            arrow = f"-{step.type}->" if step.forward else f"<-{step.type}-"
            parts.append(f"{arrow} {names.get(node, node)}")
        return " ".join(parts)

    click.echo(f"{start.id} ({start.type}): {short(start.content, 100)}")
    table(
        f"Within {hops} hop(s)",
        ["dist", "id", "type", "content", "path"],
        [
            [r.distance, r.item.id, r.item.type, short(r.item.content, 70), render(r)]
            for r in results
        ],
    )


@knowledge.command("areas")
@json_option
@click.pass_context
def areas_cmd(ctx: click.Context, as_json: bool) -> None:
    """List code areas with how many items and files each has.

    Example: kgraph knowledge areas --json
    """
    from kgraph.knowledge import list_areas

    areas = list_areas(get_db(ctx))
    if as_json:
        print_json([a.to_dict() for a in areas])
    else:
        table(
            "Code areas",
            ["id", "area", "items", "files"],
            [[a.id, a.name, a.items, a.files] for a in areas],
        )


@knowledge.command("files")
@click.option("--code-area", help="Only files in this area.")
@json_option
@click.pass_context
def files_cmd(ctx: click.Context, code_area: str | None, as_json: bool) -> None:
    """List files knowledge is about, with item counts and code areas.

    Example: kgraph knowledge files --code-area Testing
    """
    from kgraph.knowledge import list_files

    files = list_files(get_db(ctx), code_area=code_area)
    if as_json:
        print_json([f.to_dict() for f in files])
    else:
        table(
            "Files",
            ["id", "path", "area", "items"],
            [[f.id, f.name, f.area, f.items] for f in files],
        )


@knowledge.command("stats")
@json_option
@click.pass_context
def stats_cmd(ctx: click.Context, as_json: bool) -> None:
    """Counts: entities by type and source, hidden/superseded, candidates, vectors, edges.

    Example: kgraph knowledge stats --json
    """
    from kgraph.knowledge import stats

    result = stats(get_db(ctx))
    if as_json:
        print_json(result.to_dict())
        return
    rows: list[list[object]] = [["entities", t, n] for t, n in sorted(result.by_type.items())]
    rows += [
        ["knowledge", "hidden", result.hidden],
        ["knowledge", "candidates (kgraph knowledge review)", result.candidates],
        ["knowledge", "superseded", result.superseded],
    ]
    rows += [["source", s, n] for s, n in sorted(result.by_source.items())]
    rows += [["vectors", m, n] for m, n in sorted(result.embedded.items())]
    rows += [["relationships", t, n] for t, n in sorted(result.relationships.items())]
    table("Knowledge stats", ["what", "name", "count"], rows)
