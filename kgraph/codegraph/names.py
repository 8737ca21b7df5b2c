"""Resolving the code names a person writes (``DropIndexOp``, ``get_section``,
``httpx._config``, ``Template.get_def``, ``mako/lexer.py``) to the files that define them,
and those files' closest callers.

Used by prompt recall: a prompt that names code is about the files defining it. Runs on a
DB-API connection (``sqlite3``, or psycopg through kgraph.db.pgreader) over indexed columns
(``name``, ``qualified_name``, the callers index), stdlib only, so the user-prompt hook
needs no SQLAlchemy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from kgraph.codegraph.filedeps import DEPENDENCY_TYPES, normalise_path
from kgraph.db.reader import ReadConnection, chunked, marks

__all__ = ["Resolved", "caller_files", "files_matching_path", "module_files", "resolve_names"]

# A name defined in more files than this is too common to say what a prompt is about.
MAX_DEFINING_FILES = 3
_TYPES = ",".join(f"'{t}'" for t in DEPENDENCY_TYPES)


@dataclass(frozen=True)
class Resolved:
    """A name and what it resolved to: entity ids and the files defining them."""

    name: str
    entity_ids: tuple[str, ...]
    files: tuple[str, ...]


def files_matching_path(conn: ReadConnection, text: str, limit: int = 3) -> list[str]:
    """Parsed files whose path is ``text`` or ends with ``/text`` (at most ``limit``;
    none when more match: the fragment is ambiguous)."""
    path = normalise_path(text.strip().strip("`'\""))
    if not path:
        return []
    exact = conn.execute("SELECT path FROM graph_files WHERE path = ?", (path,)).fetchone()
    if exact is not None:
        return [str(exact[0])]
    escaped = path.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    rows = conn.execute(
        "SELECT path FROM graph_files WHERE path LIKE ? ESCAPE '\\' ORDER BY path LIMIT ?",
        (f"%/{escaped}", limit + 1),
    ).fetchall()
    return [str(r[0]) for r in rows] if 0 < len(rows) <= limit else []


def _defining(conn: ReadConnection, column: str, value: str) -> list[tuple[str, str]]:
    return [
        (str(i), str(f))
        for i, f in conn.execute(
            f"SELECT id, file_path FROM graph_entities WHERE {column} = ? LIMIT 50", (value,)
        )
    ]


def _known(conn: ReadConnection, head: str) -> bool:
    """True when ``head`` names something of the project: a package or module, a class or a
    function."""
    for column in ("name", "qualified_name"):
        if conn.execute(
            f"SELECT 1 FROM graph_entities WHERE {column} = ? LIMIT 1", (head,)
        ).fetchone():
            return True
    escaped = head.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return (
        conn.execute(
            "SELECT 1 FROM graph_entities WHERE type = 'file' AND "
            "(qualified_name LIKE ? ESCAPE '\\' OR qualified_name LIKE ? ESCAPE '\\') LIMIT 1",
            (f"{escaped}.%", f"%.{escaped}"),
        ).fetchone()
        is not None
    )


def _resolve_one(conn: ReadConnection, name: str) -> Resolved | None:
    parts = [p for p in name.split(".") if p]
    if not parts:
        return None
    # Longest suffix first: "mako.template.Template.get_def" -> "template.Template.get_def"
    # -> "Template.get_def"; a module path matches a file entity's qualified name. The last
    # part alone only when the first is the project's own: "re.compile" is the standard
    # library's, not a function named "compile" in some module of this project.
    candidates = [".".join(parts[k:]) for k in range(len(parts))]
    if len(parts) > 1 and not _known(conn, parts[0]):
        candidates = candidates[:-1]
    for candidate in candidates:
        found = _defining(conn, "qualified_name", candidate)
        if not found and "." not in candidate:
            found = _defining(conn, "name", candidate)
        if not found:
            continue
        files = tuple(dict.fromkeys(f for _, f in found))
        if len(files) > MAX_DEFINING_FILES:
            return None
        return Resolved(name, tuple(i for i, _ in found), files)
    return None


def resolve_names(conn: ReadConnection, names: Iterable[str]) -> list[Resolved]:
    """Each name that resolves to at most MAX_DEFINING_FILES files, in the given order."""
    out: list[Resolved] = []
    for name in dict.fromkeys(names):
        resolved = _resolve_one(conn, name)
        if resolved is not None:
            out.append(resolved)
    return out


def caller_files(
    conn: ReadConnection, entity_ids: Iterable[str], limit: int = 3
) -> list[tuple[str, int]]:
    """Files with the most resolved edges into ``entity_ids`` (a class counts its
    constructor): (path, edges), most first, the defining files excluded."""
    ids = list(dict.fromkeys(entity_ids))
    targets = ids + [f"{i}.__init__" for i in ids] + [f"{i}.constructor" for i in ids]
    own = {i.split("::", 1)[0] for i in ids}
    counts: dict[str, int] = {}
    for part in chunked(targets):
        for path, count in conn.execute(
            "SELECT file_path, COUNT(*) FROM graph_relationships "
            f"WHERE to_entity IN ({marks(len(part))}) AND +type IN ({_TYPES}) "
            "AND resolution != 'name-only' GROUP BY file_path",
            tuple(part),
        ):
            if path not in own:
                counts[str(path)] = counts.get(str(path), 0) + int(count)
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]


def _module_key(path: str) -> str | None:
    """The module name a person would write for a source file (``httpx/_multipart.py`` ->
    "multipart"); None for package inits and tests."""
    name = path.rsplit("/", 1)[-1]
    base = name.split(".", 1)[0].lower().strip("_")
    if not base or base in ("init", "main") or base.startswith("test") or base.endswith("test"):
        return None
    return base


def module_files(
    conn: ReadConnection, words: Iterable[str], key: Callable[[str], str] = str.lower
) -> dict[str, list[str]]:
    """Word -> the parsed source files whose module name it is (``multipart`` ->
    ``httpx/_multipart.py``), compared through ``key`` (e.g. a stemmer) on both sides;
    words naming more than MAX_DEFINING_FILES modules are left out."""
    wanted: dict[str, str] = {key(w): w for w in words}
    found: dict[str, list[str]] = {}
    for (path,) in conn.execute("SELECT path FROM graph_files"):
        module = _module_key(str(path))
        if module is None:
            continue
        word = wanted.get(key(module))
        if word is not None:
            found.setdefault(word, []).append(str(path))
    return {w: sorted(p) for w, p in found.items() if len(p) <= MAX_DEFINING_FILES}
