"""The library entry points: build the view of a database, write it as one HTML file.

Read (knowledge export, code graph files) -> transform (overview or focus neighbourhood,
then aggregation) -> write (one page). ``kgraph viz`` is a thin shell over
:func:`write_page`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgraph.db import Database
from kgraph.errors import InvalidValueError
from kgraph.knowledge.areas import AreaRules, load_area_rules
from kgraph.viz.aggregate import DEFAULT_MAX_NODES, aggregate
from kgraph.viz.focus import focus_view
from kgraph.viz.model import View
from kgraph.viz.overview import overview
from kgraph.viz.page import render_page
from kgraph.viz.read import read_sources

DEFAULT_DEPTH = 2


def build_view(
    db: Database,
    *,
    focus: str | None = None,
    depth: int = DEFAULT_DEPTH,
    max_nodes: int = DEFAULT_MAX_NODES,
    rules: AreaRules | None = None,
    project_root: Path | None = None,
) -> View:
    """The view of ``db``: the overview, or the neighbourhood of ``focus`` (a file, a code
    symbol or a knowledge id) to ``depth``; aggregated above ``max_nodes`` nodes."""
    if rules is None:
        rules = load_area_rules(project_root or Path.cwd())
    sources = read_sources(db, rules)
    view = overview(sources) if focus is None else focus_view(db, sources, focus, depth)
    return aggregate(view, max_nodes)


@dataclass(frozen=True)
class PageReport:
    path: Path
    bytes: int
    nodes: int
    edges: int
    nodes_before_aggregation: int
    aggregated: tuple[str, ...]
    notes: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "bytes": self.bytes,
            "nodes": self.nodes,
            "edges": self.edges,
            "nodes_before_aggregation": self.nodes_before_aggregation,
            "aggregated": list(self.aggregated),
            "notes": list(self.notes),
        }


def write_page(view: View, output: Path) -> PageReport:
    """Write ``view`` as one self-contained HTML file at ``output`` (folders created); an
    existing ``output`` that is not a regular file (a device, FIFO or folder) is refused,
    never replaced."""
    if (output.exists() or output.is_symlink()) and not output.is_file():
        raise InvalidValueError(f"cannot write {output}: it is not a regular file")
    html = render_page(view)
    output.parent.mkdir(parents=True, exist_ok=True)
    data = html.encode("utf-8")
    temporary = output.with_name(output.name + ".tmp")
    temporary.write_bytes(data)
    temporary.replace(output)
    return PageReport(
        output,
        len(data),
        len(view.nodes),
        len(view.edges),
        view.before,
        view.aggregated,
        view.notes,
    )
