from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kgraph.api import Project
from tests.api.sample import open_sample


@pytest.fixture
def sample(
    request: pytest.FixtureRequest, backend: str, tmp_path: Path
) -> Iterator[tuple[Project, dict[str, str]]]:
    url = request.getfixturevalue("pg_server").fresh_url() if backend == "postgresql" else None
    kg, ids = open_sample(tmp_path, url=url)
    yield kg, ids
    kg.close()
