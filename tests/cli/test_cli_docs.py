"""docs/cli.md is what scripts/cli_docs.py renders from the commands' own --help, and it
documents every visible command (so a new command or a changed help text cannot be missed)."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
DOC = ROOT / "docs" / "cli.md"
FIX = "run `python scripts/cli_docs.py --write` and commit docs/cli.md"


@pytest.fixture(scope="module")
def cli_docs() -> ModuleType:
    # As tests/scripts/conftest.py does: the scripts import as top-level modules.
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    return importlib.import_module("cli_docs")


@pytest.fixture(scope="module")
def rendered(cli_docs: ModuleType) -> str:
    text: str = cli_docs.render()
    return text


def test_docs_cli_md_is_up_to_date(rendered: str) -> None:
    assert DOC.exists(), f"docs/cli.md is missing: {FIX}"
    assert DOC.read_text(encoding="utf-8") == rendered, f"docs/cli.md is stale: {FIX}"


def test_every_command_has_a_heading(cli_docs: ModuleType, rendered: str) -> None:
    names: list[str] = cli_docs.command_names()
    headings = re.findall(r"^## (kgraph\b.*)$", rendered, re.M)
    assert headings == names
    documented = set(re.findall(r"^## (kgraph\b.*)$", DOC.read_text(encoding="utf-8"), re.M))
    missing = [name for name in names if name not in documented]
    assert not missing, f"docs/cli.md lacks {missing}: {FIX}"
    # The walk reaches the lazily imported groups and their subcommands.
    assert "kgraph knowledge review" in names
    assert "kgraph graph parse" in names
    # Hidden commands stay out.
    assert "kgraph hook worker" not in names


def test_rendering_does_not_depend_on_the_machine(
    cli_docs: ModuleType, rendered: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Not on the terminal's width, the home folder, the cwd or kgraph's environment."""
    monkeypatch.setenv("COLUMNS", "60")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("KGRAPH_DB", str(tmp_path / "k.db"))
    monkeypatch.chdir(tmp_path)
    assert cli_docs.render() == rendered
