"""``kgraph viz``: the project's memory and code graph as one offline HTML page.

Knowledge items by type, their files and code areas and the edges between them (ABOUT,
IN_FILE, LED_TO, APPLIES_TO, SUPERSEDES, PART_OF), the code graph's file dependencies, and
with a focus the neighbourhood of a file, symbol or item. Modules: ``read`` (through the
knowledge and code-graph APIs), ``build`` / ``overview`` (the map) / ``focus`` /
``aggregate`` (pure transforms), ``page`` (the HTML, CSP and the vendored cytoscape.js),
``browser`` (a headless-Chromium check of a page, for tests and the benchmark script),
``views`` (the entry points).
"""

from kgraph.viz.aggregate import DEFAULT_MAX_NODES
from kgraph.viz.model import Edge, Node, View
from kgraph.viz.overview import overview
from kgraph.viz.page import render_page, vendor_info
from kgraph.viz.views import DEFAULT_DEPTH, PageReport, build_view, write_page

__all__ = [
    "DEFAULT_DEPTH",
    "DEFAULT_MAX_NODES",
    "Edge",
    "Node",
    "PageReport",
    "View",
    "build_view",
    "overview",
    "render_page",
    "vendor_info",
    "write_page",
]
