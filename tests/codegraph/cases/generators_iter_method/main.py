def first():
    return 1


def second():
    return 2


class Pipeline:
    def __iter__(self):
        yield first
        yield second


def run(pipeline):
    for stage in pipeline:
        stage()


pipeline = Pipeline()
for stage in pipeline:
    stage()
