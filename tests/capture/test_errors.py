"""Which lines of a tool error are kept: the informative ones, not the runner's wrapper."""

from __future__ import annotations

import pytest

from kgraph.capture.errors import informative_lines, is_protocol_error


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (
            "cmd/x.go:340:21: os/exec.Command must not be called. use os/exec.CommandContext "
            "(noctx)\n[lint] ERROR task failed\nexit status 1",
            [
                "cmd/x.go:340:21: os/exec.Command must not be called. use "
                "os/exec.CommandContext (noctx)"
            ],
        ),
        ("[lint] ERROR task failed\nexit status 1", []),
        (
            'Traceback (most recent call last):\n  File "/src/app.py", line 3, in <module>\n'
            "    main()\nKeyError: 'name'\n",
            ["KeyError: 'name'"],
        ),
        (
            "FAILED tests/test_c.py::test_load - UnicodeDecodeError: 'charmap' codec\n"
            "E   AssertionError: assert 1 == 2\n1 failed in 0.1s",
            [
                "FAILED tests/test_c.py::test_load - UnicodeDecodeError: 'charmap' codec",
                "E AssertionError: assert 1 == 2",
            ],
        ),
        (
            'src/a.ts(3,5): error TS2322: Type "string" is not assignable to type "number".',
            ['src/a.ts(3,5): error TS2322: Type "string" is not assignable to type "number".'],
        ),
    ],
    ids=["lint-rule", "wrapper-only", "python-traceback", "pytest", "tsc"],
)
def test_informative_lines(output: str, expected: list[str]) -> None:
    assert informative_lines(output) == expected


def test_errors_of_the_tool_protocol_say_nothing_about_the_code() -> None:
    assert is_protocol_error("String to replace not found in file.")
    assert is_protocol_error("The user doesn't want to proceed with this tool use.")
    assert not is_protocol_error("KeyError: 'name'")
