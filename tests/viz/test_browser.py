"""The page in a real browser: headless Chromium over the DevTools protocol (stdlib only).

Each test loads a page written for a temp project and checks what the browser saw: no
request besides the page's own file, no page or console error, no dialog, the node and edge
counts the page reports equal to the view's, and a screenshot (saved under pytest's temp
folder, or $KGRAPH_TEST_ARTEFACTS). Skipped, saying so, only when Chromium is missing.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import pytest

from kgraph.knowledge.records import get_item
from kgraph.knowledge.store import add_item
from kgraph.viz import build_view, write_page
from kgraph.viz.browser import PageCheck, check_page
from kgraph.viz.model import item_key
from tests.viz.conftest import Project

PNG = b"\x89PNG\r\n\x1a\n"


def assert_clean(check: PageCheck) -> None:
    assert check.requests == [], "the page made network requests"
    assert check.errors == []
    assert check.dialogs == []
    assert check.attributes["ready"] == "1"


@pytest.mark.parametrize("focus", [None, "handler", "app/api.py", "mistake"])
def test_page_renders_offline_with_every_node(
    project: Project, chromium: str, artefacts: Path, tmp_path: Path, focus: str | None
) -> None:
    if focus == "mistake":
        focus = project.mistake
    view = build_view(project.db, focus=focus, project_root=project.root)
    page = write_page(view, tmp_path / "viz.html").path
    name = "overview" if focus is None else focus.replace("/", "_")
    check = check_page(page, screenshot=artefacts / f"viz-{name}.png", executable=chromium)
    assert_clean(check)
    nodes, edges = len(view.nodes), len(view.edges)
    assert int(check.attributes["nodes"]) == nodes == check.report["nodes"]
    assert int(check.attributes["edges"]) == edges == check.report["edges"]
    assert check.report["visible"] == nodes
    assert check.title.endswith(f"({nodes} nodes, {edges} edges)")
    assert check.screenshot is not None
    image = check.screenshot.read_bytes()
    assert image.startswith(PNG) and len(image) > 10_000
    print(f"screenshot: {check.screenshot}")


def test_hostile_item_text_is_shown_as_text(
    project: Project, chromium: str, artefacts: Path, tmp_path: Path
) -> None:
    hostile = "</script><script>alert(1)</script><img src=x onerror=alert(2)>"
    item = add_item(project.db, hostile, files=["app/db.py"], project_root=project.root)
    page = write_page(build_view(project.db, project_root=project.root), tmp_path / "x.html")
    key = item_key(item.entity_id)
    check = check_page(
        page.path,
        screenshot=artefacts / "viz-hostile.png",
        executable=chromium,
        script=(
            f"window.kgraphViz.select({json.dumps(key)}); "
            "[window.kgraphViz.search('alert(1)'), document.querySelectorAll('img').length, "
            "document.querySelector('#panel .text').textContent]"
        ),
    )
    assert_clean(check)  # no dialog: the alerts never ran
    matches, images, shown = check.script_result
    assert shown == get_item(project.db, item.entity_id).content == hostile
    assert hostile in check.report["panel"]
    assert matches == 1
    assert images == 0  # the <img> stayed text


def test_type_and_area_filters_and_aggregation_notice(
    project: Project, chromium: str, tmp_path: Path
) -> None:
    view = build_view(project.db, project_root=project.root, max_nodes=10)
    assert view.aggregated == ("4 of 5 files (the least known) into their code areas",)
    page = write_page(view, tmp_path / "agg.html").path
    script = """
      const visible = () => window.kgraphViz.visible();
      const all = visible();
      document.querySelector('input[data-type="Learning"]').click();
      const noLearnings = visible();
      document.querySelector('input[data-type="Learning"]').click();
      const area = document.getElementById('area');
      area.value = 'CLI';
      area.dispatchEvent(new Event('change'));
      [all, noLearnings, visible(), document.getElementById('notes').textContent];
    """
    check = check_page(page, executable=chromium, script=script)
    assert_clean(check)
    everything, without_learnings, cli_only, notes = check.script_result
    learnings = sum(1 for n in view.nodes if n.type == "Learning")
    assert everything == len(view.nodes)
    assert without_learnings == everything - learnings
    assert cli_only == 2  # the CLI area and the Pattern that applies to it
    assert "folded 4 of 5 files (the least known) into their code areas" in notes


def test_the_selection_area_and_search_live_in_the_url_hash(
    project: Project, chromium: str, tmp_path: Path
) -> None:
    """A link to the page can point at one node; choosing another rewrites the link."""
    page = write_page(build_view(project.db, project_root=project.root), tmp_path / "h.html")
    mistake, learning = item_key(project.mistake), item_key(project.learning)
    script = f"""
      const cy = window.kgraphViz.cy;
      const opened = [cy.nodes(':selected').map((n) => n.id()),
        document.getElementById('area').value, document.getElementById('search').value,
        document.querySelector('#panel .ref').textContent];
      window.kgraphViz.select({json.dumps(learning)});
      [opened, decodeURIComponent(location.hash)];
    """
    check = check_page(
        page.path,
        executable=chromium,
        script=script,
        fragment=f"node={quote(mistake)}&area=App&q=validat",
    )
    assert_clean(check)
    opened, hash_after = check.script_result
    assert opened == [[mistake], "App", "validat", project.mistake]
    assert hash_after == f"#node={learning}&area=App&q=validat"


def test_the_check_notices_a_page_that_reaches_for_the_network(
    project: Project, chromium: str, tmp_path: Path
) -> None:
    """The assertions above are not vacuous: a load attempt is seen, CSP or not."""
    html = write_page(build_view(project.db, project_root=project.root), tmp_path / "p.html")
    text = html.path.read_text()
    probe = '<img src="http://127.0.0.1:9/probe.png" alt="">'
    with_csp = tmp_path / "with-csp.html"
    with_csp.write_text(text.replace("<body>", "<body>" + probe, 1))
    check = check_page(with_csp, executable=chromium)
    assert any("img-src" in e or "default-src" in e for e in check.errors)  # blocked, reported
    without_csp = tmp_path / "without-csp.html"
    without_csp.write_text(
        text.replace('http-equiv="Content-Security-Policy"', 'name="no-policy"', 1).replace(
            "<body>", "<body>" + probe, 1
        )
    )
    check = check_page(without_csp, executable=chromium)
    assert check.requests == ["http://127.0.0.1:9/probe.png"]
