"""Class hierarchies for the :class:`~kgraph.codegraph.resolve.Resolver`: resolved bases,
the C3 MRO, and member lookup along it.

Attributes of classes and instances follow the C3 MRO (over in-repository classes: external
bases end the chain), instance attributes (``self.x = Cls()``) and annotations. These are
plain functions taking the resolver: they are part of its evaluation (they record what they
read in its read sets, and cache in its caches).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgraph.codegraph.values import CONF_LOCAL, Result, unique

if TYPE_CHECKING:
    from kgraph.codegraph.resolve import Resolver


def bases(resolver: Resolver, path: str, qname: str) -> list[Result]:
    """Resolved base classes (and TS ``implements``) of a class, in order."""

    def compute() -> list[Result]:
        summary = resolver.summary(path, qname)
        info = summary["defs"].get(qname) if summary is not None else None
        if summary is None or info is None:
            return []
        parent = summary["scopes"].get(qname, {}).get("p") or ""
        results: list[Result] = []
        for ref in info.get("b", ()):
            results.extend(resolver.eval_ref(path, parent, ref, info["l"]))
        return results

    return resolver._cached(("bases", path, qname), compute)


def mro(resolver: Resolver, path: str, qname: str) -> list[tuple[str, str]]:
    """C3 linearisation over in-repo classes (external bases end the chain)."""
    key = (path, qname)
    hit = resolver._mro.get(key)
    if hit is not None:
        resolver.replay(hit[1])
        return hit[0]
    if ("mro", *key) in resolver._active:
        return [key]
    resolver._active.add(("mro", *key))
    resolver.start_reads()
    try:
        parents = [
            (v[1], v[2])
            for v, _c, _m in bases(resolver, path, qname)
            if v[0] == "def" and resolver.def_kind(v) in ("class", "interface")
        ]
        linear = _c3([key], [mro(resolver, *p) for p in parents] + [parents])
    finally:
        resolver._active.discard(("mro", *key))
        reads = resolver.finish_reads()
    resolver._mro[key] = (linear, reads)
    return linear


def class_member(
    resolver: Resolver, path: str, qname: str, name: str, instance: bool, skip_first: bool = False
) -> list[Result]:
    key = ("member", path, qname, name, instance, skip_first)
    return resolver._cached(
        key, lambda: _class_member(resolver, path, qname, name, instance, skip_first)
    )


def _class_member(
    resolver: Resolver, path: str, qname: str, name: str, instance: bool, skip_first: bool
) -> list[Result]:
    order = mro(resolver, path, qname)
    for class_path, class_name in order[1:] if skip_first else order:
        summary = resolver.summary(class_path, class_name)
        if summary is None:
            continue
        member = f"{class_name}.{name}"
        if member in summary["defs"]:
            return [(("def", class_path, member), CONF_LOCAL, "mro")]
        scope = summary["scopes"].get(class_name, {})
        results: list[Result] = []
        bindings = scope.get("b", {}).get(name)
        if bindings:
            results.extend(resolver.eval_bindings(class_path, class_name, bindings))
        if instance:
            for scope_name, binding in scope.get("ia", {}).get(name, ()):
                results.extend(resolver.eval_binding(class_path, scope_name, binding))
        if bindings or (instance and name in scope.get("ia", {})):
            return unique(results)
    return []


def _c3(
    head: list[tuple[str, str]], sequences: list[list[tuple[str, str]]]
) -> list[tuple[str, str]]:
    result = list(head)
    seqs = [list(s) for s in sequences if s]
    while seqs:
        for seq in seqs:
            candidate = seq[0]
            if not any(candidate in s[1:] for s in seqs):
                break
        else:  # inconsistent hierarchy: fall back to depth-first, left to right
            for seq in seqs:
                result.extend(c for c in seq if c not in result)
            return result
        if candidate not in result:
            result.append(candidate)
        seqs = [s[1:] if s[0] == candidate else s for s in seqs]
        seqs = [s for s in seqs if s]
    return result
