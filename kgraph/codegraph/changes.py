"""What an edit changed, as other files can observe it: the incremental parse's test of which
files must be re-resolved.

Two things of a file are read by the resolution of others: its *names* (definitions,
scopes with their bindings, arguments and literals, module bindings, exports; not calls
nor line numbers) and its *call sites with arguments* (a function's parameters are bound
to what its callers pass, so the callers' arguments are read where the parameter is used).
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from kgraph.codegraph.refs import call_args, split_call, split_ref
from kgraph.codegraph.summary import Summary

DECORATOR_SITES: Final = "@"  # key prefix of decorators a call returns: @route("/x") is "@route"

# A record's trailing line (``,12]``) and a definition's "line"/"end": left out when
# comparing what other files can observe.
_LINES: Final = re.compile(r',-?\d+\]|"(?:line|end)":\d+,?')


def _name_parts(summary: Summary) -> dict[str, list[Any]]:
    """What other files can observe, split by top-level name."""
    parts: dict[str, list[Any]] = {}
    for qname, info in summary["defs"].items():
        top = qname.split(".", 1)[0]
        parts.setdefault(top, []).append(["d", qname, info])
        fixture = info.get("fixture")
        if fixture is not None and fixture != top and top == qname:
            # A fixture named apart from its function (`@fixture(name=...)`) is read by its
            # name: a test that found none of that name here must see it come.
            parts.setdefault(fixture, []).append(["f", qname])
    for qname, scope in summary["scopes"].items():
        if qname:
            parts.setdefault(qname.split(".", 1)[0], []).append(["s", qname, scope])
    module = summary["scopes"][""]
    for name, bindings in module["names"].items():
        parts.setdefault(name, []).append(["b", bindings])
    for key in ("args", "containers", "stores"):  # the module scope's own, under "="
        if key in module:
            parts.setdefault("=", []).append([key, module[key]])  # type: ignore[literal-required,unused-ignore]
    for name, binding in summary.get("exports", {}).items():
        parts.setdefault(name, []).append(["x", binding])
    return parts


def changed_names(old: Summary, new: Summary) -> set[str]:
    """Top-level names whose observable part differs between two summaries of one file.

    An edit inside function bodies that only changes calls, or shifts lines, changes no
    name: dependents need no re-resolution. ``"__all__"`` when ``__all__`` changed; ``"*"``
    when the star imports/re-exports changed (then any name looked up in the module may
    resolve differently); ``"="`` for the module scope's arguments, literals and stores.
    """
    changed = set()
    if old.get("all") != new.get("all"):
        changed.add("__all__")
    if old.get("star") != new.get("star") or old.get("estar") != new.get("estar"):
        changed.add("*")
    if old.get("lang") != new.get("lang"):
        changed.add("*")
    before, after = _name_parts(old), _name_parts(new)
    for name in before.keys() | after.keys():
        a = before.get(name)
        b = after.get(name)
        if a is None or b is None:
            changed.add(name)
            continue
        if a == b:  # not even moved (names above the edit): no serialising, ~10 ms a file
            continue
        text_a = _LINES.sub("", json.dumps(a, sort_keys=True, separators=(",", ":")))
        text_b = _LINES.sub("", json.dumps(b, sort_keys=True, separators=(",", ":")))
        if text_a != text_b:
            changed.add(name)
    return changed


def depends_on(read: list[str], changed: set[str] | None) -> bool:
    """Whether a file that read ``read`` (top-level names) of another file must be
    re-resolved after that file changed ``changed`` names (None: it was deleted)."""
    if changed is None:
        return True
    if "*" in changed:
        return any(name for name in read)
    return bool(changed.intersection(read))


def site_key(summary: Summary, scope: str, ref: str) -> str | None:
    """The key a call site with arguments is indexed by: the called name when the call
    applies to a name (``run(#0)``, ``obj.run(#0)``); for a decorator a call returned
    (``@route("/")``: ``route()(#1)``), :data:`DECORATOR_SITES` and the name of the
    call (``@route``: what it returns is a function ``route`` defines); None for other
    calls (``table['k'](#0)``)."""
    callee, op = split_call(ref)
    index = call_args(op)
    if index is None:
        return None
    last = split_ref(callee)[-1]
    if not last.ops:
        return last.name
    data = summary["scopes"].get(scope)
    args = data.get("args", []) if data is not None else []
    if index < len(args) and args[index].decorator and last.ops[-1][0] == "(":
        return DECORATOR_SITES + last.name
    return None


def site_entries(
    summary: Summary, only: str | None = None
) -> dict[str, list[tuple[str, str, int]]]:
    """Key -> (scope, call ref, line) of the file's call sites with arguments; ``only``:
    those of that key alone (a ref without its name is skipped unread: an edit's search
    for one function's callers visits ~40 files, and keyed all their calls)."""
    name = only.removeprefix(DECORATOR_SITES) if only is not None else ""
    sites: dict[str, list[tuple[str, str, int]]] = {}
    for scope, flat in summary["calls"].items():
        for i in range(0, len(flat), 2):
            ref = str(flat[i])
            if "(#" not in ref or name not in ref:
                continue
            key = site_key(summary, scope, ref)
            if key is not None and (only is None or key == only):
                sites.setdefault(key, []).append((scope, ref, int(flat[i + 1])))
    return sites


def call_sites(summary: Summary) -> dict[str, list[str]]:
    """Key -> ``["scope|ref", ...]`` of the file's call sites with arguments (no lines)."""
    return {
        key: [f"{scope}|{ref}" for scope, ref, _line in entries]
        for key, entries in site_entries(summary).items()
    }


def changed_sites(old: Summary | None, new: Summary | None) -> set[str]:
    """Keys whose call sites differ between two versions of a file (None: absent)."""
    before = call_sites(old) if old is not None else {}
    after = call_sites(new) if new is not None else {}
    return {
        key
        for key in before.keys() | after.keys()
        if sorted(before.get(key, ())) != sorted(after.get(key, ()))
    }
