import pytest

from store import Store


@pytest.fixture
def store() -> Store:
    return Store()


def helper(store):
    store.put("not a test: store is what callers pass")


def test_put(store):
    store.put("k")


class TestStore:
    def test_get(self, store):
        store.get("k")
