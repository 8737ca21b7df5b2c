"""The code an item names, and which of it the item's files hold."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kgraph.knowledge.codenames import (
    MAX_FILES,
    MAX_WRITTEN,
    held_names,
    identifiers,
    line_keys,
    named_code,
    read_source,
    written_lines,
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


# Cut from the entireio/cli history: fecc0ed "fix: make GetByAgentType accept both display
# and registry names" (registry.go before and after it).
REGISTRY_BEFORE = """\
func GetByAgentType(agentType string) (Agent, error) {
\tregistryName, ok := AgentTypeToRegistryName[agentType]
\tif !ok {
\t\treturn nil, fmt.Errorf("unknown agent type: %s", agentType)
\t}
\treturn Get(registryName)
}
"""
REGISTRY_AFTER = """\
func GetByAgentType(agentType string) (Agent, error) {
\t// Try human-readable name first
\tif registryName, ok := AgentTypeToRegistryName[agentType]; ok {
\t\treturn Get(registryName)
\t}
\t// Fall back to treating it as a registry name
\treturn Get(agentType)
}
"""


def test_written_lines_are_the_telling_lines_a_change_added() -> None:
    files = {"registry.go": (REGISTRY_BEFORE, REGISTRY_AFTER)}
    wrote = written_lines(files, lambda p: files[p][1], lambda p: files[p][0])
    assert wrote is not None
    after_only = line_keys(REGISTRY_AFTER) - line_keys(REGISTRY_BEFORE)
    # the comments, the new if and the fallback; not the signature nor "return Get(...)",
    # which the file held before, and not "}" (too short to tell anything)
    assert set(wrote) == after_only
    assert len(wrote) == 4
    new_file = written_lines(["registry.go"], lambda p: REGISTRY_AFTER, lambda p: None)
    assert new_file is not None and set(new_file) == line_keys(REGISTRY_AFTER)
    assert written_lines(["registry.go"], lambda p: None, lambda p: REGISTRY_BEFORE) is None


def test_a_line_is_its_words_so_a_formatter_does_not_erase_it() -> None:
    black = 'return Get( "registry",  name, )\n'
    assert line_keys(black) == line_keys("return Get('registry', name)\n")
    assert line_keys("}\nreturn\n\telse:\n") == frozenset()


def test_written_lines_keep_a_few_per_file() -> None:
    after = "".join(f"value_number_{n} = {n}\n" for n in range(40))
    wrote = written_lines(
        ["a.py", "b.py"], lambda p: after if p == "a.py" else None, lambda p: None
    )
    assert wrote is not None and len(wrote) == MAX_WRITTEN
