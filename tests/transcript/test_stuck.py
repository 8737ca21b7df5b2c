from __future__ import annotations

import itertools

import pytest

from kgraph.errors import InvalidValueError
from kgraph.transcript.stuck import StuckThresholds, detect_stuck
from kgraph.transcript.toolcalls import ToolCall

_ids = itertools.count()


def call(
    name: str,
    target: str,
    *,
    error: str | None = None,
    result: str = "ok",
    description: str | None = None,
) -> ToolCall:
    key = "command" if name == "Bash" else "file_path"
    tool_input: dict[str, object] = {key: target}
    if description:
        tool_input["description"] = description
    return ToolCall(
        id=f"t{next(_ids)}",
        name=name,
        input=tool_input,
        result=error if error is not None else result,
        is_error=error is not None,
        timestamp=None,
    )


def test_varied_calls_are_not_stuck() -> None:
    calls = [
        call("Read", "/a.py"),
        call("Edit", "/b.py"),
        call("Bash", "pytest"),
        call("Read", "/c.py"),
    ]
    assert detect_stuck(calls) is None
    assert detect_stuck([]) is None


def test_same_action_four_times_is_stuck() -> None:
    calls = [call("Read", "/x.py")] + [call("Bash", "ls", description=f"d{i}") for i in range(4)]
    report = detect_stuck(calls)
    assert report is not None and report.pattern == "same_action"
    assert report.count == 4 and report.tools == ("Bash",)
    assert report.call_ids == tuple(c.id for c in calls[1:])


def test_same_action_three_times_or_interrupted_is_not_stuck() -> None:
    assert detect_stuck([call("Bash", "ls") for _ in range(3)]) is None
    broken = [
        call("Bash", "ls"),
        call("Bash", "ls"),
        call("Read", "/x"),
        call("Bash", "ls"),
        call("Bash", "ls"),
    ]
    assert detect_stuck(broken) is None
    # a run that ended before the newest call is over
    recovered = [call("Bash", "ls") for _ in range(5)] + [call("Edit", "/y.py")]
    assert detect_stuck(recovered) is None


def test_same_error_three_times_is_stuck_even_with_edits_between() -> None:
    calls = []
    for _ in range(3):
        calls.append(call("Bash", "pytest -x", error="E   ImportError: cannot import name 'foo'"))
        calls.append(call("Edit", "/src/foo.py"))
    report = detect_stuck(calls)
    assert report is not None and report.pattern == "same_error"
    assert report.count == 3 and "ImportError" in report.detail


def test_same_error_twice_or_then_fixed_is_not_stuck() -> None:
    err = "Exit code 1: boom"
    assert (
        detect_stuck(
            [call("Bash", "make", error=err), call("Edit", "/m"), call("Bash", "make", error=err)]
        )
        is None
    )
    fixed = [call("Bash", "make", error=err) for _ in range(3)] + [call("Bash", "make")]
    assert detect_stuck(fixed) is None
    different = [call("Bash", "make", error=f"error {i}") for i in range(3)]
    assert detect_stuck(different) is None


def test_errors_take_priority_over_repeated_action() -> None:
    calls = [call("Bash", "make", error="boom") for _ in range(4)]
    report = detect_stuck(calls)
    assert report is not None and report.pattern == "same_error"


def test_alternation_three_cycles_is_stuck() -> None:
    calls = [call("Read", "/x.py")]
    for _ in range(3):
        calls += [call("Edit", "/a.py"), call("Bash", "pytest")]
    report = detect_stuck(calls)
    assert report is not None and report.pattern == "alternation"
    assert report.count == 3 and report.tools == ("Edit", "Bash")
    assert len(report.call_ids) == 6


def test_alternation_two_cycles_or_broken_is_not_stuck() -> None:
    two = [call("Edit", "/a.py"), call("Bash", "pytest")] * 2
    assert detect_stuck(two) is None
    broken = [
        call("Edit", "/a.py"),
        call("Bash", "pytest"),
        call("Edit", "/a.py"),
        call("Bash", "pytest"),
        call("Edit", "/b.py"),
        call("Bash", "pytest"),
    ]
    assert detect_stuck(broken) is None


def test_only_the_window_counts() -> None:
    err = "boom"
    old_errors = [call("Bash", "make", error=err) for _ in range(3)]
    filler = [call("Read", f"/f{i}.py") for i in range(20)]
    assert detect_stuck(old_errors + filler) is None
    assert detect_stuck(old_errors + filler, window=30) is not None


def test_thresholds_are_configurable() -> None:
    calls = [call("Bash", "ls") for _ in range(2)]
    assert detect_stuck(calls) is None
    assert detect_stuck(calls, StuckThresholds(same_action=2)) is not None
    config = {"stuck_same_action": 2, "stuck_window": 10}
    thresholds = StuckThresholds.from_config(config)
    assert (thresholds.same_action, thresholds.window, thresholds.same_error) == (2, 10, 3)


@pytest.mark.parametrize("bad", [0, -1, "4", True, 2.5])
def test_bad_threshold_config_is_rejected(bad: object) -> None:
    with pytest.raises(InvalidValueError, match="stuck_same_error"):
        StuckThresholds.from_config({"stuck_same_error": bad})


def test_same_action_with_changing_results_is_not_stuck() -> None:
    calls = [call("Bash", "pytest", result=f"{i} passed") for i in range(5)]
    assert detect_stuck(calls) is None
    pending = [call("Read", "/x.py", result="same") for _ in range(3)]
    pending.append(
        ToolCall(
            id="p",
            name="Read",
            input={"file_path": "/x.py"},
            result=None,
            is_error=False,
            timestamp=None,
        )
    )
    report = detect_stuck(pending)
    assert report is not None and report.count == 4
