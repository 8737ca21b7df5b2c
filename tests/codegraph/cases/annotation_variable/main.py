registry = {}


class Cache:
    def get(self, key):
        return key


def lookup():
    cache: Cache = registry["cache"]
    return cache.get("k")


registry["cache"] = Cache()
lookup()
