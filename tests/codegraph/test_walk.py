"""Which files get parsed: languages, .gitignore (root and nested, negation), skipped folders."""

from __future__ import annotations

from pathlib import Path

from kgraph.codegraph.walk import iter_source_files, language_of
from tests.codegraph.conftest import write_tree


def _paths(root: Path, start: Path | None = None) -> set[str]:
    return {f.path for f in iter_source_files(root, start)}


def test_languages_by_extension() -> None:
    assert language_of("a.py") == "python"
    assert language_of("a.pyi") == "python"
    assert language_of("a.ts") == "typescript"
    assert language_of("a.tsx") == "tsx"
    assert language_of("a.mjs") == "javascript"
    assert language_of("vendor.min.js") is None
    assert language_of("README.md") is None


def test_gitignore_is_honoured(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            ".gitignore": "generated/\n*_pb2.py\n!keep_pb2.py\n/top_only.py\n",
            "src/app.py": "",
            "src/x_pb2.py": "",
            "src/keep_pb2.py": "",
            "generated/out.py": "",
            "top_only.py": "",
            "src/top_only.py": "",
            "src/web/.gitignore": "*.js\n!main.js\n",
            "src/web/main.js": "",
            "src/web/bundle.js": "",
            "src/web/app.ts": "",
        },
    )
    assert _paths(root) == {
        "src/app.py",
        "src/keep_pb2.py",
        "src/top_only.py",
        "src/web/main.js",
        "src/web/app.ts",
    }


def test_vendored_and_generated_folders_are_skipped(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "app.py": "",
            "node_modules/lib/index.js": "",
            ".venv/lib/site.py": "",
            "venv/x.py": "",
            "build/y.py": "",
            "dist/z.js": "",
            "pkg/__pycache__/m.py": "",
            "pkg.egg-info/a.py": "",
            "lib/site-packages/s.py": "",
            ".git/hooks/h.py": "",
            "lib/venv/__init__.py": "",  # a package named venv (CPython's), not a venv
            "lib/venv/__main__.py": "",
        },
    )
    assert _paths(root) == {"app.py", "lib/venv/__init__.py", "lib/venv/__main__.py"}


def test_a_start_folder_gives_root_relative_paths_and_parent_ignores(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            ".gitignore": "*.gen.py\n",
            "src/pkg/a.py": "",
            "src/pkg/b.gen.py": "",
            "other.py": "",
        },
    )
    assert _paths(root, root / "src") == {"src/pkg/a.py"}


def test_huge_files_are_skipped(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"small.py": "x = 1\n"})
    (root / "huge.py").write_bytes(b"#" * 2_100_000)
    assert _paths(root) == {"small.py"}
