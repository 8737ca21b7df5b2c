def test_get(cache):
    cache.get("k")
