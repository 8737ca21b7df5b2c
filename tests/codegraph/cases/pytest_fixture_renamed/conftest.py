import pytest

from mailer import Mailer, Outbox


@pytest.fixture(name="mailer")
def mailer_fixture() -> Mailer:
    return Mailer()


@pytest.fixture(scope="session", name="outbox")
def _outbox():
    return Outbox()
