"""A captured item's code names are read where the item describes the code."""

from __future__ import annotations

import subprocess
from pathlib import Path

from kgraph.capture.code_at import CodeAt
from kgraph.knowledge.prepare import prepare_item
from kgraph.runtime.git import Blobs


def _run(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout.strip()


def test_a_commits_item_is_read_at_its_commit_the_rest_in_the_work_tree(tmp_repo: Path) -> None:
    (tmp_repo / "state.go").write_text("func loadState() {}\nfunc saveState() {}\n")
    _run(tmp_repo, "add", ".")
    _run(tmp_repo, "commit", "-qm", "state")
    sha = _run(tmp_repo, "rev-parse", "HEAD")
    # The session went on after its commit: saveState is gone from the work tree.
    (tmp_repo / "state.go").write_text("func loadState() {}\n")
    item = prepare_item("loadState and saveState share one lock", files=["state.go"])
    with Blobs(tmp_repo) as blobs:
        code = CodeAt(tmp_repo, blobs)
        assert code.record(item, f"commit:{sha}").data["code"] == ["loadState", "saveState"]
        assert code.record(item, f"commit:{sha}:2").data["code"] == ["loadState", "saveState"]
        assert code.record(item, "said:12").data["code"] == ["loadState"]
        outside = prepare_item("loadState is here", files=["../elsewhere/state.go"])
        assert code.record(outside, "said:13").data["code"] == []
