"""Sessions the Entire CLI stored in a repository (scripts/checkpoint_sessions.py): listed
once each by their largest copy, on the checkpoint branch and on per-checkpoint refs."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from checkpoint_sessions import main, sessions

from tests.capture.transcript_builder import TranscriptBuilder

IDENTITY = {
    "GIT_AUTHOR_NAME": "T",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "T",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}
FIRST = "11111111-0000-4000-8000-000000000001"
SECOND = "22222222-0000-4000-8000-000000000002"
THIRD = "33333333-0000-4000-8000-000000000003"


def _git(repo: Path, *args: str, stdin: bytes | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=repo, input=stdin, capture_output=True, check=True)
    return done.stdout.decode().strip()


def _transcript(tmp: Path, session_id: str, prompts: int) -> bytes:
    builder = TranscriptBuilder(session_id, "/home/dev/project")
    for n in range(prompts):
        builder.prompt(f"step {n}: fix the retry loop").tool(
            "Read", {"file_path": "/home/dev/project/a.py"}, "a = 1\n"
        )
    return builder.write(tmp / f"{session_id}-{prompts}.jsonl").read_bytes()


def _commit_tree(repo: Path, files: dict[str, bytes], ref: str) -> None:
    """Commit ``files`` (path -> bytes) as the whole tree of ``ref``, with no parent."""
    index = repo / ".git" / "tmp-index"
    env = {**os.environ, "GIT_INDEX_FILE": str(index)}
    for path, data in files.items():
        blob = _git(repo, "hash-object", "-w", "--stdin", stdin=data)
        info = f"100644,{blob},{path}"
        command = ["git", "update-index", "--add", "--cacheinfo", info]
        subprocess.run(command, cwd=repo, env=env, check=True)
    tree = subprocess.run(
        ["git", "write-tree"], cwd=repo, env=env, capture_output=True, check=True
    ).stdout.decode()
    index.unlink()
    _git(repo, "update-ref", ref, _git(repo, "commit-tree", tree.strip(), "-m", "checkpoints"))


def _meta(session_id: str, agent: str = "Claude Code") -> bytes:
    return json.dumps({"session_id": session_id, "agent": agent, "branch": "fix/retry"}).encode()


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    whole = _transcript(tmp_path, FIRST, 3)
    short = b"\n".join(whole.split(b"\n")[:2]) + b"\n"  # an earlier save of the same session
    _commit_tree(
        root,
        {
            "ab/cdef012345/0/full.jsonl": short,
            "ab/cdef012345/0/metadata.json": _meta(FIRST),
            "ab/cdef012345/1/full.jsonl": whole,
            "ab/cdef012345/1/metadata.json": _meta(FIRST),
            "cd/ef01234567/0/full.jsonl": _transcript(tmp_path, SECOND, 2),
            "cd/ef01234567/0/metadata.json": _meta(SECOND, "Gemini CLI"),
        },
        "refs/heads/entire/checkpoints/v1",
    )
    _commit_tree(
        root,
        {"0/full.jsonl": _transcript(tmp_path, THIRD, 6), "0/metadata.json": _meta(THIRD)},
        "refs/entire/checkpoints/ef/ef0123456789",
    )
    return root / ".git"


def test_each_session_once_by_its_largest_copy(repo: Path) -> None:
    found, lacking = sessions(repo)
    by_id = {s.session_id: s for s in found}
    assert set(by_id) == {FIRST, SECOND, THIRD} and lacking == []
    assert by_id[FIRST].copies == 2 and by_id[FIRST].copy.path == "ab/cdef012345/1/full.jsonl"
    assert (by_id[FIRST].prompts, by_id[FIRST].tools) == (3, 3)
    assert by_id[SECOND].agent == "Gemini CLI" and by_id[SECOND].branch == "fix/retry"
    assert by_id[THIRD].copy.ref == "refs/entire/checkpoints/ef/ef0123456789"
    assert by_id[THIRD].cwd == "/home/dev/project"


def test_the_listing_filters_by_prompts(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(repo), "--min-prompts", "3"]) == 0
    out = capsys.readouterr().out
    assert FIRST[:8] in out and THIRD[:8] in out and SECOND[:8] not in out
    assert main([str(repo), "--min-prompts", "50"]) == 0
    assert "none of the 3 sessions on the checkpoint refs passes" in capsys.readouterr().out


def test_extract_writes_the_largest_copy_byte_for_byte(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    # the listing's filters do not narrow what --extract names
    extract = ["--min-prompts", "50", "--extract", FIRST[:8], THIRD, "--out", str(out)]
    assert main([str(repo), *extract]) == 0
    whole = _git(
        repo.parent, "cat-file", "blob", "entire/checkpoints/v1:ab/cdef012345/1/full.jsonl"
    )
    assert (out / f"{FIRST}.jsonl").read_text() == whole + "\n"
    assert (out / f"{THIRD}.jsonl").is_file()


def test_an_unknown_id_or_a_folder_in_the_way_fails(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / f"{SECOND}.jsonl").mkdir(parents=True)
    assert main([str(repo), "--extract", "99999999", "--out", str(out)]) == 1
    assert main([str(repo), "--extract", SECOND, "--out", str(out)]) == 1
    assert (out / f"{SECOND}.jsonl").is_dir()


def test_a_folder_that_is_no_repository_is_said_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{tmp_path}: git cannot read it (") and err.count("\n") == 1
