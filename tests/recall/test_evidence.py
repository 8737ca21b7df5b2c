from __future__ import annotations

from pathlib import Path

import pytest

from kgraph.recall.evidence import (
    DEFAULT_WEAK_FILES,
    EvidenceSettings,
    is_weak_file,
    load_evidence_settings,
    rarity,
    weigh,
)


def test_rarity_falls_as_more_items_name_a_file() -> None:
    total = 1_000
    values = [rarity(count, total) for count in (1, 10, 100, 500, 1_000)]
    assert values[0] == pytest.approx(1.0)
    assert values == sorted(values, reverse=True)
    assert values[-1] == pytest.approx(0.0)
    assert values[3] < 0.15  # named by half the items: weak


def test_small_stores_are_not_all_hubs() -> None:
    assert rarity(3, 3) > 0.7  # three items, all about README.md: still evidence


@pytest.mark.parametrize(
    "path",
    [
        "CHANGES",
        "CHANGELOG.md",
        "doc/build/changelog.rst",
        "doc/build/unreleased/438.rst",
        "poetry.lock",
        "package-lock.json",
        "httpx/__version__.py",
        "VERSION",
    ],
)
def test_changelogs_lock_and_version_files_are_weak(path: str) -> None:
    assert is_weak_file(path, EvidenceSettings())


@pytest.mark.parametrize("path", ["mako/lexer.py", "httpx/_config.py", "docs/changes_guide.txt"])
def test_code_is_not_weak(path: str) -> None:
    assert not is_weak_file(path, EvidenceSettings())


def test_weigh_combines_rarity_and_weak_names() -> None:
    weights = weigh({"CHANGES": 1, "a.py": 1, "hub.py": 400}, 500, EvidenceSettings())
    assert weights["a.py"] == pytest.approx(1.0)
    assert weights["CHANGES"] == pytest.approx(0.1)
    assert weights["hub.py"] < 0.1
    areas = weigh({"CHANGES": 1}, 500, EvidenceSettings(), paths=False)
    assert areas["CHANGES"] == pytest.approx(1.0)


def test_settings_come_from_kgraph_toml(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "kgraph.toml").write_text(
        '[recall]\nweak_files = ["*.snap"]\nuse_default_weak_files = false\n'
        "weak_file_weight = 0.3\n"
    )
    settings = load_evidence_settings(tmp_path)
    assert settings.weak_files == ("*.snap",)
    assert settings.weak_file_weight == 0.3
    assert is_weak_file("tests/__snapshots__/a.snap", settings)
    assert not is_weak_file("CHANGES", settings)


@pytest.mark.parametrize(
    "bad", ["not toml [", "[recall]\nweak_file_weight = 7\nweak_files = 'x'\n"]
)
def test_bad_settings_fall_back_to_defaults(tmp_path: Path, bad: str) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "kgraph.toml").write_text(bad)
    settings = load_evidence_settings(tmp_path)
    assert settings.weak_file_weight == 0.1
    assert set(DEFAULT_WEAK_FILES) <= set(settings.weak_files)
