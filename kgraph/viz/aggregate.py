"""Aggregation: above a node threshold, functions fold into their files, then as many files
as it takes into their code areas (the least known first), and the page says so.

A browser lays out a few hundred nodes in about a second, and a few hundred is what a
person can read; thousands take long and show a hairball. Knowledge items are what a person
came to read, so they go last and are never folded into anything: when folding every file
still leaves too many nodes (sqlalchemy's compiler.py has 1,107 Learnings on the files
around it: 1,130 nodes, eight seconds to draw), the oldest Learnings and Topics are left
out, never the focus, a Mistake, a Pattern or an item on the focus's own file, and the page
counts them. Edges follow their ends: an item's IN_FILE edge to a folded file becomes an
IN_FILE edge to the file's area, file links become area links, and merged edges add up
their weights. Files fold in order: fewest knowledge items, then fewest links; the focus's
own files never fold.
"""

from __future__ import annotations

from dataclasses import replace

from kgraph.viz.model import Edge, Node, View, area_key

DEFAULT_MAX_NODES = 300
_SPARE = ("Learning", "Topic")  # what may be left out, oldest first, when folding is not enough
_ROLE_RANK = {"focus": 0, "caller": 1, "callee": 2, "dependent": 3, "dependency": 4}


def _strongest(roles: list[str]) -> str:
    ranked = sorted((r for r in roles if r in _ROLE_RANK), key=_ROLE_RANK.__getitem__)
    return ranked[0] if ranked else ""


def fold(view: View, folded: dict[str, str], what: str) -> View:
    """``view`` with each node in ``folded`` replaced by the node its key maps to.

    The container gains how many members it took in (a detail line), the weight of all it
    now stands for (``weight`` sizes the node) and the strongest focus role among them.
    """
    members: dict[str, list[Node]] = {}
    for node in view.nodes:
        if node.key in folded:
            members.setdefault(folded[node.key], []).append(node)
    nodes: list[Node] = []
    for node in view.nodes:
        if node.key in folded:
            continue
        inside = members.get(node.key)
        if inside:
            node = replace(
                node,
                weight=node.weight + sum(m.weight for m in inside),
                role=node.role or _strongest([m.role for m in inside]),
                details=(*node.details, (f"{what} folded in", str(len(inside)))),
            )
        nodes.append(node)
    present = {n.key for n in nodes}
    merged: dict[tuple[str, str, str], int] = {}
    for edge in view.edges:
        source = folded.get(edge.source, edge.source)
        target = folded.get(edge.target, edge.target)
        if source != target and source in present and target in present:
            key = (source, edge.type, target)
            merged[key] = merged.get(key, 0) + edge.weight
    edges = tuple(Edge(s, t, d, w) for (s, t, d), w in merged.items())
    return replace(view, nodes=tuple(nodes), edges=edges)


def _fold_order(view: View) -> list[Node]:
    """Files in the order they fold: the focus's own never; then fewest knowledge items,
    fewest links, path."""
    items: dict[str, int] = {}
    links: dict[str, int] = {}
    for edge in view.edges:
        if edge.source.startswith("k:"):
            items[edge.target] = items.get(edge.target, 0) + 1
        for end in (edge.source, edge.target):
            links[end] = links.get(end, 0) + 1
    files = [n for n in view.nodes if n.type == "File" and n.areas and n.role != "focus"]
    return sorted(
        files, key=lambda n: (bool(n.role), items.get(n.key, 0), links.get(n.key, 0), n.key)
    )


def aggregate(view: View, max_nodes: int = DEFAULT_MAX_NODES) -> View:
    """Fold symbols into files, then as many files into their areas as it takes (those with
    the least knowledge first), while more than ``max_nodes`` nodes show."""
    before = len(view.nodes)
    if before <= max_nodes:
        return view
    done: list[str] = []
    symbols = {n.key: n.parent for n in view.nodes if n.type == "Symbol" and n.parent}
    if symbols:
        view = fold(view, {k: p for k, p in symbols.items() if p is not None}, "symbols")
        done.append("functions and classes into their files")
    excess = len(view.nodes) - max_nodes
    if excess > 0:
        files = sum(1 for n in view.nodes if n.type == "File")
        chosen = _fold_order(view)[:excess]
        view = fold(view, {n.key: area_key(n.areas[0]) for n in chosen}, "files")
        if chosen:
            least = "all" if len(chosen) == files else "the least known"
            done.append(f"{len(chosen):,} of {files:,} files ({least}) into their code areas")
    left_out = 0
    if len(view.nodes) > max_nodes:
        view, left_out = leave_out_items(view, len(view.nodes) - max_nodes)
    did = [f"folded {' and '.join(done)}"] if done else []
    if left_out:
        done.append(f"left out the {left_out:,} oldest Learnings and Topics")
        did.append(done[-1])
    notes = [
        f"{before:,} nodes are more than the {max_nodes:,} this page lays out: "
        f"{'; '.join(did)}; {len(view.nodes):,} nodes shown. "
        "Use --focus FILE|SYMBOL|ID for the details, or --max-nodes to raise the limit."
    ]
    if left_out:
        notes.append(
            f"Left out the {left_out:,} oldest Learnings and Topics on these files (never a "
            "Mistake, a Pattern or an item on the focus itself): --focus one of the files, "
            "or kgraph search, shows them."
        )
    if len(view.nodes) > max_nodes:
        notes.append(f"Still {len(view.nodes):,} nodes: use the type and area filters, or --focus.")
    return replace(view, notes=(*view.notes, *notes), before=before, aggregated=tuple(done))


def leave_out_items(view: View, excess: int) -> tuple[View, int]:
    """``view`` without up to ``excess`` of its oldest Learnings and Topics that are neither
    the focus nor on a focus node, and how many went."""
    focus = {n.key for n in view.nodes if n.role == "focus"}
    on_focus = {e.source for e in view.edges if e.target in focus}
    updated = {n.key: dict(n.details).get("updated", "") for n in view.nodes}
    spare = sorted(
        (n for n in view.nodes if n.type in _SPARE and n.role != "focus" and n.key not in on_focus),
        key=lambda n: (updated[n.key], n.key),
    )
    gone = {n.key for n in spare[:excess]}
    if not gone:
        return view, 0
    nodes = tuple(n for n in view.nodes if n.key not in gone)
    edges = tuple(e for e in view.edges if e.source not in gone and e.target not in gone)
    return replace(view, nodes=nodes, edges=edges), len(gone)
