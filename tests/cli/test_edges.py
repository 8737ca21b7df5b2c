"""Values checked where they come in: every bad one is a clear line, never "internal error"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgraph.cli.main import cli
from tests.cli.test_database_errors import one_line_error


@pytest.fixture(autouse=True)
def _project(monkeypatch: pytest.MonkeyPatch, tmp_repo: Path) -> None:
    monkeypatch.setenv("KGRAPH_HOOK_NO_SPAWN", "1")
    monkeypatch.chdir(tmp_repo)


def run(*args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


def created(*args: str) -> str:
    code, out, err = run(*args, "--json")
    assert code == 0, err
    return str(json.loads(out)["id"])


@pytest.mark.parametrize("value", ["9223372036854775808", "-9223372036854775809", "1" + "0" * 30])
@pytest.mark.parametrize(
    "args",
    [
        ["workflow", "create", "{}", "main"],
        ["workflow", "find", "{}"],
        ["workflow", "list", "--limit", "{}"],
        ["learn", "a fact about the loader", "--issue", "{}"],
        ["knowledge", "query", "--issue", "{}"],
        ["knowledge", "prune", "--stale-days", "{}"],
        ["milestone", "create", "m", "--github-number", "{}"],
        ["metrics", "summary", "--days", "{}"],
        ["graph", "find", "x", "--limit", "{}"],
    ],
)
def test_integers_beyond_64_bits_are_exit_2(args: list[str], value: str) -> None:
    code, _, err = run(*[value if a == "{}" else a for a in args])
    assert code == 2 and "Error" in err and "internal error" not in err


@pytest.mark.parametrize("value", ["nan", "inf", "1e400"])
def test_non_finite_numbers_are_exit_2(value: str) -> None:
    assert run("workflow", "cleanup", "--older-than", value, "--dry-run")[0] == 2
    assert run("learn", "a fact about the loader", "--confidence", value)[0] == 2


def test_metadata_too_deep_or_unstorable_is_exit_2() -> None:
    workflow = created("workflow", "create", "1", "main")
    for metadata in (
        '{"a": ' * 5000 + "1" + "}" * 5000,
        '{"a": ' * 40 + "1" + "}" * 40,
        '{"a": NaN}',
        '{"a": "\\ud800"}',
    ):
        code, _, err = run(
            "workflow", "log-action", workflow, "x", "success", "--metadata", metadata
        )
        assert code == 2 and "--metadata" in err and "internal error" not in err


def test_long_patterns_and_names_are_exit_2() -> None:
    for args in (["graph", "find"], ["graph", "what-calls"], ["knowledge", "show"], ["search"]):
        code, _, err = run(*args, "x" * 100_000)
        assert code == 2 and "characters long" in err, args


@pytest.mark.parametrize("command", ["find", "what-calls", "blast-radius", "callers"])
def test_a_blank_graph_name_is_exit_2(command: str) -> None:
    code, out, err = run("graph", command, " ")
    assert (code, out) == (2, "")
    assert err == "Error: a name is required: a function, class, method, module or file path\n"


def test_text_that_is_not_utf8_is_exit_2() -> None:
    code, _, err = run("learn", "caf\udcff\udcfe")
    assert code == 2 and "not valid UTF-8" in err


def test_binary_and_deep_imports_are_one_line(tmp_path: Path) -> None:
    binary = tmp_path / "x.bin"
    binary.write_bytes(b"\x00\xff\xfe" * 1000)
    code, _, err = run("knowledge", "import", str(binary))
    assert code == 2 and "not UTF-8 text" in one_line_error(err)
    code, _, err = run("knowledge", "import", "-", stdin=b"[" * 5000 + b"]" * 5000)
    assert code == 2 and "nested too deep" in one_line_error(err)
    fifo = tmp_path / "fifo"
    import os

    os.mkfifo(fifo)
    code, _, err = run("knowledge", "import", str(fifo))
    assert code == 2 and "not a regular file" in err


def test_export_to_a_missing_folder_is_one_line(tmp_path: Path) -> None:
    code, _, err = run("knowledge", "export", "--output", "/nonexistent-dir/out.jsonl")
    assert code == 2 and "does not exist" in one_line_error(err)
    code, _, err = run("knowledge", "export", "--output", "")
    assert code == 2 and "must name a file" in one_line_error(err)


def test_learn_warns_about_a_file_that_does_not_exist(tmp_repo: Path) -> None:
    (tmp_repo / "real.py").write_text("x = 1\n")
    code, _, err = run("learn", "a fact about the loader", "--file", "does/not/exist.py")
    assert code == 0 and "Warning: does/not/exist.py does not exist" in err
    code, _, err = run("learn", "another fact about the loader", "--file", "real.py")
    assert code == 0 and "Warning" not in err


def test_a_value_with_line_breaks_stays_on_one_error_line() -> None:
    code, _, err = run("knowledge", "show", "no\nsuch")
    assert code == 1 and "no\\nsuch" in one_line_error(err)


def test_metrics_summary_without_injections_says_why_not_a_rate() -> None:
    code, out, _ = run("metrics", "summary")
    assert code == 0 and "n/a (no injected items yet)" in out and "(n/a of" not in out


def test_export_never_replaces_a_fifo_or_device(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, _, err = run("knowledge", "export", "--output", str(fifo))
    assert code == 2 and "not a regular file" in one_line_error(err)
    assert fifo.exists() and not fifo.is_file()


def test_half_a_surrogate_pair_in_json_is_read_as_a_replacement(tmp_path: Path) -> None:
    """``"\\ud800"`` decodes to a lone surrogate no file or terminal accepts: once an
    "internal error: UnicodeEncodeError" in import and transcript show."""
    lines = tmp_path / "k.jsonl"
    lines.write_text('{"content": "retries \\ud800 need a deadline"}\n')
    code, out, err = run("knowledge", "import", str(lines))
    assert code == 0, err
    code, out, err = run("knowledge", "list", "--json")
    assert json.loads(out)[0]["content"] == "retries \ufffd need a deadline"
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        '{"type":"user","message":{"role":"user","content":"hi \\ud83d"},'
        '"timestamp":"2026-01-01T00:00:00Z"}\n'
    )
    code, out, err = run("transcript", "show", str(transcript))
    assert code == 0, err
    assert "hi \ufffd" in out


def test_a_path_the_system_refuses_is_one_line() -> None:
    code, _out, err = run("viz", "--focus", "a" * 5000)
    assert code == 1
    assert err.startswith("Error: File name too long: aaaa") and err.count("\n") == 1
    assert "internal error" not in err


def test_a_symlink_loop_is_one_line(tmp_path: Path) -> None:
    """Python 3.11 raises a symlink loop in Path.resolve as RuntimeError."""
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    for args in (
        ["transcript", "sessions", "--project"],
        ["knowledge", "sync-claude-md", "--project"],
    ):
        code, _out, err = run(*args, str(tmp_path / "a"))
        assert code == 1 and err.startswith("Error: Symlink loop from"), err
