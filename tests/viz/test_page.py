"""The page: vendored library pinned by hash, a CSP that allows no network, data that
cannot break out of its block."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser
from importlib import resources

import pytest

from kgraph.errors import KgraphError
from kgraph.knowledge.records import get_item
from kgraph.knowledge.store import add_item
from kgraph.viz import build_view, render_page, vendor_info
from kgraph.viz import page as page_module
from kgraph.viz.model import Node, View, item_key
from tests.viz.conftest import Project

# cytoscape 3.34.4, package/dist/cytoscape.min.js of the npm tarball (see VENDOR.json).
PINNED_SHA256 = "081591ab735b2b6a3b31a3c60f8f3a3e2fee8c92939e0c7820ad1208571b6cd8"
HOSTILE = '</script><script>alert(1)</script> <!-- {{library}} \u2028 & "quoted" </SCRIPT >'


class Blocks(HTMLParser):
    """Script blocks (attributes, text), the style block, the CSP and every src/href."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.styles: list[str] = []
        self.csp = ""
        self.links: list[str] = []
        self._in: tuple[str, dict[str, str | None]] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.links += [v or "" for k, v in attrs if k in ("src", "href", "action", "srcset")]
        if tag == "meta" and found.get("http-equiv") == "Content-Security-Policy":
            self.csp = found.get("content") or ""
        if tag in ("script", "style"):
            self._in, self._text = (tag, found), []

    def handle_data(self, data: str) -> None:
        if self._in:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if self._in and tag == self._in[0]:
            text = "".join(self._text)
            if tag == "script":
                self.scripts.append((self._in[1], text))
            else:
                self.styles.append(text)
            self._in = None


def parse(html: str) -> Blocks:
    blocks = Blocks()
    blocks.feed(html)
    return blocks


def sha(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_vendored_library_is_pinned_by_hash_with_version_and_licence() -> None:
    vendor = resources.files("kgraph.viz").joinpath("vendor")
    data = vendor.joinpath("cytoscape.min.js").read_bytes()
    assert hashlib.sha256(data).hexdigest() == PINNED_SHA256
    info = vendor_info()
    assert (info["name"], info["version"], info["licence"]) == ("cytoscape", "3.34.4", "MIT")
    assert info["sha256"] == PINNED_SHA256
    assert "The Cytoscape Consortium" in vendor.joinpath(info["licence_file"]).read_text()
    assert b'version="3.34.4"' in data


def test_a_tampered_library_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    real = vendor_info()
    monkeypatch.setattr(page_module, "vendor_info", lambda: {**real, "sha256": "0" * 64})
    page_module.library.cache_clear()
    try:
        with pytest.raises(KgraphError, match=r"does not match VENDOR\.json"):
            page_module.library()
    finally:
        page_module.library.cache_clear()


def test_csp_allows_no_network_and_only_the_pages_own_scripts(project: Project) -> None:
    html = render_page(build_view(project.db, project_root=project.root))
    blocks = parse(html)
    policy = dict(d.strip().split(" ", 1) for d in blocks.csp.split(";"))
    assert policy["default-src"] == "'none'"
    assert "unsafe" not in blocks.csp and "http" not in blocks.csp and "*" not in blocks.csp
    assert set(policy) == {
        "default-src",
        "script-src",
        "style-src",
        "base-uri",
        "form-action",
    }
    executable = [text for attrs, text in blocks.scripts if "type" not in attrs]
    assert len(executable) == 2  # the page script and the library
    assert policy["script-src"].split() == [sha(t) for t in executable]
    assert policy["style-src"].split() == [sha(t) for t in blocks.styles]
    assert blocks.links == []  # nothing is loaded from anywhere
    assert not re.search(r"https?://", executable[0])


def test_item_text_cannot_break_out_of_the_data_block(project: Project) -> None:
    result = add_item(project.db, HOSTILE, files=["app/db.py"], project_root=project.root)
    html = render_page(build_view(project.db, project_root=project.root))
    blocks = parse(html)
    assert [attrs.get("type") for attrs, _ in blocks.scripts] == [
        None,
        "application/json",
        None,
    ]
    raw = blocks.scripts[1][1]
    assert "<" not in raw and ">" not in raw and "&" not in raw and "\u2028" not in raw
    data = json.loads(raw)
    node = next(n for n in data["nodes"] if n["id"] == item_key(result.entity_id))
    assert node["text"] == get_item(project.db, result.entity_id).content
    assert node["text"].startswith("</script><script>alert(1)</script> <!-- {{library}}")
    assert "<script>alert" not in html.lower()


def test_title_and_notes_are_escaped() -> None:
    view = View('a "b" <c>', (Node("k:x", "Learning", "x", "x", "x"),), (), notes=("<b>",))
    html = render_page(view)
    assert "<title>kgraph: a &quot;b&quot; &lt;c&gt;</title>" in html
    assert "<b>" not in html.split("<body>", 1)[1].split('id="kgraph-data"')[0]
    assert 'data-expected-nodes="1"' in html
