import pytest

from api import Bank


@pytest.fixture
def bank():
    return Bank()


@pytest.fixture
def account(bank):
    opened = bank.open("ann")
    yield opened
    bank.close(opened)
