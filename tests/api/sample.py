"""A small project for API and MCP tests: a git repo with code, knowledge, a workflow and a
parsed code graph (fake embedder: no model is ever loaded)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import kgraph
from kgraph.api import Project

FILES = {
    "app/__init__.py": "from app.repo import Repo, open_store\n",
    "app/repo.py": (
        "def open_store(path):\n"
        "    return path\n\n\n"
        "class Repo:\n"
        "    def save(self, item):\n"
        "        return open_store(item)\n\n"
        "    def load(self):\n"
        "        return open_store('x')\n"
    ),
    "app/cli.py": (
        "from app.repo import Repo, open_store\n\n\n"
        "def main():\n"
        "    Repo().save(1)\n"
        "    open_store('y')\n"
    ),
    "app/web.py": "from app.cli import main\n\n\ndef serve():\n    main()\n",
    "tests/test_repo.py": (
        "from app.repo import Repo\n\n\ndef test_save():\n    assert Repo().save(1) == 1\n"
    ),
}

KNOWLEDGE = [
    (
        "Mistake",
        "open_store must not be called twice per process: the second engine deadlocks "
        "on the WAL lock",
        ["app/repo.py"],
    ),
    (
        "Learning",
        "Repo.save retries three times on a locked database before giving up",
        ["app/repo.py"],
    ),
    (
        "Pattern",
        "CLI commands stay thin: parse arguments, call one library function, print",
        ["app/cli.py"],
    ),
    ("Learning", "The web server imports the CLI entry point to reuse its wiring", ["app/web.py"]),
    ("Learning", "Payment webhooks are retried by the provider for 72 hours", []),
]


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def make_repo(base: Path) -> Path:
    repo = base / "sample"
    for name, text in FILES.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "T")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "initial")
    return repo


def fill(kg: Project, extra_items: int = 0) -> dict[str, str]:
    """Knowledge, one workflow and the parsed graph; returns ids by short name."""
    ids: dict[str, str] = {}
    for type_, text, files in KNOWLEDGE:
        ids[text.split()[0].lower()] = kg.learn(text, type=type_, files=files).entity_id
    for n in range(extra_items):
        unique = " ".join(f"w{n}k{k}" for k in range(15))  # distinct: no near-duplicates
        kg.learn(
            f"Storage note {n}: the store keeps a write-ahead log ({unique}); readers never "
            "block writers in that mode",
            files=["app/repo.py"],
        )
    ids["workflow"] = kg.workflows.create(15, "issue-15", phase="implement").id
    kg.graph.parse()
    return ids


def open_sample(
    base: Path, extra_items: int = 0, url: str | None = None
) -> tuple[Project, dict[str, str]]:
    """The sample project, in its repo's own SQLite file or at ``url`` (a server)."""
    repo = make_repo(base)
    kg = kgraph.open(url or repo, embedder="fake", cwd=repo)
    return kg, fill(kg, extra_items)
