"""How a failed command ends (kgraph.cli.failures): one line on stderr and an exit code, the
same through Click and on the fast paths."""

from __future__ import annotations

import pytest

from kgraph.cli.failures import failure_exit, one_line
from kgraph.errors import InvalidValueError, NotFoundError


def ended(exc: BaseException, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        raise exc
    except BaseException as caught:
        code = failure_exit(caught)
    captured = capsys.readouterr()
    assert captured.out == ""
    return code, captured.err


def test_a_kgraph_error_is_its_message_and_its_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert ended(NotFoundError("no workflow wf-1"), capsys) == (1, "Error: no workflow wf-1\n")
    assert ended(InvalidValueError("bad\nvalue"), capsys) == (2, "Error: bad\\nvalue\n")


def test_ctrl_c_and_a_refused_path(capsys: pytest.CaptureFixture[str]) -> None:
    assert ended(KeyboardInterrupt(), capsys) == (130, "Aborted.\n")
    refused = OSError(36, "File name too long", "a" * 300)
    code, err = ended(refused, capsys)
    assert code == 1 and err.startswith("Error: File name too long: aaa") and len(err) < 200


def test_anything_else_is_an_internal_error_or_the_traceback_when_debugging(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, err = ended(ValueError("x" * 1000), capsys)
    assert code == 1 and err.startswith("Error: internal error: ValueError: xxx")
    assert err.count("\n") == 1 and len(err) < 500
    monkeypatch.setenv("KGRAPH_DEBUG", "1")
    with pytest.raises(ValueError):
        ended(ValueError("boom"), capsys)


def test_one_line_keeps_the_end_of_a_long_message() -> None:
    flat = one_line("start " + "y" * 1000 + " end")
    assert flat.startswith("start ") and flat.endswith(" end") and len(flat) <= 400
