"""Which captured candidates are stored as knowledge at once (``Candidate.trusted``)."""

from __future__ import annotations

from kgraph.capture.gate.candidates import Candidate


def candidate(
    origin: str, files: tuple[str, ...] = (), corroborated: str | None = None
) -> Candidate:
    return Candidate(
        ref="summary:abc",
        type="Mistake",
        content="`go test` failed: the fixture path was wrong; fixed in the loader.",
        files=files,
        origin=origin,
        corroborated=corroborated,
    )


def test_an_errors_and_fixes_bullet_naming_a_project_file_is_trusted() -> None:
    assert candidate("summary.errors", files=("cmd/entire/cli/state.go",)).trusted


def test_an_errors_and_fixes_bullet_naming_no_file_waits_for_corroboration() -> None:
    assert not candidate("summary.errors").trusted
    assert candidate("summary.errors", corroborated="commit").trusted


def test_a_commit_is_trusted_without_files_and_an_explanation_is_not_with_them() -> None:
    assert candidate("commit").trusted
    assert not candidate("explanation", files=("cmd/entire/cli/state.go",)).trusted
