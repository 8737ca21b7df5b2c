class Store:
    def put(self, key):
        return key

    def get(self, key):
        return key
