import pytest

from cache import Cache


@pytest.fixture
def cache() -> Cache:
    return Cache()
