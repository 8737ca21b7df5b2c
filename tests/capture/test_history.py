"""Day one: the git history's explaining commit messages become dated learnings, once."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from kgraph.capture.history import history_commits, learn_from_history
from kgraph.db import Database
from kgraph.knowledge import query_items
from tests.conftest import CliResult

WHY = "Retries reset their counter in the except branch, so a flaky server never gave up."


def _git(repo: Path, *args: str, date: str | None = None) -> None:
    env = {"GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date} if date else {}

    subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, env={**os.environ, **env}
    )


def _commit(repo: Path, path: str, message: str, date: str = "2021-03-04T05:06:07Z") -> None:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    with (repo / path).open("a") as handle:
        handle.write("x\n")
    _git(repo, "add", path)
    _git(repo, "commit", "-q", "-m", message, date=date)


def test_explaining_commits_become_dated_learnings_about_their_files(
    db: Database, tmp_repo: Path
) -> None:
    _commit(tmp_repo, "src/retry.py", f"fix: retry counter\n\n{WHY}\n\nSigned-off-by: A <a@b.c>")
    _commit(tmp_repo, "src/other.py", "bump version")  # explains nothing
    _commit(tmp_repo, "VERSION", "Release 1.2.3")
    assert [c.subject for c in history_commits(tmp_repo)][-1] == "Release 1.2.3"
    report = learn_from_history(db, tmp_repo)
    assert (report.commits, report.explained, report.stored, report.known) == (4, 1, 1, 0)
    [item] = query_items(db, files=["src/retry.py"])
    assert "Signed-off-by" not in item.content and WHY in item.content
    assert item.source == "commit" and item.created_at.year == 2021
    again = learn_from_history(db, tmp_repo)
    assert (again.stored, again.known) == (0, 1)  # idempotent
    assert "learned 0 item(s) from 4 commit(s)" in again.summary()


def test_a_commit_that_only_lists_what_changed_waits_as_a_candidate(
    db: Database, tmp_repo: Path
) -> None:
    listing = (
        "feat(web): wire random IPNS keys through useFolder hook\n\n"
        "- handleAddFile passes userPublicKey to createFileMetadata\n"
        "- forward ipnsPrivateKeyEncrypted to addFileToFolder\n"
    )
    _commit(tmp_repo, "src/folder.ts", listing)
    _commit(tmp_repo, "src/retry.py", f"fix: retry counter\n\n{WHY}")
    report = learn_from_history(db, tmp_repo)
    assert (report.explained, report.stored, report.waiting) == (1, 1, 1)
    assert "1 more only say what changed and wait as candidates" in report.summary()
    shown = [i.content for i in query_items(db, files=["src/folder.ts", "src/retry.py"])]
    assert len(shown) == 1 and WHY in shown[0]  # the listing is hidden until corroborated


def test_a_commit_answering_a_review_is_learned_as_one(db: Database, tmp_repo: Path) -> None:
    review = (
        "fix(explain): address low severity PR feedback\n\n"
        "- Update help text to reflect default branch view behavior\n"
        "- Add a nil check before dereferencing the commit's parent, which a root commit "
        "does not have\n"
    )
    _commit(tmp_repo, "src/explain.go", review)
    report = learn_from_history(db, tmp_repo)
    assert (report.explained, report.stored) == (1, 1)
    [item] = query_items(db, files=["src/explain.go"], expand_file_areas=False)
    assert item.data["origin"] == "history.review"  # recall shows it where it names the code


def test_commits_a_bot_wrote_are_not_learned(db: Database, tmp_repo: Path) -> None:
    bump = (
        "Bump pip-tools from 5.2.0 to 5.2.1\n\nBumps [pip-tools](https://github.com/jazzband/"
        "pip-tools) from 5.2.0 to 5.2.1.\n- [Release notes](https://github.com/jazzband/"
        "pip-tools/releases)\n- [Changelog](https://github.com/jazzband/pip-tools/blob/"
        "master/CHANGELOG.md)"
    )
    for name in ("dependabot[bot]", "pre-commit-ci[bot]", "release-bot"):
        _git(tmp_repo, "config", "user.name", name)
        _commit(tmp_repo, "requirements/dev.txt", bump)
    _git(tmp_repo, "config", "user.name", "A Person")
    _commit(tmp_repo, "src/retry.py", f"retry counter\n\n{WHY}")
    authors = [c.author for c in history_commits(tmp_repo)]
    assert authors[1].startswith("dependabot[bot] <") and authors[-1].startswith("A Person <")
    report = learn_from_history(db, tmp_repo)
    assert (report.explained, report.stored) == (1, 1)
    assert query_items(db, files=["requirements/dev.txt"]) == []


def test_since_and_limit_bound_what_is_read(db: Database, tmp_repo: Path) -> None:
    _commit(tmp_repo, "a.py", f"old\n\n{WHY}", date="2019-01-01T00:00:00Z")
    _commit(tmp_repo, "b.py", f"new\n\n{WHY} Again.", date="2024-01-01T00:00:00Z")
    assert [c.subject for c in history_commits(tmp_repo, since="2023-01-01")] == ["new"]
    assert len(history_commits(tmp_repo, limit=1)) == 1
    assert history_commits(tmp_repo.parent) == []  # not a git work tree


def test_learn_from_git_and_install_read_the_history(
    run_kgraph: Callable[..., CliResult], tmp_repo: Path
) -> None:
    _commit(tmp_repo, "src/retry.py", f"fix: retry counter\n\n{WHY}")
    bad = run_kgraph("learn", "--from-git", "some text", cwd=tmp_repo)
    assert bad.returncode == 2 and "one of them" in bad.stderr
    assert run_kgraph("learn", "--since", "2020-01-01", "x", cwd=tmp_repo).returncode == 2
    typo = run_kgraph("learn", "--from-git", "--since", "last tuesdya", cwd=tmp_repo)
    assert typo.returncode == 2 and "--since" in typo.stderr  # git would read it as "now"
    first = run_kgraph("learn", "--from-git", "--json", cwd=tmp_repo)
    assert json.loads(first.stdout)["stored"] == 1
    installed = run_kgraph("install", cwd=tmp_repo)
    assert "Learned 0 item(s) from 2 commit(s) of git history" in installed.stdout
    _commit(tmp_repo, "src/b.py", f"feat: b\n\n{WHY} In b too.")
    again = run_kgraph("install", cwd=tmp_repo)  # nothing to change in the settings
    assert again.stdout.startswith("Nothing to change") and "Learned 1 item(s)" in again.stdout
    assert "history" not in run_kgraph("install", "--no-history", cwd=tmp_repo).stdout
    config = tmp_repo / ".claude" / "kgraph.toml"
    assert "learn_history = false" in config.read_text()  # catch-up does as install did
    run_kgraph("install", cwd=tmp_repo)
    assert "learn_history" not in config.read_text()


def test_each_item_records_the_code_its_commit_left_in_its_files(
    db: Database, tmp_repo: Path
) -> None:
    (tmp_repo / "src").mkdir()
    (tmp_repo / "src" / "retry.py").write_text("def reset_counter(): ...\ndef old_backoff(): ...\n")
    _git(tmp_repo, "add", ".")
    _git(tmp_repo, "commit", "-q", "-m", f"fix: reset_counter in old_backoff\n\n{WHY}")
    # A later commit removes old_backoff and says so; the first item's code moved on.
    (tmp_repo / "src" / "retry.py").write_text("def reset_counter(): ...\n")
    _git(tmp_repo, "commit", "-q", "-am", f"Remove old_backoff, now unused\n\n{WHY} Gone.")
    learn_from_history(db, tmp_repo)
    items = {i.content.split("\n")[0]: i for i in query_items(db, files=["src/retry.py"])}
    assert items["fix: reset_counter in old_backoff"].data["code"] == [
        "old_backoff",
        "reset_counter",
    ]
    # read at its own commit: the name it removed was no longer there, so it is no claim
    assert items["Remove old_backoff, now unused"].data["code"] == []
