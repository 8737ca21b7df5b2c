class Resource:
    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        return False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def use(self):
        return 1


async def work():
    async with Resource() as resource:
        resource.use()


coroutine = work()
try:
    coroutine.send(None)
except StopIteration:
    pass
