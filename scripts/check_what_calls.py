"""``graph what-calls`` on Go, Java or Rust functions against grep: found, missed, wrong.

    python scripts/check_what_calls.py REPO [--lang go|java|rust] [--db DB] [TARGET=PATTERN ...]

For each target (a name ``graph what-calls`` takes, ``=`` a regular expression matching
its call sites in the source: ``strategy.go::OpenRepository=\\bOpenRepository\\(``), lists
every line of the repository's ``.go`` (or ``.java``) files the pattern matches (comments
and the definition itself left out) and the function each is in, then the callers
``what_calls`` gives, by the same rule. The function holding a line: in Go, the last
``func`` above it (a function literal is its enclosing function's); in Java and Rust, the
innermost method or function whose lines hold it, as the graph's entities span them (a
lambda, closure or anonymous class is its enclosing method's). Prints, per target, the callers
both found, those only grep found (missed) and those only the graph found (wrong), each
with file:line, for reading: grep cannot tell a call of the target from a call of another
method of the same name on another type, which is what reading the lines decides. Without
targets, five functions of entireio-cli (Go), JPype's Java sources or cryptography's Rust
crate (``src/rust`` of its 41.0.7 sdist) are checked.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_TARGETS = {
    "go": [
        r"cmd/entire/cli/strategy/common.go::OpenRepository=\bOpenRepository\(",
        r"cmd/entire/cli/checkpoint/store.go::NewGitStore=\bNewGitStore\(",
        r"cmd/entire/cli/logging/context.go::WithComponent=\bWithComponent\(",
        r"ManualCommitStrategy.loadSessionState=\.loadSessionState\(",
        r"GitStore.WriteCommitted=\.WriteCommitted\(",
    ],
    "java": [
        r"JavadocRenderer.renderText=\brenderText\s*\(",
        r"MethodResolution.isMoreSpecificThan=\bisMoreSpecificThan\s*\(",
        r"native/java/org/jpype/JPypeContext.java::JPypeContext.getInstance=JPypeContext\.getInstance\s*\(",
        r"TypeManager.createPrimitive=\bcreatePrimitive\s*\(",
        r"DomUtilities.traverseDFS=\btraverseDFS\s*\(",
    ],
    "rust": [
        r"rust/src/x509/common.rs::parse_name=\bparse_name\(",
        r"message_digest_from_algorithm=\bmessage_digest_from_algorithm\(",
        r"py_oid_to_oid=\bpy_oid_to_oid\(",
        r"datetime_to_py=\bdatetime_to_py\(",
        r"encode_der_data=\bencode_der_data\(",
    ],
}
SUFFIXES = {"go": ".go", "java": ".java", "rust": ".rs"}
_DECLARATION = re.compile(r"\s*(public|protected|private|static|final|abstract|synchronized)\b")
_FUNC = re.compile(r"^func (?:\(\s*\w*\s*\*?(\w+)(?:\[[^\]]*\])?\s*\) )?(\w+)")
Enclosing = Callable[[str, list[str], int], str]  # (file, lines, 0-based line) -> function


def go_enclosing(_path: str, lines: list[str], index: int) -> str:
    """The top-level function holding line ``index`` (0-based): ``F`` or ``T.M``."""
    for i in range(index, -1, -1):
        found = _FUNC.match(lines[i])
        if found:
            return f"{found.group(1)}.{found.group(2)}" if found.group(1) else found.group(2)
        if lines[i].startswith(("}", "var ", "const ", "type ")) and i != index:
            return ""
    return ""


def spans_enclosing(db: Any) -> Enclosing:
    """The innermost method (or constructor) of the graph holding a line (Java)."""
    from sqlalchemy import select

    from kgraph.db.models import GraphEntity, table_of

    entities = table_of(GraphEntity)
    rows = db.read(
        lambda c: c.execute(
            select(
                entities.c.file_path,
                entities.c.qualified_name,
                entities.c.line_number,
                entities.c.end_line,
            ).where(entities.c.type.in_(("method", "function")))
        ).all()
    )
    by_file: dict[str, list[tuple[int, int, str]]] = {}
    for path, qname, start, end in rows:
        by_file.setdefault(path, []).append((int(start), int(end or start), str(qname)))

    def enclosing(path: str, _lines: list[str], index: int) -> str:
        line = index + 1
        holding = [s for s in by_file.get(path, ()) if s[0] <= line <= s[1]]
        return min(holding, key=lambda s: s[1] - s[0])[2] if holding else ""

    return enclosing


def definitions(db: Any, name: str) -> set[tuple[str, int]]:
    """(file, line) of every method or function named like the target (not call sites)."""
    from sqlalchemy import select

    from kgraph.db.models import GraphEntity, table_of

    entities = table_of(GraphEntity)
    short = name.rpartition("::")[2].rpartition(".")[2]
    rows = db.read(
        lambda c: c.execute(
            select(entities.c.file_path, entities.c.line_number).where(entities.c.name == short)
        ).all()
    )
    return {(str(path), int(line or 0)) for path, line in rows}


def grep_callers(
    repo: Path,
    suffix: str,
    pattern: re.Pattern[str],
    enclosing: Enclosing,
    skip: set[tuple[str, int]],
) -> dict[tuple[str, str], int]:
    """(file, function) -> first line for every matching line that is not a comment or
    a definition."""
    found: dict[tuple[str, str], int] = {}
    for path in sorted(repo.rglob(f"*{suffix}")):
        if any(part in ("vendor", "testdata") or part.startswith(".") for part in path.parts):
            continue
        relative = path.relative_to(repo).as_posix()
        lines = path.read_text(errors="replace").splitlines()
        for index, line in enumerate(lines):
            code = line.split("//", 1)[0]
            if not pattern.search(code) or code.strip().startswith(("*", "/*", "func ")):
                continue
            if _DECLARATION.match(code) and "=" not in code and "return" not in code:
                continue  # a Java method's declaration (an overload's, too)
            if (relative, index + 1) in skip:
                continue
            found.setdefault((relative, enclosing(relative, lines, index)), index + 1)
    return found


def graph_callers(
    repo: Path, db: Any, name: str, enclosing: Enclosing
) -> dict[tuple[str, str], int]:
    from kgraph.codegraph.query import what_calls

    _target, callers = what_calls(db, name, record=False)
    found: dict[tuple[str, str], int] = {}
    texts: dict[str, list[str]] = {}
    for caller in callers:
        path = caller.caller.file_path
        lines = texts.setdefault(path, (repo / path).read_text(errors="replace").splitlines())
        line = caller.line or caller.caller.line_number or 1
        found.setdefault((path, enclosing(path, lines, line - 1)), line)
    return found


def main() -> None:
    from kgraph.db import open_database

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("targets", nargs="*")
    parser.add_argument("--lang", choices=sorted(DEFAULT_TARGETS), default="go")
    parser.add_argument("--db", help="database URL (default: the repository's own)")
    args = parser.parse_intermixed_args()
    url = args.db or f"sqlite:///{args.repo / '.claude' / 'kgraph.db'}"
    db = open_database(url)
    try:
        enclosing = go_enclosing if args.lang == "go" else spans_enclosing(db)
        print(f"{'target':40} {'grep':>5} {'found':>5} {'missed':>6} {'wrong':>5}")
        details: list[str] = []
        for target in args.targets or DEFAULT_TARGETS[args.lang]:
            name, _, pattern = target.partition("=")
            skip = definitions(db, name) if args.lang != "go" else set()
            suffix = SUFFIXES[args.lang]
            grep = grep_callers(args.repo, suffix, re.compile(pattern), enclosing, skip)
            graph = graph_callers(args.repo, db, name, enclosing)
            both, missed, wrong = (
                grep.keys() & graph.keys(),
                grep.keys() - graph,
                graph.keys() - grep,
            )
            short = name.split("::")[-1]
            counts = f"{len(grep):5} {len(both):5} {len(missed):6} {len(wrong):5}"
            print(f"{short:40} {counts}")
            for label, keys, source in (("missed", missed, grep), ("wrong", wrong, graph)):
                for path, function in sorted(keys):
                    details.append(
                        f"  {short}: {label} {path}:{source[(path, function)]} {function}"
                    )
        print("\n".join(details))
    finally:
        db.close()


if __name__ == "__main__":
    main()
