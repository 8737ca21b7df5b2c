def test_get(client):
    client.get("/a")


def test_twice(client):
    first = client.get("/a")
    client.get(first)
