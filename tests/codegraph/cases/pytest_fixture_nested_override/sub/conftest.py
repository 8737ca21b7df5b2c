import pytest

from cache import LocalCache


@pytest.fixture
def cache(cache):
    cache.get("warm")
    return LocalCache()
