from __future__ import annotations

import pytest

from kgraph.knowledge.prepare import prepare_item
from kgraph.redact.home import expand_home, mask_home


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        (
            "git worktree add scoped to /Users/ann/Projects/wt/collab-",
            "git worktree add scoped to ~/Projects/wt/collab-",
        ),
        ("/home/ann/x and /root/y", "~/x and ~/y"),
        ("C:\\Users\\ann\\git\\x.md and C:/Users/ann/y", "~\\git\\x.md and ~/y"),
        ("/usr/lib/x and https://host/Users/ann", "/usr/lib/x and https://host/Users/ann"),
        # a repository's own paths that only contain a home's name (a real repository's
        # cmd/git-sync/root.go became cmd/git-sync~.go when this user was root)
        (
            "cmd/git-sync/root.go, /root.go, x/home/ann/y",
            "cmd/git-sync/root.go, /root.go, x/home/ann/y",
        ),
    ],
)
def test_home_directories_are_masked(text: str, masked: str) -> None:
    assert mask_home(text) == masked


def test_every_item_written_has_its_home_paths_masked() -> None:
    # A commit message quoted a worktree path (a real session's commit, name changed): the
    # item's text and a file outside the project both lose the home directory.
    item = prepare_item(
        "Scope git worktree add/remove to /Users/ann/Projects/wt/collab- branches",
        files=["/Users/ann/Projects/wt/collab-x/README.md"],
    )
    assert "/Users/ann" not in item.text and "~/Projects/wt/collab-" in item.text
    assert item.files == ("~/Projects/wt/collab-x/README.md",)


def test_a_stored_home_path_expands_for_this_user() -> None:
    expanded = expand_home("~/x")
    assert expanded is not None and not expanded.startswith("~")
    assert expand_home("/abs") == "/abs" and expand_home(None) is None


def test_this_user_s_home_is_masked_only_as_a_whole_directory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOME", "/root")
    assert mask_home("cmd/git-sync/root.go and /root/x") == "cmd/git-sync/root.go and ~/x"
    monkeypatch.setenv("HOME", "/srv/ann")
    assert mask_home("/srv/ann/x, /srv/anna/x, /srv/ann") == "~/x, /srv/anna/x, ~"
