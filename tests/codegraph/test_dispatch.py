"""Overrides reached through ``self.m()`` (kgraph.codegraph.dispatch), in every query.

The fixture: ``jobs/base.py``'s ``Job.run`` calls ``self.step()`` (line 4); ``Fast`` and
``Faster(Fast)`` (another file) override ``step``; ``Plain`` does not; ``Other`` has a
``step`` of its own but is no ``Job``; ``Fast.helper`` calls ``self.step()`` inside a
nested function (line 10); ``Fast.redo`` calls ``super().step()``; ``main.go`` calls
``Fast().run()``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy.engine import Connection

from kgraph.codegraph.dispatch import CONF_OVERRIDE, OVERRIDE, descendants
from kgraph.codegraph.export import export_callgraph
from kgraph.codegraph.neighbours import callees
from kgraph.codegraph.query import blast_radius, what_calls
from kgraph.db import Database
from kgraph.db.reader import raw_connection
from tests.codegraph.conftest import write_tree

FILES = {
    "jobs/__init__.py": "",
    "jobs/base.py": """\
class Job:
    def run(self):
        self.prepare()
        return self.step()

    def prepare(self):
        return None

    def step(self):
        return "job"
""",
    "jobs/fast.py": """\
from jobs.base import Job


class Fast(Job):
    def step(self):
        return "fast"

    def helper(self):
        def inner():
            return self.step()

        return inner()

    def redo(self):
        return super().step()


class Plain(Job):
    pass


class Other:
    def step(self):
        return "other"

    def run(self):
        return self.step()
""",
    "jobs/faster.py": """\
from jobs.fast import Fast


class Faster(Fast):
    def step(self):
        return "faster"
""",
    "main.py": """\
from jobs.fast import Fast


def go():
    return Fast().run()
""",
}


@pytest.fixture
def jobs_db(db: Database, tmp_path: Path, parse: Callable[..., object]) -> Database:
    parse(write_tree(tmp_path / "repo", FILES))
    return db


def test_what_calls_an_override_includes_self_calls_in_its_ancestors(jobs_db: Database) -> None:
    _target, callers = what_calls(jobs_db, "Fast.step")
    found = {(c.caller.id, c.callee, c.line, c.resolution) for c in callers}
    assert ("jobs/base.py::Job.run", "jobs/base.py::Job.step", 4, OVERRIDE) in found
    override = next(c for c in callers if c.resolution == OVERRIDE)
    assert override.confidence == CONF_OVERRIDE
    # Faster is a Fast too: the same call runs its own step, not Fast's.
    _target, deeper = what_calls(jobs_db, "Faster.step")
    assert {(c.caller.id, c.line, c.resolution) for c in deeper} == {
        ("jobs/base.py::Job.run", 4, OVERRIDE),
        ("jobs/fast.py::Fast.helper.inner", 10, OVERRIDE),
    }


def test_unrelated_and_exact_calls_get_no_override(jobs_db: Database) -> None:
    _target, callers = what_calls(jobs_db, "Other.step")
    assert {(c.caller.id, c.resolution) for c in callers} == {("jobs/fast.py::Other.run", "self")}
    # The base method keeps its own callers, with their own resolution.
    _target, base = what_calls(jobs_db, "Job.step")
    assert OVERRIDE not in {c.resolution for c in base}
    # super().step() names Job.step exactly; prepare has no override.
    assert ("jobs/fast.py::Fast.redo", "super-mro") in {(c.caller.id, c.resolution) for c in base}
    _target, prepare = what_calls(jobs_db, "Job.prepare")
    assert {c.resolution for c in prepare} == {"self"}


def test_blast_radius_of_an_override_goes_through_the_template_method(jobs_db: Database) -> None:
    result = blast_radius(jobs_db, "Faster.step", depth=2)
    depths = {i.entity.id: (i.depth, i.via) for i in result.impacts}
    assert depths["jobs/base.py::Job.run"] == (1, "jobs/faster.py::Faster.step")
    assert depths["main.py::go"] == (2, "jobs/base.py::Job.run")
    # A class's blast radius covers its methods' overrides too.
    by_class = {i.entity.id for i in blast_radius(jobs_db, "Faster", depth=1).impacts}
    assert "jobs/base.py::Job.run" in by_class


def test_callees_and_export_reach_the_overrides(jobs_db: Database) -> None:
    _target, called = callees(jobs_db, "Job.run")
    assert {c.entity.id for c in called} == {
        "jobs/base.py::Job.prepare",
        "jobs/base.py::Job.step",
        "jobs/fast.py::Fast.step",
        "jobs/faster.py::Faster.step",
    }
    graph = export_callgraph(jobs_db)
    assert graph["jobs.base.Job.run"] == [
        "jobs.base.Job.prepare",
        "jobs.base.Job.step",
        "jobs.fast.Fast.step",
        "jobs.faster.Faster.step",
    ]
    # self in a function nested in a method is the method's.
    assert graph["jobs.fast.Fast.helper.inner"] == [
        "jobs.fast.Fast.step",
        "jobs.faster.Faster.step",
    ]


def test_the_hierarchy_walks_down_across_files(jobs_db: Database) -> None:
    def read(conn: Connection) -> dict[str, set[str]]:
        return descendants(raw_connection(conn), ["jobs/base.py::Job", "jobs/fast.py::Other"])

    assert jobs_db.read(read) == {
        "jobs/base.py::Job": {
            "jobs/fast.py::Fast",
            "jobs/fast.py::Plain",
            "jobs/faster.py::Faster",
        },
        "jobs/fast.py::Other": set(),
    }


def test_this_calls_in_typescript_reach_overrides(
    db: Database, tmp_path: Path, parse: Callable[..., object]
) -> None:
    parse(
        write_tree(
            tmp_path / "web",
            {
                "base.ts": (
                    "export class Base {\n  run(): number {\n    return this.step();\n  }\n"
                    "  step(): number {\n    return 0;\n  }\n}\n"
                ),
                "child.ts": (
                    'import { Base } from "./base";\n\nexport class Child extends Base {\n'
                    "  step(): number {\n    return 1;\n  }\n}\n"
                ),
            },
        )
    )
    _target, callers = what_calls(db, "Child.step")
    assert {(c.caller.id, c.line, c.resolution) for c in callers} == {
        ("base.ts::Base.run", 3, OVERRIDE)
    }
