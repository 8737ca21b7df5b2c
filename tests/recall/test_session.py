"""The session-start briefing's title (kgraph.recall.session): what depends on the work."""

from __future__ import annotations

from kgraph.recall.session import NAMED_DEPENDENTS, _depending


def test_dependents_are_grouped_by_the_changed_file_they_depend_on() -> None:
    direct = [(f"app/m{n}.py", "core/base.py") for n in range(NAMED_DEPENDENTS - 1)]
    direct += [("web/api.py", "core/engine.py"), ("web/views.py", "core/base.py")]
    line = _depending(direct)
    names = ", ".join(f"app/m{n}.py" for n in range(NAMED_DEPENDENTS - 1))
    assert line == (
        f"What depends on them: on core/base.py: {names}; on core/engine.py: web/api.py (+1 more)."
    )
    assert line.count("core/base.py") == 1  # named once, however many depend on it
