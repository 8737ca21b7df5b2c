from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kgraph.api import Project
from tests.api.sample import open_sample


@pytest.fixture
def sample(tmp_path: Path) -> Iterator[tuple[Project, dict[str, str]]]:
    kg, ids = open_sample(tmp_path)
    yield kg, ids
    kg.close()
