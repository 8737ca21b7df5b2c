"""What a person sees when the database is mistyped, damaged or read-only: one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kgraph.cli.main import cli
from tests.db.test_open import corrupt_body, deny_writes, filled


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KGRAPH_HOOK_NO_SPAWN", "1")
    monkeypatch.chdir(tmp_path)


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), env=env)
    return result.exit_code, result.stdout, result.stderr


def one_line_error(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), stderr
    assert "internal error" not in lines[0] and "Traceback" not in stderr
    return lines[0]


def test_a_mistyped_path_is_exit_2_and_creates_nothing(tmp_path: Path) -> None:
    typo = tmp_path / "tpyo" / "k.db"
    code, out, err = run("--db", str(typo), "workflow", "list")
    assert code == 2 and out == "" and "does not exist" in one_line_error(err)
    code, _, err = run("workflow", "list", env={"KGRAPH_DB": str(typo)})
    assert code == 2 and "does not exist" in one_line_error(err)
    assert not typo.parent.exists()


def test_an_unknown_url_scheme_is_exit_2() -> None:
    code, _, err = run("--db", "nosuchdb://", "knowledge", "list")
    assert code == 2 and "cannot use database URL 'nosuchdb://'" in one_line_error(err)


def test_a_damaged_database_is_one_line_for_every_command(db_path: Path) -> None:
    corrupt_body(filled(db_path))
    for args in (
        ["workflow", "list"],
        ["knowledge", "list"],
        ["knowledge", "stats"],
        ["learn", "a fact worth keeping about the loader"],
        ["graph", "summary"],
        ["metrics", "summary"],
    ):
        code, _, err = run("--db", str(db_path), *args)
        assert code == 1 and "is damaged" in one_line_error(err), args


def test_a_read_only_database_reads_and_refuses_writes_in_one_line(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    filled(db_path)
    deny_writes(monkeypatch, db_path)
    code, out, err = run("--db", str(db_path), "workflow", "list", "--json")
    assert code == 0 and out.count('"issue_number"') == 40, err
    for args in (["knowledge", "list"], ["graph", "summary"], ["metrics", "summary"]):
        code, _, err = run("--db", str(db_path), *args)
        assert code == 0, (args, err)
    code, _, err = run("--db", str(db_path), "learn", "a fact worth keeping about the loader")
    assert code == 1 and "is read-only" in one_line_error(err)
