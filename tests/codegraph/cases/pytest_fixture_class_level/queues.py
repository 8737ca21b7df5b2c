class Queue:
    def push(self, item):
        return item


class PriorityQueue(Queue):
    def push(self, item):
        return item

    def peek(self):
        return None
