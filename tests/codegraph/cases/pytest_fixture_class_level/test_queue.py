import pytest

from queues import Queue, PriorityQueue


@pytest.fixture
def queue() -> Queue:
    return Queue()


class TestPlain:
    def test_push(self, queue):
        queue.push(1)


class TestPriority:
    @pytest.fixture
    def queue(self) -> PriorityQueue:
        return PriorityQueue()

    def test_push(self, queue):
        queue.push(1)
        queue.peek()
