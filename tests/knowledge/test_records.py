"""Items as records: loaded by id or id prefix, JSON-ready."""

from __future__ import annotations

import pytest

from kgraph.db import Database
from kgraph.errors import InvalidValueError, NotFoundError
from kgraph.knowledge import get_item


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
