"""``kgraph graph`` queries and a no-change parse without Click, SQLAlchemy or the parsers.

A person or a skill runs ``kgraph graph what-calls NAME`` as a process of its own, and the
query takes milliseconds: importing Click, SQLAlchemy and the models took most of such a
run (issue 36: 0.86 CPU-s, where code-review-graph took 0.54). The console script
(kgraph.cli.entry) hands its argument list here first. A command line of exactly one of
these shapes::

    kgraph [--db URL] graph what-calls|callers NAME [--include-unresolved] [--json]
    kgraph [--db URL] graph blast-radius NAME [--depth N] [--include-unresolved] [--json]
    kgraph [--db URL] graph find NAME [--limit N] [--json]
    kgraph [--db URL] graph exports FILE [--json]
    kgraph [--db URL] graph what-depends-on FILE [--depth N] [--json]
    kgraph [--db URL] graph parse [PATH] [--root DIR] [--jobs N] [--json]

runs the query of kgraph.codegraph on the database's driver alone
(kgraph.db.open_direct) and prints what the Click command prints
(kgraph.cli.graph_show), failing as it fails (kgraph.cli.failures). A parse runs here
only when it would change nothing (kgraph.codegraph ``unchanged_report``: git says which
files changed); it needs no lock for that, as the check reads only what a running parse
writes last. Anything else returns None and goes to Click: help, a typo, an option
spelled another way, a value out of range, a database to create or migrate, a parse with
work to do.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from kgraph.cli.entry import split_db, valid_text
from kgraph.limits import JOBS, NAME_CHARS

if TYPE_CHECKING:
    from kgraph.codegraph import ParseReport
    from kgraph.db import DirectDatabase

__all__ = ["GraphCall", "parse_graph_call", "run_graph_call"]

INT64_MAX = 2**63 - 1  # what SQLite stores (kgraph.cli.common.INT64_MAX)
MAX_DEPTH = 20  # --depth's range in kgraph.cli.graph: 1..20
_NUMBER = re.compile(r"[0-9]{1,19}")


class Shape(NamedTuple):
    """A command's flags, its options with a value (option -> (least, most); ``None``:
    a path), and whether its one argument may be left out."""

    flags: frozenset[str]
    values: dict[str, tuple[int, int] | None]
    optional_argument: bool = False


_DEPTH = (1, MAX_DEPTH)
SHAPES: dict[str, Shape] = {
    "what-calls": Shape(frozenset({"--json", "--include-unresolved"}), {}),
    "callers": Shape(frozenset({"--json", "--include-unresolved"}), {}),
    "blast-radius": Shape(frozenset({"--json", "--include-unresolved"}), {"--depth": _DEPTH}),
    "find": Shape(frozenset({"--json"}), {"--limit": (1, INT64_MAX)}),
    "exports": Shape(frozenset({"--json"}), {}),
    "what-depends-on": Shape(frozenset({"--json"}), {"--depth": _DEPTH}),
    "parse": Shape(frozenset({"--json"}), {"--root": None, "--jobs": (1, JOBS)}, True),
}
_ALIASES = {"-j": "--jobs"}


class GraphCall(NamedTuple):
    """A command line of one of :data:`SHAPES`: the command, its argument, its options."""

    command: str
    argument: str | None
    db_url: str | None
    flags: frozenset[str]
    values: dict[str, str]

    def number(self, option: str, default: int) -> int:
        return int(self.values[option]) if option in self.values else default


def parse_graph_call(argv: Sequence[str]) -> GraphCall | None:
    """The call ``argv`` (without the program name) spells, or None when it is anything
    else or anything Click would refuse (then Click parses it and says so)."""
    db_url, args = split_db(argv)
    if len(args) < 2 or args[0] != "graph" or args[1] not in SHAPES:
        return None
    if not all(valid_text(a) for a in argv):
        return None
    command, shape, rest = args[1], SHAPES[args[1]], args[2:]
    flags: set[str] = set()
    values: dict[str, str] = {}
    arguments: list[str] = []
    while rest:
        token = rest.pop(0)
        if not token.startswith("-"):
            arguments.append(token)
            continue
        option, equals, value = token.partition("=")
        if not equals:  # "-j=2" is "-j" and "=2" to Click
            option = _ALIASES.get(option, option)
        if option in shape.flags and not equals and option not in flags:
            flags.add(option)
        elif option in shape.values and option not in values and (equals or rest):
            value = value if equals else rest.pop(0)
            if not _in_range(value, shape.values[option]):
                return None
            values[option] = value
        else:
            return None  # help, --, a typo, a repeat, a short option Click would split
    if len(arguments) > 1 or (not arguments and not shape.optional_argument):
        return None
    argument = arguments[0] if arguments else None
    if argument is not None and len(argument) > NAME_CHARS:
        return None
    return GraphCall(command, argument, db_url or None, frozenset(flags), values)


def _in_range(value: str, bounds: tuple[int, int] | None) -> bool:
    if bounds is None:
        return bool(value) and not value.startswith("-")
    return bool(_NUMBER.fullmatch(value)) and bounds[0] <= int(value) <= bounds[1]


def run_graph_call(argv: Sequence[str]) -> int | None:
    """Run ``argv`` when it is a call of :data:`SHAPES` this path can finish; its exit
    code, or None to let Click run it."""
    started = time.perf_counter()
    call = parse_graph_call(argv)
    if call is None:
        return None
    from kgraph.db import open_direct, resolve_database_url

    try:
        db = open_direct(resolve_database_url(call.db_url))
    except Exception:  # a setting Click's path reports in its own words
        return None
    if db is None:
        return None
    from kgraph.cli.failures import failure_exit

    try:
        try:
            answer = _answer(call, db, started)
        finally:
            db.close()
        if answer is None:
            return None
        answer.show()
    except (Exception, KeyboardInterrupt) as exc:
        return failure_exit(exc)
    return answer.code


class Answer(NamedTuple):
    """What a command prints (``show``) and its exit code."""

    show: Callable[[], object]
    code: int = 0


def _answer(call: GraphCall, db: DirectDatabase, started: float) -> Answer | None:
    """The query's answer, or None for a parse with work to do (Click's parse runs it)."""
    from kgraph.cli import graph_show as show
    from kgraph.codegraph import (
        AmbiguousNameError,
        blast_radius,
        exports,
        find_entities,
        what_calls,
        what_depends_on,
    )

    as_json = "--json" in call.flags
    unresolved = "--include-unresolved" in call.flags
    argument = call.argument or ""
    if call.command in ("what-calls", "callers", "blast-radius"):
        name = show.entity_name(argument)
        try:
            if call.command == "blast-radius":
                depth = call.number("--depth", 3)
                radius = blast_radius(db, name, depth=depth, include_unresolved=unresolved)
                return Answer(lambda: show.show_blast_radius(radius, depth, as_json))
            target, callers = what_calls(db, name, include_unresolved=unresolved)
        except AmbiguousNameError as exc:
            ambiguous = exc
            return Answer(lambda: show.show_ambiguity(ambiguous, as_json), 2)
        return Answer(lambda: show.show_callers(target, callers, as_json))
    if call.command == "find":
        how, found = find_entities(db, argument, limit=call.number("--limit", 20))
        return Answer(lambda: show.show_found(argument, how, found, as_json))
    if call.command == "exports":
        path = show.repo_path(argument)
        rows = exports(db, path)
        return Answer(lambda: show.show_exports(path, rows, as_json))
    if call.command == "what-depends-on":
        path = show.repo_path(argument)
        depth = call.number("--depth", 1)
        dependents = what_depends_on(db, path, depth=depth)
        return Answer(lambda: show.show_dependents(path, dependents, as_json))
    report = _unchanged_parse(call, db, started)
    return None if report is None else Answer(lambda: show.show_parse(report, as_json))


def _unchanged_parse(call: GraphCall, db: DirectDatabase, started: float) -> ParseReport | None:
    """The report of ``graph parse`` when it has nothing to do; None when it has, or when
    Click would refuse the call (a missing PATH or --root, a PATH outside the project)."""
    from kgraph.codegraph import graph_root, parse_target, unchanged_report
    from kgraph.errors import KgraphError

    path = Path(call.argument or ".")
    root = Path(call.values["--root"]) if "--root" in call.values else None
    if not path.exists() or (root is not None and not root.is_dir()):
        return None
    if root is None and graph_root(path) != graph_root(Path.cwd()):
        return None
    try:
        target = parse_target(path, root)
    except KgraphError:
        return None
    return db.read_raw(lambda conn: unchanged_report(conn, target, started))
