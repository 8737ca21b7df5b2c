"""Code graph lookups: find entities by name, what a file exports, which files depend on a
file. Like :mod:`.query`, each takes a kgraph.db ``Transactions`` (a Database, or a
DirectDatabase opened for one command), runs plain SQL on the DB-API connection and
writes one ``graph_queries`` row.

The SQL is what the SQLAlchemy Core of the release before wrote, statement for statement
(the same filters, orders and limits), so rows that tie on an ORDER BY, or that a LIMIT
picks, come back as they did. Standard library only at import time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kgraph.codegraph.filedeps import DEPENDENCY_TYPES, dependents_by_level, normalise_path
from kgraph.codegraph.records import (
    ENTITY_SELECT,
    EntityRecord,
    entities_by_id,
    entity_record,
    is_test_path,
    recorded,
    required_name,
)
from kgraph.db.reader import ReadConnection, marks
from kgraph.errors import NotFoundError

if TYPE_CHECKING:
    from kgraph.db.direct import Transactions

__all__ = ["FileDependent", "exports", "find_entities", "what_depends_on"]


def _escaped(text: str) -> str:
    """``text`` as a LIKE pattern's literal part (escape character ``\\``)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _find(conn: ReadConnection, name: str, limit: int, exact: bool) -> tuple[str, list[Any]]:
    """(how it matched, rows): exact, else prefix, substring, fuzzy (see find_entities)."""
    rows = conn.execute(
        f"{ENTITY_SELECT} WHERE e.name = ? OR e.qualified_name = ? OR e.id = ? LIMIT ?",
        (name, name, name, limit),
    ).fetchall()
    if rows:
        return "exact", rows
    if exact:
        return "none", []
    # LIKE ignores ASCII case in SQLite; PostgreSQL reads it as ILIKE (kgraph.db.pgreader).
    for kind, pattern in (("prefix", f"{_escaped(name)}%"), ("substring", f"%{_escaped(name)}%")):
        rows = conn.execute(
            f"{ENTITY_SELECT} WHERE e.name LIKE ? ESCAPE '\\' OR e.qualified_name LIKE ? "
            "ESCAPE '\\' ORDER BY length(e.qualified_name), e.id LIMIT ?",
            (pattern, pattern, limit),
        ).fetchall()
        if rows:
            return kind, rows
    import difflib  # only for fuzzy matching

    names = [str(n) for (n,) in conn.execute("SELECT DISTINCT name FROM graph_entities")]
    close = difflib.get_close_matches(name, names, n=limit, cutoff=0.7)
    if not close:
        return "none", []
    rows = conn.execute(
        f"{ENTITY_SELECT} WHERE e.name IN ({marks(len(close))}) LIMIT ?", (*close, limit)
    ).fetchall()
    order = {n: i for i, n in enumerate(close)}
    return "fuzzy", sorted(rows, key=lambda r: (order[r[2]], r[0]))


def find_entities(
    db: Transactions, name: str, *, limit: int = 20, record: bool = True, exact: bool = False
) -> tuple[str, list[EntityRecord]]:
    """Entities matching ``name``: exact (name, qualified name or id), else prefix, else
    substring, else fuzzy (similar names). Returns (how it matched, matches).

    ``exact`` stops after the exact lookup (an indexed query; the fuzzy step reads every
    name), for callers resolving many names at once."""
    name = required_name(name)
    with recorded(db, "find", {"name": name, "limit": limit}, record) as done:
        kind, rows = db.read_raw(lambda conn: _find(conn, name, limit, exact))
        matches = [entity_record(r) for r in rows]
        done(len(matches))
    return kind, matches


def _require_file(conn: ReadConnection, path: str) -> None:
    if conn.execute("SELECT path FROM graph_files WHERE path = ?", (path,)).fetchone() is None:
        raise NotFoundError(f"{path} is not in the code graph (run: kgraph graph parse)")


def exports(db: Transactions, file: str, *, record: bool = True) -> list[dict[str, Any]]:
    """What a file exports: its exported definitions and what it re-exports from elsewhere."""
    path = normalise_path(file)
    with recorded(db, "exports", {"file": path}, record) as done:

        def query(conn: ReadConnection) -> list[dict[str, Any]]:
            _require_file(conn, path)
            own = conn.execute(  # top level: members go along
                f"{ENTITY_SELECT} WHERE e.file_path = ? AND e.exported = ? AND e.type != 'file' "
                "AND e.qualified_name NOT LIKE ? ORDER BY e.line_number",
                (path, True, "%.%"),
            )
            result = [{"kind": "defined", "entity": entity_record(r).to_dict()} for r in own]
            edges = [  # file_path: indexed
                str(target)
                for (target,) in conn.execute(
                    "SELECT to_entity FROM graph_relationships "
                    "WHERE file_path = ? AND from_entity = ? AND type = 'exports'",
                    (path, path),
                )
            ]
            others = entities_by_id(conn, [e for e in edges if not e.startswith(path + "::")])
            for target in sorted(set(edges)):
                if target in others:
                    result.append({"kind": "re-export", "entity": others[target].to_dict()})
                elif not target.startswith(path + "::"):
                    result.append({"kind": "re-export", "entity": {"id": target}})
            return result

        result = db.read_raw(query)
        done(len(result))
    return result


@dataclass(frozen=True)
class FileDependent:
    path: str
    depth: int
    via: str
    edges: tuple[tuple[str, str, str, int | None], ...]  # (type, from, to, line), direct only

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "depth": self.depth,
            "via": self.via,
            "test": is_test_path(self.path),
            "edges": [
                {"type": t, "from": f, "to": to, "line": line} for t, f, to, line in self.edges
            ],
        }


_DIRECT_SQL = (
    "SELECT file_path, type, from_entity, to_entity, line_number FROM graph_relationships "
    f"WHERE to_file = ? AND file_path != ? AND type IN ({marks(len(DEPENDENCY_TYPES))}) "
    "AND resolution != ? ORDER BY file_path, line_number"
)


def what_depends_on(
    db: Transactions, file: str, *, depth: int = 1, record: bool = True
) -> list[FileDependent]:
    """Files that depend on ``file`` (up to ``depth`` levels), with the direct edges."""
    path = normalise_path(file)
    with recorded(db, "what-depends-on", {"file": path, "depth": depth}, record) as done:

        def query(conn: ReadConnection) -> list[FileDependent]:
            _require_file(conn, path)
            levels = dependents_by_level(conn, [path], depth)
            rows = conn.execute(_DIRECT_SQL, (path, path, *DEPENDENCY_TYPES, "name-only"))
            direct: dict[str, list[tuple[str, str, str, int | None]]] = {}
            for source, type_, from_entity, to_entity, line in rows:
                direct.setdefault(source, []).append((type_, from_entity, to_entity, line))
            return [
                FileDependent(p, level, via, tuple(direct.get(p, ())))
                for p, (level, via) in sorted(levels.items(), key=lambda x: (x[1][0], x[0]))
            ]

        result = db.read_raw(query)
        done(len(result))
    return result
