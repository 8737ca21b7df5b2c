"""One self-contained HTML page: the vendored graph library, the page script and the data,
inlined, under a Content-Security-Policy that allows no network at all.

Why each piece:

- **Offline.** Nothing is loaded from anywhere: cytoscape.js ships inside the package
  (``vendor/``, its version, licence and sha256 in ``VENDOR.json``) and is inlined.
- **CSP.** ``default-src 'none'`` forbids every fetch, image, font, frame and connection;
  the two inline scripts and the one style block are allowed by their sha256 hashes, not by
  ``'unsafe-inline'``, so nothing injected could run either.
- **Data cannot break out.** The data is JSON in a ``<script type="application/json">``
  block with every ``<``, ``>`` and ``&`` written as a ``\\u`` escape, so no symbol name or
  item text can close the block (``</script>``) or open a comment; the page script puts
  text into the page with ``textContent`` only.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from functools import lru_cache
from importlib import resources
from typing import TypedDict

from kgraph.errors import KgraphError
from kgraph.viz.model import View, to_json

_PACKAGE = "kgraph.viz"
# Cytoscape inserts this <style> element unless the page already has one with its id (it
# would be blocked by the CSP): the page's own, hash-allowed style block carries that id.
CYTOSCAPE_STYLE_ID = "__________cytoscape_stylesheet"
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


class Vendored(TypedDict):
    name: str
    version: str
    licence: str
    file: str
    licence_file: str
    source: str
    npm_integrity: str
    sha256: str


def _text(*parts: str) -> str:
    return resources.files(_PACKAGE).joinpath(*parts).read_text(encoding="utf-8")


def vendor_info() -> Vendored:
    """The vendored library's record (VENDOR.json)."""
    info: Vendored = json.loads(_text("vendor", "VENDOR.json"))
    return info


@lru_cache(maxsize=1)
def library() -> str:
    """cytoscape.min.js, checked against the sha256 recorded beside it."""
    info = vendor_info()
    data = resources.files(_PACKAGE).joinpath("vendor", info["file"]).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != info["sha256"]:
        raise KgraphError(
            f"vendored {info['file']} does not match VENDOR.json (sha256 {digest}); "
            "reinstall kgraph"
        )
    text = data.decode("utf-8")
    if "</script" in text.lower() or "<!--" in text:
        raise KgraphError(f"vendored {info['file']} cannot be inlined in a <script> block")
    return text


def escape_json(data: object) -> str:
    """JSON safe inside a ``<script>`` block: ``<``, ``>``, ``&`` and the two JavaScript
    line separators escaped (JSON.parse reads them back unchanged)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    for char, escape in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, escape)
    return text


def csp_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def content_security_policy(scripts: list[str], styles: list[str]) -> str:
    """No network, no plugins, no forms; only these exact scripts and styles run."""
    return "; ".join(
        [
            "default-src 'none'",
            "script-src " + " ".join(csp_hash(s) for s in scripts),
            "style-src " + " ".join(csp_hash(s) for s in styles),
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )


def _attribute(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")
    )


def render_page(view: View) -> str:
    """The complete HTML document for ``view``."""
    script = _text("static", "app.js")
    style = _text("static", "app.css")
    lib = library()
    info = vendor_info()
    data = escape_json(to_json(view))
    title = _attribute(f"kgraph: {view.title}")
    values = {
        "csp": _attribute(content_security_policy([script, lib], [style])),
        "title": title,
        "style_id": CYTOSCAPE_STYLE_ID,
        "library_name": _attribute(f"{info['name']} {info['version']}"),
        "nodes": str(len(view.nodes)),
        "edges": str(len(view.edges)),
        "style": style,
        "script": script,
        "data": data,
        "library": lib,
    }
    # One pass: inserted text (item text, the library) is never searched for placeholders.
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], _text("static", "page.html"))
