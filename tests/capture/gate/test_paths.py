"""Paths from a transcript mapped onto the repo; shapes cut from real sessions, one of them
recorded on Windows (its cwd ``C:\\Users\\<name>\\git\\starcar``)."""

from __future__ import annotations

from pathlib import Path

from kgraph.capture.gate.paths import PathMap, posix_path

WINDOWS_CWD = "C:\\Users\\ann\\git\\starcar"


def test_a_windows_session_s_paths_are_made_repo_relative(tmp_path: Path) -> None:
    paths = PathMap(tmp_path, WINDOWS_CWD)
    assert paths.rel("C:\\Users\\ann\\git\\starcar\\docs\\setup.md") == "docs/setup.md"
    assert paths.rel("c:\\Users\\ann\\git\\starcar\\CLAUDE.md") == "CLAUDE.md"
    # outside the checkout: no repo path, and never taken for a relative one
    assert paths.rel("C:\\Users\\ann\\notes\\todo.md") is None
    assert paths.rel("docs\\setup.md") == "docs\\setup.md"  # relative stays relative


def test_a_windows_session_s_text_is_scrubbed(tmp_path: Path) -> None:
    paths = PathMap(tmp_path, WINDOWS_CWD)
    text = (
        "Edited C:\\Users\\ann\\git\\starcar\\scripts\\Land-Verdict.ps1; the log is in "
        "C:\\Users\\ann\\AppData\\Local\\Temp\\out.txt"
    )
    assert (
        paths.scrub(text)
        == "Edited scripts/Land-Verdict.ps1; the log is in ~/AppData/Local/Temp/out.txt"
    )


def test_posix_paths_are_left_as_they_are(tmp_path: Path) -> None:
    assert posix_path("/home/ann/x.py") == "/home/ann/x.py"
    assert posix_path("src\\x.py") == "src\\x.py"
    paths = PathMap(tmp_path, "/home/ann/repo")
    assert paths.rel("/home/ann/repo/src/x.py") == "src/x.py"
    assert paths.scrub("see /home/ann/repo/src/x.py and /home/ann/y") == "see src/x.py and ~/y"
