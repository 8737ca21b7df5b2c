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


def test_an_errors_and_fixes_bullet_waits_for_corroboration_even_naming_a_file() -> None:
    # Cut from a tenth batch of sessions: a lint hook's noise mid-edit, stored as a Mistake
    # about the file it named and shown to two later sessions that only read that file.
    lint = Candidate(
        ref="summary:affb5d6631",
        type="Mistake",
        content=(
            "ESLint/TypeScript lint error on unused imports: When I first added the "
            "Reanimated import to `app/index.tsx` without the code using it, the hook "
            "reported it unused; fixed by writing the whole file at once."
        ),
        files=("app/index.tsx",),
        origin="summary.errors",
    )
    assert not lint.trusted
    assert not candidate("summary.errors").trusted
    assert candidate("summary.errors", files=("app/index.tsx",), corroborated="commit").trusted


def test_a_commit_is_trusted_without_files_and_an_explanation_is_not_with_them() -> None:
    assert candidate("commit").trusted
    assert not candidate("explanation", files=("cmd/entire/cli/state.go",)).trusted
