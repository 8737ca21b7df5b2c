"""Code-area inference: ordered default rules, project overrides, fallback."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgraph.errors import InvalidValueError
from kgraph.knowledge.areas import (
    AreaRules,
    infer_code_area,
    load_area_rules,
    normalise_path,
    relative_path,
)


@pytest.mark.parametrize(
    ("path", "area"),
    [
        ("tests/knowledge/test_store.py", "Testing"),
        ("src/app/test_views.py", "Testing"),
        ("web/src/Button.test.tsx", "Testing"),
        ("pkg/server/handler_test.go", "Testing"),
        ("tests/README.md", "Testing"),  # tests come before *.md
        ("docs/guide.md", "Documentation"),
        ("README.md", "Documentation"),
        ("packages/web/docs/setup.txt", "Documentation"),
        ("guide/install.adoc", "Documentation"),
        ("alembic/versions/0001_initial.py", "Database"),
        ("app/migrations/0002_add_user.py", "Database"),
        ("schema.sql", "Database"),
        (".github/workflows/ci.yml", "CI/CD"),
        ("src/api/handler.py", "API"),
        ("server/routes/users.ts", "API"),
        ("kgraph/cli/main.py", "CLI"),
        ("web/components/Button.tsx", "Frontend"),
        ("scripts/bench_search.py", "Scripts"),
        ("pyproject.toml", "Build & Config"),
        ("uv.lock", "Build & Config"),
        ("mise.toml", "Build & Config"),
        ("web/pnpm-lock.yaml", "Build & Config"),
    ],
)
def test_default_rules(path: str, area: str) -> None:
    assert infer_code_area(path) == area


@pytest.mark.parametrize(
    ("path", "area"),
    [
        ("kgraph/knowledge/store.py", "Knowledge"),
        ("src/billing/invoice.py", "Billing"),
        ("lib/utils.py", "Lib"),
        ("frontend_app/x.js", "Frontend app"),
        ("main.py", "Root"),
    ],
)
def test_directory_fallback(path: str, area: str) -> None:
    assert infer_code_area(path) == area


def test_paths_are_normalised_before_matching() -> None:
    assert normalise_path("./src\\api//handler.py") == "src/api/handler.py"
    assert infer_code_area("./src\\api\\handler.py") == "API"


def test_relative_path_strips_the_project_root(tmp_path: Path) -> None:
    inside = tmp_path / "src" / "a.py"
    assert relative_path(str(inside), tmp_path) == "src/a.py"
    assert relative_path("src/a.py", tmp_path) == "src/a.py"
    assert relative_path("/elsewhere/b.py", tmp_path) == "/elsewhere/b.py"


def _write_config(root: Path, text: str) -> None:
    (root / ".claude").mkdir(parents=True, exist_ok=True)
    (root / ".claude" / "kgraph.toml").write_text(text)


def test_project_rules_come_first_and_defaults_stay(tmp_path: Path) -> None:
    _write_config(
        tmp_path,
        '[areas]\nrules = [\n  { pattern = "src/payments/", area = "Payments" },'
        '\n  { pattern = "*.proto", area = "Contracts" },\n]\n',
    )
    rules = load_area_rules(tmp_path)
    assert infer_code_area("src/payments/tests/test_refund.py", rules) == "Payments"
    assert infer_code_area("api/v1/user.proto", rules) == "Contracts"
    assert infer_code_area("tests/test_x.py", rules) == "Testing"


def test_project_can_drop_defaults_and_set_a_fixed_fallback(tmp_path: Path) -> None:
    _write_config(
        tmp_path,
        '[areas]\nuse_defaults = false\nfallback = "General"\n[areas.rules]\n"docs/" = "Docs"\n',
    )
    rules = load_area_rules(tmp_path)
    assert infer_code_area("docs/a.md", rules) == "Docs"
    assert infer_code_area("tests/test_x.py", rules) == "General"


def test_no_config_gives_the_defaults(tmp_path: Path) -> None:
    assert load_area_rules(tmp_path) == AreaRules()


@pytest.mark.parametrize(
    "text",
    [
        '[areas]\nrules = [ { pattern = "x/" } ]\n',
        "[areas]\nrules = 3\n",
        "[areas]\nuse_defaults = 'yes'\n",
        "[areas\n",
    ],
)
def test_bad_config_is_a_one_line_error(tmp_path: Path, text: str) -> None:
    _write_config(tmp_path, text)
    with pytest.raises(InvalidValueError) as info:
        load_area_rules(tmp_path)
    assert "kgraph.toml" in str(info.value)
