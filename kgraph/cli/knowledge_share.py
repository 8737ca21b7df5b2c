"""``kgraph knowledge`` sharing commands: export, import and sync-claude-md.

Moving knowledge between projects and into CLAUDE.md; :mod:`kgraph.cli.knowledge` adds
them to its group.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from kgraph.cli.common import (
    get_db,
    json_option,
    output_file,
    print_json,
    regular_file,
)
from kgraph.db import project_root


@click.command("export")
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


@click.command("import")
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


@click.command("sync-claude-md")
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
