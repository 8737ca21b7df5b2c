"""``kgraph knowledge`` curation commands: supersede, forget, restore, link and prune.

Kept apart from the read commands (:mod:`kgraph.cli.knowledge`, which adds them to its
group): each changes what search and the hooks may return, and says how to undo it.
"""

from __future__ import annotations

import click

from kgraph.cli.common import (
    DAYS,
    MAX_NAME_CHARS,
    FiniteFloatRange,
    get_db,
    json_option,
    max_length,
    print_json,
    table,
)
from kgraph.cli.learn import short
from kgraph.db import isoformat
from kgraph.knowledge import RELATIONSHIP_TYPES


@click.command("supersede")
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


@click.command("forget")
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


@click.command("restore")
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


@click.command("link")
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


@click.command("prune")
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
