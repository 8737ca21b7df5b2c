"""A captured item's code names are read where the item describes the code."""

from __future__ import annotations

import subprocess
from pathlib import Path

from kgraph.capture.code_at import CodeAt
from kgraph.knowledge.codenames import line_keys
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
        assert "code" not in code.record(outside, "said:13").data


def test_an_item_whose_files_held_none_of_its_code_is_not_vouched_for(tmp_repo: Path) -> None:
    (tmp_repo / "push.go").write_text("func PushObjects() {}\n")
    _run(tmp_repo, "add", ".")
    _run(tmp_repo, "commit", "-qm", "push")
    sha = _run(tmp_repo, "rev-parse", "HEAD")
    # Cut from a replayed session: a commit made on a branch that was never merged, so
    # the repository capture reads does not have it, and the spool it names is not here.
    item = prepare_item(
        "PushObjects writes the update-request and the pack into one SpooledBody",
        files=["push.go"],
    )
    with Blobs(tmp_repo) as blobs:
        code = CodeAt(tmp_repo, blobs)
        assert "code" not in code.record(item, "commit:" + "f" * 40).data  # not in git
        assert code.record(item, f"commit:{sha}").data["code"] == ["PushObjects"]
        said = prepare_item("SpooledBody buffers the body to a temp file", files=["push.go"])
        # the session removed it again before it ended: no record, recall judges the names
        assert "code" not in code.record(said, "said:1").data
        # a commit that removed what it names says so: its empty record stands
        removed = prepare_item("Remove SpooledBody, now unused", files=["push.go"])
        assert code.record(removed, f"commit:{sha}").data["code"] == []


def test_a_commits_item_records_the_lines_its_commit_wrote(tmp_repo: Path) -> None:
    (tmp_repo / "registry.go").write_text("func GetByAgentType(agentType string) {\n}\n")
    _run(tmp_repo, "add", ".")
    _run(tmp_repo, "commit", "-qm", "registry")
    added = _run(tmp_repo, "rev-parse", "HEAD")
    (tmp_repo / "registry.go").write_text(
        "func GetByAgentType(agentType string) {\n\t// Fall back to a registry name\n}\n"
    )
    _run(tmp_repo, "commit", "-qam", "fall back")
    sha = _run(tmp_repo, "rev-parse", "HEAD")
    item = prepare_item("GetByAgentType falls back to a registry name", files=["registry.go"])
    fallback = line_keys("// Fall back to a registry name")
    with Blobs(tmp_repo) as blobs:
        code = CodeAt(tmp_repo, blobs)
        # only the line the commit added: the signature was its parent's
        assert code.record(item, f"commit:{sha}").data["wrote"] == sorted(fallback)
        assert "wrote" not in code.record(item, "said:3").data  # a session's words: no commit
        assert "wrote" not in code.record(item, "commit:" + "f" * 40).data  # not in git
        # a commit that added the file wrote every line it has
        signature = line_keys("func GetByAgentType(agentType string) {")
        assert code.record(item, f"commit:{added}").data["wrote"] == sorted(signature)


def test_a_commits_lines_in_a_document_are_not_recorded(tmp_repo: Path) -> None:
    # Cut from henryph24/neuralips26: a reply whose paragraphs were reworded again and
    # again while what each commit settled stood.
    (tmp_repo / "reply.md").write_text("The anchor control settles W3 from the paper.\n")
    (tmp_repo / "probe.py").write_text("def probe_model(path):\n    return load(path)\n")
    _run(tmp_repo, "add", ".")
    _run(tmp_repo, "commit", "-qm", "settle W3")
    sha = _run(tmp_repo, "rev-parse", "HEAD")
    with Blobs(tmp_repo) as blobs:
        code = CodeAt(tmp_repo, blobs)
        reply = prepare_item("Settle W3 from the paper in the reply", files=["reply.md"])
        assert "wrote" not in code.record(reply, f"commit:{sha}").data
        files = ["reply.md", "probe.py"]
        both = prepare_item("probe_model loads; the reply settles W3", files=files)
        wrote = code.record(both, f"commit:{sha}").data["wrote"]
        assert set(wrote) == line_keys("def probe_model(path):\n    return load(path)\n")
