"""``kgraph knowledge``: inspect, query, traverse, curate and share the knowledge graph."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import click

from kgraph.cli.common import (
    DAYS,
    ISSUE,
    MAX_NAME_CHARS,
    FiniteFloatRange,
    get_db,
    get_project,
    json_option,
    max_length,
    output_file,
    print_json,
    regular_file,
    table,
)
from kgraph.cli.learn import TYPE_CHOICE, short
from kgraph.cli.review import review_cmd
from kgraph.db import isoformat, project_root
from kgraph.knowledge import ENTITY_TYPES, RELATIONSHIP_TYPES, KnowledgeItem

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


@knowledge.command("supersede")
@click.argument("old_id", callback=max_length(MAX_NAME_CHARS), metavar="OLD")
@click.argument("new_id", callback=max_length(MAX_NAME_CHARS), metavar="NEW")
@json_option
@click.pass_context
def supersede_cmd(ctx: click.Context, old_id: str, new_id: str, as_json: bool) -> None:
    """Mark OLD as replaced by NEW; OLD stays stored and exported but leaves search.

    Example: kgraph knowledge supersede lrn-old1 lrn-new2
    """
    from kgraph.knowledge import supersede

    old, new = supersede(get_db(ctx), old_id, new_id)
    if as_json:
        print_json({"old": old, "new": new, "type": "SUPERSEDES"})
    else:
        click.echo(f"{new} supersedes {old}")


@knowledge.command("forget")
@click.argument("item_id", callback=max_length(MAX_NAME_CHARS), metavar="ID")
@click.option("--reason", help="Why (kept with the item).")
@json_option
@click.pass_context
def forget_cmd(ctx: click.Context, item_id: str, reason: str | None, as_json: bool) -> None:
    """Hide an item from search, queries and context (reversible: knowledge restore).

    Example: kgraph knowledge forget lrn-3f9a --reason "no longer true"
    """
    from kgraph.knowledge import set_hidden

    resolved = set_hidden(get_db(ctx), item_id, True, reason)
    print_json({"id": resolved, "hidden": True}) if as_json else click.echo(f"{resolved} forgotten")


@knowledge.command("restore")
@click.argument("item_id", callback=max_length(MAX_NAME_CHARS), metavar="ID")
@json_option
@click.pass_context
def restore_cmd(ctx: click.Context, item_id: str, as_json: bool) -> None:
    """Undo `knowledge forget` (or a prune) for ID.

    Example: kgraph knowledge restore lrn-3f9a
    """
    from kgraph.knowledge import set_hidden

    resolved = set_hidden(get_db(ctx), item_id, False)
    print_json({"id": resolved, "hidden": False}) if as_json else click.echo(f"{resolved} restored")


@knowledge.command("link")
@click.argument("from_id", callback=max_length(MAX_NAME_CHARS), metavar="FROM")
@click.argument(
    "edge_type", metavar="TYPE", type=click.Choice(RELATIONSHIP_TYPES, case_sensitive=False)
)
@click.argument("to_id", callback=max_length(MAX_NAME_CHARS), metavar="TO")
@json_option
@click.pass_context
def link_cmd(ctx: click.Context, from_id: str, edge_type: str, to_id: str, as_json: bool) -> None:
    """Add a relationship FROM -TYPE-> TO (idempotent), e.g. a Mistake LED_TO a Learning.

    Example: kgraph knowledge link mis-1a2b LED_TO lrn-3c4d
    """
    from kgraph.knowledge import get_item, link

    db = get_db(ctx)
    link(db, from_id, to_id, edge_type)
    source, target = get_item(db, from_id).id, get_item(db, to_id).id
    if as_json:
        print_json({"from": source, "type": edge_type.upper(), "to": target})
    else:
        click.echo(f"{source} -{edge_type.upper()}-> {target}")


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
    """Counts: entities by type and source, hidden/superseded, vectors by model, edges.

    Example: kgraph knowledge stats --json
    """
    from kgraph.knowledge import stats

    result = stats(get_db(ctx))
    if as_json:
        print_json(result.to_dict())
        return
    rows: list[list[object]] = [["entities", t, n] for t, n in sorted(result.by_type.items())]
    rows += [["knowledge", "hidden", result.hidden], ["knowledge", "superseded", result.superseded]]
    rows += [["source", s, n] for s, n in sorted(result.by_source.items())]
    rows += [["vectors", m, n] for m, n in sorted(result.embedded.items())]
    rows += [["relationships", t, n] for t, n in sorted(result.relationships.items())]
    table("Knowledge stats", ["what", "name", "count"], rows)


@knowledge.command("prune")
@click.option(
    "--dry-run/--apply",
    "dry_run",
    default=True,
    show_default=True,
    help="Only list candidates (default), or hide them.",
)
@click.option(
    "--min-confidence",
    type=FiniteFloatRange(0, 1),
    default=0.3,
    show_default=True,
    help="Items below this confidence are candidates.",
)
@click.option(
    "--stale-days",
    type=DAYS,
    default=180,
    show_default=True,
    help="Automatic, seen-once items not updated for this long are candidates.",
)
@json_option
@click.pass_context
def prune_cmd(
    ctx: click.Context, dry_run: bool, min_confidence: float, stale_days: int, as_json: bool
) -> None:
    """Hide low-confidence and stale items (dry run unless --apply; never deletes).

    Policy: confidence < --min-confidence; or source not manual, seen once, confidence
    < 0.6 and not updated for --stale-days. `knowledge restore ID` undoes it.

    \b
    Example:
      kgraph knowledge prune            # show what would be hidden
      kgraph knowledge prune --apply
    """
    from kgraph.knowledge import prune

    candidates = prune(
        get_db(ctx), apply=not dry_run, min_confidence=min_confidence, stale_days=stale_days
    )
    if as_json:
        print_json({"applied": not dry_run, "items": [c.to_dict() for c in candidates]})
        return
    table(
        "Prune candidates" + (" (dry run)" if dry_run else " (hidden)"),
        ["id", "type", "conf", "seen", "updated", "reason", "content"],
        [
            [
                c.item.id,
                c.item.type,
                f"{c.item.confidence:.2f}",
                c.item.seen_count,
                isoformat(c.item.updated_at),
                c.reason,
                short(c.item.content, 70),
            ]
            for c in candidates
        ],
    )


@knowledge.command("export")
@click.option(
    "--output",
    "-o",
    callback=output_file,
    help="File to write (default: stdout).",
)
@click.pass_context
def export_cmd(ctx: click.Context, output: Path | None) -> None:
    """Write all knowledge (entities and relationships) as JSONL, e.g. to commit to git.

    Example: kgraph knowledge export -o .claude/knowledge.jsonl
    """
    from kgraph.errors import InvalidValueError
    from kgraph.knowledge import export_knowledge

    path = output
    if path is not None and not path.parent.is_dir():
        raise InvalidValueError(f"cannot write {path}: the folder {path.parent} does not exist")
    db = get_db(ctx)
    if path is None:
        export_knowledge(db, sys.stdout)
        return
    tmp = path.with_name(path.name + ".tmp")
    try:
        with tmp.open("w", encoding="utf-8") as handle:
            report = export_knowledge(db, handle)
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InvalidValueError(f"cannot write {path}: {exc.strerror or exc}") from exc
    click.echo(
        f"exported {report.entities} entities and {report.relationships} relationships to {path}",
        err=True,
    )


@knowledge.command("import")
@click.argument(
    "file",
    type=click.Path(exists=True, dir_okay=False, allow_dash=True),
    callback=regular_file,
)
@json_option
@click.pass_context
def import_cmd(ctx: click.Context, file: str, as_json: bool) -> None:
    """Import a JSONL export (or simple {"content": ...} lines); importing twice is a no-op.

    \b
    Example:
      kgraph knowledge import .claude/knowledge.jsonl
      echo '{"content": "Use UTC everywhere", "files": ["src/time.py"]}' | \\
        kgraph knowledge import -
    """
    from kgraph.errors import InvalidValueError
    from kgraph.knowledge import import_knowledge, load_area_rules

    root = project_root()
    try:
        with click.open_file(file, "r", encoding="utf-8") as handle:
            report = import_knowledge(
                get_db(ctx),
                handle,
                name=Path(file).name,
                project_root=root,
                area_rules=load_area_rules(root),
            )
    except UnicodeDecodeError as exc:
        raise InvalidValueError(
            f"{file} is not UTF-8 text (a JSONL export or simple JSON lines expected)"
        ) from exc
    except OSError as exc:
        raise InvalidValueError(f"cannot read {file}: {exc.strerror or exc}") from exc
    if as_json:
        print_json(report.to_dict())
    else:
        click.echo(
            f"created {report.created}, merged {report.merged}, unchanged "
            f"{report.unchanged}; relationships added {report.relationships_added}, "
            f"skipped {report.relationships_skipped}"
        )


@knowledge.command("sync-claude-md")
@click.option(
    "--project",
    "project",
    type=click.Path(file_okay=False, path_type=Path),
    help="Project root (default: the git root of the current directory).",
)
@json_option
@click.pass_context
def sync_claude_md_cmd(ctx: click.Context, project: Path | None, as_json: bool) -> None:
    """Store each heading section of CLAUDE.md, .claude/CLAUDE.md and .claude/rules/*.md as a
    knowledge item (source claude_md): changed sections update in place, removed ones hide.

    \b
    Example:
      kgraph knowledge sync-claude-md --json
    """
    from kgraph.capture import sync_claude_md

    result = sync_claude_md(get_db(ctx), project.resolve() if project else project_root())
    if as_json:
        print_json(result.to_dict())
        return
    click.echo(
        f"{result.sections} sections in {len(result.files)} files: added {result.added}, "
        f"updated {result.updated}, unchanged {result.unchanged}, hidden {result.hidden}"
    )
    for error in result.errors:
        click.echo(f"warning: cannot read {error}", err=True)
