from typing import Iterator, Optional, Sequence


class Job:
    def run(self):
        return 1


class Task:
    def start(self):
        return 2


class Step:
    def go(self):
        return 3


class Item:
    def use(self):
        return 4


def run_all(jobs: list[Job]):
    for job in jobs:
        job.run()


def start_all(tasks: Optional[Sequence[Task]]):
    for task in tasks:
        task.start()


def walk(steps: Iterator[Step]):
    return [step.go() for step in steps]


def use_all(items: tuple[Item, ...]):
    kept: list[Item] = list(items)
    for item in kept:
        item.use()


run_all([Job()])
start_all([Task()])
walk(iter([Step()]))
use_all((Item(),))
