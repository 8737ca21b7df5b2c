from collections.abc import Generator, Iterator

import pytest

from db import Connection, Session


@pytest.fixture
def conn() -> Iterator[Connection]:
    connection = Connection("sqlite://")
    yield connection
    connection.close()


@pytest.fixture
def session() -> Generator[Session, None, None]:
    yield Session()
