"""The hook's log: written at the first record, silent (no file, no ``logging``) without."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgraph.runtime.state import LOGGER_NAME, end_hook_log, hook_log, log_path, log_warning


@pytest.fixture(autouse=True)
def _no_hook_left_open() -> object:
    yield
    end_hook_log()


def test_a_debug_record_is_dropped_without_the_debug_switch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KGRAPH_HOOK_DEBUG", raising=False)
    hook_log(tmp_path).debug("post-tool-use: %.3f s", 0.01)
    assert not log_path(tmp_path).exists()


def test_a_debug_record_is_written_with_the_debug_switch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KGRAPH_HOOK_DEBUG", "1")
    log = hook_log(tmp_path)
    log.debug("post-tool-use: %.3f s", 0.25)
    log.error("session-start failed: %s", "boom")
    from kgraph.runtime.logfile import flush_logs

    flush_logs()
    text = log_path(tmp_path).read_text()
    assert "DEBUG post-tool-use: 0.250 s" in text
    assert "ERROR session-start failed: boom" in text


def test_a_warning_from_below_goes_to_the_running_hooks_log(tmp_path: Path) -> None:
    hook_log(tmp_path)
    log_warning("kgraph.toml ignored, defaults used: %s", "bad TOML")
    from kgraph.runtime.logfile import flush_logs

    flush_logs()
    assert "WARNING kgraph.toml ignored, defaults used: bad TOML" in log_path(tmp_path).read_text()


def test_outside_a_hook_a_warning_goes_to_the_logger(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    hook_log(tmp_path)
    end_hook_log()
    import logging

    monkeypatch.setattr(logging.getLogger(LOGGER_NAME), "propagate", True)
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        log_warning("reading the local copy of %.0f s ago", 12.0)
    assert "reading the local copy of 12 s ago" in caplog.text
    assert not log_path(tmp_path).exists()
