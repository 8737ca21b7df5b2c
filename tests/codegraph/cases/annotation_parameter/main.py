from typing import Optional


class Repo:
    def save(self, item):
        return item


def store(repo: Repo, item):
    return repo.save(item)


def maybe_store(repo: Optional["Repo"], item):
    if repo is not None:
        return repo.save(item)
    return None


store(Repo(), 1)
maybe_store(Repo(), 2)
