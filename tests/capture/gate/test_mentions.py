"""Which files an item is about: names it writes as code, never English words that a code
comment happens to put after "type" or "func"."""

from __future__ import annotations

from pathlib import Path

from kgraph.capture.gate.mentions import FileIndex, build_index
from kgraph.capture.gate.paths import PathMap
from kgraph.capture.sources.stream import Ran

# Cut from capture-dev sessions (entireio/cli, Go) and shaped after Python and TypeScript.
GO = """// Get agent type from the hook agent
func GetAgentType(hookAgent string) AgentType {
\t// Type for the session, set by the caller
\treturn agentTypeFor(hookAgent) // type from the hook
}
"""
PYTHON = """# class of the thing we return from the loader
def load_config(path):  # def for the old loader
    return Config(path)

class ConfigError(Exception):
    \"\"\"Raised for a config the loader cannot read.\"\"\"
"""
TYPESCRIPT = """/**
 * function for the check, type of the result
 */
export function checkSession(id: string): SessionState {
  // const for the default
  return lookup(id);
}
"""


def index() -> FileIndex:
    files = FileIndex(files={"cmd/agent.go", "app/config.py", "web/session.ts"})
    files.add_definitions("cmd/agent.go", GO)
    files.add_definitions("app/config.py", PYTHON)
    files.add_definitions("web/session.ts", TYPESCRIPT)
    return files


def test_comments_define_nothing() -> None:
    assert set(index().definitions) == {
        "GetAgentType", "load_config", "ConfigError", "checkSession",
    }  # fmt: skip


def test_plain_english_attaches_no_file() -> None:
    text = (
        "Session state comes from the hook, for the type that the agent reads; the check "
        "runs for every session."
    )
    assert index().files_of(text) == ()


def test_names_written_as_code_attach_the_files_defining_them() -> None:
    files = index()
    assert files.files_of("`GetAgentType` must read the hook agent first.") == ("cmd/agent.go",)
    assert files.files_of("load_config() raised ConfigError on a BOM.") == ("app/config.py",)
    assert files.files_of("checkSession returns stale state after a fork.") == ("web/session.ts",)


def test_a_read_file_s_comments_define_nothing_in_the_built_index(tmp_path: Path) -> None:
    read = Ran(
        name="Read",
        input={"file_path": str(tmp_path / "cmd/agent.go")},
        result=GO,
        is_error=False,
        call_id="t1",
    )
    built = build_index([read], PathMap(tmp_path, str(tmp_path)))
    assert built.files == {"cmd/agent.go"} and set(built.definitions) == {"GetAgentType"}
    assert built.files_of("The agent type from the hook decides it.") == ()
