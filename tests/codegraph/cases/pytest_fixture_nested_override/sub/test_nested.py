def test_evict(cache):
    cache.evict("k")
