"""Items as records: loaded by id or id prefix, JSON-ready."""

from __future__ import annotations

import pytest

from kgraph.db import Database
from kgraph.errors import InvalidValueError, NotFoundError
from kgraph.knowledge import add_item, get_item


@pytest.fixture
def seeded(db: Database) -> dict[str, str]:
    return {
        "handler": add_item(
            db, "Log with rd-logger in handlers", files=["src/api/handler.py"], confidence=0.9
        ).entity_id,
        "pattern": add_item(
            db, "Validate input with pydantic", type="Pattern", code_area="API"
        ).entity_id,
        "other_file": add_item(
            db, "Routes are registered in app.py", files=["src/api/routes.py"]
        ).entity_id,
        "issue": add_item(
            db, "Issue 12 needs a migration", issue_number=12, files=["alembic/versions/0002.py"]
        ).entity_id,
        "unrelated": add_item(db, "Docs are built with mkdocs", files=["docs/index.md"]).entity_id,
    }


def test_get_item_by_id_or_prefix(db: Database, seeded: dict[str, str]) -> None:
    full = seeded["handler"]
    assert get_item(db, full[:7]).id == full
    item = get_item(db, "area-api")
    assert item.type == "CodeArea" and item.content == "API"
    with pytest.raises(NotFoundError, match="no knowledge item lrn-zzz"):
        get_item(db, "lrn-zzz")
    with pytest.raises(InvalidValueError, match="ambiguous"):
        get_item(db, "lrn-")


def test_item_dict_is_json_ready(db: Database, seeded: dict[str, str]) -> None:
    import json

    data = get_item(db, seeded["issue"]).to_dict()
    assert json.loads(json.dumps(data))["issue_number"] == 12
    assert data["code_areas"] == ["Database"] and data["created_at"].endswith("Z")
