class Store:
    def put(self):
        return 1


class Api:
    def __init__(self, store: Store):
        self.store = store

    def handle(self):
        return self.store.put()


Api(Store()).handle()
