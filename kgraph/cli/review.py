"""``kgraph knowledge review``: accept or reject what capture stored as candidates.

Capture keeps what the less reliable parts of a session gave (the agent's explanations, the
user's side of the conversation) as candidates that nothing shows until they are said
again; this is the quick way for a person to decide instead.
"""

from __future__ import annotations

from collections.abc import Sequence

import click

from kgraph.cli.common import MAX_NAME_CHARS, get_db, json_option, max_length, print_json
from kgraph.knowledge import KnowledgeItem, list_candidates
from kgraph.knowledge import review_candidate as review


def _show(number: int, total: int, item: KnowledgeItem) -> None:
    origin = item.data.get("origin") or item.source
    files = f" · {', '.join(item.files)}" if item.files else ""
    click.echo(f"\n[{number}/{total}] {item.id} · {item.type} · {origin}{files}")
    click.echo(item.content)


def _interactive(ctx: click.Context, items: Sequence[KnowledgeItem]) -> tuple[int, int]:
    db = get_db(ctx)
    accepted = rejected = 0
    for number, item in enumerate(items, 1):
        _show(number, len(items), item)
        answer = click.prompt(
            "accept, reject, skip or quit", type=click.Choice(["a", "r", "s", "q"]), default="s"
        )
        if answer == "q":
            break
        if answer in ("a", "r"):
            review(db, item.id, answer == "a")
            accepted += answer == "a"
            rejected += answer == "r"
    return accepted, rejected


@click.command("review")
@click.option(
    "--accept",
    multiple=True,
    callback=max_length(MAX_NAME_CHARS),
    help="Show this candidate from now on (repeatable).",
)
@click.option(
    "--reject",
    multiple=True,
    callback=max_length(MAX_NAME_CHARS),
    help="Hide this candidate for good (repeatable).",
)
@click.option("-i", "--interactive", is_flag=True, help="Go through them one by one.")
@click.option("--limit", type=click.IntRange(1, 10000), default=50, show_default=True)
@json_option
@click.pass_context
def review_cmd(
    ctx: click.Context,
    accept: tuple[str, ...],
    reject: tuple[str, ...],
    interactive: bool,
    limit: int,
    as_json: bool,
) -> None:
    """Candidates capture stored: accept or reject them.

    Without options, lists them (nothing shows a candidate until another session says it
    again, a commit backs it, or it is accepted here).

    \b
    Example:
      kgraph knowledge review -i
      kgraph knowledge review --accept mis-3f9a --reject lrn-77c0
    """
    db = get_db(ctx)
    if accept or reject:
        done = {
            "accepted": [review(db, i, True) for i in accept],
            "rejected": [review(db, i, False) for i in reject],
        }
        if as_json:
            print_json(done)
        else:
            click.echo(f"{len(done['accepted'])} accepted, {len(done['rejected'])} rejected")
        return
    items = list_candidates(db, limit=limit)
    if as_json:
        rows = [{**i.to_dict(), "origin": i.data.get("origin")} for i in items]
        print_json({"candidates": rows})
        return
    if not items:
        click.echo("no candidates waiting")
        return
    if interactive:
        accepted, rejected = _interactive(ctx, items)
        click.echo(f"\n{accepted} accepted, {rejected} rejected")
        return
    for number, item in enumerate(items, 1):
        _show(number, len(items), item)
    click.echo("\nkgraph knowledge review -i goes through them one by one")
