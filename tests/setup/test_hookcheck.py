"""The doctor's hook timings: installed timeouts are the limits; a slow sample is retried."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgraph.setup import hookcheck
from kgraph.setup.install import install

COMMAND = ["/opt/kgraph/bin/kgraph"]


def test_installed_timeouts_are_the_limits(tmp_repo: Path) -> None:
    install("local", tmp_repo, command=COMMAND)
    timeouts = hookcheck.installed_timeouts(tmp_repo)
    assert timeouts["SessionEnd"] == 5 and timeouts["SessionStart"] == 10


def _fake_timings(monkeypatch: pytest.MonkeyPatch, times: list[float]) -> list[int]:
    calls: list[int] = []

    def fake(command: list[str], event: str, root: Path, runs: int = 2, db_url: object = None):  # type: ignore[no-untyped-def]
        calls.append(runs)
        return times.pop(0), 0, ""

    monkeypatch.setattr(hookcheck, "time_hook", fake)
    return calls


def test_a_slow_sample_is_repeated_before_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _fake_timings(monkeypatch, [2.0, 0.2])  # a busy moment, then the real speed
    check = hookcheck.check_hook_run(COMMAND, "session-end", tmp_path, limit=5.0)
    assert check.status == "ok" and calls == [2, hookcheck.SLOW_RESAMPLES]
    calls = _fake_timings(monkeypatch, [2.0, 1.9])  # slow twice: slow, but within 5 s
    check = hookcheck.check_hook_run(COMMAND, "session-end", tmp_path, limit=5.0)
    assert check.status == "warn" and "timeout 5 s" in check.detail
    _fake_timings(monkeypatch, [6.0, 6.0])
    assert hookcheck.check_hook_run(COMMAND, "session-end", tmp_path, limit=5.0).status == "fail"
