import pytest

from client import Client


@pytest.fixture
def client() -> Client:
    return Client("http://example")
