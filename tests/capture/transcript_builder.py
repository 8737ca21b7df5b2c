"""A chaining wrapper over the transcript engineer's test factory (tests/transcript/factory.py),
with the sequences capture tests need: an error and its fix, a compaction."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.transcript.factory import Session


class TranscriptBuilder:
    def __init__(self, session_id: str, cwd: str, branch: str = "main") -> None:
        self.session_id = session_id
        self.branch = branch
        self.session = Session(session_id=session_id, cwd=cwd)

    def prompt(self, text: str) -> TranscriptBuilder:
        self.session.prompt(text, gitBranch=self.branch)
        return self

    def say(self, text: str) -> TranscriptBuilder:
        self.session.text(text, stop_reason="end_turn")
        return self

    def tool(
        self,
        name: str,
        tool_input: dict[str, Any],
        result: str,
        *,
        error: bool = False,
        result_data: Any = None,
    ) -> TranscriptBuilder:
        data = result_data
        if data is None:
            data = (
                f"Error: {result}"
                if error
                else {"stdout": result, "stderr": "", "interrupted": False}
            )
        self.session.tool(name, tool_input, result, is_error=error, tool_use_result=data)
        return self

    def error_fix(
        self, repo: Path, command: str = "pytest tests/test_config.py"
    ) -> TranscriptBuilder:
        """A failing command, an edit of src/config.py, and the same command passing."""
        path = str(repo / "src" / "config.py")
        edit = {
            "file_path": path,
            "old_string": "open(p)",
            "new_string": "open(p, encoding='utf-8')",
        }
        self.tool(
            "Bash",
            {"command": command},
            "FAILED tests/test_config.py::test_load - UnicodeDecodeError: 'charmap' codec "
            "can't decode byte 0x9d in position 12",
            error=True,
        )
        self.tool(
            "Edit",
            edit,
            "The file has been updated.",
            result_data={
                "filePath": path,
                "oldString": edit["old_string"],
                "newString": edit["new_string"],
            },
        )
        self.tool("Bash", {"command": command}, "1 passed in 0.02s")
        return self

    def compaction(self, summary: str) -> TranscriptBuilder:
        self.session.system(
            "compact_boundary", compactMetadata={"trigger": "auto", "preTokens": 150000}
        )
        self.session.prompt(summary, isCompactSummary=True, isVisibleInTranscriptOnly=True)
        return self

    def text(self) -> str:
        return "".join(line + "\n" for line in self.session.text_lines())

    def write(self, path: Path) -> Path:
        return self.session.write(path)


def utf8_fix_session(session_id: str, repo: Path, branch: str, path: Path) -> Path:
    """The session the end-to-end and team tests capture: failing config tests on Windows,
    an error and its fix in ``repo``, and the explanation (a Mistake about src/config.py)."""
    return (
        TranscriptBuilder(session_id, str(repo), branch)
        .prompt("The config tests fail on Windows, please fix them.")
        .error_fix(repo)
        .say(
            "The issue was that `load` opened src/config.py files with the locale encoding, "
            "so the cp1252 default crashed on non-ASCII values; the loader now reads UTF-8."
        )
        .write(path)
    )
