"""``kgraph install``: wire kgraph's hooks into Claude Code (settings.json or a plugin)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from kgraph.cli.common import json_option, print_json
from kgraph.setup import SCOPES, has_kgraph_hooks, install_hooks, install_plugin

if TYPE_CHECKING:
    from kgraph.codegraph import ParseReport
    from kgraph.setup import Tidied


@click.command("install")
@click.option(
    "--scope",
    type=click.Choice(SCOPES),
    default="local",
    show_default=True,
    help="local: .claude/settings.local.json (this machine, not committed); "
    "project: .claude/settings.json (committed, shared with the team); "
    "user: ~/.claude/settings.json (every project).",
)
@click.option("--uninstall", is_flag=True, help="Remove kgraph's hooks (every other hook is kept).")
@click.option(
    "--purge",
    is_flag=True,
    help="With --uninstall: also delete the project's database and kgraph's state folder "
    "(.claude/kgraph/), after a confirmation.",
)
@click.option("--yes", is_flag=True, help="With --purge: do not ask.")
@click.option("--dry-run", is_flag=True, help="Show the result; change nothing.")
@click.option(
    "--plugin",
    "plugin_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write a Claude Code plugin in DIR instead of editing settings.",
)
@click.option(
    "--exec-form",
    is_flag=True,
    help="Write handlers as command + args (needs a Claude Code with exec-form hooks).",
)
@click.option(
    "--llm-capture/--no-llm-capture",
    default=None,
    help="Also ask `claude -p` for knowledge when capturing (off by default; "
    'sets [capture] extractor = "claude" in .claude/kgraph.toml).',
)
@click.option(
    "--mcp/--no-mcp",
    "with_mcp",
    default=True,
    help="Also register the MCP server (`kgraph mcp`) in .mcp.json and approve it in the "
    "settings file (default: when the mcp package is installed). A local install keeps "
    ".mcp.json out of git (.git/info/exclude).",
)
@click.option(
    "--db",
    "server",
    metavar="URL",
    help="A team server (postgresql://...) for this project: recorded in .claude/kgraph.toml "
    "without its password, so the hooks, the worker and the MCP server find it without "
    "KGRAPH_DB. The password comes from ~/.pgpass (PGPASSFILE) or --password-env.",
)
@click.option(
    "--password-env",
    metavar="NAME",
    help="With --db: the environment variable that holds the server's password.",
)
@click.option(
    "--history/--no-history",
    "history",
    default=True,
    help="Learn what the repository's commit messages explain, so the first session "
    "already knows it (default; later runs add only newer commits).",
)
@click.option(
    "--graph/--no-graph",
    "graph",
    default=True,
    help="Parse the code graph, so a prompt's code names lead to their files (default; "
    "later runs re-parse only changed files, as the worker does when a session starts or "
    "ends).",
)
@json_option
@click.pass_context
def install_command(
    ctx: click.Context,
    scope: str,
    uninstall: bool,
    purge: bool,
    yes: bool,
    dry_run: bool,
    plugin_dir: Path | None,
    exec_form: bool,
    llm_capture: bool | None,
    with_mcp: bool,
    server: str | None,
    password_env: str | None,
    history: bool,
    graph: bool,
    as_json: bool,
) -> None:
    """Merge kgraph's hooks into Claude Code's settings (idempotent, backs the file up).

    The hooks call this kgraph by absolute path, so they work whatever PATH Claude Code has;
    that path is this machine's, so by default they go to .claude/settings.local.json,
    which is not committed. kgraph's local files (database, state folder, backups) are
    added to .claude/.gitignore.

    \b
    Example:
      kgraph install                  # this project, .claude/settings.local.json
      kgraph install --scope project  # .claude/settings.json, committed for the team
      kgraph install --scope user --dry-run
      kgraph install --uninstall
      kgraph install --uninstall --purge   # and delete the database and state folder
      kgraph install --llm-capture    # capture asks claude -p too
      kgraph install --no-history     # do not read the git history
      kgraph install --no-graph       # do not parse the code graph
      kgraph install --db postgresql+psycopg://kgraph@db.internal/kgraph \\
        --password-env KGRAPH_DB_PASSWORD   # the team's server, for every process
    """
    if purge and not uninstall:
        raise click.UsageError("--purge goes with --uninstall")
    if server is not None and not dry_run:
        _record_server(ctx, server, password_env, quiet=as_json)
    elif password_env:
        raise click.UsageError("--password-env goes with --db")
    if purge and not dry_run and not yes:
        click.confirm("Delete kgraph's database and state folder in .claude/?", abort=True)
    if llm_capture is not None and not dry_run:
        from kgraph.db import project_root
        from kgraph.runtime import set_extractor

        path = set_extractor(project_root(None), "claude" if llm_capture else None)
        if not as_json:
            state = "on" if llm_capture else "off"
            click.echo(f"Model extraction (claude -p) {state}: {path}")
    if plugin_dir is not None:
        files = install_plugin(
            plugin_dir, uninstall=uninstall, dry_run=dry_run, exec_form=exec_form
        )
        files += _register_in_plugin(plugin_dir, uninstall, dry_run, with_mcp)
        if as_json:
            print_json(
                {
                    "plugin": str(plugin_dir),
                    "files": [str(f) for f in files],
                    "uninstall": uninstall,
                    "dry_run": dry_run,
                }
            )
            return
        verb = (
            ("would remove" if dry_run else "removed")
            if uninstall
            else ("would write" if dry_run else "wrote")
        )
        click.echo(f"{verb.capitalize()}: " + (", ".join(str(f) for f in files) or "nothing"))
        if not uninstall and not dry_run:
            click.echo(
                f"Enable it with: claude --plugin-dir {plugin_dir}  (or add it to a marketplace)"
            )
        return
    from kgraph.db import project_root

    register = scope != "user" and _mcp_wanted(uninstall, with_mcp)
    result = install_hooks(
        scope,
        uninstall=uninstall,
        dry_run=dry_run,
        exec_form=exec_form,
        mcp_server="kgraph" if register else None,
    )
    mcp = (
        _register_for_scope(project_root(None), scope, uninstall, dry_run, quiet=as_json)
        if register
        else None
    )
    tidied = None
    # Tidy only when no settings file of the project still runs kgraph's hooks: a local
    # uninstall beside a committed project install leaves the project's files in place.
    if (
        uninstall
        and not dry_run
        and scope != "user"
        and not any(has_kgraph_hooks(s) for s in ("local", "project"))
    ):
        from kgraph.setup import tidy_after_uninstall

        tidied = tidy_after_uninstall(project_root(None), purge=purge)
    if not uninstall and not dry_run and scope != "user":
        from kgraph.db import project_root
        from kgraph.runtime import load_settings, set_learn_history

        root = project_root(None)
        if not history or not load_settings(root).learn_history:  # catch-up does as install
            set_learn_history(root, history)
    learned = None
    if history and not uninstall and not dry_run and scope != "user":
        from kgraph.cli.common import get_project
        from kgraph.cli.learn import learn_history

        learned = learn_history(get_project(ctx), quiet=as_json)
    parsed = None
    if graph and not uninstall and not dry_run and scope != "user":
        parsed = _parse_graph(ctx, quiet=as_json)
    if as_json:
        print_json(
            {
                **result.to_dict(),
                "mcp": mcp,
                "history": learned and learned.__dict__,
                "graph": parsed if parsed is None or isinstance(parsed, str) else parsed.to_dict(),
                "removed": [str(p) for p in tidied.removed] if tidied else [],
                "kept": [str(p) for p in tidied.kept] if tidied else [],
            }
        )
        return
    if dry_run:
        click.echo(f"{result.path} would {'change' if result.changed else 'stay unchanged'}:")
        click.echo(json.dumps(result.settings.get("hooks", {}), indent=2))
        return
    if result.gitignore is not None:
        click.echo(f"Kept kgraph's local files out of git in {result.gitignore}")
    if not result.changed:
        click.echo(f"Nothing to change in {result.path}.")
        if tidied is not None:
            _say_tidied(tidied, purge, ctx)
        if learned is not None and learned.stored:
            click.echo(learned.summary().capitalize())
        if parsed is not None:
            _say_parsed(parsed)
        return
    action = (
        "Removed kgraph's hooks from"
        if uninstall
        else f"Installed {', '.join(result.events)} hooks in"
    )
    kept = result.backup and result.backup.exists()  # a purge deletes the backups too
    click.echo(f"{action} {result.path}" + (f" (backup: {result.backup})" if kept else ""))
    if tidied is not None:
        _say_tidied(tidied, purge, ctx)
    if learned is not None and learned.commits:
        click.echo(learned.summary().capitalize())
    if parsed is not None:
        _say_parsed(parsed)
    if not uninstall:
        if scope == "local" and has_kgraph_hooks("project"):
            click.echo(
                "kgraph's hooks are also in .claude/settings.json (committed); remove them "
                "with: kgraph install --scope project --uninstall"
            )
        click.echo("Check the wiring with: kgraph doctor")


def _parse_graph(ctx: click.Context, *, quiet: bool) -> ParseReport | str:
    """The project's code graph, parsed (only changed files on a later run; a progress bar
    on a terminal: a cold parse reads about a hundred files a second); why not instead: a
    team server's one graph is parsed on purpose, and a failure leaves the install standing."""
    from kgraph.cli.common import get_db
    from kgraph.cli.graph import parse_progress
    from kgraph.codegraph import parse_repository
    from kgraph.db import project_root

    root = project_root(None)
    try:
        db = get_db(ctx)
        if db.dialect != "sqlite":  # one graph for every clone: parsed on purpose
            return "a team server holds one graph for every clone"
        with parse_progress(not quiet) as progress:
            return parse_repository(db, root, root=root, progress=progress)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


