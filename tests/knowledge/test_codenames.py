"""The code an item names, and which of it the item's files hold."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kgraph.knowledge.codenames import (
    MAX_FILES,
    held_names,
    identifiers,
    named_code,
    read_source,
)

# Cut from the entireio/cli history (a commit message and the Go file it changed).
MESSAGE = (
    "Rename Claude handlers to use ClaudeCode prefix: handleSessionStart -> "
    "handleClaudeCodeSessionStart; extract handleSessionStartCommon as the shared "
    "implementation in hooks_claudecode_handlers.go."
)
SOURCE = """\
package cli

func handleClaudeCodeSessionStart() error { return handleSessionStartCommon() }

func handleSessionStartCommon() error { return nil }
"""


def test_code_names_are_the_identifier_shapes_of_six_or_more_characters() -> None:
    text = "Call `readSessionID` (not read_id); SESSION_TTL and HashWorktreeID; a Session."
    assert named_code(text) == {"readSessionID", "read_id", "SESSION_TTL", "HashWorktreeID"}


def test_a_files_own_stem_names_the_file_not_code_in_it() -> None:
    text = "manual_commit_hooks calls migrateShadowBranch"
    assert named_code(text, ["cmd/strategy/manual_commit_hooks.go"]) == {"migrateShadowBranch"}


def test_a_name_is_held_only_as_a_whole_identifier() -> None:
    words = identifiers(SOURCE)
    assert "handleSessionStartCommon" in words
    assert "handleSessionStart" not in words  # a prefix of another name is not that name


def test_held_names_are_those_the_files_hold_when_read() -> None:
    files = {"cmd/hooks_claudecode_handlers.go": SOURCE}
    held = held_names(MESSAGE, list(files), files.get)
    # The old name, which the commit renamed away, was not held: it is no claim on the code.
    assert held == ["handleClaudeCodeSessionStart", "handleSessionStartCommon"]
    assert held_names(MESSAGE, ["gone.go"], files.get) is None  # no file read: not known
    assert held_names("no code named here at all", list(files), files.get) == []


def test_only_the_first_files_in_path_order_are_read() -> None:
    read: list[str] = []

    def reader(path: str) -> str:
        read.append(path)
        return SOURCE

    paths = [f"f{i}.go" for i in range(MAX_FILES + 3)]
    # The order recall reads an item's files in (by path), whatever order capture had.
    held_names(MESSAGE, list(reversed(paths)), reader)
    assert read == paths[:MAX_FILES]


def test_a_source_is_read_only_from_a_regular_file(tmp_path: Path) -> None:
    source = tmp_path / "hooks.go"
    source.write_bytes(SOURCE.encode() + b"\xff")
    assert read_source(source) == SOURCE + "\ufffd"
    assert read_source(tmp_path) is None  # a directory
    assert read_source(tmp_path / "gone.go") is None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_not_waited_on(tmp_path: Path) -> None:
    # Opening a FIFO to read waits for a writer: a hook's stale check reading an item's
    # file that is one would hang until its deadline.
    fifo = tmp_path / "state.go"
    os.mkfifo(fifo)
    assert read_source(fifo) is None
