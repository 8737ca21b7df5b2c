class Worker:
    def work(self):
        return 1


class Runner:
    def run(self, task):
        return task()


def execute(task):
    return task()


worker = Worker()
execute(worker.work)
Runner().run(worker.work)