def _say_parsed(parsed: ParseReport | str) -> None:
    if isinstance(parsed, str):
        click.echo(f"The code graph was not parsed: {parsed}. To parse it: kgraph graph parse .")
    else:
        click.echo(f"Parsed the code graph: {parsed.summary()}")


def _record_server(ctx: click.Context, url: str, password_env: str | None, *, quiet: bool) -> None:
    """Write the project's ``[database]`` setting, password left out, and use it from now
    on (this run's history read included)."""
    from kgraph.config import set_setting
    from kgraph.db import is_server_url, project_root, without_password
    from kgraph.errors import InvalidValueError

    if not is_server_url(url):
        raise InvalidValueError("--db takes a team server's URL (postgresql://...)")
    root = project_root(None)
    stored = without_password(url)
    path = set_setting(root, "database", "url", stored)
    set_setting(root, "database", "password_env", password_env)
    if not quiet:
        click.echo(f"Recorded the team server in {path}: {stored}")
    if stored != url and not quiet:
        click.echo(
            "Its password was left out of the file: keep it in ~/.pgpass (PGPASSFILE), or "
            "pass --password-env NAME and set that variable."
        )
    obj = ctx.find_root().obj
    if isinstance(obj, dict) and not obj.get("db_url"):
        obj["db_url"] = url  # this run reads the history into it, password and all


