"""The ``kgraph`` console script: hook runs and a few frequent commands skip Click.

Claude Code starts ``kgraph hook post-tool-use`` on every file the agent reads, so the hook
path pays only for what it uses: importing Click and the command tree costs ~15 ms of a
~0.1 s process. A command line of the exact hook shape (``kgraph [--db URL] hook EVENT
[--max-chars N] [--dry-run]``) runs :func:`kgraph.hooks.runner.run_hook` directly; any other
(help, a typo, another command) goes to :mod:`kgraph.cli.main`, whose ``hook`` group runs
the same function and fails open the same way. Other command lines a person or a skill
runs many times skip Click too, each family by its module (:data:`FAST_COMMANDS`): the
one-off graph queries and a no-change ``graph parse`` (:mod:`kgraph.cli.graph_fast`), and
the checkpoint commands (:mod:`kgraph.cli.checkpoint_fast`); each says which shapes it takes.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from typing import NamedTuple


class HookCall(NamedTuple):
    event: str
    db_url: str | None
    max_chars: int | None
    dry_run: bool


def split_db(argv: Sequence[str]) -> tuple[str | None, list[str]]:
    """The leading ``--db URL`` (or ``--db=URL``) of a command line, and the rest: every
    fast path reads the global option the same way Click does."""
    args = list(argv)
    if args[:1] == ["--db"] and len(args) >= 2:
        return args[1], args[2:]
    if args and args[0].startswith("--db="):
        return args[0][len("--db=") :], args[1:]
    return None, args


def valid_text(arg: str) -> bool:
    """Text Click takes (kgraph.cli.main refuses an argument that is not valid UTF-8)."""
    try:
        arg.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def parse_hook_call(argv: Sequence[str]) -> HookCall | None:
    """The hook call ``argv`` (without the program name) spells, or None when it is
    anything else (then Click parses it)."""
    db_url, args = split_db(argv)
    if len(args) < 2 or args[0] != "hook":
        return None
    from kgraph.hooks import EVENTS  # the hook runner's module: only for a hook's call

    if args[1] not in EVENTS:
        return None
    event, rest = args[1], args[2:]
    max_chars: int | None = None
    dry_run = False
    while rest:
        option = rest.pop(0)
        if option == "--dry-run":
            dry_run = True
        elif option == "--max-chars" and rest and rest[0].isdigit():
            max_chars = int(rest.pop(0))
        elif option.startswith("--max-chars=") and option[len("--max-chars=") :].isdigit():
            max_chars = int(option[len("--max-chars=") :])
        else:
            return None
    return HookCall(event, db_url or None, max_chars, dry_run)


# Command families that skip Click, by their command word: "module:function", a function
# taking the argument list (``--db URL`` included) that returns the exit code, or None
# before doing anything for a command line it does not take exactly (then Click runs it).
FAST_COMMANDS: dict[str, str] = {
    "graph": "kgraph.cli.graph_fast:run_graph_call",
    "workflow": "kgraph.cli.checkpoint_fast:run_checkpoint_call",
    "milestone": "kgraph.cli.checkpoint_fast:run_checkpoint_call",
}


def run_fast_command(argv: Sequence[str]) -> int | None:
    """The exit code of ``argv`` run by its family of :data:`FAST_COMMANDS`, or None when
    Click must run it."""
    _db_url, args = split_db(argv)
    target = FAST_COMMANDS.get(args[0]) if args else None
    if target is None:
        return None
    module, _, function = target.partition(":")
    code = getattr(importlib.import_module(module), function)(argv)
    return None if code is None else int(code)


def main() -> None:
    call = parse_hook_call(sys.argv[1:])
    if call is None:
        code = run_fast_command(sys.argv[1:])
        if code is not None:
            sys.exit(code)
        from kgraph.cli.main import main as click_main

        click_main()
        return
    from kgraph.hooks import HookOptions, emit, read_input, run_hook

    data = read_input(getattr(sys.stdin, "buffer", None))
    options = HookOptions(db_url=call.db_url, max_chars=call.max_chars, dry_run=call.dry_run)
    emit(run_hook(call.event, data, options))
    sys.exit(0)


if __name__ == "__main__":  # pragma: no cover
    main()
