import pytest

import shapes


@pytest.fixture
def square():
    return shapes.Square(2)


@pytest.fixture
def circle():
    made = shapes.Circle(1)
    yield made