def _say_tidied(tidied: Tidied, purge: bool, ctx: click.Context) -> None:
    if tidied.removed:
        click.echo("Removed: " + ", ".join(str(p) for p in tidied.removed))
    if tidied.kept:
        click.echo(
            "Kept kgraph's data (out of git through .git/info/exclude): "
            + ", ".join(str(p) for p in tidied.kept)
            + "; delete it with: kgraph install --uninstall --purge"
        )
    obj = ctx.find_root().obj
    url = obj.get("db_url") if isinstance(obj, dict) else None
    if purge and url:
        click.echo(f"The database given by --db/KGRAPH_DB is not removed: {url}")


def _mcp_wanted(uninstall: bool, wanted: bool) -> bool:
    """Whether to (un)register the MCP server: always on uninstall; on install when asked
    and the mcp package is there (Claude Code would fail to start the server without it)."""
    from kgraph.setup import MCP_MISSING, sdk_available

    if uninstall:
        return True
    if wanted and not sdk_available():
        click.echo(f"MCP server not registered: {MCP_MISSING}.", err=True)
    return wanted and sdk_available()


def _register_for_scope(
    root: Path, scope: str, uninstall: bool, dry_run: bool, *, quiet: bool
) -> dict[str, str | None]:
    """(Un)register the server in the project's .mcp.json; says what changed (unless
    ``quiet``: --json prints it instead) and returns it."""
    from kgraph.setup import register_for_scope

    done = register_for_scope(root, scope, uninstall=uninstall, dry_run=dry_run)
    registration = done.registration
    path = str(registration.path) if registration is not None and registration.changed else None
    if path and not (dry_run or quiet):
        verb = "Removed kgraph from" if uninstall else "Registered the MCP server in"
        click.echo(f"{verb} {path}")
        if done.exclude is not None and scope == "local" and not uninstall:
            click.echo(
                f"Kept .mcp.json (it names this machine's kgraph) out of git: {done.exclude}"
            )
    if done.note:
        click.echo(done.note, err=True)
    return {"path": path, "exclude": str(done.exclude) if done.exclude else None, "note": done.note}


def _register_in_plugin(
    directory: Path, uninstall: bool, dry_run: bool, wanted: bool
) -> list[Path]:
    """Register (or remove) the MCP server in a plugin's ``.mcp.json``; the files changed.

    A Claude Code that runs ``mcp_tool`` hooks gets the recall tool as the plugin's
    UserPromptSubmit hook; older ones keep the command hook.
    """
    from kgraph.setup import (
        MCP_TOOL_HOOKS_SINCE,
        claude_code_version,
        recall_hook_handler,
        register_server,
        use_recall_hook,
    )

    if not _mcp_wanted(uninstall, wanted):
        return []
    result = register_server(directory, uninstall=uninstall, dry_run=dry_run)
    changed = [result.path] if result.changed else []
    if not uninstall and not dry_run:
        version = claude_code_version()
        if version is not None and version >= MCP_TOOL_HOOKS_SINCE:
            use_recall_hook(directory / "hooks" / "hooks.json", recall_hook_handler())
    return changed
