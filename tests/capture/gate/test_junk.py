from __future__ import annotations

import pytest

from kgraph.capture.gate.junk import JunkGate, junk_reason


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("   ", "empty"),
        (None, "empty"),
        ("fixed", "too short"),
        ("works now", "too short"),
        ("Worked on Testing: modified 12 file(s)", "activity log"),
        ("Modified 3 files in src", "activity log"),
        ("3f9a2c1b7d 8e7f6a5b4c 0a1b2c3d4e", "not prose"),
        ("WIP", "too short"),
        ("The retry loop backs off because the auth server rate-limits", None),
    ],
)
def test_junk_reason(text: str | None, reason: str | None) -> None:
    assert junk_reason(text) == reason


def test_gate_rejects_duplicates_within_a_run() -> None:
    gate = JunkGate()
    assert gate.admit("The cache must be cleared after a schema change")
    assert not gate.admit("the cache must be cleared after a schema change.")
    assert not gate.admit("modified 4 files")
    assert gate.rejected == {"duplicate": 1, "activity log": 1}
