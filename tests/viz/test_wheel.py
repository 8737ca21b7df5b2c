"""The wheel ships the page's assets: the vendored library, its record and licence, and the
page template, script and style (``pip install .`` must give a working ``kgraph viz``)."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

from hatchling.builders.wheel import WheelBuilder

from tests.conftest import PROJECT_ROOT
from tests.viz.test_page import PINNED_SHA256

ASSETS = (
    "kgraph/viz/vendor/cytoscape.min.js",
    "kgraph/viz/vendor/VENDOR.json",
    "kgraph/viz/vendor/cytoscape.LICENSE",
    "kgraph/viz/static/page.html",
    "kgraph/viz/static/app.js",
    "kgraph/viz/static/app.css",
)


def test_wheel_contains_the_viz_assets(tmp_path: Path) -> None:
    builder = WheelBuilder(str(PROJECT_ROOT))
    wheel = Path(next(iter(builder.build(directory=str(tmp_path), versions=["standard"]))))
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        assert set(ASSETS) <= names
        library = archive.read("kgraph/viz/vendor/cytoscape.min.js")
        for name in ASSETS[3:]:
            assert archive.read(name) == (PROJECT_ROOT / name).read_bytes()
    assert hashlib.sha256(library).hexdigest() == PINNED_SHA256
