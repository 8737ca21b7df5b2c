"""What the Go, Java and Rust summarisers share: their grammar's parser and queries, their
declarations in source order, and the test of whether a name is function-like.

Each language's own module keeps what differs (its query, its capture names, its
scoping); these are the parts that were written three (or two) times alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tree_sitter import Language, Node, Parser, Query, QueryCursor, Tree

from kgraph.codegraph.summary import Assigned, Defined, Parameter, Scope

__all__ = ["grammar", "in_source_order", "names_function", "syntax_errors"]


def grammar(language: Any, query: str) -> tuple[Parser, Query, Query]:
    """A parser for the grammar's ``language`` capsule (``tree_sitter_go.language()``), its
    summary ``query``, and the query that finds syntax errors (callers cache the result)."""
    compiled = Language(language)
    return Parser(compiled), Query(compiled, query), Query(compiled, "(ERROR) @e")


def syntax_errors(tree: Tree, error_query: Query) -> int:
    """How many syntax errors ``tree`` holds, by :func:`grammar`'s error query (at least one
    when tree-sitter flags an error it did not mark with a node): the summary's "errors"."""
    if not tree.root_node.has_error:
        return 0
    return max(len(QueryCursor(error_query).captures(tree.root_node).get("e", [])), 1)


def in_source_order(
    captures: Mapping[str, Sequence[Node]], names: Iterable[str]
) -> list[tuple[int, str, Node]]:
    """(start byte, capture name, node) of the ``names`` captures, in source order: a
    declaration is handled before what follows it (at one start, the order of ``names``)."""
    found = ((n.start_byte, name, n) for name in names for n in captures.get(name, ()))
    return sorted(found, key=lambda item: item[0])


def names_function(scopes: Mapping[str, Scope], scope: str, name: str) -> bool:
    """Whether ``name``, looked up from ``scope`` outwards, may be a function: a definition
    or a parameter, or a value assigned from neither a call nor a literal; a name no scope
    binds is another file's (or module's) and may be one."""
    current: str | None = scope
    while current is not None:
        data = scopes[current]
        bindings = data["names"].get(name)
        if bindings:
            return any(
                isinstance(b, (Defined, Parameter))
                or (isinstance(b, Assigned) and "(" not in b.ref and "<" not in b.ref)
                for b in bindings
            )
        current = data["parent"] if current else None
    return True
