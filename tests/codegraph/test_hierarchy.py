"""Attributes of classes and instances (:mod:`kgraph.codegraph.hierarchy`): an instance's
property is what its getter returns."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kgraph.codegraph.export import export_callgraph
from kgraph.codegraph.indexer import ParseReport
from kgraph.db import Database
from tests.codegraph.conftest import write_tree

PROPERTIES = """\
import functools


class URL:
    def copy_with(self):
        return self


class Mirror:
    def sync(self):
        return None


class Server:
    @property
    def url(self) -> URL:
        return self._url

    @url.setter
    def url(self, value):
        self._url = value

    @functools.cached_property
    def backup(self):
        return Mirror()


class Local(Server):
    pass


def use(server: Server, local: Local):
    server.url.copy_with()
    local.backup.sync()


def through_class():
    Server.url.copy_with()
"""


def test_an_instances_property_is_what_its_getter_returns(
    db: Database, tmp_path: Path, parse: Callable[..., ParseReport]
) -> None:
    parse(write_tree(tmp_path / "repo", {"main.py": PROPERTIES}))
    graph = export_callgraph(db)
    assert graph["main.use"] == ["main.Mirror.sync", "main.URL.copy_with"]
    assert graph["main.through_class"] == []  # the class's attribute is the property itself
