"""``kgraph learn``, ``kgraph search`` and ``kgraph embed``: the knowledge graph's daily verbs.

Embedding policy (the model costs ~9 s to import, so nothing a hook runs may wait on it):

- ``learn`` stores the item and its FTS entry at once. It embeds in the same call only when
  the configured embedder is cheap (``KGRAPH_EMBEDDER=fake``) or ``--embed`` is given;
  otherwise ``kgraph embed`` adds the vector later (batched backfill).
- ``search`` loads the model only when vectors of the configured model exist (then the
  first query of the process pays the ~9 s load); otherwise, or with ``--lexical``, it
  ranks by BM25 + graph proximity alone.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import click

from kgraph.cli.common import (
    ISSUE,
    MAX_QUERY_CHARS,
    FiniteFloatRange,
    get_db,
    get_project,
    json_option,
    max_length,
    print_json,
    table,
)
from kgraph.errors import InvalidValueError
from kgraph.knowledge import KNOWLEDGE_TYPES, SOURCES

TYPE_CHOICE = click.Choice([t.lower() for t in KNOWLEDGE_TYPES], case_sensitive=False)


def short(text: str, width: int = 120) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


@click.command("learn")
@click.argument("text", required=False)
@click.option(
    "--from-git",
    is_flag=True,
    help="Instead of TEXT: learn what the repository's commit messages explain.",
)
@click.option(
    "--since",
    type=click.DateTime(formats=["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S"]),
    metavar="DATE",
    help="With --from-git: only commits since DATE (YYYY-MM-DD). Git itself reads any "
    "text as some date, so a typo would silently read nothing.",
)
@click.option(
    "--limit",
    type=click.IntRange(1, 1_000_000),
    help="With --from-git: the newest N commits (default 2,000).",
)
@click.option(
    "--type",
    "type_",
    type=TYPE_CHOICE,
    default="learning",
    show_default=True,
    help="Kind of knowledge.",
)
@click.option("--code-area", help="Code area it is about (default: inferred from --file).")
@click.option(
    "--file",
    "files",
    multiple=True,
    metavar="PATH",
    help="File it is about (repeatable; made repo-relative).",
)
@click.option("--confidence", type=FiniteFloatRange(0, 1), default=0.7, show_default=True)
@click.option("--issue", type=ISSUE, help="Issue number it belongs to.")
@click.option("--source", type=click.Choice(SOURCES), default="manual", show_default=True)
@click.option("--source-ref", help="Reference for the source: commit sha, session id, URL.")
@click.option("--session-id", help="Claude Code session id it came from.")
@click.option(
    "--embed/--no-embed",
    "embed",
    default=None,
    help="Embed now even with the slow model (--embed), or never (--no-embed). "
    "Default: only when the embedder is cheap.",
)
@json_option
@click.pass_context
def learn(
    ctx: click.Context,
    text: str | None,
    from_git: bool,
    since: datetime | None,
    limit: int | None,
    type_: str,
    code_area: str | None,
    files: tuple[str, ...],
    confidence: float,
    issue: int | None,
    source: str,
    source_ref: str | None,
    session_id: str | None,
    embed: bool | None,
    as_json: bool,
) -> None:
    """Store TEXT as knowledge tied to its files and code area (secrets are redacted).

    Storing the same text again bumps its seen count and confidence instead of adding a
    copy.

    With --from-git, learn the history instead: each commit message that explains
    something (a body, a fix's cause, a decision, a breaking change) becomes a Learning
    dated when it was committed and tied to the files it changed; a second run adds only
    newer commits. `kgraph install` does this once.

    \b
    Example:
      kgraph learn "Use structured logging via rd-logger; print() is dropped in prod" \\
        --file src/api/handler.py --confidence 0.9
      kgraph learn --from-git --since 2024-01-01
    """
    if from_git == bool(text):
        raise click.UsageError("give TEXT or --from-git (one of them)")
    if not from_git and (since or limit):
        raise click.UsageError("--since and --limit go with --from-git")
    project = get_project(ctx)
    if from_git:
        when = since.isoformat() if since else None
        report = learn_history(project, since=when, limit=limit, quiet=as_json)
        if as_json:
            print_json(report.__dict__)
        else:
            click.echo(report.summary())
        return
    assert text is not None
    result = project.learn(
        text,
        type=type_,
        code_area=code_area,
        files=files,
        confidence=confidence,
        source=source,
        source_ref=source_ref,
        issue=issue,
        session_id=session_id,
        embed=embed,
    )
    item = project.get(result.entity_id)
    for missing in _missing_files(files, project.root):
        click.echo(f"Warning: {missing} does not exist here (stored as given)", err=True)
    if as_json:
        print_json({**result.to_dict(), "item": item.to_dict()})
        return
    if result.created:
        click.echo(f"{item.id} stored ({item.type}; areas: {', '.join(item.code_areas) or '-'})")
    else:
        click.echo(
            f"{item.id} already known: seen {item.seen_count} times, "
            f"confidence {item.confidence:.2f}"
        )


def learn_history(
    project: Any, *, since: str | None = None, limit: int | None = None, quiet: bool = False
) -> Any:
    """Run :meth:`kgraph.Project.learn_from_git` with a progress bar on a terminal."""
    import sys

    if quiet or not sys.stderr.isatty():
        return project.learn_from_git(since=since, limit=limit)
    from rich.progress import Progress

    with Progress(transient=True, console=_stderr_console()) as bar:
        task = bar.add_task("learning from git history", total=None)

        def step(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        return project.learn_from_git(since=since, limit=limit, progress=step)


def _stderr_console() -> Any:
    from rich.console import Console

    return Console(stderr=True)


def _missing_files(files: tuple[str, ...], root: Any) -> list[str]:
    """The --file values that name no file, from here or from the project root: most likely
    typos (knowledge about a file still to be written is possible, so it is only a warning)."""
    from pathlib import Path

    missing = []
    for value in files:
        try:
            if not (Path(value).exists() or (root / value).exists()):
                missing.append(value)
        except (OSError, ValueError):
            missing.append(value)
    return missing


def hits_table(hits: list[Any], title: str) -> None:
    """Best first, numbered: a fused rank score (0.03 for the best of a hybrid search) reads
    as "barely matched", so the table shows the rank; ``--json`` keeps the score."""
    table(
        title,
        ["id", "rank", "type", "content", "area", "files"],  # the id first: never folded
        [
            [
                h.item.id,
                str(rank),
                h.item.type,
                short(h.item.content),
                ", ".join(h.item.code_areas),
                ", ".join(h.item.files),
            ]
            for rank, h in enumerate(hits, 1)
        ],
    )


@click.command("search")
@click.argument("query", callback=max_length(MAX_QUERY_CHARS))
@click.option(
    "--type", "types", type=TYPE_CHOICE, multiple=True, help="Only this type (repeatable)."
)
@click.option("--code-area", help="Only items about this code area.")
@click.option("--file", "file", metavar="PATH", help="Only items about this file.")
@click.option("--limit", type=click.IntRange(1, 1000), default=10, show_default=True)
@click.option("--include-superseded", is_flag=True, help="Include forgotten and superseded items.")
@click.option("--lexical", is_flag=True, help="Skip vectors (never load the embedding model).")
@json_option
@click.pass_context
def search_cmd(
    ctx: click.Context,
    query: str,
    types: tuple[str, ...],
    code_area: str | None,
    file: str | None,
    limit: int,
    include_superseded: bool,
    lexical: bool,
    as_json: bool,
) -> None:
    """Find knowledge by words and meaning (BM25 + vectors + graph proximity).

    The embedding model is loaded only when vectors of it are stored (run `kgraph embed`);
    otherwise, and with --lexical, the ranking is lexical + graph.

    \b
    Example:
      kgraph search "how do we log requests" --limit 5
      kgraph search "migration" --type pattern --json
    """
    from kgraph.embeddings import is_cheap, model_name_for
    from kgraph.knowledge import has_vectors

    if not query.strip():  # said before the model's load is announced
        raise InvalidValueError("empty search query")
    project = get_project(ctx)
    if not (lexical or as_json or is_cheap()) and has_vectors(project.db, model_name_for()):
        click.echo("loading the embedding model (~10 s on first use)...", err=True)
    result = project.search(
        query,
        types=types or None,
        code_area=code_area,
        file=file,
        limit=limit,
        include_superseded=include_superseded,
        semantic=False if lexical else None,
    )
    if as_json:
        print_json([h.to_dict() for h in result.hits])
        return
    hits_table(list(result.hits), f"Search ({result.mode}): {query}")


@click.command("embed")
@click.option(
    "--reembed", is_flag=True, help="Re-embed every item (e.g. after switching KGRAPH_EMBEDDER)."
)
@click.option("--batch-size", type=click.IntRange(1, 4096), default=64, show_default=True)
@json_option
@click.pass_context
def embed_cmd(ctx: click.Context, reembed: bool, batch_size: int, as_json: bool) -> None:
    """Add vectors to knowledge items lacking one for the configured model.

    The model is KGRAPH_EMBEDDER (default all-MiniLM-L6-v2, ~9 s to load, ~280 texts/s).
    Near-duplicates found among the new vectors (cosine >= 0.95, same type) are merged.

    \b
    Example:
      kgraph embed
      KGRAPH_EMBEDDER=fake kgraph embed --reembed --json
    """
    from kgraph.embeddings import get_embedder, model_name_for
    from kgraph.knowledge import count_missing, embed_missing

    db = get_db(ctx)
    model = model_name_for()
    todo = count_missing(db, model) if not reembed else None
    if todo == 0:
        from kgraph.knowledge import EmbedReport

        report = EmbedReport(model, 0, 0, 0, 0)
    else:
        embedder = get_embedder()
        from rich.progress import Progress

        with Progress(transient=True, disable=as_json) as progress:
            task = progress.add_task(f"embedding with {model}", total=None)

            def advance(done: int, total: int) -> None:
                progress.update(task, completed=done, total=total)

            report = embed_missing(
                db, embedder, reembed=reembed, batch_size=batch_size, progress=advance
            )
    if as_json:
        print_json(report.to_dict())
        return
    click.echo(
        f"embedded {report.embedded} item(s) with {report.model}; "
        f"merged {report.merged} near-duplicate(s); {report.remaining} without a vector"
    )
