"""The console script: hook calls skip Click; everything else is the Click CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kgraph.cli.entry import HookCall, parse_hook_call

DRIVER = """
import atexit, json, sys
out = sys.argv.pop(1)
atexit.register(lambda: json.dump(sorted(sys.modules), open(out, "w")))
sys.argv[0] = "kgraph"
from kgraph.cli.entry import main
main()
"""


@pytest.mark.parametrize(
    ("argv", "call"),
    [
        (["hook", "post-tool-use"], HookCall("post-tool-use", None, None, False)),
        (
            ["--db", "/x.db", "hook", "session-start", "--max-chars", "500", "--dry-run"],
            HookCall("session-start", "/x.db", 500, True),
        ),
        (["--db=/x.db", "hook", "stop", "--max-chars=9"], HookCall("stop", "/x.db", 9, False)),
        (["hook", "session-start", "--help"], None),
        (["hook", "nope"], None),
        (["hook", "worker", "--root", "/r"], None),
        (["learn", "x"], None),
        (["hook", "user-prompt", "--max-chars", "lots"], None),
        ([], None),
    ],
)
def test_only_the_exact_hook_shape_skips_click(argv: list[str], call: HookCall | None) -> None:
    assert parse_hook_call(argv) == call


def run_entry(args: list[str], stdin: str, cwd: Path, tmp_path: Path) -> tuple[str, set[str]]:
    modules = tmp_path / "modules.json"
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, str(modules), *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, {m.split(".")[0] for m in json.loads(modules.read_text())}


def test_a_hook_run_imports_no_click(tmp_repo: Path, tmp_path: Path) -> None:
    payload = json.dumps({"session_id": "s1", "cwd": str(tmp_repo), "tool_name": "Read"})
    out, loaded = run_entry(["hook", "post-tool-use"], payload, tmp_repo, tmp_path)
    assert out == ""
    assert "kgraph" in loaded and not loaded & {"click", "sqlalchemy", "rich"}


def test_anything_else_goes_to_click(tmp_repo: Path, tmp_path: Path) -> None:
    out, loaded = run_entry(["hook", "post-tool-use", "--help"], "", tmp_repo, tmp_path)
    assert "PostToolUse" in out and "click" in loaded
